import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { warningHeaderValues } from '../../src/http/warnings.js';

/** The header bytes as the client reads them (Node writes header strings as latin1). */
const asUtf8 = (values: string[]): string[] => values.map((v) => Buffer.from(v, 'latin1').toString('utf8'));

describe('Warning header values (kube warning recorder)', () => {
  it('writes each text once, in order, quoted with " and \\ escaped', () => {
    assert.deepEqual(warningHeaderValues(['a', 'say "hi"', 'a', 'back\\slash']), ['299 - "a"', '299 - "say \\"hi\\""', '299 - "back\\\\slash"']);
  });

  it('drops texts with control characters or lone surrogates, and empty texts', () => {
    assert.deepEqual(warningHeaderValues(['my\ntext', '', 'tab\there', 'bad \ud800', 'ok']), ['299 - "ok"']);
  });

  it('sends non-Latin-1 text as raw UTF-8 bytes, which Node accepts in a header', () => {
    const values = warningHeaderValues(['unknown field "᨞"']);
    assert.deepEqual(asUtf8(values), ['299 - "unknown field \\"᨞\\""']);
    // Every character is a byte: setHeader would throw ERR_INVALID_CHAR otherwise.
    assert.ok(values.every((v) => /^[\x20-\xff]*$/.test(v)));
  });

  it('past 4,096 runes in all, cuts every text to 256 runes and drops what does not fit', () => {
    const long = (c: string): string => c.repeat(1000);
    const values = warningHeaderValues([long('a'), long('b'), long('c'), long('d'), 'short', long('e')]);
    // a..d and "short" fit in 4,096 runes; e overflows: everything is written again, cut, and e is added cut.
    assert.deepEqual(
      values.map((v) => v.length),
      [256, 256, 256, 256, 5, 256].map((n) => n + '299 - ""'.length),
    );
    const many = Array.from({ length: 40 }, (_, i) => `${i}`.padEnd(300, 'x'));
    const cut = warningHeaderValues(many);
    // 256-rune items until the total reaches 4,096 runes: 16 of them, then nothing more.
    assert.equal(cut.length, 16);
    assert.ok(cut.every((v) => v.length === 256 + '299 - ""'.length));
  });

  it('counts runes, not UTF-16 units, when cutting', () => {
    const emoji = '😀'.repeat(300);
    const values = warningHeaderValues([emoji, 'x'.repeat(4000)]);
    assert.equal([...asUtf8(values)[0]!.slice('299 - "'.length, -1)].length, 256);
  });
});
