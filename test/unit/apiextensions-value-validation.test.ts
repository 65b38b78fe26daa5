import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { validateValue, validateValueUpdate } from '../../src/apiextensions/schema/index.js';
import { fieldErrorString } from '../../src/machinery/errors.js';
import type { JsonObject, JsonValue } from '../../src/machinery/json-value.js';

/**
 * OpenAPI value validation of custom resources: kube-openapi's messages
 * turned into kube's field errors (apiextensions kubeOpenAPIResultToFieldErrors).
 */

const spec = (props: JsonObject, extra: JsonObject = {}): JsonObject => ({ type: 'object', properties: { spec: { type: 'object', properties: props, ...extra } } });

const CASES: { name: string; schema: JsonObject; value: JsonValue; want: string[] }[] = [
  { name: 'valid', schema: spec({ a: { type: 'integer', minimum: 1 } }), value: { spec: { a: 1 } }, want: [] },
  { name: 'wrong type', schema: spec({ a: { type: 'integer' } }), value: { spec: { a: 'x' } }, want: ['spec.a: Invalid value: "string": spec.a in body must be of type integer: "string"'] },
  { name: 'object expected', schema: spec({ a: { type: 'object' } }), value: { spec: { a: [] } }, want: ['spec.a: Invalid value: "array": spec.a in body must be of type object: "array"'] },
  { name: 'float for integer', schema: spec({ a: { type: 'integer' } }), value: { spec: { a: 1.5 } }, want: ['spec.a: Invalid value: "number": spec.a in body must be of type integer: "number"'] },
  { name: 'integer for number', schema: spec({ a: { type: 'number' } }), value: { spec: { a: 2 } }, want: [] },
  { name: 'null not nullable', schema: spec({ a: { type: 'string' } }), value: { spec: { a: null } }, want: ['spec.a: Invalid value: "null": spec.a in body must be of type string: "null"'] },
  { name: 'null nullable', schema: spec({ a: { type: 'string', nullable: true } }), value: { spec: { a: null } }, want: [] },
  { name: 'enum', schema: spec({ a: { type: 'string', enum: ['x', 'y'] } }), value: { spec: { a: 'z' } }, want: ['spec.a: Unsupported value: "z": supported values: "x", "y"'] },
  { name: 'enum of numbers', schema: spec({ a: { type: 'integer', enum: [1, 2] } }), value: { spec: { a: 3 } }, want: ['spec.a: Unsupported value: 3: supported values: "1", "2"'] },
  { name: 'pattern', schema: spec({ a: { type: 'string', pattern: '^[a-z]+$' } }), value: { spec: { a: 'A' } }, want: [`spec.a: Invalid value: "A": spec.a in body should match '^[a-z]+$'`] },
  { name: 'maxLength', schema: spec({ a: { type: 'string', maxLength: 2 } }), value: { spec: { a: 'abc' } }, want: ['spec.a: Too long: may not be more than 2 bytes'] },
  { name: 'maxLength counts runes', schema: spec({ a: { type: 'string', maxLength: 2 } }), value: { spec: { a: 'éé' } }, want: [] },
  { name: 'minLength', schema: spec({ a: { type: 'string', minLength: 3 } }), value: { spec: { a: 'ab' } }, want: ['spec.a: Invalid value: "ab": spec.a in body should be at least 3 chars long'] },
  { name: 'maximum', schema: spec({ a: { type: 'integer', maximum: 10 } }), value: { spec: { a: 11 } }, want: ['spec.a: Invalid value: 11: spec.a in body should be less than or equal to 10'] },
  { name: 'exclusiveMaximum', schema: spec({ a: { type: 'integer', maximum: 5, exclusiveMaximum: true } }), value: { spec: { a: 5 } }, want: ['spec.a: Invalid value: 5: spec.a in body should be less than 5'] },
  { name: 'exclusiveMinimum float', schema: spec({ a: { type: 'number', minimum: 1.5, exclusiveMinimum: true } }), value: { spec: { a: 1.5 } }, want: ['spec.a: Invalid value: 1.5: spec.a in body should be greater than 1.5'] },
  { name: 'float bound with %v', schema: spec({ a: { type: 'number', maximum: 1000000 } }), value: { spec: { a: 2000000.5 } }, want: ['spec.a: Invalid value: 2000000.5: spec.a in body should be less than or equal to 1e+06'] },
  { name: 'multipleOf', schema: spec({ a: { type: 'integer', multipleOf: 2 } }), value: { spec: { a: 3 } }, want: ['spec.a: Invalid value: 3: spec.a in body should be a multiple of 2'] },
  {
    name: 'items then maxItems',
    schema: spec({ a: { type: 'array', maxItems: 1, items: { type: 'integer' } } }),
    value: { spec: { a: [1, 'x'] } },
    want: ['spec.a[1]: Invalid value: "string": spec.a[1] in body must be of type integer: "string"', 'spec.a: Too many: 2: must have at most 1 item'],
  },
  { name: 'minItems', schema: spec({ a: { type: 'array', minItems: 2, items: { type: 'string' } } }), value: { spec: { a: ['x'] } }, want: ['spec.a: Invalid value: 1: spec.a in body should have at least 2 items'] },
  { name: 'maxProperties', schema: spec({ a: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } } }), value: { spec: { a: { x: '1', y: '2' } } }, want: ['spec.a: Too many: 2: must have at most 1 item'] },
  { name: 'additionalProperties values', schema: spec({ a: { type: 'object', additionalProperties: { type: 'string' } } }), value: { spec: { a: { k: 1 } } }, want: ['spec.a.k: Invalid value: "integer": spec.a.k in body must be of type string: "integer"'] },
  { name: 'required', schema: spec({}, { required: ['x', 'y'] }), value: { spec: {} }, want: ['spec.x: Required value', 'spec.y: Required value'] },
  { name: 'int-or-string int', schema: spec({ a: { 'x-kubernetes-int-or-string': true } }), value: { spec: { a: 1 } }, want: [] },
  { name: 'int-or-string string', schema: spec({ a: { 'x-kubernetes-int-or-string': true } }), value: { spec: { a: '50%' } }, want: [] },
  { name: 'int-or-string bool', schema: spec({ a: { 'x-kubernetes-int-or-string': true } }), value: { spec: { a: true } }, want: ['spec.a: Invalid value: "boolean": spec.a in body must be of type integer,string: "boolean"'] },
  { name: 'format uuid', schema: spec({ a: { type: 'string', format: 'uuid' } }), value: { spec: { a: 'nope' } }, want: ['spec.a: Invalid value: "nope": spec.a in body must be of type uuid: "nope"'] },
  { name: 'format date-time', schema: spec({ a: { type: 'string', format: 'date-time' } }), value: { spec: { a: '2024-01-02T03:04:05Z' } }, want: [] },
  { name: 'unsupported format ignored', schema: spec({ a: { type: 'string', format: 'whatever' } }), value: { spec: { a: 'x' } }, want: [] },
  {
    name: 'oneOf none valid',
    schema: spec({ a: { type: 'integer', oneOf: [{ minimum: 5 }, { maximum: 1 }] } }),
    value: { spec: { a: 3 } },
    want: ['<nil>: Invalid value: "": "spec.a" must validate one and only one schema (oneOf). Found none valid', 'spec.a: Invalid value: 3: spec.a in body should be greater than or equal to 5'],
  },
  {
    name: 'oneOf two valid',
    schema: spec({ a: { type: 'integer', oneOf: [{ minimum: 1 }, { maximum: 5 }] } }),
    value: { spec: { a: 3 } },
    want: ['<nil>: Invalid value: "": "spec.a" must validate one and only one schema (oneOf). Found 2 valid alternatives'],
  },
  {
    name: 'anyOf',
    schema: spec({ a: { type: 'integer', anyOf: [{ minimum: 5 }, { maximum: 1 }] } }),
    value: { spec: { a: 3 } },
    want: ['<nil>: Invalid value: "": "spec.a" must validate at least one schema (anyOf)', 'spec.a: Invalid value: 3: spec.a in body should be greater than or equal to 5'],
  },
  {
    name: 'allOf',
    schema: spec({ a: { type: 'integer', allOf: [{ minimum: 5 }, { maximum: 1 }] } }),
    value: { spec: { a: 3 } },
    want: [
      'spec.a: Invalid value: 3: spec.a in body should be greater than or equal to 5',
      'spec.a: Invalid value: 3: spec.a in body should be less than or equal to 1',
      '<nil>: Invalid value: "": "spec.a" must validate all the schemas (allOf). None validated',
    ],
  },
  { name: 'not', schema: spec({ a: { type: 'integer', not: { minimum: 1 } } }), value: { spec: { a: 3 } }, want: ['<nil>: Invalid value: "": "spec.a" must not validate the schema (not)'] },
];

describe('custom resource value validation', () => {
  for (const c of CASES) {
    it(c.name, () => {
      assert.deepEqual(validateValue(c.value, c.schema).map(fieldErrorString), c.want);
    });
  }

  it('prefixes paths with the given field path (defaults in a CRD)', () => {
    const errs = validateValue('x', { type: 'integer' }, 'spec.versions[0].schema.openAPIV3Schema.properties[a].default');
    assert.deepEqual(errs.map(fieldErrorString), ['spec.versions[0].schema.openAPIV3Schema.properties[a].default: Invalid value: "string":  in body must be of type integer: "string"']);
  });
});

describe('custom resource value validation on update (ratcheting)', () => {
  const schema = spec({
    a: { type: 'integer', maximum: 5 },
    b: { type: 'integer', maximum: 5 },
    lm: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', properties: { k: { type: 'string' }, v: { type: 'string', maxLength: 1 } } } },
    atomic: { type: 'array', items: { type: 'string', maxLength: 1 } },
  });

  it('keeps the errors of changed values and drops those of unchanged ones', () => {
    const old = { spec: { a: 10, b: 1, lm: [{ k: 'x', v: 'long' }], atomic: ['long'] } };
    const next = { spec: { a: 10, b: 6, lm: [{ k: 'y', v: 'new' }, { k: 'x', v: 'long' }], atomic: ['long', 'x'] } };
    assert.deepEqual(validateValueUpdate(next, old, schema).map(fieldErrorString), [
      'spec.b: Invalid value: 6: spec.b in body should be less than or equal to 5',
      'spec.lm[0].v: Too long: may not be more than 1 byte',
      'spec.atomic[0]: Too long: may not be more than 1 byte',
    ]);
  });

  it('drops nothing on create', () => {
    assert.equal(validateValue({ spec: { a: 10 } }, schema).length, 1);
  });
});
