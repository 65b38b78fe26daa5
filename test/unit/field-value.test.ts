/**
 * field.Error's bad value as apimachinery 1.36's ErrorBody prints it:
 * int/float/bool with %v, strings with %q, everything else as json.Marshal
 * writes it (map keys sorted by bytes, HTML-safe escapes, Go struct fields in
 * declaration order).
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { internalSchemaJson } from '../../src/apiextensions/schema/internal-json.js';
import { goJson, goStruct, renderFieldValue } from '../../src/machinery/field-value.js';
import { labelSelectorRepr } from '../../src/registry/validation/render.js';

describe('renderFieldValue', () => {
  it('prints scalars as %v and strings as %q (no HTML escapes: strconv.Quote)', () => {
    assert.equal(renderFieldValue(3), '3');
    assert.equal(renderFieldValue(0.5), '0.5');
    assert.equal(renderFieldValue(true), 'true');
    assert.equal(renderFieldValue('<a & b>'), '"<a & b>"');
    assert.equal(renderFieldValue(null), 'null');
    assert.equal(renderFieldValue(undefined), 'null');
  });

  it('writes maps with their keys sorted by UTF-8 bytes, as Go sorts map keys', () => {
    assert.equal(renderFieldValue({ b: '2', a: '1', B: '0', é: 'x', z: 'y' }), '{"B":"0","a":"1","b":"2","z":"y","é":"x"}');
    assert.equal(renderFieldValue({ '\u{1F600}': 1, '\uFFFD': 2 }), '{"\uFFFD":2,"\u{1F600}":1}');
  });

  it("escapes <, >, & and U+2028/U+2029 inside JSON as Go's encoder does", () => {
    assert.equal(renderFieldValue(['<b>', 'x&y', 'a\u2028b\u2029']), '["\\u003cb\\u003e","x\\u0026y","a\\u2028b\\u2029"]');
    assert.equal(renderFieldValue({ 'k<': 'v>' }), '{"k\\u003c":"v\\u003e"}');
  });

  it('writes nested lists and maps, null members and numbers compactly', () => {
    assert.equal(renderFieldValue({ l: [1, 2.5, -3, 1e21, null, { y: [], x: {} }], n: null, t: false }), '{"l":[1,2.5,-3,1e+21,null,{"x":{},"y":[]}],"n":null,"t":false}');
    assert.equal(renderFieldValue([]), '[]');
  });

  it('writes a pre-rendered value as given, also nested in lists and maps', () => {
    assert.equal(renderFieldValue(goJson('{"A":1}')), '{"A":1}');
    assert.equal(renderFieldValue([goJson('{"A":1}'), 'x']), '[{"A":1},"x"]');
    assert.equal(renderFieldValue({ b: goJson('0'), a: 'x<' }), '{"a":"x\\u003c","b":0}');
  });

  it('writes an internal (untagged) struct under its Go field names in declaration order, zero values kept', () => {
    assert.equal(
      renderFieldValue(goStruct([['APIGroup', 'rbac.authorization.k8s.io'], ['Kind', 'Role'], ['Name', ''], ['Ptr', null], ['Labels', { b: 'x', a: 'y' }]])),
      '{"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"","Ptr":null,"Labels":{"a":"y","b":"x"}}',
    );
  });

  it("writes a metav1.LabelSelector with its json tags: field order, omitempty honoured, nil as null", () => {
    assert.equal(renderFieldValue(labelSelectorRepr({ matchLabels: { app: 'another-name' } })), '{"matchLabels":{"app":"another-name"}}');
    assert.equal(
      renderFieldValue(labelSelectorRepr({ matchExpressions: [{ operator: 'Exists', key: 'tier' }], matchLabels: { b: '1', a: '2' } })),
      '{"matchLabels":{"a":"2","b":"1"},"matchExpressions":[{"key":"tier","operator":"Exists"}]}',
    );
    assert.equal(renderFieldValue(labelSelectorRepr({})), '{}');
    assert.equal(renderFieldValue(labelSelectorRepr(undefined)), 'null');
  });

  it("writes apiextensions' internal JSONSchemaProps field by field under Go names", () => {
    const text = renderFieldValue(internalSchemaJson({ type: 'object', properties: { a: { type: 'string', enum: ['x'] } }, additionalProperties: false, 'x-kubernetes-list-type': 'set' }));
    const parsed = JSON.parse(text) as Record<string, unknown>;
    assert.equal(Object.keys(parsed).length, 44);
    assert.deepEqual(Object.keys(parsed).slice(0, 5), ['ID', 'Schema', 'Ref', 'Description', 'Type']);
    assert.equal(parsed['Type'], 'object');
    assert.deepEqual(parsed['AdditionalProperties'], { Allows: false, Schema: null });
    assert.equal(parsed['XListType'], 'set');
    assert.equal(parsed['XValidations'], null);
    assert.deepEqual((parsed['Properties'] as Record<string, Record<string, unknown>>)['a']!['Enum'], ['x']);
  });

  it('writes a value nested as deep as kube lets a client send (10,000 levels) without overflowing the stack', () => {
    let list: unknown = 1;
    let map: unknown = 'x';
    for (let i = 0; i < 10_000; i++) {
      list = [list];
      map = { a: map };
    }
    assert.equal(renderFieldValue(list), `${'['.repeat(10_000)}1${']'.repeat(10_000)}`);
    assert.equal(renderFieldValue(map).length, 10_000 * 6 + 3);
  });
});
