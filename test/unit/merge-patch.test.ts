/**
 * JSON merge patch (application/merge-patch+json) as kube-apiserver 1.36
 * applies it: RFC 7386 plus evanphx/json-patch v4's handling of nulls and of
 * non-object bodies, and the handler's "Invalid JSON Patch" 400.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MergePatchError, toApiError } from '../../src/patch/errors.js';
import { applyMergePatch, createMergePatch, mergePatchValue } from '../../src/patch/merge-patch.js';
import type { JsonObject, JsonValue } from '../../src/machinery/json-value.js';
import { deepFreeze } from '../helpers/deep-freeze.js';

describe('merge patch: RFC 7386 behaviour', () => {
  const cases: Array<{ name: string; doc: JsonValue; patch: string; want: JsonValue }> = [
    { name: 'replace a member', doc: { a: 'b' }, patch: '{"a":"c"}', want: { a: 'c' } },
    { name: 'add a member', doc: { a: 'b' }, patch: '{"b":"c"}', want: { a: 'b', b: 'c' } },
    { name: 'null removes a member', doc: { a: 'b', b: 'c' }, patch: '{"a":null}', want: { b: 'c' } },
    { name: 'null for a missing member is a no-op', doc: { a: 1 }, patch: '{"z":null}', want: { a: 1 } },
    { name: 'array replaced by scalar', doc: { a: ['b'] }, patch: '{"a":"c"}', want: { a: 'c' } },
    { name: 'scalar replaced by array', doc: { a: 'c' }, patch: '{"a":["b"]}', want: { a: ['b'] } },
    { name: 'nested objects merge', doc: { a: { b: 'c', d: 1 } }, patch: '{"a":{"b":"d","c":null}}', want: { a: { b: 'd', d: 1 } } },
    { name: 'arrays are replaced, not merged', doc: { a: [{ b: 'c' }, { x: 1 }] }, patch: '{"a":[1]}', want: { a: [1] } },
    { name: 'a document null is kept when untouched', doc: { e: null }, patch: '{"a":1}', want: { e: null, a: 1 } },
    { name: 'a document null counts as absent', doc: { e: null }, patch: '{"e":{"x":1,"y":null}}', want: { e: { x: 1 } } },
    { name: 'nulls inside an added subtree are pruned', doc: {}, patch: '{"a":{"bb":{"ccc":null}}}', want: { a: { bb: {} } } },
    { name: 'empty patch', doc: { a: 1 }, patch: '{}', want: { a: 1 } },
    {
      name: 'labels and annotations',
      doc: { metadata: { name: 'x', labels: { app: 'web', tier: 'fe' } } },
      patch: '{"metadata":{"labels":{"tier":null,"env":"prod"},"annotations":{"note":"hi"}}}',
      want: { metadata: { name: 'x', labels: { app: 'web', env: 'prod' }, annotations: { note: 'hi' } } },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(applyMergePatch(deepFreeze(structuredClone(c.doc)), c.patch), c.want));
  }
});

describe('merge patch: evanphx/json-patch v4 specifics', () => {
  const cases: Array<{ name: string; doc: JsonValue; patch: string; want: JsonValue }> = [
    { name: 'null array elements are dropped when an array replaces an array', doc: { a: [1] }, patch: '{"a":[null,2,{"x":null,"y":1}]}', want: { a: [2, { y: 1 }] } },
    { name: 'null array elements are dropped when the member is new', doc: {}, patch: '{"a":[null,{"x":null}]}', want: { a: [{}] } },
    { name: 'an object replaced by a non-object keeps the value as sent', doc: { a: { x: 1 } }, patch: '{"a":[null,{"x":null}]}', want: { a: [null, { x: null }] } },
    { name: 'a scalar replaced by an object is pruned', doc: { a: 1 }, patch: '{"a":{"x":null,"y":2}}', want: { a: { y: 2 } } },
    { name: 'an array body replaces the document, nulls dropped', doc: { a: 1 }, patch: '[1,null,{"b":null}]', want: [1, {}] },
    { name: 'an object body replaces a non-object document', doc: ['x'], patch: '{"a":null,"b":1}', want: { b: 1 } },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(applyMergePatch(deepFreeze(structuredClone(c.doc)), c.patch), c.want));
  }

  for (const body of ['null', '"bar"', '42', 'true', '', '{"a":', '{"a":1}}', 'nope']) {
    it(`rejects body ${JSON.stringify(body)} with 400 "Invalid JSON Patch"`, () => {
      assert.throws(
        () => applyMergePatch({ a: 1 }, body),
        (err: unknown) => {
          assert.ok(err instanceof MergePatchError);
          assert.deepEqual(err.status, { code: 400, reason: 'BadRequest', message: 'Invalid JSON Patch' });
          assert.equal(toApiError(err).status.reason, 'BadRequest');
          return true;
        },
      );
    });
  }

  it('accepts bytes and decoded patches', () => {
    assert.deepEqual(applyMergePatch({ a: 1 }, new TextEncoder().encode('{"b":2}')), { a: 1, b: 2 });
    assert.deepEqual(applyMergePatch({ a: 1 }, { a: null, b: 2 }), { b: 2 });
    assert.deepEqual(mergePatchValue({ a: 1 }, [1]), [1]);
    assert.throws(() => mergePatchValue({ a: 1 }, 'str'), MergePatchError);
  });

  it('does not mutate its inputs and shares untouched subtrees', () => {
    const doc = deepFreeze({ spec: { keep: { deep: [1, 2] }, change: { n: 1 } }, status: { x: 1 } });
    const patch = deepFreeze({ spec: { change: { n: 2 } } });
    const out = applyMergePatch(doc, patch) as JsonObject;
    assert.deepEqual(out, { spec: { keep: { deep: [1, 2] }, change: { n: 2 } }, status: { x: 1 } });
    assert.equal((out.spec as JsonObject).keep, doc.spec.keep);
    assert.equal(out.status, doc.status);
  });

  it('keeps __proto__ as data', () => {
    const out = applyMergePatch({}, '{"__proto__":{"polluted":true}}') as JsonObject;
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.keys(out), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('createMergePatch', () => {
  const cases: Array<{ name: string; original: JsonObject; modified: JsonObject; want: JsonObject }> = [
    { name: 'no change', original: { a: 1, b: [1] }, modified: { a: 1, b: [1] }, want: {} },
    { name: 'changed, added and removed members', original: { a: 1, b: 2 }, modified: { a: 3, c: 4 }, want: { a: 3, c: 4, b: null } },
    { name: 'nested objects diff recursively', original: { m: { x: 1, y: 2 } }, modified: { m: { x: 1, y: 3 } }, want: { m: { y: 3 } } },
    { name: 'arrays are replaced wholesale', original: { l: [1, 2] }, modified: { l: [1, 2, 3] }, want: { l: [1, 2, 3] } },
    { name: 'type change', original: { a: { x: 1 } }, modified: { a: 'x' }, want: { a: 'x' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const patch = createMergePatch(c.original, c.modified);
      assert.deepEqual(patch, c.want);
      assert.deepEqual(applyMergePatch(c.original, patch), c.modified);
    });
  }
});
