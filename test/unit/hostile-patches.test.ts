import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseJsonAst } from '../../src/machinery/json-decode.js';
import { goJsonEncode } from '../../src/machinery/go-compat.js';
import type { JsonValue } from '../../src/machinery/json-value.js';
import { applyJsonPatch } from '../../src/patch/json-patch.js';
import { applyMergePatch } from '../../src/patch/merge-patch.js';
import { OutOfRangeNumbers, firstOutOfRange } from '../../src/patch/out-of-range-numbers.js';
import { applyStrategicMergePatch } from '../../src/patch/strategic-merge-patch.js';
import { PatchDecodeError, PatchPanicError, isPatchError } from '../../src/patch/errors.js';
import { PatchSchema } from '../../src/patch/schema.js';
import { patchBodyStrictErrors } from '../../src/validation/fields/index.js';
import { ApiError } from '../../src/machinery/errors.js';

/** Patch engines under hostile input (issue 10): nesting as deep as the decoders allow, numbers beyond float64. */

/** Deeper than Node's default stack survives with one recursive frame per level. */
const DEPTH = 9_990;

const deepObject = (n: number, leaf = '1'): string => '{"a":'.repeat(n) + leaf + '}'.repeat(n);
const deepArray = (n: number): string => '['.repeat(n) + '1' + ']'.repeat(n);

function depthOf(v: unknown): number {
  let d = 0;
  let cur = v;
  while (cur !== null && typeof cur === 'object') {
    d++;
    cur = Array.isArray(cur) ? cur[0] : (cur as Record<string, unknown>).a;
  }
  return d;
}

describe('patch engines on deeply nested input', () => {
  const doc = { kind: 'ConfigMap', data: { x: 'y' } };
  const deepDoc = (): Record<string, unknown> => ({ ...doc, deep: JSON.parse(deepObject(DEPTH)) as unknown });

  it('merge patch: a deep new value (nulls pruned at the bottom) and a deep merge into a deep document', () => {
    const added = applyMergePatch(doc, `{"deep":${deepObject(DEPTH, '{"keep":1,"drop":null}')}}`) as Record<string, unknown>;
    assert.equal(depthOf(added.deep), DEPTH + 1);
    let leaf = added.deep as Record<string, unknown>;
    for (let i = 0; i < DEPTH; i++) leaf = leaf.a as Record<string, unknown>;
    assert.deepEqual(leaf, { keep: 1 });
    assert.equal(depthOf((applyMergePatch(doc, `{"deep":${deepArray(DEPTH)}}`) as Record<string, unknown>).deep), DEPTH);
    const merged = applyMergePatch(deepDoc(), `{"deep":${deepObject(DEPTH, '2')}}`) as Record<string, unknown>;
    assert.equal(depthOf(merged.deep), DEPTH);
    assert.equal(merged.data && (merged.data as Record<string, unknown>).x, 'y');
  });

  it('strategic merge patch: deep values (directives and nulls removed) and a deep merge into a deep document', () => {
    const withDirective = deepObject(DEPTH, '{"keep":1,"drop":null,"gone":{"$patch":"delete"}}');
    const added = applyStrategicMergePatch(doc, `{"deep":${withDirective}}`) as Record<string, unknown>;
    let leaf = added.deep as Record<string, unknown>;
    for (let i = 0; i < DEPTH; i++) leaf = leaf.a as Record<string, unknown>;
    assert.deepEqual(leaf, { keep: 1 });
    assert.equal(depthOf(applyStrategicMergePatch(doc, `{"deep":${deepArray(DEPTH)}}`).deep), DEPTH);
    const merged = applyStrategicMergePatch(deepDoc(), `{"deep":${deepObject(DEPTH, '2')}}`, PatchSchema.unknown);
    assert.equal(depthOf(merged.deep), DEPTH);
  });

  it('strategic merge patch: an error deep down still leaves with upstream\'s text', () => {
    const patch = `{"deep":${deepObject(DEPTH - 1, '{"$patch":"bogus"}')}}`;
    assert.throws(
      () => applyStrategicMergePatch(deepDoc(), patch),
      (err: unknown) => isPatchError(err) && err.status.code === 500 && err.message === 'unknown patch type: bogus in map: map[$patch:bogus]',
    );
  });

  it('JSON patch: test compares deep values, and a nil element deep down still panics as upstream', () => {
    const d = deepDoc();
    assert.deepEqual(applyJsonPatch(d, `[{"op":"test","path":"/deep","value":${deepObject(DEPTH)}}]`), d);
    assert.throws(() => applyJsonPatch(d, `[{"op":"test","path":"/deep","value":${deepObject(DEPTH, '2')}}]`), (err: unknown) => isPatchError(err) && err.status.code === 422);
    const withNil = { list: [{ a: [null] }] };
    assert.throws(() => applyJsonPatch(withNil, '[{"op":"test","path":"/list","value":[{"a":[null]}]}]'), PatchPanicError);
  });
});

describe('numbers beyond float64', () => {
  it('finds the first one in document order, as written', () => {
    assert.equal(firstOutOfRange(parseJsonAst('{"a":[1,2e308],"b":-1e400,"c":1E999}')), '2e308');
    assert.equal(firstOutOfRange(parseJsonAst('{"a":1e308,"b":1e-400,"c":123456789012345678901234567890}')), undefined);
  });

  it('merge patch carries the literal to the patched JSON, placeholder only in between', () => {
    const numbers = new OutOfRangeNumbers();
    const patched = applyMergePatch({ data: { x: 'y' } }, '{"data":{"x":-1e400,"y":1e400,"z":-1e400}}', numbers) as JsonValue;
    assert.equal(numbers.restore(goJsonEncode(patched)), '{"data":{"x":-1e400,"y":1e400,"z":-1e400}}');
    assert.equal(numbers.leftIn(patched), '-1e400');
    assert.equal(numbers.leftIn({ data: { x: 'y' } }), undefined);
    // A client's own text cannot pose as a placeholder.
    const other = new OutOfRangeNumbers();
    assert.equal(other.restore(goJsonEncode(patched)), goJsonEncode(patched));
  });

  it('JSON patch carries it too, and test compares it by its text', () => {
    const numbers = new OutOfRangeNumbers();
    const patched = applyJsonPatch({}, '[{"op":"add","path":"/n","value":[1e400]},{"op":"test","path":"/n","value":[1e400]}]', { numbers });
    assert.equal(numbers.restore(goJsonEncode(patched)), '{"n":[1e400]}');
    assert.throws(() => applyJsonPatch({}, '[{"op":"add","path":"/n","value":1e400},{"op":"test","path":"/n","value":2e400}]', { numbers: new OutOfRangeNumbers() }), (err: unknown) => isPatchError(err) && err.status.code === 422);
  });

  it('strategic merge patch: decoding into interface{} fails with 400', () => {
    assert.throws(
      () => applyStrategicMergePatch({}, '{"a":[1,{"b":-1e400}],"c":1e400}'),
      (err: unknown) => err instanceof PatchDecodeError && err.status.code === 400 && err.message === 'json: cannot unmarshal number -1e400 into Go value of type float64',
    );
  });

  it('the strict decode of a patch body (Warn, Strict) refuses them with 400', () => {
    const refused = (kind: 'json' | 'merge' | 'strategic', body: string, message: string): void =>
      assert.throws(() => patchBodyStrictErrors(kind, body, 'Warn'), (err: unknown) => err instanceof ApiError && err.status.code === 400 && err.status.message === message);
    refused('merge', '{"a":{"b":-1e400}}', 'error decoding patch: json: cannot unmarshal number -1e400 into Go value of type float64');
    refused('strategic', '{"a":1e400}', 'json: cannot unmarshal number 1e400 into Go value of type float64');
    refused('json', '[{"op":"add","path":"/a","value":{"b":[1e400]}}]', 'error decoding patch: json: cannot unmarshal number 1e400 into Go struct field jsonPatchOp.value of type float64');
    // Outside "value" an operation's unknown member is skipped, not decoded.
    assert.deepEqual(patchBodyStrictErrors('json', '[{"op":"add","path":"/a","value":1,"n":1e400}]', 'Ignore'), []);
  });
});
