import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CORE_SCHEMA, dump, load } from 'js-yaml';

import { decode, toYaml } from '../../src/codec/codec.js';
import { YAML_TYPE } from '../../src/codec/media-type.js';
import { deepToYaml } from '../../src/codec/yaml-deep-encode.js';
import { spliceDeepFlows } from '../../src/codec/yaml-deep-flow.js';
import { jsonEqual, stringifyJson } from '../../src/machinery/deep-json.js';
import { goJsonEncode, goSprint, goSprintS } from '../../src/machinery/go-compat.js';
import { cloneObject } from '../../src/machinery/object.js';

/**
 * Issue 10: walks over client data survive the 10,000 levels a body may nest
 * (V8's stack overflowed near 1,600 levels in js-yaml, 4,100 in JSON.stringify),
 * and give what the recursive walks give on shallow values.
 */

const DEEP = 10_000;
const deepMaps = (k: number): unknown => {
  let v: unknown = 'x';
  for (let i = 0; i < k; i++) v = { n: v, m: [i] };
  return v;
};
const deepText = (k: number): string => {
  let t = '"x"';
  for (let i = 0; i < k; i++) t = `{"n":${t},"m":[${i}]}`;
  return t;
};

/** A small deterministic generator of JSON-ish values with awkward strings and keys. */
function generator(seed: number): (depth: number) => unknown {
  let s = seed;
  const rnd = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const strs = ['x', 'multi\nline', 'two\n\nblank', 'trail\n', 'x: y', '', ' lead', 'yes', '123', 'null', '- a', '#c', 'a\tb', 'é', 'ends\n\n', '"q"', "'s'", '{a}', '|', 'long '.repeat(250)];
  const pick = (): string => strs[Math.floor(rnd() * strs.length)]!;
  const gen = (d: number): unknown => {
    const r = rnd();
    if (d <= 0 || r < 0.3) {
      const r2 = rnd();
      return r2 < 0.6 ? pick() : r2 < 0.7 ? null : r2 < 0.8 ? rnd() > 0.5 : r2 < 0.9 ? Math.floor(rnd() * 1000) - 500 : rnd() * 10;
    }
    const n = Math.floor(rnd() * 4);
    if (r < 0.65) return Array.from({ length: n }, () => gen(d - 1));
    const o: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) o[pick() + (rnd() > 0.5 ? String(i) : '')] = gen(d - 1);
    return o;
  };
  return gen;
}

describe('deep values: JSON walks without recursion', () => {
  it('stringifyJson writes what JSON.stringify writes, at any depth', () => {
    const gen = generator(7);
    for (let i = 0; i < 500; i++) {
      const v = { a: gen(6), skipped: undefined, list: [undefined, 1] };
      assert.equal(stringifyJson(v), JSON.stringify(v));
      assert.equal(stringifyJson(v, 2), JSON.stringify(v, null, 2));
    }
    assert.throws(() => JSON.stringify(deepMaps(DEEP)), RangeError, 'V8 overflows here: the fallback is what is tested');
    assert.equal(stringifyJson(deepMaps(DEEP)), deepText(DEEP));
    assert.equal(stringifyJson(JSON.parse(deepText(DEEP))), deepText(DEEP));
  });

  it('copies, compares and encodes Go-style at 10,000 levels', () => {
    const v = JSON.parse(deepText(DEEP)) as Record<string, unknown>;
    const copy = cloneObject(v);
    assert.notEqual(copy, v);
    assert.ok(jsonEqual(copy, v));
    assert.ok(!jsonEqual(copy, JSON.parse(deepText(DEEP).replace('"x"', '"y"'))));
    // Go sorts map keys: "m" before "n".
    assert.equal(goJsonEncode(JSON.parse('{"n":{"b":1,"a":[2]},"m":0}')), '{"m":0,"n":{"a":[2],"b":1}}');
    assert.equal(goJsonEncode(v as never).length, deepText(DEEP).length);
  });

  it("prints values as Go's fmt does at any depth (was: a strategic merge patch's error message overflowed, fuzz seed 11)", () => {
    assert.equal(goSprint(JSON.parse('{"b":[1,2.5,null],"a":{"c":"x"}}')), 'map[a:map[c:x] b:[1 2.5 <nil>]]');
    assert.equal(goSprintS(JSON.parse('[1,"s",null]')), '[%!s(int64=1) s %!s(<nil>)]');
    const deep = JSON.parse(`${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`);
    assert.equal(goSprint(deep), `${'map[a:'.repeat(DEEP)}1${']'.repeat(DEEP)}`);
    assert.equal(goSprintS(deep).length, goSprint(deep).length + '%!s(int64=)'.length);
  });
});

describe('deep values: YAML', () => {
  it("writes js-yaml's own output for any value js-yaml can write", () => {
    const gen = generator(1);
    const opts = { compareKeys: (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0), longScalarChars: 16 * 1024, doubleQuoted: (s: string) => JSON.stringify(s) };
    let compared = 0;
    for (let i = 0; i < 2000; i++) {
      const v = gen(8);
      if (v === null || typeof v !== 'object') continue;
      compared++;
      assert.equal(deepToYaml(v, opts), dump(v, { sortKeys: true, lineWidth: -1, noRefs: true }), JSON.stringify(v));
    }
    assert.ok(compared > 1000);
  });

  it('answers a 10,000-level value as YAML (js-yaml alone overflows)', () => {
    let arrays: unknown = [];
    for (let i = 1; i < DEEP; i++) arrays = [arrays];
    const text = toYaml({ data: arrays, kind: 'x' });
    assert.equal(text, `data:\n  ${'- '.repeat(DEEP - 1)}[]\nkind: x\n`);
    const maps = toYaml(deepMaps(3000));
    assert.ok(maps.startsWith("m:\n  - 2999\n'n':\n  m:\n    - 2998\n"), maps.slice(0, 100));
  });

  it('reads deep flow collections as js-yaml reads shallow ones', () => {
    // 600 levels: beyond where the deep reader takes over (500), within what js-yaml's parser survives.
    const inner = `{plain: word, int: 12, float: 1.5, hex: 0x1F, bool: true, nul: ~, empty: , dq: "a\\tb\\u00e9", sq: 'it''s', list: [1, two, "3"], colon: a:b, 'quoted key': x, nokey}`;
    let text = inner;
    for (let i = 0; i < 600; i++) text = `{level: ${i}, next: ${text} # comment\n    , arr: [[${i}], {}]}`;
    const source = `apiVersion: v1\nkind: Thing\nspec:\n  nested: ${text}\n  after: [ok]\n`;
    assert.equal(spliceDeepFlows(source, 10_000, 'placeholder-')?.values.size, 1, 'the deep reader takes the collection');
    assert.deepEqual(decode(Buffer.from(source), YAML_TYPE), load(source, { schema: CORE_SCHEMA, json: true, maxDepth: 1000 }));
  });
});
