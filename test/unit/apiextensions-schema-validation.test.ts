import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ratchetedSchemaValidationOptions, validateCustomResourceSchema } from '../../src/apiextensions/schema/index.js';
import { fieldErrorString } from '../../src/machinery/errors.js';
import type { JsonObject } from '../../src/machinery/json-value.js';

/** Validation of a CRD version's openAPIV3Schema: structural rules, extensions, defaults, with kube's messages and paths. */

const P = 'spec.versions[0].schema.openAPIV3Schema';
const spec = (props: JsonObject): JsonObject => ({ type: 'object', properties: { spec: { type: 'object', properties: props } } });

const CASES: { name: string; schema: JsonObject; status?: boolean; want: string[] }[] = [
  { name: 'valid schema with defaults and extensions', schema: spec({ a: { type: 'string', default: 'x' }, p: { 'x-kubernetes-int-or-string': true }, l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', required: ['k'], properties: { k: { type: 'string' } } } } }), want: [] },
  {
    name: 'types missing (sorted by message)',
    schema: { properties: { spec: { properties: { a: {} } } } },
    want: [
      `${P}.properties[spec].properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[spec].type: Required value: must not be empty for specified object fields`,
      `${P}.type: Required value: must not be empty at the root`,
    ],
  },
  { name: 'array without items', schema: spec({ a: { type: 'array' } }), want: [`${P}.properties[spec].properties[a].items: Required value: must be specified`] },
  { name: 'root not an object', schema: { type: 'string' }, want: [`${P}.type: Invalid value: "string": must be object at the root`] },
  {
    name: 'metadata beyond name and generateName',
    schema: { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 }, labels: { type: 'object' } } } } },
    want: [`${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
  },
  { name: 'metadata name restriction allowed', schema: { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } } } }, want: [] },
  { name: 'default in top-level metadata', schema: { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } } } }, want: [`${P}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`] },
  {
    name: 'value validation must be structural',
    schema: spec({ a: { type: 'object', anyOf: [{ type: 'string', description: 'x', properties: { q: {} } }] } }),
    want: [
      `${P}.properties[spec].properties[a].anyOf[0].description: Forbidden: must be empty to be structural`,
      `${P}.properties[spec].properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[spec].properties[a].properties[q]: Required value: because it is defined in ${P}.properties[spec].properties[a].anyOf[0].properties[q]`,
    ],
  },
  { name: 'int-or-string anyOf pattern allowed', schema: spec({ a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }), want: [] },
  { name: 'int-or-string with preserve', schema: spec({ a: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } }), want: [`${P}.properties[spec].properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`] },
  {
    name: 'embedded resource not an object',
    schema: spec({ a: { type: 'string', 'x-kubernetes-embedded-resource': true } }),
    want: [
      `${P}.properties[spec].properties[a].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${P}.properties[spec].properties[a].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
    ],
  },
  { name: 'embedded resource without properties', schema: spec({ a: { type: 'object', 'x-kubernetes-embedded-resource': true } }), want: [`${P}.properties[spec].properties[a].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`] },
  { name: 'preserve false', schema: spec({ a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } }), want: [`${P}.properties[spec].properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`] },
  {
    name: 'default of the wrong type and with unknown fields',
    schema: spec({ a: { type: 'integer', default: 'x' }, b: { type: 'object', properties: { x: { type: 'string' } }, default: { y: 1 } } }),
    want: [
      `${P}.properties[spec].properties[a].default: Invalid value: "string":  in body must be of type integer: "string"`,
      `${P}.properties[spec].properties[b].default: Invalid value: {"y":1}: must not have unknown fields`,
    ],
  },
  {
    name: 'list-map rules',
    schema: spec({ l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k', 'z'], items: { type: 'object', properties: { k: { type: 'string' } } } } }),
    want: [
      `${P}.properties[spec].properties[l].x-kubernetes-list-map-keys: Invalid value: ["k","z"]: entries must all be names of item properties`,
      `${P}.properties[spec].properties[l].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
    ],
  },
  { name: 'list-map without keys', schema: spec({ l: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object' } } }), want: [`${P}.properties[spec].properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`] },
  { name: 'map keys without list type', schema: spec({ l: { type: 'array', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', properties: { k: { type: 'string' } } } } }), want: [`${P}.properties[spec].properties[l].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`] },
  { name: 'set of granular objects', schema: spec({ s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object' } } }), want: [`${P}.properties[spec].properties[s].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`] },
  { name: 'unknown list type', schema: spec({ s: { type: 'array', 'x-kubernetes-list-type': 'bag', items: { type: 'string' } } }), want: [`${P}.properties[spec].properties[s].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`] },
  { name: 'list type on a non-array', schema: spec({ s: { type: 'string', 'x-kubernetes-list-type': 'set' } }), want: [`${P}.properties[spec].properties[s].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`] },
  {
    name: 'map type',
    schema: spec({ m: { type: 'string', 'x-kubernetes-map-type': 'foo' } }),
    want: [`${P}.properties[spec].properties[m].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`, `${P}.properties[spec].properties[m].x-kubernetes-map-type: Unsupported value: "foo": supported values: "atomic", "granular"`],
  },
  {
    name: 'forbidden keywords',
    schema: spec({ a: { type: 'null', $ref: '#/x' }, u: { type: 'array', uniqueItems: true, items: { type: 'string' } } }),
    want: [
      `${P}.properties[spec].properties[a].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${P}.properties[spec].properties[a].$ref: Forbidden: $ref is not supported`,
      `${P}.properties[spec].properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      `${P}.properties[spec].properties[u].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    ],
  },
  { name: 'additionalProperties with properties', schema: spec({ o: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } } }), want: [`${P}.properties[spec].properties[o].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`] },
  { name: 'nullable root', schema: { type: 'object', nullable: true }, want: ['spec.versions[0].schema.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root'] },
  {
    name: 'validation rules structure',
    schema: { type: 'object', 'x-kubernetes-validations': [{ rule: '' }, { rule: 'self.a', message: ' ' }, { rule: 'x', reason: 'Bogus' }, { rule: 'y', fieldPath: '.nope' }, { rule: 'z', fieldPath: '.a' }], properties: { a: { type: 'string' } } },
    want: [
      `${P}.x-kubernetes-validations[0].rule: Required value: rule is not specified`,
      `${P}.x-kubernetes-validations[1].message: Invalid value: " ": message must be non-empty if specified`,
      `${P}.x-kubernetes-validations[2].reason: Unsupported value: "Bogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `${P}.x-kubernetes-validations[3].fieldPath: Invalid value: ".nope": fieldPath must be a valid path`,
    ],
  },
  { name: 'validation rules nested in anyOf', schema: spec({ a: { type: 'string', anyOf: [{ 'x-kubernetes-validations': [{ rule: 'true' }] }] } }), want: [`${P}.properties[spec].properties[a].anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`] },
  { name: 'status subresource root: type', schema: { type: 'string' }, status: true, want: [`${P}.type: Invalid value: "string": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`, `${P}.type: Invalid value: "string": must be object at the root`] },
];

describe('CRD openAPIV3Schema validation', () => {
  for (const c of CASES) {
    it(c.name, () => {
      assert.deepEqual(validateCustomResourceSchema(c.schema, P, { statusSubresource: c.status === true }).map(fieldErrorString), c.want);
    });
  }
});

describe('CRD schema validation on update', () => {
  it('does not enforce rules the old schemas already broke', () => {
    const old = spec({ s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object' } } });
    const opts = ratchetedSchemaValidationOptions([old]);
    assert.equal(opts.requireAtomicSetType, false);
    assert.equal(opts.requirePrunedDefaults, true);
    assert.deepEqual(validateCustomResourceSchema(old, P, opts), []);
    assert.equal(validateCustomResourceSchema(old, P, ratchetedSchemaValidationOptions([spec({})])).length, 1);
  });
});
