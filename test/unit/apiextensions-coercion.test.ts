import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  CustomResourceSchema,
  applyDefaults,
  checkCustomResourceFields,
  parseStructural,
  pruneNonNullableNulls,
  pruneUnknown,
  validateListSetsAndMaps,
} from '../../src/apiextensions/schema/index.js';
import { ApiError, fieldErrorString } from '../../src/machinery/errors.js';
import type { JsonObject, JsonValue } from '../../src/machinery/json-value.js';

/** Pruning, defaulting, list-type uniqueness and ObjectMeta coercion of custom resources. */

const SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        a: { type: 'string', default: 'x' },
        n: { type: 'string', nullable: true, default: 'n' },
        plain: { type: 'string' },
        list: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' }, v: { type: 'integer', default: 1 } } } },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { on: { type: 'boolean', default: true } } } },
        obj: { type: 'object', default: {}, properties: { inner: { type: 'string', default: 'i' } } },
        keep: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { typed: { type: 'object', properties: { t: { type: 'string' } } } } },
        emb: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } },
        set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        lm: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'proto'], items: { type: 'object', properties: { name: { type: 'string' }, proto: { type: 'string' } } } },
      },
    },
  },
};
const S = parseStructural(SCHEMA);

describe('pruning', () => {
  const CASES: { name: string; value: JsonObject; want: JsonValue; pruned: string[] }[] = [
    { name: 'nothing unknown', value: { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'n' }, spec: { a: 'y' } }, want: { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'n' }, spec: { a: 'y' } }, pruned: [] },
    { name: 'unknown at the root and below', value: { foo: 1, spec: { bar: { x: 1 }, list: [{ k: 'a', z: 2 }] } }, want: { spec: { list: [{ k: 'a' }] } }, pruned: ['foo', 'spec.bar', 'spec.list[0].z'] },
    { name: 'map values', value: { spec: { map: { one: { on: false, off: 1 } } } }, want: { spec: { map: { one: { on: false } } } }, pruned: ['spec.map.one.off'] },
    { name: 'preserved, but specified fields pruned', value: { spec: { keep: { any: { thing: 1 }, typed: { t: 'a', u: 'b' } } } }, want: { spec: { keep: { any: { thing: 1 }, typed: { t: 'a' } } } }, pruned: ['spec.keep.typed.u'] },
    { name: 'embedded resource keeps its type and object meta', value: { spec: { emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'a', y: 'b' }, other: 1 } } }, want: { spec: { emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'a' } } } }, pruned: ['spec.emb.spec.y', 'spec.emb.other'] },
  ];
  for (const c of CASES) {
    it(c.name, () => {
      const before = structuredClone(c.value);
      const r = pruneUnknown(c.value, S, true);
      assert.deepEqual(r.value, c.want);
      assert.deepEqual(r.pruned, c.pruned);
      assert.deepEqual(c.value, before, 'the input is not mutated');
    });
  }
});

describe('defaulting', () => {
  const CASES: { name: string; value: JsonObject; want: JsonObject }[] = [
    { name: 'missing properties and defaults inside defaults', value: { spec: {} }, want: { spec: { a: 'x', n: 'n', obj: { inner: 'i' } } } },
    { name: 'null of a non-nullable property is defaulted', value: { spec: { a: null } }, want: { spec: { a: 'x', n: 'n', obj: { inner: 'i' } } } },
    { name: 'null of a nullable property stays', value: { spec: { n: null } }, want: { spec: { a: 'x', n: null, obj: { inner: 'i' } } } },
    { name: 'list items and map values', value: { spec: { a: 'y', n: 'm', obj: {}, list: [{ k: 'a' }], map: { one: {} } } }, want: { spec: { a: 'y', n: 'm', obj: { inner: 'i' }, list: [{ k: 'a', v: 1 }], map: { one: { on: true } } } } },
  ];
  for (const c of CASES) {
    it(c.name, () => {
      const before = structuredClone(c.value);
      assert.deepEqual(applyDefaults(c.value, S), c.want);
      assert.deepEqual(c.value, before, 'the input is not mutated');
    });
  }

  it('drops nulls nothing can repair', () => {
    assert.deepEqual(pruneNonNullableNulls({ spec: { plain: null, a: null, n: null } }, S), { spec: { a: null, n: null } });
  });

  it('shares the object when nothing changes', () => {
    const v = { spec: { a: 'y', n: 'm', obj: { inner: 'j' } } };
    assert.equal(applyDefaults(v, S), v);
  });
});

describe('list-type uniqueness', () => {
  const CASES: { name: string; value: JsonObject; want: string[] }[] = [
    { name: 'unique', value: { spec: { set: ['a', 'b'], lm: [{ name: 'a', proto: 'TCP' }, { name: 'a', proto: 'UDP' }] } }, want: [] },
    { name: 'set duplicates reported once each', value: { spec: { set: ['a', 'b', 'a', 'a', 'b'] } }, want: ['spec.set[2]: Duplicate value: "a"', 'spec.set[4]: Duplicate value: "b"'] },
    { name: 'map list duplicate keys', value: { spec: { lm: [{ name: 'a', proto: 'TCP' }, { name: 'a', proto: 'TCP' }] } }, want: ['spec.lm[1]: Duplicate value: {"name":"a","proto":"TCP"}'] },
    { name: 'map list items must be objects', value: { spec: { lm: ['x'] } }, want: ['spec.lm[0]: Invalid value: "x": must be an object for an array of list-type map'] },
  ];
  for (const c of CASES) {
    it(c.name, () => {
      assert.deepEqual(validateListSetsAndMaps('', S, c.value).map(fieldErrorString), c.want);
    });
  }
});

describe('custom resource schema', () => {
  const schema = new CustomResourceSchema(SCHEMA);

  it('coerces metadata through ObjectMeta and reports unknown fields in kube order', () => {
    const r = schema.coerce({ apiVersion: 'g/v1', kind: 'K', metadata: { name: 'n', zz: 1 }, spec: { q: 1, emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bad: true } } } }, true);
    assert.deepEqual(r.unknown, ['metadata.zz', 'spec.q', 'spec.emb.metadata.bad']);
    assert.deepEqual(r.object, { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'n' }, spec: { emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } } } });
  });

  it('writes embedded metadata back as ObjectMeta does: empty fields and a null creationTimestamp omitted', () => {
    const r = schema.coerce({ spec: { emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: {}, creationTimestamp: null, generation: 0, deletionGracePeriodSeconds: 0 } } } }, false);
    assert.deepEqual(r.object, { spec: { emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', deletionGracePeriodSeconds: 0 } } } });
  });

  it('fails the decode when ObjectMeta cannot hold the metadata or an embedded kind is no string', () => {
    assert.match(schema.coerce({ metadata: { labels: 'x' } }, false).error ?? '', /^json: cannot unmarshal string into Go struct field ObjectMeta\.labels of type map\[string\]string$/);
    assert.equal(schema.coerce({ spec: { emb: { apiVersion: 'v1', kind: 1 } } }, false).error, 'spec.emb.kind: Invalid value: 1: must be a string');
  });

  it('validates values, embedded resources and list types together', () => {
    const errs = schema.validate({ spec: { a: 1, emb: { apiVersion: 'a/b/c', kind: 'not a kind', metadata: { name: 'p' } }, set: ['x', 'x'] } }, () => []);
    assert.deepEqual(errs.map(fieldErrorString), [
      'spec.a: Invalid value: "integer": spec.a in body must be of type string: "integer"',
      'spec.emb.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      `spec.emb.kind: Invalid value: "not a kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      'spec.set[1]: Duplicate value: "x"',
    ]);
  });

  it('checks request bodies per fieldValidation', () => {
    const endpoint = { group: 'g', version: 'v1', kind: 'K' };
    const body = '{"apiVersion":"g/v1","kind":"K","metadata":{"name":"n"},"spec":{"a":"y","a":"z","q":1}}';
    const input = { body, contentType: 'json' as const, decoded: JSON.parse(body) as unknown, endpoint };
    const warn = checkCustomResourceFields(schema, { ...input, level: 'Warn' });
    assert.deepEqual(warn.warnings, ['duplicate field "spec.a"', 'unknown field "spec.q"']);
    assert.deepEqual((warn.object as JsonObject).spec, { a: 'z' });
    assert.deepEqual(checkCustomResourceFields(schema, { ...input, level: 'Ignore' }).warnings, []);
    assert.throws(
      () => checkCustomResourceFields(schema, { ...input, level: 'Strict' }),
      (err: unknown) => err instanceof ApiError && err.status.code === 400 && err.status.message === 'K in version "v1" cannot be handled as a K: strict decoding error: duplicate field "spec.a", unknown field "spec.q"',
    );
  });

  it('checks YAML bodies: repeated keys as the YAML decoder reports them, then unknown fields', () => {
    const body = 'apiVersion: g/v1\nkind: K\nmetadata:\n  name: n\nspec:\n  a: y\n  a: z\n  q: 1\n';
    const r = checkCustomResourceFields(schema, { body, contentType: 'yaml', decoded: { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'n' }, spec: { a: 'z', q: 1 } }, endpoint: { group: 'g', version: 'v1', kind: 'K' }, level: 'Warn' });
    assert.deepEqual(r.warnings, ['line 7: key "a" already set in map', 'unknown field "spec.q"']);
  });

  it('prunes nothing when the CRD preserves unknown fields', () => {
    const preserving = new CustomResourceSchema(SCHEMA, { preserveUnknownFields: true });
    assert.deepEqual(preserving.coerce({ spec: { q: 1 } }, true), { object: { spec: { q: 1 } }, unknown: [] });
  });
});
