import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ApiCatalog } from '../../src/api/catalog.js';
import { ApiError } from '../../src/machinery/errors.js';
import { customResource, storageVersionHash, type CustomResourceSpec } from '../../src/registry/custom-descriptors.js';
import { Registry } from '../../src/registry/registry.js';
import { ServiceAllocation } from '../../src/registry/services/service-store.js';
import { KeyLayout } from '../../src/storage/keys.js';
import { MemoryStore } from '../../src/storage/memory.js';

/** Resource descriptors: built-in assembly, and resources added and removed at run time. */

const GADGETS: CustomResourceSpec = {
  group: 'unit.example.com',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: false,
  status: true,
  versions: [{ name: 'v1beta1', storage: true, schema: { type: 'object', properties: { spec: { type: 'object' }, status: { type: 'object' } } } }],
};

function setup(): { catalog: ApiCatalog; registry: Registry; keys: KeyLayout } {
  const catalog = ApiCatalog.load();
  const keys = new KeyLayout();
  return { catalog, registry: new Registry(new MemoryStore(), keys, undefined, undefined, catalog), keys };
}

describe('built-in descriptors', () => {
  it('name each subresource behaviour, virtual create and store hook from one place', () => {
    const { catalog, registry } = setup();
    const pods = registry.descriptorFor(catalog.resource('', 'v1', 'pods')!);
    assert.deepEqual(Object.fromEntries(pods.subresources), { binding: 'binding', eviction: 'eviction', status: 'status' });
    const deployments = registry.descriptorFor(catalog.resource('apps', 'v1', 'deployments')!);
    assert.deepEqual(Object.fromEntries(deployments.subresources), { scale: 'scale', status: 'status' });
    assert.deepEqual(Object.fromEntries(registry.descriptorFor(catalog.resource('', 'v1', 'namespaces')!).subresources), { finalize: 'finalize', status: 'status' });
    assert.equal(registry.descriptorFor(catalog.resource('', 'v1', 'bindings')!).virtual, 'binding');
    assert.equal(registry.descriptorFor(catalog.resource('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews')!).virtual, 'selfsubjectaccessreview');
    assert.ok(registry.descriptorFor(catalog.resource('', 'v1', 'services')!).hooks instanceof ServiceAllocation);
    assert.ok(registry.descriptorFor(catalog.resource('', 'v1', 'namespaces')!).hooks?.delete);
    assert.equal(pods.strategy.returnDeletedObject, true);
  });

  it('keep on status writes the metadata kube’s status strategies keep (Deployment labels)', async () => {
    const { catalog, registry } = setup();
    const info = catalog.resource('apps', 'v1', 'deployments')!;
    const deployments = registry.storeFor(info);
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', labels: { a: '1' }, annotations: { x: '1' } },
      spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    registry.descriptorFor(info).defaults(info, d);
    await deployments.create(d, 'ns');
    const { object } = await deployments.update('ns', { name: 'd', subresource: 'status' }, (cur) => ({
      ...cur!,
      metadata: { ...cur!.metadata, labels: { a: '2' }, annotations: { x: '2' } },
      status: { replicas: 1 },
    }));
    assert.deepEqual(object.metadata?.labels, { a: '1' }, 'labels stay');
    assert.deepEqual(object.metadata?.annotations, { x: '2' }, 'annotations follow the request');
    assert.deepEqual(object.status, { replicas: 1 });
    registry.stop();
  });

  it('give every registry its own Service allocation hooks', () => {
    const a = setup();
    const b = setup();
    const hooks = (s: ReturnType<typeof setup>) => s.registry.descriptorFor(s.catalog.resource('', 'v1', 'services')!).hooks;
    assert.notEqual(hooks(a), hooks(b));
  });

  it('share the stored resource’s store between served resources, indexed by the stored resource’s field labels', async () => {
    const { catalog, registry } = setup();
    const core = registry.storeFor(catalog.resource('', 'v1', 'events')!);
    const v1 = registry.storeFor(catalog.resource('events.k8s.io', 'v1', 'events')!);
    assert.equal(core, v1);
    assert.equal(registry.descriptorFor(catalog.resource('events.k8s.io', 'v1', 'events')!).fields.fields.includes('involvedObject.name'), false);
    assert.equal(core.desc.fields({ involvedObject: { name: 'x' } }).hasOwnProperty('involvedObject.name'), true);
  });
});

describe('resources added at run time', () => {
  it('enter and leave the catalog; after removal requests for them are 404', () => {
    const { catalog, registry, keys } = setup();
    const generation = catalog.generation;
    const { descriptor, versions } = customResource(GADGETS, keys);
    registry.addResource(descriptor, versions);
    assert.ok(catalog.generation > generation, 'discovery and OpenAPI see a new catalog generation');
    const info = catalog.resource('unit.example.com', 'v1beta1', 'gadgets')!;
    assert.equal(info.kind, 'Gadget');
    assert.equal(info.storageVersionHash, storageVersionHash('unit.example.com', 'v1beta1', 'Gadget'));
    assert.equal(catalog.group('unit.example.com')?.versions[0]?.stability, 'beta');
    assert.ok(catalog.definitionsAdded()['com.example.unit.v1beta1.Gadget']);
    assert.equal(registry.descriptorFor(info), descriptor);
    assert.equal(registry.storeFor(info).desc.prefix, '/registry/unit.example.com/gadgets/');

    assert.equal(registry.removeResource('unit.example.com', 'gadgets'), true);
    assert.equal(catalog.resource('unit.example.com', 'v1beta1', 'gadgets'), undefined);
    assert.equal(catalog.group('unit.example.com'), undefined);
    assert.deepEqual(catalog.definitionsAdded(), {});
    assert.throws(() => registry.descriptorFor(info), (err: unknown) => err instanceof ApiError && err.code === 404);
    assert.equal(registry.removeResource('unit.example.com', 'gadgets'), false);
  });

  it('cannot replace a built-in resource', () => {
    const { registry, keys } = setup();
    const { descriptor, versions } = customResource({ ...GADGETS, group: 'apps', kind: 'Deployment', plural: 'deployments', versions: [{ name: 'v1', storage: true }] }, keys);
    assert.throws(() => registry.addResource(descriptor, versions), /built in/);
  });

  it('write status without touching metadata, as kube’s custom resource status strategy does', async () => {
    const { catalog, registry, keys } = setup();
    const { descriptor, versions } = customResource(GADGETS, keys);
    registry.addResource(descriptor, versions);
    const store = registry.storeFor(catalog.resource('unit.example.com', 'v1beta1', 'gadgets')!);
    const created = await store.create({ apiVersion: 'unit.example.com/v1beta1', kind: 'Gadget', metadata: { name: 'g', labels: { a: '1' } }, spec: { x: 1 }, status: { dropped: true } }, undefined);
    assert.equal(created.status, undefined, 'status is not set on create');
    assert.equal(created.metadata?.generation, 1);
    const { object } = await store.update(undefined, { name: 'g', subresource: 'status' }, (cur) => ({
      ...cur!,
      metadata: { ...cur!.metadata, labels: { a: '2' } },
      spec: { x: 2 },
      status: { ok: true },
    }));
    assert.deepEqual(object.status, { ok: true });
    assert.deepEqual(object.spec, { x: 1 });
    assert.deepEqual(object.metadata?.labels, { a: '1' });
    assert.equal(object.metadata?.generation, 1);
    registry.stop();
  });
});
