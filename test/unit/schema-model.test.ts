import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ApiCatalog } from '../../src/api/catalog.js';
import { SchemaModel } from '../../src/api/schema-model.js';
import { patchSchemaFor } from '../../src/patch/schema.js';
import { customResource } from '../../src/registry/custom-descriptors.js';
import { Registry } from '../../src/registry/registry.js';
import { KeyLayout } from '../../src/storage/keys.js';
import { MemoryStore } from '../../src/storage/memory.js';
import { fieldTypeFor } from '../../src/validation/fields/schema.js';

/** The one schema model: resolved nodes, views kept per model, one model per descriptor. */

const DEFS = {
  'test.Thing': {
    type: 'object',
    required: ['spec'],
    properties: {
      spec: { allOf: [{ $ref: '#/definitions/test.Spec' }], 'x-kubernetes-map-type': 'atomic' },
      items: {
        type: 'array',
        items: { $ref: '#/definitions/test.Item' },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name', 'port'],
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'name',
      },
      port: { 'x-kubernetes-int-or-string': true, default: 80 },
      raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-embedded-resource': true },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      kind: { type: ['null', 'string'], format: 'byte' },
    },
  },
  'test.Spec': { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' } } },
  'test.Item': { type: 'object', properties: { name: { type: 'string' } } },
};

describe('schema model', () => {
  it('resolves each node’s type, references and kube extensions once', () => {
    const model = new SchemaModel({ definitions: DEFS });
    const thing = model.definition('test.Thing')!;
    assert.equal(thing.definitionName, 'test.Thing');
    assert.deepEqual(thing.required, ['spec']);
    assert.deepEqual([...thing.properties.keys()], ['spec', 'items', 'port', 'raw', 'labels', 'kind']);
    const spec = thing.property('spec')!;
    assert.equal(spec.ref, 'test.Spec');
    assert.equal(spec.mapType, 'atomic');
    assert.equal(spec.target(), model.definition('test.Spec'));
    const items = thing.property('items')!;
    assert.equal(items.listType, 'map');
    assert.deepEqual(items.listMapKeys, ['name', 'port']);
    assert.equal(items.patchStrategy, 'merge');
    assert.equal(items.patchMergeKey, 'name');
    assert.equal(items.items?.ref, 'test.Item');
    const port = thing.property('port')!;
    assert.equal(port.intOrString, true);
    assert.equal(port.hasDefault, true);
    assert.equal(port.default, 80);
    const raw = thing.property('raw')!;
    assert.equal(raw.preserveUnknownFields, true);
    assert.equal(raw.embeddedResource, true);
    const labels = thing.property('labels')!.additionalProperties;
    assert.ok(typeof labels === 'object' && labels.type === 'string');
    assert.equal(thing.property('kind')!.type, 'string');
    assert.equal(thing.property('kind')!.format, 'byte');
    assert.equal(thing.property('nope'), undefined);
    assert.equal(model.definition('no.such.Type'), undefined);
    assert.equal(model.definition('test.Thing'), thing);
  });

  it('keeps each consumer’s view with its model, not with the process', () => {
    const a = new SchemaModel(DEFS);
    const b = new SchemaModel(DEFS);
    assert.equal(patchSchemaFor(a, 'test.Thing'), patchSchemaFor(a, 'test.Thing'));
    assert.notEqual(patchSchemaFor(a, 'test.Thing'), patchSchemaFor(b, 'test.Thing'));
    assert.equal(fieldTypeFor(a, 'test.Thing'), fieldTypeFor(a, 'test.Thing'));
    assert.notEqual(fieldTypeFor(a, 'test.Thing'), fieldTypeFor(b, 'test.Thing'));
    assert.equal(patchSchemaFor(a, 'test.Thing').lookupSlice('items').mergeKey, 'name');
  });

  it('is owned by each descriptor’s schema handle: apply schemas are cached there', () => {
    const catalog = ApiCatalog.load();
    const keys = new KeyLayout();
    const registry = new Registry(new MemoryStore(), keys, undefined, undefined, catalog);
    const deployments = registry.descriptorFor(catalog.resource('apps', 'v1', 'deployments')!);
    const pods = registry.descriptorFor(catalog.resource('', 'v1', 'pods')!);
    assert.equal(deployments.schema.model, deployments.schema.model);
    assert.notEqual(deployments.schema.model, pods.schema.model);
    const apply = deployments.schema.applySchema('io.k8s.api.apps.v1.Deployment');
    assert.equal(deployments.schema.applySchema('io.k8s.api.apps.v1.Deployment'), apply);
    assert.equal(patchSchemaFor(deployments.schema.model, 'io.k8s.api.apps.v1.Deployment').lookupField('spec').schema.name, 'io.k8s.api.apps.v1.DeploymentSpec');

    const { descriptor } = customResource(
      {
        group: 'unit.example.com',
        kind: 'Gadget',
        plural: 'gadgets',
        namespaced: true,
        versions: [{ name: 'v1', storage: true, schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } }],
      },
      keys,
    );
    const gadget = descriptor.schema.model.definition('com.example.unit.v1.Gadget');
    assert.equal(gadget?.property('metadata')?.ref, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.equal(fieldTypeFor(descriptor.schema.model, 'com.example.unit.v1.Gadget')?.field('spec')?.field('size')?.goType, 'int64');
    assert.ok(descriptor.schema.applySchema('com.example.unit.v1.Gadget').root.atom()?.map?.fields.has('metadata'));
  });
});
