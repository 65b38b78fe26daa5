import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkValidationRules, CustomResourceSchema } from '../../src/apiextensions/schema/index.js';
import { fieldErrorString } from '../../src/machinery/errors.js';
import type { JsonObject } from '../../src/machinery/json-value.js';

/**
 * x-kubernetes-validations with kube-apiserver 1.36's behaviour: the CRD
 * side (compile, type and cost errors) and the custom resource side (rules
 * run with self/oldSelf, messages, reasons, field paths, ratcheting).
 */

const ROOT = 'spec.validation.openAPIV3Schema';
const COST_HINT = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

function specSchema(spec: JsonObject): JsonObject {
  return { type: 'object', properties: { spec } };
}

const check = (schema: JsonObject): string[] => checkValidationRules(schema, ROOT).map(fieldErrorString);

/** json.Marshal of the internal (untagged) apiextensions.ValidationRule, with Go's HTML-safe escapes. */
const ruleRepr = (rule: string, extra: { messageExpression?: string } = {}): string =>
  `{"Rule":${htmlSafe(JSON.stringify(rule))},"Message":"","MessageExpression":${htmlSafe(JSON.stringify(extra.messageExpression ?? ''))},"Reason":null,"FieldPath":"","OptionalOldSelf":null}`;

const htmlSafe = (json: string): string => json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

describe('x-kubernetes-validations at CRD validation', () => {
  const replicas = (rules: JsonObject[]): JsonObject =>
    specSchema({ type: 'object', properties: { replicas: { type: 'integer' }, name: { type: 'string', maxLength: 20 } }, 'x-kubernetes-validations': rules });

  it('accepts well-typed rules', () => {
    assert.deepEqual(check(replicas([{ rule: 'self.replicas >= 0' }, { rule: 'self.replicas >= oldSelf.replicas' }, { rule: 'true', messageExpression: "'name ' + self.name" }])), []);
  });

  it('a type error is Invalid at the rule with the compiler\'s message', () => {
    assert.deepEqual(check(replicas([{ rule: "self.replicas == 'x'" }])), [
      `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ${ruleRepr("self.replicas == 'x'")}: compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, string)'\n | self.replicas == 'x'\n | ..............^`,
    ]);
  });

  it('an undefined field, a non-bool rule, a non-string messageExpression', () => {
    assert.deepEqual(check(replicas([{ rule: 'self.size > 1' }, { rule: 'self.replicas' }, { rule: 'true', messageExpression: 'self.replicas' }])), [
      `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ${ruleRepr('self.size > 1')}: compilation failed: ERROR: <input>:1:5: undefined field 'size'\n | self.size > 1\n | ....^`,
      `${ROOT}.properties[spec].x-kubernetes-validations[1].rule: Invalid value: ${ruleRepr('self.replicas')}: cel expression must evaluate to a bool`,
      `${ROOT}.properties[spec].x-kubernetes-validations[2].messageExpression: Invalid value: ${ruleRepr('true', { messageExpression: 'self.replicas' })}: messageExpression must evaluate to a string`,
    ]);
  });

  it('optionalOldSelf only with oldSelf; oldSelf not under an atomic list\'s items', () => {
    const schema = specSchema({
      type: 'object',
      properties: {
        n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 0', optionalOldSelf: true }] },
        items: { type: 'array', maxItems: 5, items: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf' }] } },
      },
    });
    assert.deepEqual(check(schema), [
      `${ROOT}.properties[spec].properties[n].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
      `${ROOT}.properties[spec].properties[items].items.x-kubernetes-validations[0].rule: Invalid value: "self >= oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${ROOT}.properties[spec].properties[items]`,
    ]);
  });

  const pairs = (bounded: boolean): JsonObject =>
    specSchema({
      type: 'object',
      properties: {
        tags: {
          type: 'array',
          ...(bounded ? { maxItems: 10 } : {}),
          items: { type: 'string', ...(bounded ? { maxLength: 10 } : {}) },
          'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y || x != y))' }],
        },
      },
    });

  it('a rule over an unbounded list is over the per-rule and per-CRD cost limits; bounded it fits', () => {
    const rule = `${ROOT}.properties[spec].properties[tags].x-kubernetes-validations[0].rule`;
    assert.deepEqual(check(pairs(false)), [
      `${rule}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${COST_HINT}`,
      `${rule}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${COST_HINT}`,
    ]);
    assert.deepEqual(check(pairs(true)), []);
  });
});

describe('x-kubernetes-validations on custom resources', () => {
  const schema: JsonObject = {
    type: 'object',
    'x-kubernetes-validations': [{ rule: "self.metadata.name != 'forbidden'", message: 'name is forbidden' }],
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [
          { rule: 'self.min <= self.max', messageExpression: "'min must not exceed max, was ' + self.name" },
          { rule: 'self.max >= oldSelf.max', message: 'max may not decrease', reason: 'FieldValueForbidden', fieldPath: '.max' },
          { rule: '!has(oldSelf.name) || !oldSelf.hasValue() || true', optionalOldSelf: true },
        ],
        properties: {
          min: { type: 'integer' },
          max: { type: 'integer' },
          name: { type: 'string', maxLength: 20, 'x-kubernetes-validations': [{ rule: "self.startsWith('w')" }] },
          labels: { type: 'object', maxProperties: 5, additionalProperties: { type: 'string', maxLength: 10 }, 'x-kubernetes-validations': [{ rule: "self['team'] != ''" }] },
          ports: {
            type: 'array', maxItems: 4, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
            items: {
              type: 'object', required: ['name'],
              properties: { name: { type: 'string', maxLength: 10 }, port: { type: 'integer' } },
              'x-kubernetes-validations': [{ rule: 'self.port >= oldSelf.port', message: 'port may not decrease', reason: 'FieldValueInvalid' }],
            },
          },
        },
      },
    },
  };
  const crs = new CustomResourceSchema(schema);
  const obj = (spec: JsonObject, name = 'w1'): JsonObject => ({ apiVersion: 'example.com/v1', kind: 'W', metadata: { name }, spec });
  const create = (o: JsonObject): string[] => crs.validate(o, () => []).map(fieldErrorString);
  const update = (o: JsonObject, old: JsonObject): string[] => crs.validateUpdate(o, old, () => []).map(fieldErrorString);
  const good: JsonObject = { min: 1, max: 3, name: 'web', labels: { team: 'a' }, ports: [{ name: 'http', port: 80 }] };

  it('the CRD\'s rules compile', () => {
    assert.deepEqual(checkValidationRules(schema, ROOT).map(fieldErrorString), []);
  });

  it('a valid object passes; transition rules are skipped on create', () => {
    assert.deepEqual(create(obj(good)), []);
  });

  it('messages: message, messageExpression, default, the root at <nil>', () => {
    assert.deepEqual(create(obj({ ...good, min: 5, name: 'x' }, 'forbidden')), [
      '<nil>: Invalid value: "object": name is forbidden',
      'spec: Invalid value: "object": min must not exceed max, was x',
      "spec.name: Invalid value: \"string\": failed rule: self.startsWith('w')",
    ]);
  });

  it('a runtime error names the rule', () => {
    assert.deepEqual(create(obj({ ...good, labels: { other: 'b' } })), ["spec.labels: Invalid value: \"object\": no such key: team evaluating rule: self['team'] != ''"]);
  });

  it('transition rules on update: reason and fieldPath; map-list items correlate by key', () => {
    assert.deepEqual(update(obj({ ...good, max: 2, ports: [{ name: 'http', port: 79 }] }), obj(good)), [
      'spec.max: Forbidden: max may not decrease',
      'spec.ports[0]: Invalid value: "object": port may not decrease',
    ]);
    // a new key has no old item: its transition rule does not run
    assert.deepEqual(update(obj({ ...good, ports: [{ name: 'https', port: 1 }] }), obj(good)), []);
  });

  it('ratcheting: errors of unchanged values are not reported on update', () => {
    const bad = obj({ ...good, name: 'x' });
    assert.equal(create(bad).length, 1);
    assert.deepEqual(update(obj({ ...good, name: 'x', min: 2 }), bad), []);
    const warnings: string[] = [];
    crs.validateUpdate(obj({ ...good, name: 'x', min: 2 }), bad, () => [], (w) => warnings.push(w));
    assert.deepEqual(warnings, ["spec.name: Invalid value: \"string\": failed rule: self.startsWith('w')"]);
    assert.deepEqual(update(obj({ ...good, name: 'y' }), bad), ["spec.name: Invalid value: \"string\": failed rule: self.startsWith('w')"]);
  });

  it('rules do not run over values of the wrong type', () => {
    assert.deepEqual(create(obj({ ...good, min: 'one' })), [
      'spec.min: Invalid value: "string": spec.min in body must be of type integer: "string"',
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });

  it('rules compile once per schema', () => {
    assert.equal(crs.rules, crs.rules);
  });
});

/*
 * The documentation's messageExpression example concatenates string(int):
 * cel-go gives conversions to string no size, so the concatenation's cost is
 * unbounded and kube refuses the CRD (seen on a cluster, and in cluster-api's
 * mirror of kube's checks: "Using + and string() exceeds the cost limit").
 * format() and join() over bounded values are accepted.
 */
describe('messageExpression cost as kube estimates it', () => {
  const withMessage = (messageExpression: string): JsonObject =>
    specSchema({
      type: 'object',
      properties: { x: { type: 'integer' }, maxLimit: { type: 'integer' }, tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20 } } },
      'x-kubernetes-validations': [{ rule: 'self.x <= self.maxLimit', messageExpression }],
    });
  const at = `${ROOT}.properties[spec].x-kubernetes-validations[0].messageExpression`;

  it("'...' + string(self.maxLimit) is refused with kube's three cost errors", () => {
    assert.deepEqual(check(withMessage("'x exceeded max limit of ' + string(self.maxLimit)")), [
      `${at}: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x ${COST_HINT}`,
      `${at}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${COST_HINT}`,
    ]);
  });

  it('format() and join() over bounded values are accepted', () => {
    assert.deepEqual(check(withMessage("'x exceeded max limit of %d'.format([self.maxLimit])")), []);
    assert.deepEqual(check(withMessage("'tags: ' + self.tags.join(',')")), []);
  });
});
