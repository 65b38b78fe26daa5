/**
 * The structured-merge-diff layer of server-side apply: field sets and their
 * FieldsV1 encoding, path rendering, the typed view of schemas, and the
 * merge/ownership engine on small schemas. Cases are derived from upstream's
 * fieldpath, typed and merge tests (leaf, set, key, atomic, multiple appliers).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldSet } from '../../src/apply/fieldset.js';
import { fieldsV1ToSet, setToFieldsV1 } from '../../src/apply/fieldsv1.js';
import { deserializePathElement, fieldElement, keyElement, pathToString, serializePathElement, valueElement, indexElement } from '../../src/apply/path.js';
import { SchemaBuilder, deduced, schemaForDefinition, type TypeRef } from '../../src/apply/schema.js';
import { compare, merge, toFieldSet, validate, formatValidationErrors } from '../../src/apply/typed.js';
import { ConflictsError, Updater, type ManagedSets } from '../../src/apply/updater.js';
import type { JsonObject, JsonValue } from '../../src/apply/value.js';

const f = fieldElement;

function paths(set: FieldSet): string[] {
  return set.paths().map(pathToString);
}

describe('field sets', () => {
  const a = FieldSet.of([f('a')], [f('b'), f('c')], [f('b'), f('d')]);
  const b = FieldSet.of([f('b'), f('c')], [f('e')]);

  it('union, intersection and difference work on leaves', () => {
    assert.deepEqual(paths(a.union(b)), ['.a', '.e', '.b.c', '.b.d']);
    assert.deepEqual(paths(a.intersection(b)), ['.b.c']);
    assert.deepEqual(paths(a.difference(b)), ['.a', '.b.d']);
  });

  it('parent - child = parent, child - parent = child (Difference only removes members)', () => {
    const parent = FieldSet.of([f('a')]);
    const child = FieldSet.of([f('a'), f('b')]);
    assert.deepEqual(paths(parent.difference(child)), ['.a']);
    assert.deepEqual(paths(child.difference(parent)), ['.a.b']);
  });

  it('RecursiveDifference removes a member subtree', () => {
    const s = FieldSet.of([f('a'), f('b'), f('c')], [f('a')], [f('x')]);
    assert.deepEqual(paths(s.recursiveDifference(FieldSet.of([f('a')]))), ['.x']);
  });

  it('leaves drop members that also have children', () => {
    const s = FieldSet.of([f('a')], [f('a'), f('b')], [f('c')]);
    assert.deepEqual(paths(s.leaves()), ['.c', '.a.b']);
  });

  it('has and empty', () => {
    assert.equal(a.has([f('b'), f('c')]), true);
    assert.equal(a.has([f('b')]), false);
    assert.equal(new FieldSet().empty(), true);
    assert.equal(a.difference(a).empty(), true);
  });
});

describe('path elements', () => {
  it('serialize as FieldsV1 keys', () => {
    assert.equal(serializePathElement(f('image')), 'f:image');
    assert.equal(serializePathElement(keyElement([{ name: 'protocol', value: 'TCP' }, { name: 'containerPort', value: 80 }])), 'k:{"containerPort":80,"protocol":"TCP"}');
    assert.equal(serializePathElement(valueElement('a<b')), 'v:"a\\u003cb"');
    assert.equal(serializePathElement(indexElement(3)), 'i:3');
  });

  it('render as upstream Path.String()', () => {
    const p = [f('spec'), f('containers'), keyElement([{ name: 'name', value: 'nginx' }]), f('ports'), keyElement([{ name: 'containerPort', value: 80 }, { name: 'protocol', value: 'TCP' }])];
    assert.equal(pathToString(p), '.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"]');
    assert.equal(pathToString([f('finalizers'), valueElement('x')]), '.finalizers[="x"]');
    assert.equal(pathToString([f('list'), indexElement(2)]), '.list[2]');
  });

  it('deserialize, including errors and unknown kinds', () => {
    assert.deepEqual(deserializePathElement('k:{"b":1,"a":"x"}'), keyElement([{ name: 'a', value: 'x' }, { name: 'b', value: 1 }]));
    assert.equal(deserializePathElement('z:whatever'), undefined);
    assert.throws(() => deserializePathElement('f'), /key must be 2 characters long/);
    assert.throws(() => deserializePathElement('fx'), /missing colon: fx/);
  });

  it('order: fields < keys < values < indexes', () => {
    const s = FieldSet.of([indexElement(0)], [valueElement('a')], [keyElement([{ name: 'n', value: 'a' }])], [f('z')]);
    assert.deepEqual(Object.keys(setToFieldsV1(s)), ['f:z', 'k:{"n":"a"}', 'v:"a"', 'i:0']);
  });
});

describe('FieldsV1', () => {
  it('marks nodes that are members and parents with "."', () => {
    const s = FieldSet.of([f('metadata'), f('labels')], [f('metadata'), f('labels'), f('app')]);
    assert.deepEqual(setToFieldsV1(s), { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } });
  });

  // managedFields of a Deployment applied with kubectl apply --server-side (kube 1.3x).
  const sample: JsonObject = {
    'f:metadata': { 'f:labels': { 'f:app': {} } },
    'f:spec': {
      'f:replicas': {},
      'f:selector': {},
      'f:template': {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': {
          'f:containers': {
            'k:{"name":"nginx"}': {
              '.': {},
              'f:image': {},
              'f:name': {},
              'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
            },
          },
        },
      },
    },
  };

  it('round-trips a real sample byte for byte', () => {
    const set = fieldsV1ToSet(sample);
    assert.equal(JSON.stringify(setToFieldsV1(set)), JSON.stringify(sample));
    assert.ok(set.has([f('spec'), f('template'), f('spec'), f('containers'), keyElement([{ name: 'name', value: 'nginx' }])]));
    assert.ok(!set.has([f('spec'), f('template')]));
  });

  it('sorts what it reads out of order and drops unknown element kinds', () => {
    const set = fieldsV1ToSet({ 'f:b': {}, 'x:future': {}, 'f:a': { '.': {}, 'f:c': {} } });
    assert.deepEqual(setToFieldsV1(set), { 'f:a': { '.': {}, 'f:c': {} }, 'f:b': {} });
  });

  it('rejects malformed keys', () => {
    assert.throws(() => fieldsV1ToSet({ 'k:{bad': {} }), /parsing key as path element/);
    assert.deepEqual(setToFieldsV1(fieldsV1ToSet(null)), {});
  });
});

/** A tiny schema in OpenAPI form, the way upstream's tests declare theirs in YAML. */
function testType(root: JsonObject, extra: Record<string, JsonObject> = {}): TypeRef {
  return new SchemaBuilder({ root, ...extra }).named_('root');
}

const listTypes = testType({
  type: 'object',
  properties: {
    atomicList: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
    setList: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    mapList: {
      type: 'array',
      items: { $ref: '#/definitions/item' },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name', 'port'],
    },
    mergeKeyList: { type: 'array', items: { $ref: '#/definitions/item' }, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
    mergeSet: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
    plainList: { type: 'array', items: { type: 'string' } },
    granularMap: { type: 'object', additionalProperties: { type: 'string' } },
    atomicMap: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
    atomicStruct: { $ref: '#/definitions/item', 'x-kubernetes-map-type': 'atomic' },
    struct: { $ref: '#/definitions/item' },
    quantity: { $ref: '#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity' },
    intOrString: { type: 'string', format: 'int-or-string' },
    raw: { $ref: '#/definitions/io.k8s.apimachinery.pkg.runtime.RawExtension' },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    num: { type: 'integer' },
    str: { type: 'string' },
  },
}, {
  item: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer', default: 80 }, value: { type: 'string' } } },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { type: 'string' },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': { type: 'object' },
});

describe('typed view of schemas', () => {
  it('field sets by list type', () => {
    const v: JsonObject = {
      atomicList: ['a', 'b'],
      setList: ['a', 'b'],
      mapList: [{ name: 'x', port: 1, value: 'v' }],
      mergeKeyList: [{ name: 'y' }],
      mergeSet: ['s'],
      plainList: ['p'],
    };
    assert.deepEqual(setToFieldsV1(toFieldSet(v, listTypes)), {
      'f:atomicList': {},
      'f:mapList': { 'k:{"name":"x","port":1}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:value': {} } },
      'f:mergeKeyList': { 'k:{"name":"y"}': { '.': {}, 'f:name': {} } },
      'f:mergeSet': { 'v:"s"': {} },
      'f:plainList': {},
      'f:setList': { 'v:"a"': {}, 'v:"b"': {} },
    });
  });

  it('map types: granular maps own each key, atomic maps and structs are leaves', () => {
    const v: JsonObject = { granularMap: { a: '1' }, atomicMap: { a: '1' }, atomicStruct: { name: 'n' }, struct: { name: 'n' }, free: { x: { y: 1 } } };
    assert.deepEqual(setToFieldsV1(toFieldSet(v, listTypes)), {
      'f:atomicMap': {},
      'f:atomicStruct': {},
      'f:free': { 'f:x': { '.': {}, 'f:y': {} } },
      'f:granularMap': { 'f:a': {} },
      'f:struct': { 'f:name': {} },
    });
  });

  it('quantities, int-or-string and RawExtension are scalars / atomic', () => {
    const v: JsonObject = { quantity: '1Gi', intOrString: 3, raw: { any: { thing: 1 } } };
    assert.deepEqual(validate(v, listTypes, false), []);
    assert.deepEqual(setToFieldsV1(toFieldSet(v, listTypes)), { 'f:intOrString': {}, 'f:quantity': {}, 'f:raw': {} });
  });

  it('list-map keys fall back to their schema default', () => {
    assert.deepEqual(setToFieldsV1(toFieldSet({ mapList: [{ name: 'x' }] }, listTypes)), {
      'f:mapList': { 'k:{"name":"x","port":80}': { '.': {}, 'f:name': {} } },
    });
  });

  it('validation errors read as upstream', () => {
    assert.equal(formatValidationErrors(validate({ nope: 1 }, listTypes, false)), '.nope: field not declared in schema');
    assert.equal(formatValidationErrors(validate({ num: 'x' }, listTypes, false)), '.num: expected numeric (int or float), got string');
    assert.equal(
      formatValidationErrors(validate({ mergeKeyList: [{ value: 'v' }] }, listTypes, false)),
      '.mergeKeyList: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
    assert.equal(formatValidationErrors(validate({ setList: ['a', 'a'] }, listTypes, false)), '.setList: duplicate entries for key [="a"]');
    assert.deepEqual(validate({ setList: ['a', 'a'] }, listTypes, true), []);
  });

  it('the built-in Deployment: containers by name, selector atomic, labels granular', () => {
    const dep = schemaForDefinition('io.k8s.api.apps.v1.Deployment').root;
    const set = toFieldSet({ spec: { selector: { matchLabels: { a: 'b' } }, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } }, dep);
    assert.deepEqual(paths(set), ['.spec.selector', '.spec.template.spec.containers[name="c"]', '.spec.template.spec.containers[name="c"].image', '.spec.template.spec.containers[name="c"].name']);
  });

  it('deduced: every key a field and a member, lists atomic', () => {
    assert.deepEqual(setToFieldsV1(toFieldSet({ spec: { a: 1, l: [1, 2], m: {} } }, deduced)), {
      'f:spec': { '.': {}, 'f:a': {}, 'f:l': {}, 'f:m': {} },
    });
  });
});

describe('compare', () => {
  it('reports added, modified and removed fields', () => {
    const c = compare({ str: 'a', num: 1, granularMap: { x: '1' } }, { str: 'b', granularMap: { x: '1', y: '2' }, setList: ['a'] }, listTypes);
    assert.deepEqual(paths(c.modified), ['.str']);
    assert.deepEqual(paths(c.removed), ['.num']);
    assert.deepEqual(paths(c.added), ['.setList', '.granularMap.y', '.setList[="a"]']);
  });
});

describe('merge', () => {
  const m = (lhs: JsonValue, rhs: JsonValue): JsonValue | undefined => merge(lhs, rhs, listTypes).value;

  it('sets keep live items and insert new ones in applied order', () => {
    assert.deepEqual(m({ setList: ['a', 'b'] }, { setList: ['c', 'a'] }), { setList: ['c', 'a', 'b'] });
    assert.deepEqual(m({ setList: ['a', 'b', 'c'] }, { setList: ['c', 'a'] }), { setList: ['b', 'c', 'a'] });
  });

  it('map lists merge items by key, atomic lists and maps are replaced', () => {
    assert.deepEqual(
      m({ mapList: [{ name: 'a', port: 1, value: 'x' }], atomicList: ['1', '2'], atomicMap: { a: '1' } }, { mapList: [{ name: 'a', port: 1, value: 'y' }, { name: 'b', port: 1 }], atomicList: ['3'], atomicMap: { b: '2' } }),
      { mapList: [{ name: 'a', port: 1, value: 'y' }, { name: 'b', port: 1 }], atomicList: ['3'], atomicMap: { b: '2' } },
    );
  });

  it('granular maps merge key by key', () => {
    assert.deepEqual(m({ granularMap: { a: '1', b: '2' } }, { granularMap: { b: '3', c: '4' } }), { granularMap: { a: '1', b: '3', c: '4' } });
  });

  it('rejects duplicate keys in the applied configuration', () => {
    assert.match(formatValidationErrors(merge({}, { setList: ['a', 'a'] }, listTypes).errors), /duplicate entries for key \[="a"\]/);
  });
});

describe('ownership (merge.Updater)', () => {
  const u = new Updater(listTypes);
  const v = 'v1';
  function apply(live: JsonObject, config: JsonObject, managers: ManagedSets, manager: string, force = false) {
    const r = u.apply(live, config, v, managers, manager, force);
    return { object: (r.object ?? live) as JsonObject, managers: r.managers };
  }
  const owned = (ms: ManagedSets, m: string): string[] => paths(ms.get(m)?.set ?? new FieldSet());

  it('equal values share ownership; a different value conflicts unless forced', () => {
    let s = apply({}, { str: 'a', num: 1 }, new Map(), 'one');
    s = apply(s.object, { str: 'a' }, s.managers, 'two');
    assert.deepEqual(owned(s.managers, 'one'), ['.num', '.str']);
    assert.deepEqual(owned(s.managers, 'two'), ['.str']);
    assert.throws(() => apply(s.object, { str: 'b' }, s.managers, 'two'), (e: unknown) => {
      assert.ok(e instanceof ConflictsError);
      assert.deepEqual(e.conflicts.map((c) => `${c.manager} ${pathToString(c.path)}`), ['one .str']);
      return true;
    });
    const forced = apply(s.object, { str: 'b' }, s.managers, 'two', true);
    assert.equal(forced.object.str, 'b');
    assert.deepEqual(owned(forced.managers, 'one'), ['.num']);
    assert.deepEqual(owned(forced.managers, 'two'), ['.str']);
  });

  it('a field dropped from the configuration is removed unless someone else owns it', () => {
    let s = apply({}, { str: 'a', num: 1, setList: ['a', 'b'] }, new Map(), 'one');
    s = apply(s.object, { setList: ['b'] }, s.managers, 'two');
    s = apply(s.object, { str: 'a' }, s.managers, 'one');
    assert.deepEqual(s.object, { str: 'a', setList: ['b'] });
    assert.deepEqual(owned(s.managers, 'one'), ['.str']);
  });

  it('updaters take over fields they change and lose nothing else', () => {
    let s = apply({}, { str: 'a', num: 1 }, new Map(), 'applier');
    const managers = u.updateManagers(s.object, { ...s.object, num: 2 }, v, s.managers, 'updater');
    assert.deepEqual(owned(managers, 'applier'), ['.str']);
    assert.deepEqual(owned(managers, 'updater'), ['.num']);
    // Dropping num from the applied configuration keeps the updater's value.
    s = apply({ str: 'a', num: 2 }, { str: 'a' }, managers, 'applier');
    assert.deepEqual(s.object, { str: 'a', num: 2 });
  });

  it('items of a map list removed by the applier go even when updaters changed them', () => {
    let s = apply({}, { mapList: [{ name: 'a', port: 1, value: 'x' }, { name: 'b', port: 1 }] }, new Map(), 'applier');
    const next = structuredClone(s.object);
    ((next.mapList as JsonObject[])[0] as JsonObject).value = 'changed';
    const managers = u.updateManagers(s.object, next, v, s.managers, 'controller');
    s = apply(next, { mapList: [{ name: 'b', port: 1 }] }, managers, 'applier');
    assert.deepEqual(s.object, { mapList: [{ name: 'b', port: 1 }] });
  });

  it('atomic lists conflict as a whole', () => {
    const s = apply({}, { atomicList: ['a'] }, new Map(), 'one');
    assert.throws(() => apply(s.object, { atomicList: ['a', 'b'] }, s.managers, 'two'), (e: unknown) => e instanceof ConflictsError && e.conflicts.map((c) => pathToString(c.path)).join() === '.atomicList');
  });

  it('a no-op apply returns no object', () => {
    const s = apply({}, { str: 'a' }, new Map(), 'one');
    assert.equal(u.apply(s.object, { str: 'a' }, v, s.managers, 'one', false).object, undefined);
  });
});
