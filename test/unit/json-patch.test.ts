/**
 * JSON patch (application/json-patch+json) against kube-apiserver 1.36
 * behaviour: evanphx/json-patch v4 semantics and the PATCH handler's status
 * mapping (400 undecodable, 413 too many operations, 422 failed apply).
 * Also covers the Go-compatible JSON decoder the patch engines share.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { GENERIC_422_MESSAGE, JsonPatchApplyError, PatchDecodeError, PatchPanicError, isPatchError, toApiError } from '../../src/patch/errors.js';
import { applyJsonPatch, decodeJsonPatch } from '../../src/patch/json-patch.js';
import { JsonSyntaxError, decodeJson } from '../../src/machinery/json-decode.js';
import { formatFloatG, goJsonString, goSliceStable, goSprint } from '../../src/machinery/go-compat.js';
import type { JsonValue } from '../../src/machinery/json-value.js';
import { deepFreeze } from '../helpers/deep-freeze.js';

function apply(doc: JsonValue, ops: unknown[]): JsonValue {
  return applyJsonPatch(deepFreeze(structuredClone(doc)), JSON.stringify(ops));
}

describe('json patch: successful operations', () => {
  const cases: Array<{ name: string; doc: JsonValue; ops: unknown[]; want: JsonValue }> = [
    { name: 'add member', doc: { a: 1 }, ops: [{ op: 'add', path: '/b', value: { c: [1] } }], want: { a: 1, b: { c: [1] } } },
    { name: 'add replaces an existing member', doc: { a: 1 }, ops: [{ op: 'add', path: '/a', value: 2 }], want: { a: 2 } },
    { name: 'add nested member', doc: { a: { b: {} } }, ops: [{ op: 'add', path: '/a/b/c', value: 'x' }], want: { a: { b: { c: 'x' } } } },
    { name: 'add without value adds null', doc: {}, ops: [{ op: 'add', path: '/a' }], want: { a: null } },
    { name: 'add inserts into array', doc: { l: [1, 3] }, ops: [{ op: 'add', path: '/l/1', value: 2 }], want: { l: [1, 2, 3] } },
    { name: 'add at array length appends', doc: { l: [1] }, ops: [{ op: 'add', path: '/l/1', value: 2 }], want: { l: [1, 2] } },
    { name: 'add "-" appends', doc: { l: [1] }, ops: [{ op: 'add', path: '/l/-', value: 2 }], want: { l: [1, 2] } },
    { name: 'add with negative index counts from the end (inclusive)', doc: { l: [1, 2] }, ops: [{ op: 'add', path: '/l/-1', value: 9 }], want: { l: [1, 2, 9] } },
    { name: 'add with -len-1 inserts first', doc: { l: [1, 2] }, ops: [{ op: 'add', path: '/l/-3', value: 0 }], want: { l: [0, 1, 2] } },
    { name: 'add accepts a leading + and zeros in indices', doc: { l: [1, 2] }, ops: [{ op: 'add', path: '/l/+01', value: 9 }], want: { l: [1, 9, 2] } },
    {
      name: 'pointer escapes ~1 and ~0',
      doc: { metadata: { labels: {} } },
      ops: [{ op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' }, { op: 'add', path: '/metadata/labels/a~0b', value: 'x' }],
      want: { metadata: { labels: { 'app.kubernetes.io/name': 'web', 'a~b': 'x' } } },
    },
    { name: '~01 decodes to ~1, not /', doc: {}, ops: [{ op: 'add', path: '/~01', value: 1 }], want: { '~1': 1 } },
    { name: '"/" addresses the empty key', doc: {}, ops: [{ op: 'add', path: '/', value: 1 }], want: { '': 1 } },
    { name: 'the first path segment is ignored', doc: { a: {} }, ops: [{ op: 'add', path: 'zzz/a/b', value: 1 }], want: { a: { b: 1 } } },
    { name: 'remove member', doc: { a: 1, b: 2 }, ops: [{ op: 'remove', path: '/a' }], want: { b: 2 } },
    { name: 'remove array element', doc: { l: [1, 2, 3] }, ops: [{ op: 'remove', path: '/l/1' }], want: { l: [1, 3] } },
    { name: 'remove with negative index', doc: { l: [1, 2, 3] }, ops: [{ op: 'remove', path: '/l/-1' }], want: { l: [1, 2] } },
    { name: 'replace member', doc: { a: 1 }, ops: [{ op: 'replace', path: '/a', value: [1] }], want: { a: [1] } },
    { name: 'replace of a missing member adds it', doc: { a: 1 }, ops: [{ op: 'replace', path: '/b', value: 2 }], want: { a: 1, b: 2 } },
    { name: 'replace array element', doc: { l: [1, 2] }, ops: [{ op: 'replace', path: '/l/0', value: 5 }], want: { l: [5, 2] } },
    { name: 'replace with negative index', doc: { l: [1, 2] }, ops: [{ op: 'replace', path: '/l/-1', value: 5 }], want: { l: [1, 5] } },
    { name: 'replace the whole document', doc: { a: 1 }, ops: [{ op: 'replace', path: '', value: { b: 2 } }], want: { b: 2 } },
    { name: 'move member', doc: { a: { x: 1 }, b: {} }, ops: [{ op: 'move', from: '/a/x', path: '/b/y' }], want: { a: {}, b: { y: 1 } } },
    { name: 'move within an array', doc: { l: [1, 2, 3] }, ops: [{ op: 'move', from: '/l/0', path: '/l/-' }], want: { l: [2, 3, 1] } },
    { name: 'move a null member', doc: { a: null }, ops: [{ op: 'move', from: '/a', path: '/b' }], want: { b: null } },
    { name: 'copy member', doc: { a: { x: [1] } }, ops: [{ op: 'copy', from: '/a', path: '/b' }], want: { a: { x: [1] }, b: { x: [1] } } },
    { name: 'copy of a missing member copies null', doc: { a: 1 }, ops: [{ op: 'copy', from: '/nope', path: '/b' }], want: { a: 1, b: null } },
    {
      name: 'copies are independent of their source',
      doc: { a: { x: 1 } },
      ops: [
        { op: 'add', path: '/a/y', value: 2 },
        { op: 'copy', from: '/a', path: '/b' },
        { op: 'add', path: '/a/z', value: 3 },
        { op: 'replace', path: '/b/x', value: 9 },
      ],
      want: { a: { x: 1, y: 2, z: 3 }, b: { x: 9, y: 2 } },
    },
    { name: 'operations see earlier results', doc: {}, ops: [{ op: 'add', path: '/a', value: {} }, { op: 'add', path: '/a/b', value: 1 }], want: { a: { b: 1 } } },
    { name: 'an empty patch changes nothing', doc: { a: 1 }, ops: [], want: { a: 1 } },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(apply(c.doc, c.ops), c.want));
  }

  it('a null body is an empty patch', () => {
    assert.deepEqual(applyJsonPatch({ a: 1 }, 'null'), { a: 1 });
  });

  it('does not mutate the input and shares untouched subtrees', () => {
    const doc = deepFreeze({ spec: { a: { big: [1, 2, 3] }, b: { n: 1 } } });
    const out = applyJsonPatch(doc, '[{"op":"replace","path":"/spec/b/n","value":2}]') as { spec: { a: unknown; b: unknown } };
    assert.deepEqual(out, { spec: { a: { big: [1, 2, 3] }, b: { n: 2 } } });
    assert.equal(out.spec.a, doc.spec.a);
    assert.deepEqual(doc, { spec: { a: { big: [1, 2, 3] }, b: { n: 1 } } });
  });
});

describe('json patch: test operation', () => {
  const pass: Array<{ name: string; doc: JsonValue; op: string }> = [
    { name: 'equal scalar', doc: { a: 1 }, op: '{"op":"test","path":"/a","value":1}' },
    { name: 'objects ignore key order', doc: { a: { x: 1, y: [true, 'z'] } }, op: '{"op":"test","path":"/a","value":{"y":[true,"z"],"x":1}}' },
    { name: 'nested nulls match', doc: { a: { x: null } }, op: '{"op":"test","path":"/a","value":{"x":null}}' },
    { name: 'missing member with null value', doc: { a: 1 }, op: '{"op":"test","path":"/b","value":null}' },
    { name: 'missing member without value', doc: { a: 1 }, op: '{"op":"test","path":"/b"}' },
    { name: 'null member with null value', doc: { a: null }, op: '{"op":"test","path":"/a","value":null}' },
    { name: 'array element', doc: { l: ['x', 'y'] }, op: '{"op":"test","path":"/l/-1","value":"y"}' },
    { name: 'whole document', doc: { a: 1 }, op: '{"op":"test","path":"","value":{"a":1}}' },
    { name: 'kube encodes & as \\u0026, so that spelling matches', doc: { a: 'x&y' }, op: '{"op":"test","path":"/a","value":"x\\u0026y"}' },
    { name: 'resourceVersion precondition', doc: { metadata: { resourceVersion: '42' } }, op: '{"op":"test","path":"/metadata/resourceVersion","value":"42"}' },
  ];
  for (const c of pass) {
    it(`passes: ${c.name}`, () => assert.deepEqual(applyJsonPatch(c.doc, `[${c.op}]`), c.doc));
  }

  const fail: Array<{ name: string; doc: JsonValue; op: string }> = [
    { name: 'different scalar', doc: { a: 1 }, op: '{"op":"test","path":"/a","value":2}' },
    { name: 'numbers compare as encoded text (1 vs 1.0)', doc: { a: 1 }, op: '{"op":"test","path":"/a","value":1.0}' },
    { name: 'strings compare as encoded text (raw & vs kube\'s \\u0026)', doc: { a: 'x&y' }, op: '{"op":"test","path":"/a","value":"x&y"}' },
    { name: 'type mismatch', doc: { a: '1' }, op: '{"op":"test","path":"/a","value":1}' },
    { name: 'extra member', doc: { a: { x: 1 } }, op: '{"op":"test","path":"/a","value":{"x":1,"y":2}}' },
    { name: 'array order', doc: { a: [1, 2] }, op: '{"op":"test","path":"/a","value":[2,1]}' },
    { name: 'missing member with a value', doc: { a: 1 }, op: '{"op":"test","path":"/b","value":1}' },
    { name: 'present member without value', doc: { a: 1 }, op: '{"op":"test","path":"/a"}' },
    { name: 'out-of-range index', doc: { l: [1] }, op: '{"op":"test","path":"/l/5","value":1}' },
    { name: 'missing parent', doc: {}, op: '{"op":"test","path":"/a/b","value":1}' },
  ];
  for (const c of fail) {
    it(`fails with 422: ${c.name}`, () => {
      assert.throws(
        () => applyJsonPatch(c.doc, `[${c.op}]`),
        (err: unknown) => err instanceof JsonPatchApplyError && err.status.code === 422,
      );
    });
  }

  it('a failed test answers kube\'s generic 422 Status (the library text is dropped)', () => {
    try {
      applyJsonPatch({ metadata: { resourceVersion: '1' } }, '[{"op":"test","path":"/metadata/resourceVersion","value":"2"}]');
      assert.fail('expected an error');
    } catch (err) {
      assert.ok(err instanceof JsonPatchApplyError);
      assert.equal(err.message, 'testing value /metadata/resourceVersion failed: test failed');
      assert.deepEqual(err.status, { code: 422, reason: 'Invalid', message: GENERIC_422_MESSAGE, details: {} });
      assert.equal(GENERIC_422_MESSAGE, 'the server rejected our request due to an error in our request');
      const api = toApiError(err).status;
      assert.equal(api.code, 422);
      assert.equal(api.reason, 'Invalid');
      assert.deepEqual(api.details, {});
    }
  });

  it('is atomic: nothing of a failing patch is visible', () => {
    const doc = deepFreeze({ a: 1 });
    assert.throws(() => applyJsonPatch(doc, '[{"op":"replace","path":"/a","value":2},{"op":"test","path":"/a","value":3}]'));
    assert.deepEqual(doc, { a: 1 });
  });

  it('a null element inside a tested array is a panic in upstream', () => {
    assert.throws(
      () => applyJsonPatch({ a: [null] }, '[{"op":"test","path":"/a","value":[null]}]'),
      (err: unknown) => err instanceof PatchPanicError && err.status.code === 500 && err.panic,
    );
  });
});

describe('json patch: failing operations map to 422', () => {
  const cases: Array<{ name: string; doc: JsonValue; op: string; message: string }> = [
    { name: 'add to missing parent', doc: {}, op: '{"op":"add","path":"/a/b","value":1}', message: 'add operation does not apply: doc is missing path: "/a/b": missing value' },
    { name: 'add through a scalar', doc: { a: 1 }, op: '{"op":"add","path":"/a/b","value":1}', message: 'add operation does not apply: doc is missing path: "/a/b": missing value' },
    { name: 'add through null', doc: { a: null }, op: '{"op":"add","path":"/a/b","value":1}', message: 'add operation does not apply: doc is missing path: "/a/b": missing value' },
    { name: 'add at the root path', doc: {}, op: '{"op":"add","path":"","value":1}', message: 'add operation does not apply: doc is missing path: "": missing value' },
    { name: 'add past array end', doc: { l: [1] }, op: '{"op":"add","path":"/l/3","value":1}', message: "error in add for path: '/l/3': Unable to access invalid index: 3: invalid index referenced" },
    { name: 'add before array start', doc: { l: [1] }, op: '{"op":"add","path":"/l/-3","value":1}', message: "error in add for path: '/l/-3': Unable to access invalid index: -3: invalid index referenced" },
    {
      name: 'add with non-numeric index',
      doc: { l: [1] },
      op: '{"op":"add","path":"/l/x","value":1}',
      message: 'error in add for path: \'/l/x\': value was not a proper array index: \'x\': strconv.Atoi: parsing "x": invalid syntax',
    },
    { name: 'remove missing member', doc: {}, op: '{"op":"remove","path":"/a"}', message: "error in remove for path: '/a': Unable to remove nonexistent key: a: missing value" },
    { name: 'remove past array end', doc: { l: [1] }, op: '{"op":"remove","path":"/l/1"}', message: "error in remove for path: '/l/1': Unable to access invalid index: 1: invalid index referenced" },
    { name: 'remove "-"', doc: { l: [1] }, op: '{"op":"remove","path":"/l/-"}', message: 'error in remove for path: \'/l/-\': strconv.Atoi: parsing "-": invalid syntax' },
    { name: 'replace past array end', doc: { l: [1] }, op: '{"op":"replace","path":"/l/1","value":1}', message: 'replace operation does not apply: doc is missing key: /l/1: missing value' },
    { name: 'replace document with a scalar', doc: {}, op: '{"op":"replace","path":"","value":1}', message: 'replace operation value must be object or array: %!w(<nil>)' },
    { name: 'move from missing member', doc: {}, op: '{"op":"move","from":"/a","path":"/b"}', message: "error in move for path: 'a': Unable to remove nonexistent key: a: missing value" },
    { name: 'move into its own child', doc: { a: {} }, op: '{"op":"move","from":"/a","path":"/a/b"}', message: 'move operation does not apply: doc is missing destination path: /a/b: missing value' },
    { name: 'move without from', doc: {}, op: '{"op":"move","path":"/b"}', message: 'move operation failed to decode from: operation, missing from field: missing value' },
    { name: 'copy from out-of-range index', doc: { l: [] }, op: '{"op":"copy","from":"/l/0","path":"/b"}', message: "error in copy for from: '/l/0': Unable to access invalid index: 0: invalid index referenced" },
    { name: 'unknown op', doc: {}, op: '{"op":"frobnicate","path":"/a"}', message: 'Unexpected kind: frobnicate' },
    { name: 'op that is not a string', doc: {}, op: '{"op":1,"path":"/a"}', message: 'Unexpected kind: unknown' },
    { name: 'null operation', doc: {}, op: 'null', message: 'Unexpected kind: unknown' },
    { name: 'missing path', doc: {}, op: '{"op":"add","value":1}', message: 'add operation failed to decode path: operation missing path field: missing value' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.throws(
        () => applyJsonPatch(c.doc, `[${c.op}]`),
        (err: unknown) => {
          assert.ok(err instanceof JsonPatchApplyError, String(err));
          assert.equal(err.message, c.message);
          assert.equal(err.status.code, 422);
          assert.equal(err.status.message, GENERIC_422_MESSAGE);
          return true;
        },
      );
    });
  }

  it('copy is limited by the accumulated copy size (JSONPatchMaxCopyBytes)', () => {
    const doc = { a: 'x'.repeat(100) };
    const ops = JSON.stringify([
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'copy', from: '/a', path: '/c' },
    ]);
    assert.deepEqual(Object.keys(applyJsonPatch(doc, ops, { maxCopyBytes: 204 }) as object), ['a', 'b', 'c']);
    assert.throws(
      () => applyJsonPatch(doc, ops, { maxCopyBytes: 203 }),
      (err: unknown) =>
        err instanceof JsonPatchApplyError &&
        err.message === 'Unable to complete the copy, the accumulated size increase of copy is 204, exceeding the limit 203',
    );
  });
});

describe('json patch: decoding and limits', () => {
  const cases: Array<{ name: string; body: string; message: string }> = [
    { name: 'empty body', body: '', message: 'unexpected end of JSON input' },
    { name: 'truncated', body: '[{"op":"add"', message: 'unexpected end of JSON input' },
    { name: 'object instead of array', body: '{"op":"add","path":"/a","value":1}', message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' },
    { name: 'string body', body: '"x"', message: 'json: cannot unmarshal string into Go value of type jsonpatch.Patch' },
    { name: 'number element', body: '[1]', message: 'json: cannot unmarshal number into Go value of type jsonpatch.Operation' },
    { name: 'array element', body: '[[]]', message: 'json: cannot unmarshal array into Go value of type jsonpatch.Operation' },
    { name: 'bool element', body: '[true]', message: 'json: cannot unmarshal bool into Go value of type jsonpatch.Operation' },
    { name: 'syntax error wins over type error', body: '{"a":1,}', message: "invalid character '}' looking for beginning of object key string" },
  ];
  for (const c of cases) {
    it(`400 for ${c.name}`, () => {
      assert.throws(
        () => applyJsonPatch({}, c.body),
        (err: unknown) => {
          assert.ok(err instanceof PatchDecodeError, String(err));
          assert.equal(err.message, c.message);
          assert.deepEqual(err.status, { code: 400, reason: 'BadRequest', message: c.message });
          return true;
        },
      );
    });
  }

  it('more than 10000 operations is 413 RequestEntityTooLarge', () => {
    const op = '{"op":"test","path":"/a","value":1}';
    const ok = `[${Array(10000).fill(op).join(',')}]`;
    assert.deepEqual(applyJsonPatch({ a: 1 }, ok), { a: 1 });
    assert.throws(
      () => applyJsonPatch({ a: 1 }, `[${Array(10001).fill(op).join(',')}]`),
      (err: unknown) => {
        assert.ok(isPatchError(err));
        assert.deepEqual(err.status, {
          code: 413,
          reason: 'RequestEntityTooLarge',
          message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
        });
        return true;
      },
    );
  });

  it('decodeJsonPatch keeps members of each operation, last duplicate wins', () => {
    const [op] = decodeJsonPatch('[{"op":"add","op":"remove","path":"/a"}]');
    assert.equal(op?.members.get('op')?.kind, 'string');
    assert.deepEqual(applyJsonPatch({ a: 1 }, '[{"op":"add","op":"remove","path":"/a"}]'), {});
  });
});

describe('Go-compatible JSON decoding', () => {
  const errors: Array<[string, string]> = [
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    ['"abc', 'unexpected end of JSON input'],
    ['tru', "invalid character ' ' in literal true (expecting 'e')"],
    ['nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['fx', "invalid character 'x' in literal false (expecting 'a')"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', 'invalid character \'"\' after object key:value pair'],
    ['[1 2]', "invalid character '2' after array element"],
    ['{1:2}', "invalid character '1' looking for beginning of object key string"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12"', 'invalid character \'"\' in \\u hexadecimal character escape'],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['-', "invalid character ' ' in numeric literal"],
    ['-a', "invalid character 'a' in numeric literal"],
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['1.e5', "invalid character 'e' after decimal point in numeric literal"],
    ['1e+', "invalid character ' ' in exponent of numeric literal"],
    ['01', "invalid character '1' after top-level value"],
    ['{} {}', "invalid character '{' after top-level value"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['\u00e9', "invalid character 'Ã' looking for beginning of value"],
    ['\ufeff{}', "invalid character 'ï' looking for beginning of value"],
    ['\u0001', "invalid character '\\x01' looking for beginning of value"],
  ];
  for (const [input, message] of errors) {
    it(`rejects ${JSON.stringify(input)}`, () => {
      assert.throws(
        () => decodeJson(input),
        (err: unknown) => err instanceof JsonSyntaxError && err.message === message,
      );
    });
  }

  it('enforces Go\'s nesting limit of 10000', () => {
    assert.deepEqual(decodeJson(`${'['.repeat(10000)}${']'.repeat(10000)}`) !== undefined, true);
    assert.throws(
      () => decodeJson(`${'['.repeat(10001)}${']'.repeat(10001)}`),
      (err: unknown) => err instanceof JsonSyntaxError && err.message === "invalid character '[' exceeded max depth",
    );
  });

  it('decodes values like Go', () => {
    assert.deepEqual(decodeJson(' {"a":[1,-2.5e3,true,false,null,"\\u00e9\\ud83d\\ude00\\ud800x"],"__proto__":{"b":1},"a2":{}} '), {
      a: [1, -2500, true, false, null, 'é😀\ufffdx'],
      ['__proto__']: { b: 1 },
      a2: {},
    });
    const v = decodeJson('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(Object.keys(v), ['__proto__']);
  });

  it('formats values like fmt %v and encodes like encoding/json', () => {
    assert.equal(goSprint({ b: [1, 'x', null], a: { c: true } }), 'map[a:map[c:true] b:[1 x <nil>]]');
    assert.equal(formatFloatG(1.5), '1.5');
    assert.equal(formatFloatG(1234567.5), '1.2345675e+06');
    assert.equal(formatFloatG(0.00001), '1e-05');
    assert.equal(formatFloatG(123456.5), '123456.5');
    assert.equal(goJsonString('a<b>&"\\\n\u2028é'), '"a\\u003cb\\u003e\\u0026\\"\\\\\\n\\u2028é"');
  });

  it('sorts with Go\'s stable algorithm, including inconsistent comparators', () => {
    const nums = Array.from({ length: 57 }, (_, i) => (i * 37) % 57);
    goSliceStable(nums, (a, b) => a < b);
    assert.deepEqual(nums, Array.from({ length: 57 }, (_, i) => i));
    // An always-true comparator reverses a block of up to 20 items (insertion sort).
    const rev = [1, 2, 3, 4, 5];
    goSliceStable(rev, () => true);
    assert.deepEqual(rev, [5, 4, 3, 2, 1]);
  });
});
