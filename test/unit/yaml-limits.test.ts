import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { load } from 'js-yaml';

import { decode, DecodeError, encode, toYaml } from '../../src/codec/codec.js';
import { YAML_TYPE } from '../../src/codec/media-type.js';

/** Issue 10: YAML in and out whatever a client sends or a store holds. */

const decodeYaml = (text: string): unknown => decode(Buffer.from(text), YAML_TYPE);

/** Levels of objects and arrays, counted without recursion. */
function depthOf(v: unknown): number {
  let max = 0;
  const work: Array<[unknown, number]> = [[v, 0]];
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    const [x, d] = w;
    if (x === null || typeof x !== 'object') continue;
    max = Math.max(max, d + 1);
    for (const c of Object.values(x)) work.push([c, d + 1]);
  }
  return max;
}

function decodeError(text: string): string {
  try {
    decodeYaml(text);
  } catch (err) {
    assert.ok(err instanceof DecodeError, String(err));
    return err.message;
  }
  return 'no error';
}

/** levels of anchors, each a list of `fanout` aliases of the one before. */
function laughs(levels: number, fanout: number): string {
  let doc = `a0: &a0 [${Array(fanout).fill('lol').join(', ')}]\n`;
  for (let i = 1; i < levels; i++) doc += `a${i}: &a${i} [${Array(fanout).fill(`*a${i - 1}`).join(', ')}]\n`;
  return doc;
}

describe('YAML encoding (issue 10)', () => {
  it('writes strings of several MB, as values and as keys, without overflowing the stack', () => {
    const long = 'n'.repeat(3_000_000);
    const spaced = 'word '.repeat(600_000);
    const key = 'k'.repeat(20_000);
    const value = { metadata: { name: long, annotations: { [key]: spaced, a: 'short' } }, z: 1 };
    const text = toYaml(value);
    assert.deepEqual(load(text), value);
    // Keys keep their sorted place though written as placeholders first.
    assert.ok(text.indexOf('  a: short') < text.indexOf(`"${key}"`));
  });

  it('escapes what YAML may not hold raw in a long string', () => {
    const awkward = `${'x'.repeat(20_000)}"quote" back\\slash\nline\ttab \u0085 \u2028 \ufeff \u007f end`;
    assert.deepEqual(load(toYaml({ s: awkward })), { s: awkward });
  });

  it('leaves short strings to js-yaml as before', () => {
    assert.equal(toYaml({ b: 'x', a: ['y: z'] }), "a:\n  - 'y: z'\nb: x\n");
  });

  it('encodes an error Status in YAML through the same path', () => {
    const status = { kind: 'Status', message: `the API version in the data (${'a'.repeat(2_500_000)}) does not match` };
    assert.deepEqual(load(encode(status, YAML_TYPE).toString('utf8')), status);
  });
});

describe('YAML decoding limits, as go-yaml v2 (issue 10)', () => {
  it('accepts aliases that stay within go-yaml\'s ratio and refuses those beyond it', () => {
    assert.notEqual(decodeError(laughs(3, 10)), 'error converting YAML to JSON: yaml: document contains excessive aliasing');
    assert.equal(decodeError(laughs(3, 10)), 'no error');
    assert.equal(decodeError(laughs(4, 10)), 'error converting YAML to JSON: yaml: document contains excessive aliasing');
    assert.equal(decodeError(laughs(9, 9)), 'error converting YAML to JSON: yaml: document contains excessive aliasing');
  });

  it('refuses an anchor used inside itself, and an unknown anchor', () => {
    assert.equal(decodeError('metadata: &m {name: t, self: *m}\n'), "error converting YAML to JSON: yaml: anchor 'm' value contains itself");
    assert.equal(decodeError('a: [&l [1, *l]]\n'), "error converting YAML to JSON: yaml: anchor 'l' value contains itself");
    assert.equal(decodeError('a: *nope\n'), "error converting YAML to JSON: yaml: unknown anchor 'nope' referenced");
  });

  it('refuses NaN and infinities, which JSON cannot hold', () => {
    assert.equal(decodeError('a: !!float .nan\n'), 'error converting YAML to JSON: json: unsupported value: NaN');
    assert.equal(decodeError('a: .inf\n'), 'error converting YAML to JSON: json: unsupported value: +Inf');
    assert.equal(decodeError('a: [-.Inf]\n'), 'error converting YAML to JSON: json: unsupported value: -Inf');
  });

  it('keeps plain scalars beyond float64 (1e400) as strings, as go-yaml v2 resolves them, in block, flow and deep flow collections', () => {
    // goyaml.v2 resolve.go: strconv.ParseFloat fails with ErrRange, so the scalar is a !!str.
    assert.deepEqual(decodeYaml('a: 1e400\nb: -1e400\nc: 2e308\nd: 1.5e308\n'), { a: '1e400', b: '-1e400', c: '2e308', d: 1.5e308 });
    assert.deepEqual(decodeYaml('a: [1e400, -1E400, 1.0e+400]\n'), { a: ['1e400', '-1E400', '1.0e+400'] });
    // Past 500 flow levels the deep-flow reader resolves scalars itself.
    const deep = decodeYaml(`a: ${'['.repeat(600)}1e400, 7${']'.repeat(600)}\n`) as { a: unknown };
    let inner: unknown = deep.a;
    while (Array.isArray(inner) && Array.isArray(inner[0])) inner = inner[0];
    assert.deepEqual(inner, ['1e400', 7]);
  });

  it("bounds nesting at decode as kube does: go-yaml's 10,000 flow levels, then encoding/json's 10,000 levels of the converted JSON", () => {
    const arrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    assert.equal(depthOf(decodeYaml(`a: ${arrays(9999)}\n`)), 10000);
    // 10,000 flow levels are go-yaml's limit, but under a mapping the JSON is 10,001 deep.
    assert.equal(decodeError(`a: ${arrays(10000)}\n`), "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth");
    assert.equal(decodeError(`a: ${arrays(10001)}\n`), 'error converting YAML to JSON: yaml: exceeded max depth of 10000');
    // go-yaml names the line when the mark is past the first one.
    assert.equal(decodeError(`x: 1\na: ${arrays(10001)}\n`), 'error converting YAML to JSON: yaml: line 2: exceeded max depth of 10000');
    assert.equal(depthOf(decodeYaml(arrays(10000))), 10000);
    const json = (depth: number): Buffer => Buffer.from(arrays(depth));
    assert.equal(depthOf(decode(json(10000), 'application/json')), 10000);
    assert.throws(() => decode(json(10001), 'application/json'), { message: "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth" });
    // Brackets inside strings are text, not nesting.
    assert.deepEqual(decode(Buffer.from(JSON.stringify({ s: '['.repeat(5000) })), 'application/json'), { s: '['.repeat(5000) });
  });

  it("words JSON syntax errors as Go's decoder does", () => {
    assert.throws(() => decode(Buffer.from('{"a":}'), 'application/json'), { message: "couldn't get version/kind; json parse error: invalid character '}' looking for beginning of value" });
  });
});
