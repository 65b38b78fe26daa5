/**
 * Strategic merge patch (application/strategic-merge-patch+json) against the
 * behaviour of k8s.io/apimachinery v0.36 strategicpatch as kube-apiserver runs
 * it. Most cases use a small inline schema shaped like upstream's test type
 * (merging/non-merging lists of maps and of ints, a retainKeys struct and list,
 * a replace-strategy field); expected results — including list order — follow
 * upstream's raw test fixtures. The realistic cases (kubectl client-side apply
 * of a Deployment, Pod metadata lists) use the real Kubernetes 1.36 OpenAPI
 * definitions from ../shared and skip without them.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { GENERIC_422_MESSAGE, PatchDecodeError, PatchPanicError, StrategicMergePatchError, toApiError } from '../../src/patch/errors.js';
import { type SwaggerDefinitions, type SwaggerSchema, PatchSchema, patchSchemaFor } from '../../src/patch/schema.js';
import { applyStrategicMergePatch } from '../../src/patch/strategic-merge-patch.js';
import type { JsonObject, JsonValue } from '../../src/machinery/json-value.js';
import { sharedText } from '../helpers/shared.js';
import { deepFreeze } from '../helpers/deep-freeze.js';

const ref = (name: string): { $ref: string } => ({ $ref: `#/definitions/${name}` });
const mergeList = (item: SwaggerSchema, key?: string, strategy = 'merge'): SwaggerSchema => ({
  type: 'array',
  items: item,
  'x-kubernetes-patch-strategy': strategy,
  ...(key ? { 'x-kubernetes-patch-merge-key': key } : {}),
});

const DEFS: SwaggerDefinitions = {
  'test.Widget': {
    type: 'object',
    properties: {
      name: { type: 'string' },
      value: { type: 'string' },
      other: { type: 'string' },
      parts: mergeList(ref('test.Widget'), 'name'),
      plainParts: { type: 'array', items: ref('test.Widget') },
      numbers: mergeList({ type: 'integer', format: 'int64' }),
      plainNumbers: { type: 'array', items: { type: 'integer' } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      blob: { ...ref('test.Blob'), 'x-kubernetes-patch-strategy': 'replace' },
      raw: ref('io.k8s.apimachinery.pkg.runtime.RawExtension'),
      retained: { ...ref('test.Widget'), 'x-kubernetes-patch-strategy': 'retainKeys' },
      retainedParts: mergeList(ref('test.Widget'), 'name', 'merge,retainKeys'),
      ports: mergeList(ref('test.Port'), 'port'),
      matrix: mergeList({ type: 'array', items: { type: 'integer' } }),
      weird: { ...ref('test.Blob'), 'x-kubernetes-patch-strategy': 'merge,replace' },
    },
  },
  'test.Blob': { type: 'object', properties: { a: { type: 'string' }, b: { type: 'object', additionalProperties: { type: 'string' } } } },
  'test.Port': { type: 'object', properties: { port: { type: 'integer' }, name: { type: 'string' } } },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': { type: 'object' },
};

const WIDGET = patchSchemaFor(DEFS, 'test.Widget');

/** `n` items of a merging list named by the given keys, with optional extra fields. */
function items(...specs: Array<string | JsonObject>): JsonObject[] {
  return specs.map((s) => (typeof s === 'string' ? { name: s } : s));
}

interface Case {
  name: string;
  current: JsonObject;
  patch: JsonObject | string;
  want: JsonObject;
}

function runCases(cases: Case[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const current = deepFreeze(structuredClone(c.current));
      const patch = typeof c.patch === 'string' ? c.patch : deepFreeze(structuredClone(c.patch));
      assert.deepEqual(applyStrategicMergePatch(current, patch, WIDGET), c.want);
    });
  }
}

describe('strategic merge patch: lists of maps merged by key', () => {
  runCases([
    {
      name: '$setElementOrder puts a new item first',
      current: { parts: items({ name: '1', other: 'a' }, { name: '2', value: '2', other: 'b' }) },
      patch: { '$setElementOrder/parts': items('3', '1', '2'), parts: items({ name: '3', value: '3' }) },
      want: { parts: items({ name: '3', value: '3' }, { name: '1', other: 'a' }, { name: '2', value: '2', other: 'b' }) },
    },
    {
      name: '$setElementOrder interleaves several new items',
      current: { parts: items({ name: '1', other: 'a' }, { name: '2', value: '2', other: 'b' }) },
      patch: { '$setElementOrder/parts': items('1', '4', '2', '3'), parts: items({ name: '4', value: '4' }, { name: '3', value: '3' }) },
      want: { parts: items({ name: '1', other: 'a' }, { name: '4', value: '4' }, { name: '2', value: '2', other: 'b' }, { name: '3', value: '3' }) },
    },
    {
      name: '$patch: delete removes an item; the rest follows $setElementOrder',
      current: { parts: items({ name: '1', other: 'a' }, { name: '2', value: '2', other: 'b' }, { name: '3', value: '3' }) },
      patch: { '$setElementOrder/parts': items('2', '1'), parts: [{ name: '3', $patch: 'delete' }] },
      want: { parts: items({ name: '2', value: '2', other: 'b' }, { name: '1', other: 'a' }) },
    },
    {
      name: 'changing an item merges it and applies the order',
      current: { parts: items({ name: '1', other: 'a' }, { name: '2', value: '2', other: 'b' }, { name: '3', value: '3' }) },
      patch: { '$setElementOrder/parts': items('2', '3', '1'), parts: items({ name: '3', value: 'x' }) },
      want: { parts: items({ name: '2', value: '2', other: 'b' }, { name: '3', value: 'x' }, { name: '1', other: 'a' }) },
    },
    {
      name: 'add and delete in one patch',
      current: { parts: items({ name: '1', other: 'a' }, { name: '2', value: '2', other: 'b' }, { name: '3', value: '3' }) },
      patch: { '$setElementOrder/parts': items('4', '2', '1'), parts: [{ name: '4', value: '4' }, { name: '3', $patch: 'delete' }] },
      want: { parts: items({ name: '4', value: '4' }, { name: '2', value: '2', other: 'b' }, { name: '1', other: 'a' }) },
    },
    {
      name: 'server-only items keep their place relative to the live list',
      current: { parts: items({ name: '1', other: 'a' }, '3', '4', '2', '9') },
      patch: { '$setElementOrder/parts': items('4', '2', '3', '1') },
      want: { parts: items('4', '2', '3', { name: '1', other: 'a' }, '9') },
    },
    {
      name: 'server-only item in the middle',
      current: { parts: items('1', '2', '9', '3', '4') },
      patch: { '$setElementOrder/parts': items('2', '1', '4', '3') },
      want: { parts: items('2', '1', '9', '4', '3') },
    },
    {
      name: 'several server-only items in the middle',
      current: { parts: items('1', '2', '7', '9', '8', '3', '4') },
      patch: { '$setElementOrder/parts': items('2', '1', '4', '3') },
      want: { parts: items('2', '1', '7', '9', '8', '4', '3') },
    },
    {
      // Upstream reads the live list after deleting from and appending to it in place.
      name: 'add and delete with a server-only item (in-place list edits decide the order)',
      current: { parts: items('1', { name: '2', other: 'b' }, { name: '4', other: 'c' }) },
      patch: { '$setElementOrder/parts': items('2', '3'), parts: [{ name: '3' }, { name: '1', $patch: 'delete' }] },
      want: { parts: items({ name: '2', other: 'b' }, { name: '4', other: 'c' }, '3') },
    },
    {
      name: 'add and delete when the live list changed meanwhile',
      current: { parts: items({ name: '1', other: 'a' }, { name: '4', other: 'c' }) },
      patch: { '$setElementOrder/parts': items('2', '3'), parts: [{ name: '2' }, { name: '3' }, { name: '1', $patch: 'delete' }] },
      want: { parts: items({ name: '4', other: 'c' }, '2', '3') },
    },
    {
      name: 'new items precede server-only items when nothing orders them',
      current: { name: 'hi', parts: items('hello2') },
      patch: { '$setElementOrder/parts': items('hello', 'doesntexist'), parts: items('hello') },
      want: { name: 'hi', parts: items('hello', 'hello2') },
    },
    {
      name: 'a list new to the object drops $patch items',
      current: { name: 'hi' },
      patch: { parts: [{ name: 'hello' }, { $patch: 'delete', name: 'doesntexist' }] },
      want: { name: 'hi', parts: items('hello') },
    },
    {
      name: '$setElementOrder may name items that exist nowhere',
      current: { parts: items('1', '3') },
      patch: { '$setElementOrder/parts': items('3', '2', '1'), parts: items({ name: '3', value: '3' }, { name: '1', value: '1' }) },
      want: { parts: items({ name: '3', value: '3' }, { name: '1', value: '1' }) },
    },
    {
      name: 'duplicate keys in the live list stay together',
      current: { parts: items('1', { name: '2', value: 'dup1' }, '3', { name: '2', value: 'dup2' }, '4') },
      patch: { '$setElementOrder/parts': items('2', '1', '4', '3', '2') },
      want: { parts: items({ name: '2', value: 'dup1' }, { name: '2', value: 'dup2' }, '1', '4', '3') },
    },
    {
      name: 'nested list with its own $setElementOrder',
      current: { parts: [{ name: '1', other: 'a', parts: [{ name: '2', value: '2', other: 'd' }] }, { name: '2', other: 'b' }] },
      patch: {
        '$setElementOrder/parts': items('1', '2'),
        parts: [{ '$setElementOrder/parts': items('2', '1'), name: '1', parts: items({ name: '1', value: '1' }) }],
      },
      want: {
        parts: [
          { name: '1', other: 'a', parts: items({ name: '2', value: '2', other: 'd' }, { name: '1', value: '1' }) },
          { name: '2', other: 'b' },
        ],
      },
    },
    {
      name: 'without $setElementOrder, patch order wins and unmentioned items go first',
      current: { parts: items('1', { name: '2', value: 'b' }, '3') },
      patch: { parts: items({ name: '3', value: 'c' }, { name: '1', value: 'a' }) },
      want: { parts: items({ name: '2', value: 'b' }, { name: '3', value: 'c' }, { name: '1', value: 'a' }) },
    },
    {
      name: 'without $setElementOrder, a patch naming every item reorders them',
      current: { parts: items('1', { name: '2', value: 'b' }, '3') },
      patch: { parts: items({ name: '3', value: 'c' }, { name: '1', value: 'a' }, { name: '2', other: 'x' }) },
      want: { parts: items({ name: '3', value: 'c' }, { name: '1', value: 'a' }, { name: '2', value: 'b', other: 'x' }) },
    },
    {
      name: '$patch: delete removes every item with that key',
      current: { parts: items('1', '1', { name: '2', value: 'a' }, '3', '3') },
      patch: { parts: [{ name: '1', $patch: 'delete' }, { name: '3', $patch: 'delete' }] },
      want: { parts: items({ name: '2', value: 'a' }) },
    },
    {
      name: '$patch: delete of a missing item is a no-op',
      current: { parts: items({ name: '2', other: 'b' }) },
      patch: { '$setElementOrder/parts': items('2'), parts: [{ name: '1', $patch: 'delete' }] },
      want: { parts: items({ name: '2', other: 'b' }) },
    },
    { name: '$patch: replace empties the list', current: { parts: items('1', '2') }, patch: { parts: [{ $patch: 'replace' }] }, want: { parts: [] } },
    {
      name: '$patch: replace with items makes them the list',
      current: { parts: items('1', '2') },
      patch: { parts: [{ name: 'x', value: 'y' }, { $patch: 'replace' }] },
      want: { parts: items({ name: 'x', value: 'y' }) },
    },
    { name: 'an empty patch list leaves the list alone', current: { parts: items('1', '2') }, patch: { parts: [] }, want: { parts: items('1', '2') } },
    { name: 'empty lists stay empty', current: { parts: [] }, patch: { parts: [] }, want: { parts: [] } },
    {
      // A new primitive with nothing in the live list to anchor it goes first.
      name: 'items merge recursively',
      current: { parts: [{ name: 'a', value: '1', labels: { x: '1' }, numbers: [1] }] },
      patch: { parts: [{ name: 'a', labels: { y: '2' }, numbers: [2], value: null }] },
      want: { parts: [{ name: 'a', labels: { x: '1', y: '2' }, numbers: [2, 1] }] },
    },
    {
      name: 'numeric merge keys',
      current: { ports: [{ port: 80, name: 'http' }, { port: 443 }] },
      patch: { ports: [{ port: 443, name: 'https' }] },
      want: { ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https' }] },
    },
  ]);
});

describe('strategic merge patch: lists of primitives', () => {
  runCases([
    {
      name: 'merge strategy makes a set',
      current: { numbers: [1, 2, 4] },
      patch: { '$setElementOrder/numbers': [1, 2, 3], numbers: [3] },
      want: { numbers: [1, 2, 3, 4] },
    },
    {
      name: 'new item first by $setElementOrder',
      current: { numbers: [1, 4, 2] },
      patch: { '$setElementOrder/numbers': [3, 1, 2], numbers: [3] },
      want: { numbers: [3, 1, 4, 2] },
    },
    {
      name: '$deleteFromPrimitiveList with $setElementOrder',
      current: { numbers: [1, 2, 3] },
      patch: { '$setElementOrder/numbers': [2, 1], '$deleteFromPrimitiveList/numbers': [3] },
      want: { numbers: [2, 1] },
    },
    {
      name: 'add and delete',
      current: { numbers: [1, 2, 3] },
      patch: { '$setElementOrder/numbers': [4, 2, 1], numbers: [4], '$deleteFromPrimitiveList/numbers': [3] },
      want: { numbers: [4, 2, 1] },
    },
    {
      name: '$deleteFromPrimitiveList removes duplicates too',
      current: { numbers: [1, 2, 3, 3, 4] },
      patch: { '$setElementOrder/numbers': [1, 2], '$deleteFromPrimitiveList/numbers': [3] },
      want: { numbers: [1, 2, 4] },
    },
    { name: 'union keeps live order', current: { numbers: [1, 2] }, patch: { numbers: [2, 3] }, want: { numbers: [1, 2, 3] } },
    { name: 'a new item without an anchor in the live list goes first', current: { numbers: [1] }, patch: { numbers: [2] }, want: { numbers: [2, 1] } },
    { name: 'patch order wins for named items', current: { numbers: [1, 2, 3] }, patch: { numbers: [3, 1] }, want: { numbers: [2, 3, 1] } },
    { name: 'patch naming all items reorders', current: { numbers: [1, 2, 3] }, patch: { numbers: [3, 1, 2] }, want: { numbers: [3, 1, 2] } },
    {
      name: 'server-only items with $setElementOrder',
      current: { numbers: [1, 2, 7, 9, 8, 3, 4] },
      patch: { '$setElementOrder/numbers': [2, 1, 4, 3] },
      want: { numbers: [2, 1, 7, 9, 8, 4, 3] },
    },
    { name: 'duplicates in the live list', current: { numbers: [1, 2, 3, 2, 4] }, patch: { '$setElementOrder/numbers': [2, 1, 4, 3, 2] }, want: { numbers: [2, 2, 1, 4, 3] } },
    { name: 'deleting a missing item changes nothing', current: { numbers: [1, 2] }, patch: { '$deleteFromPrimitiveList/numbers': [3] }, want: { numbers: [1, 2] } },
    { name: 'deleting from a null list keeps it null', current: { numbers: null }, patch: { '$deleteFromPrimitiveList/numbers': [3] }, want: { numbers: null } },
    { name: 'deleting from a missing list does not create it', current: { other: 'x' }, patch: { '$deleteFromPrimitiveList/numbers': [3] }, want: { other: 'x' } },
    { name: 'deletion lists work on lists without a strategy', current: { plainNumbers: [1, 2, 3] }, patch: { '$deleteFromPrimitiveList/plainNumbers': [2] }, want: { plainNumbers: [1, 3] } },
    { name: 'a null deletion list deletes the list itself', current: { numbers: [1], other: 'x' }, patch: { '$deleteFromPrimitiveList/numbers': null }, want: { other: 'x' } },
    { name: 'lists without a strategy are replaced', current: { plainNumbers: [1, 2] }, patch: { plainNumbers: [3, 1] }, want: { plainNumbers: [3, 1] } },
    {
      name: 'lists of maps without a strategy are replaced as sent',
      current: { plainParts: items('a', 'b') },
      patch: { plainParts: [{ name: 'c' }, { name: 'a', $patch: 'delete' }] },
      want: { plainParts: [{ name: 'c' }, { name: 'a', $patch: 'delete' }] },
    },
  ]);
});

describe('strategic merge patch: maps, nulls and directives', () => {
  runCases([
    { name: 'null deletes; unknown nulls are ignored', current: { name: 'x', value: 'y' }, patch: { value: null, other: null }, want: { name: 'x' } },
    { name: 'map values merge key by key', current: { labels: { a: '1', b: '2' } }, patch: { labels: { b: null, c: '3' } }, want: { labels: { a: '1', c: '3' } } },
    { name: '$patch: replace on a map', current: { labels: { a: '1' } }, patch: { labels: { $patch: 'replace', b: '2' } }, want: { labels: { b: '2' } } },
    { name: '$patch: delete on a map leaves it empty', current: { labels: { a: '1' }, name: 'n' }, patch: { labels: { $patch: 'delete' } }, want: { labels: {}, name: 'n' } },
    { name: '$patch on a map the object lacks drops it', current: { name: 'n' }, patch: { labels: { $patch: 'delete' }, blob: { $patch: 'replace', a: 'x' } }, want: { name: 'n' } },
    { name: '$patch: replace on the whole object', current: { name: 'n', value: 'v' }, patch: { $patch: 'replace', other: 'o' }, want: { other: 'o' } },
    { name: '$patch: delete on the whole object', current: { name: 'n' }, patch: { $patch: 'delete' }, want: {} },
    {
      name: 'a new subtree loses nulls and $patch items',
      current: {},
      patch: { retained: { name: 'n', value: null, parts: [{ name: 'a', $patch: 'delete' }, { name: 'b', value: null }] } },
      want: { retained: { name: 'n', parts: [{ name: 'b' }] } },
    },
    { name: 'a type change replaces the value', current: { name: 'x', labels: { a: '1' } }, patch: { name: { a: 1 }, labels: 'y' }, want: { name: { a: 1 }, labels: 'y' } },
    {
      name: 'replace strategy replaces a map wholesale',
      current: { blob: { a: 'x', b: { k: 'v' } } },
      patch: { blob: { b: { k2: 'v2' } } },
      want: { blob: { b: { k2: 'v2' } } },
    },
    {
      name: 'fields the schema does not know merge like a merge patch',
      current: { extra: { a: 1, l: [1, 2], m: { x: 1 } } },
      patch: { extra: { l: [3], m: { y: 2 }, a: null } },
      want: { extra: { l: [3], m: { x: 1, y: 2 } } },
    },
    { name: 'opaque values merge without schema', current: { raw: { a: { x: 1 }, l: [1] } }, patch: { raw: { a: { y: 2 }, l: [2] } }, want: { raw: { a: { x: 1, y: 2 }, l: [2] } } },
    { name: 'a null patch body changes nothing', current: { name: 'n' }, patch: 'null', want: { name: 'n' } },
  ]);
});

describe('strategic merge patch: retainKeys', () => {
  runCases([
    {
      name: '$retainKeys clears fields not listed',
      current: { retained: { value: 'foo' } },
      patch: { retained: { $retainKeys: ['other'], other: 'bar' } },
      want: { retained: { other: 'bar' } },
    },
    {
      name: 'switching a discriminated union',
      current: { retained: { name: 'type1', value: 'foo' } },
      patch: { retained: { $retainKeys: ['name', 'other'], name: 'type2', other: 'bar' } },
      want: { retained: { name: 'type2', other: 'bar' } },
    },
    {
      name: '$retainKeys with a null deletion',
      current: { retained: { name: 'foo', value: 'bar', other: 'a' } },
      patch: { retained: { $retainKeys: ['name'], value: null } },
      want: { retained: { name: 'foo' } },
    },
    {
      name: 'nested maps under $retainKeys still merge',
      current: { retained: { name: 'foo', value: 'bar', labels: { key1: 'a', key3: 'c' } } },
      patch: { retained: { $retainKeys: ['name', 'labels', 'value'], labels: { key2: 'b' } } },
      want: { retained: { name: 'foo', value: 'bar', labels: { key1: 'a', key2: 'b', key3: 'c' } } },
    },
    {
      name: 'retainKeys field without the directive merges normally',
      current: { retained: { name: 'foo' } },
      patch: { retained: { value: 'bar' } },
      want: { retained: { name: 'foo', value: 'bar' } },
    },
    {
      name: 'with a nested primitive list: add, delete and order',
      current: { retained: { name: 'foo', numbers: [1, 2, 3, 4] } },
      patch: {
        retained: { $retainKeys: ['numbers', 'name'], numbers: [5], '$deleteFromPrimitiveList/numbers': [2], '$setElementOrder/numbers': [1, 3, 5] },
      },
      want: { retained: { name: 'foo', numbers: [1, 3, 5, 4] } },
    },
    {
      name: 'with a nested merging list: delete an item',
      current: { retained: { name: 'foo', parts: items('a', 'b', 'x') } },
      patch: { retained: { $retainKeys: ['parts', 'name'], '$setElementOrder/parts': items('a'), parts: [{ name: 'b', $patch: 'delete' }] } },
      want: { retained: { name: 'foo', parts: items('a', 'x') } },
    },
    {
      name: 'list items with $retainKeys (merge,retainKeys)',
      current: { retainedParts: items('bar', { name: 'foo', value: 'a', other: 'x' }) },
      patch: { '$setElementOrder/retainedParts': items('bar', 'foo'), retainedParts: [{ $retainKeys: ['name', 'value'], name: 'foo' }] },
      want: { retainedParts: items('bar', { name: 'foo', value: 'a' }) },
    },
  ]);
});

interface ErrorCase {
  name: string;
  current: JsonObject;
  patch: JsonObject | string;
  status: { code: number; message: string; reason?: string };
}

describe('strategic merge patch: errors and their statuses', () => {
  const cases: ErrorCase[] = [
    {
      name: 'an item without the merge key',
      current: { parts: [{ name: '1', value: 'a' }] },
      patch: { parts: [{ value: 'b' }] },
      status: { code: 500, message: 'map: map[value:b] does not contain declared merge key: name' },
    },
    {
      name: 'a $patch: delete item without the merge key',
      current: { parts: [{ name: '1' }] },
      patch: { parts: [{ $patch: 'delete', value: 'b' }] },
      status: { code: 500, message: 'map: map[$patch:delete value:b] does not contain declared merge key: name' },
    },
    {
      name: 'patch list order contradicts $setElementOrder',
      current: { parts: items('1', '3', '2') },
      patch: { '$setElementOrder/parts': items('1', '2', '3'), parts: items({ name: '3', value: '3' }, { name: '1', value: '1' }) },
      status: {
        code: 500,
        message: "The order in patch list:\n[map[name:3 value:3] map[name:1 value:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2] map[name:3]]\n",
      },
    },
    {
      name: 'primitive patch list order contradicts $setElementOrder',
      current: { numbers: [1, 3, 2] },
      patch: { '$setElementOrder/numbers': [1, 2, 3], numbers: [3, 1] },
      status: { code: 500, message: "The order in patch list:\n[3 1]\n doesn't match $setElementOrder list:\n[1 2 3]\n" },
    },
    {
      name: '$setElementOrder items without the merge key',
      current: { parts: items('a') },
      patch: { '$setElementOrder/parts': [{ value: 'x' }], parts: items('a') },
      status: { code: 500, message: 'map: map[value:x] does not contain declared merge key: name' },
    },
    {
      name: 'unknown $patch in a list item',
      current: { parts: items('a') },
      patch: { parts: [{ name: 'a', $patch: 'frob' }] },
      status: { code: 500, message: 'unknown patch type: frob in map: map[$patch:frob name:a]' },
    },
    {
      name: '$patch: merge in a list',
      current: { parts: items('a') },
      patch: { parts: [{ $patch: 'merge' }] },
      status: { code: 500, message: 'merging lists cannot yet be specified in the patch' },
    },
    {
      name: 'unknown $patch on a map',
      current: { labels: { a: '1' } },
      patch: { labels: { $patch: true } },
      status: { code: 500, message: 'unknown patch type: %!s(bool=true) in map: map[$patch:true]' },
    },
    {
      name: '$patch: merge on a map',
      current: { labels: { a: '1' } },
      patch: { labels: { $patch: 'merge', b: '2' } },
      status: { code: 500, message: 'unknown patch type: merge in map: map[$patch:merge b:2]' },
    },
    {
      name: 'malformed $deleteFromPrimitiveList key',
      current: { numbers: [1] },
      patch: { $deleteFromPrimitiveList: [1] },
      status: { code: 400, reason: 'BadRequest', message: 'invalid patch format of primitive list' },
    },
    {
      name: 'malformed $setElementOrder key',
      current: { numbers: [1] },
      patch: { '$setElementOrderX/numbers': [1] },
      status: { code: 400, reason: 'BadRequest', message: 'invalid patch format of setElementOrder list' },
    },
    {
      name: '$setElementOrder that is not a list',
      current: { numbers: [1] },
      patch: { '$setElementOrder/numbers': 'x' },
      status: { code: 500, message: 'expected a []interface {}, but received a string' },
    },
    {
      name: '$setElementOrder with a null patch list',
      current: { numbers: [1] },
      patch: { '$setElementOrder/numbers': [1], numbers: null },
      status: { code: 500, message: 'expected a []interface {}, but received a %!s(<nil>)' },
    },
    {
      name: '$setElementOrder for a list that is empty everywhere',
      current: { numbers: [] },
      patch: { '$setElementOrder/numbers': [1] },
      status: { code: 500, message: 'no elements in any of the given slices' },
    },
    {
      name: '$retainKeys not naming a patched field',
      current: { retained: { name: 'a' } },
      patch: { retained: { $retainKeys: ['name'], value: 'x' } },
      status: { code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
    },
    {
      name: '$retainKeys that is not a list',
      current: { retained: { name: 'a' } },
      patch: { retained: { $retainKeys: 'name' } },
      status: { code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
    },
    {
      name: 'lists of lists',
      current: { matrix: [[1]] },
      patch: { matrix: [[2]] },
      status: { code: 422, reason: 'Invalid', message: GENERIC_422_MESSAGE },
    },
    {
      name: 'mixed element types',
      current: { numbers: [1, 2] },
      patch: { numbers: ['a'] },
      status: { code: 500, message: 'list element types are not identical: [[1 2] [a]]' },
    },
    {
      name: 'a merge strategy without merge key on a list of maps',
      current: { numbers: [{ a: 1 }] },
      patch: { numbers: [{ a: 2 }] },
      status: { code: 500, message: 'cannot merge lists without merge key for int64' },
    },
    {
      name: 'an impossible strategy pair',
      current: { weird: { a: 'x' } },
      patch: { weird: { a: 'y' } },
      status: { code: 500, message: 'unexpected patch strategy: [merge replace]' },
    },
    { name: 'a body that is an array', current: {}, patch: '[1]', status: { code: 400, reason: 'BadRequest', message: 'json: cannot unmarshal array into Go value of type map[string]interface {}' } },
    { name: 'a body that is a string', current: {}, patch: '"x"', status: { code: 400, reason: 'BadRequest', message: 'json: cannot unmarshal string into Go value of type map[string]interface {}' } },
    { name: 'a body that is not JSON', current: {}, patch: '{"a":', status: { code: 400, reason: 'BadRequest', message: 'unexpected end of JSON input' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.throws(
        () => applyStrategicMergePatch(deepFreeze(structuredClone(c.current)), c.patch, WIDGET),
        (err: unknown) => {
          assert.ok(err instanceof StrategicMergePatchError || err instanceof PatchDecodeError, String(err));
          assert.equal(err.status.code, c.status.code);
          assert.equal(err.status.message, c.status.message);
          assert.equal(err.status.reason, c.status.reason);
          if (c.status.code === 422) assert.deepEqual(err.status.details, {});
          assert.equal(toApiError(err).status.code, c.status.code);
          return true;
        },
      );
    });
  }

  it('where upstream would panic (comparing maps), answers as a panic', () => {
    assert.throws(
      () => applyStrategicMergePatch({ parts: [{ name: { x: 1 } }] }, { parts: [{ name: { x: 1 } }] }, WIDGET),
      (err: unknown) => err instanceof PatchPanicError && err.panic && err.status.code === 500,
    );
  });

  it('accepts decoded patches but rejects non-objects like the decoder would', () => {
    assert.deepEqual(applyStrategicMergePatch({ a: 1 }, undefined), { a: 1 });
    assert.throws(
      () => applyStrategicMergePatch({}, [1]),
      (err: unknown) => err instanceof PatchDecodeError && err.message === 'json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
  });

  it('does not mutate inputs and shares untouched subtrees', () => {
    const current = deepFreeze({ parts: items('a', 'b'), labels: { x: '1' }, blob: { a: 'keep' } });
    const patch = deepFreeze({ parts: [{ name: 'b', value: 'v' }], labels: { y: '2' } });
    const out = applyStrategicMergePatch(current, patch, WIDGET);
    assert.deepEqual(out, { parts: items('a', { name: 'b', value: 'v' }), labels: { x: '1', y: '2' }, blob: { a: 'keep' } });
    assert.equal(out.blob, current.blob);
    assert.equal((out.parts as JsonValue[])[0], current.parts[0]);
  });
});

describe('patch schema view', () => {
  it('navigates fields, items and map values lazily with caching', () => {
    assert.equal(WIDGET.kind, 'struct');
    const parts = WIDGET.lookupSlice('parts');
    assert.deepEqual([parts.strategies, parts.mergeKey], [['merge'], 'name']);
    assert.equal(parts.schema, WIDGET, 'a $ref resolves to the cached definition');
    assert.deepEqual(WIDGET.lookupField('retainedParts').strategies, ['merge', 'retainKeys']);
    assert.equal(WIDGET.lookupField('labels').schema.kind, 'map');
    assert.equal(WIDGET.lookupField('labels').schema.additionalProperties()?.kind, 'scalar');
    assert.equal(WIDGET.lookupField('labels').schema.lookupField('anything').schema.kind, 'scalar');
    assert.equal(WIDGET.lookupField('raw').schema.kind, 'opaque');
    assert.equal(WIDGET.lookupField('nope').schema, PatchSchema.unknown);
    assert.equal(WIDGET.lookupField('numbers'), WIDGET.lookupField('numbers'));
    assert.equal(patchSchemaFor({ definitions: DEFS }, 'test.Widget').kind, 'struct');
    assert.throws(() => patchSchemaFor(DEFS, 'no.such.Type'), /no OpenAPI definition named no.such.Type/);
  });
});

// ---------------------------------------------------------------------------
// Realistic client-side apply patches against the real Kubernetes schema.

let realDefinitions: SwaggerDefinitions | undefined;
function definitions(t: { skip: (message: string) => void }): SwaggerDefinitions | undefined {
  if (realDefinitions) return realDefinitions;
  const text = sharedText(t, 'k8s-api', 'openapi-v2.json');
  if (text === undefined) return undefined;
  realDefinitions = (JSON.parse(text) as { definitions: SwaggerDefinitions }).definitions;
  return realDefinitions;
}

const LAST_APPLIED_OLD =
  '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"default"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"image":"nginx:1.25","name":"web","ports":[{"containerPort":80}]}],"volumes":[{"emptyDir":{},"name":"data"}]}}}}\n';
const LAST_APPLIED_NEW = LAST_APPLIED_OLD.replace('nginx:1.25', 'nginx:1.27');

function liveDeployment(): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'default',
      uid: '6b3c9f9e-1d2e-4f0a-9a55-0c2f4d1e7a10',
      resourceVersion: '1043',
      generation: 3,
      creationTimestamp: '2025-01-01T00:00:00Z',
      labels: { app: 'web' },
      annotations: { 'deployment.kubernetes.io/revision': '3', 'kubectl.kubernetes.io/last-applied-configuration': LAST_APPLIED_OLD },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.25',
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
              resources: {},
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              imagePullPolicy: 'IfNotPresent',
            },
            {
              // Added by a mutating webhook: not in the user's configuration.
              name: 'proxy',
              image: 'proxy:1.0',
              resources: {},
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              imagePullPolicy: 'IfNotPresent',
            },
          ],
          volumes: [{ name: 'data', emptyDir: {} }],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          schedulerName: 'default-scheduler',
          tolerations: [{ key: 'a', operator: 'Exists' }],
        },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: { observedGeneration: 3, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
  };
}

/** Test-local navigation into plain JSON, to build expectations and read results. */
function at(v: JsonValue | undefined, ...path: Array<string | number>): JsonObject {
  let cur: JsonValue | undefined = v;
  for (const p of path) cur = Array.isArray(cur) ? cur[p as number] : (cur as JsonObject)[p as string];
  return cur as JsonObject;
}

function list(v: JsonValue | undefined, ...path: Array<string | number>): JsonObject[] {
  return at(v, ...path) as unknown as JsonObject[];
}

describe('strategic merge patch: kubectl client-side apply on a real Deployment', () => {
  it('changes a container image (the patch kubectl sends)', (t) => {
    const defs = definitions(t);
    if (!defs) return;
    const schema = patchSchemaFor(defs, 'io.k8s.api.apps.v1.Deployment');
    const patch =
      `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":${JSON.stringify(LAST_APPLIED_NEW)}}},` +
      '"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],"containers":[{"image":"nginx:1.27","name":"web"}]}}}}';
    const live = deepFreeze(liveDeployment());
    const want = liveDeployment();
    at(want, 'metadata', 'annotations')['kubectl.kubernetes.io/last-applied-configuration'] = LAST_APPLIED_NEW;
    at(want, 'spec', 'template', 'spec', 'containers', 0).image = 'nginx:1.27';
    const got = applyStrategicMergePatch(live, patch, schema);
    assert.deepEqual(got, want);
    // Only the touched path is new; everything else is shared with the live object.
    assert.equal(got.status, live.status);
    assert.equal(at(got, 'spec', 'template', 'spec', 'containers', 1), at(live, 'spec', 'template', 'spec', 'containers', 1));
  });

  it('switches the deployment strategy with $retainKeys', (t) => {
    const defs = definitions(t);
    if (!defs) return;
    const schema = patchSchemaFor(defs, 'io.k8s.api.apps.v1.Deployment');
    const got = applyStrategicMergePatch(liveDeployment(), '{"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":null,"type":"Recreate"}}}', schema);
    assert.deepEqual(at(got, 'spec', 'strategy'), { type: 'Recreate' });
  });

  it('switches a volume source with $retainKeys inside a merge,retainKeys list', (t) => {
    const defs = definitions(t);
    if (!defs) return;
    const schema = patchSchemaFor(defs, 'io.k8s.api.apps.v1.Deployment');
    const patch =
      '{"spec":{"template":{"spec":{"$setElementOrder/volumes":[{"name":"data"}],' +
      '"volumes":[{"$retainKeys":["configMap","name"],"configMap":{"name":"web-config"},"emptyDir":null,"name":"data"}]}}}}';
    const got = applyStrategicMergePatch(liveDeployment(), patch, schema);
    assert.deepEqual(list(got, 'spec', 'template', 'spec', 'volumes'), [{ name: 'data', configMap: { name: 'web-config' } }]);
  });

  it('removes, adds and reorders env vars and ports of one container; tolerations are replaced', (t) => {
    const defs = definitions(t);
    if (!defs) return;
    const schema = patchSchemaFor(defs, 'io.k8s.api.apps.v1.Deployment');
    const patch = JSON.stringify({
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }],
            containers: [
              {
                name: 'web',
                '$setElementOrder/env': [{ name: 'C' }, { name: 'A' }],
                env: [{ name: 'C', value: '3' }, { $patch: 'delete', name: 'B' }],
                '$setElementOrder/ports': [{ containerPort: 80 }, { containerPort: 443 }],
                ports: [{ containerPort: 443 }],
              },
            ],
            tolerations: [{ key: 'b', operator: 'Exists', effect: 'NoSchedule' }],
          },
        },
      },
    });
    const got = applyStrategicMergePatch(deepFreeze(liveDeployment()), patch, schema);
    const want = liveDeployment();
    const web = at(want, 'spec', 'template', 'spec', 'containers', 0);
    web.env = [
      { name: 'C', value: '3' },
      { name: 'A', value: '1' },
    ];
    web.ports = [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }];
    at(want, 'spec', 'template', 'spec').tolerations = [{ key: 'b', operator: 'Exists', effect: 'NoSchedule' }];
    assert.deepEqual(got, want);
  });

  it('replaces a container while a server-side container stays in place', (t) => {
    const defs = definitions(t);
    if (!defs) return;
    const schema = patchSchemaFor(defs, 'io.k8s.api.apps.v1.Deployment');
    const patch = JSON.stringify({
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'api' }],
            containers: [{ name: 'api', image: 'api:2' }, { $patch: 'delete', name: 'web' }],
          },
        },
      },
    });
    const got = applyStrategicMergePatch(liveDeployment(), patch, schema);
    const names = list(got, 'spec', 'template', 'spec', 'containers').map((c) => c.name);
    // Upstream deletes "web" in place and appends "api" into the freed slot of
    // the live list, which it then uses to order "proxy": proxy stays first.
    assert.deepEqual(names, ['proxy', 'api']);
  });
});

describe('strategic merge patch: Pod metadata lists on the real schema', () => {
  it('finalizers are a set; owner references merge by uid; labels merge', (t) => {
    const defs = definitions(t);
    if (!defs) return;
    const schema = patchSchemaFor(defs, 'io.k8s.api.core.v1.Pod');
    const live = deepFreeze({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        labels: { app: 'web', tier: 'fe' },
        finalizers: ['example.com/a', 'example.com/b'],
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
      },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    const patch = {
      metadata: {
        labels: { tier: null, env: 'prod' },
        '$deleteFromPrimitiveList/finalizers': ['example.com/a'],
        '$setElementOrder/finalizers': ['example.com/b', 'example.com/c'],
        finalizers: ['example.com/c'],
        ownerReferences: [
          { uid: 'u1', blockOwnerDeletion: true },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u2' },
        ],
      },
    };
    assert.deepEqual(applyStrategicMergePatch(live, patch, schema).metadata, {
      name: 'p',
      labels: { app: 'web', env: 'prod' },
      finalizers: ['example.com/b', 'example.com/c'],
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true, blockOwnerDeletion: true },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u2' },
      ],
    });
  });

  it('the real schema carries the patch metadata kube uses', (t) => {
    const defs = definitions(t);
    if (!defs) return;
    const pod = patchSchemaFor(defs, 'io.k8s.api.core.v1.PodSpec');
    assert.deepEqual(pod.lookupSlice('containers').mergeKey, 'name');
    assert.deepEqual(pod.lookupSlice('volumes').strategies, ['merge', 'retainKeys']);
    assert.deepEqual(pod.lookupSlice('tolerations').strategies, []);
    assert.equal(pod.lookupSlice('containers').schema.lookupSlice('ports').mergeKey, 'containerPort');
    assert.equal(pod.lookupSlice('containers').schema.lookupField('resources').schema.lookupField('limits').schema.additionalProperties()?.kind, 'scalar');
    const deploy = patchSchemaFor(defs, 'io.k8s.api.apps.v1.DeploymentSpec');
    assert.deepEqual(deploy.lookupField('strategy').strategies, ['retainKeys']);
    assert.equal(deploy.lookupField('strategy').schema.lookupField('rollingUpdate').schema.lookupField('maxSurge').schema.kind, 'scalar');
    assert.equal(patchSchemaFor(defs, 'io.k8s.api.apps.v1.ControllerRevision').lookupField('data').schema.kind, 'opaque');
    assert.equal(patchSchemaFor(defs, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta').lookupSlice('managedFields').schema.lookupField('fieldsV1').schema.kind, 'opaque');
  });
});
