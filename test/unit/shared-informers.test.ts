import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ApiCatalog } from '../../src/api/catalog.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { SharedInformers } from '../../src/registry/informer.js';
import { Registry } from '../../src/registry/registry.js';
import { KeyLayout } from '../../src/storage/keys.js';
import { MemoryStore } from '../../src/storage/memory.js';

/** Shared informers: one per store, late followers see what is known, the last follower out stops it. */

function configMaps() {
  const catalog = ApiCatalog.load({});
  const registry = new Registry(new MemoryStore(), new KeyLayout({ root: '/registry' }), undefined, undefined, catalog);
  return registry.storeFor(catalog.resource('', 'v1', 'configmaps')!);
}

async function until(pred: () => boolean): Promise<void> {
  while (!pred()) await new Promise((r) => setTimeout(r, 5));
}

const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });

describe('SharedInformers', () => {
  it('shares one informer per store; a late follower gets the known objects, then changes', async () => {
    const store = configMaps();
    await store.create(cm('a'), 'default');
    const shared = new SharedInformers();
    const seenA: string[] = [];
    const seenB: string[] = [];
    const a = shared.follow(store, (type, obj) => seenA.push(`${type} ${obj.metadata!.name}`));
    await a.start();
    assert.deepEqual(seenA, ['ADDED a']);
    await store.create(cm('b'), 'default');
    await until(() => seenA.includes('ADDED b'));
    const b = shared.follow(store, (type, obj) => seenB.push(`${type} ${obj.metadata!.name}`));
    await b.start();
    assert.equal(shared.size, 1, 'one informer for both');
    assert.deepEqual(seenB.sort(), ['ADDED a', 'ADDED b']);
    assert.equal(b.get('default/a')?.metadata?.name, 'a');
    await store.delete('default', 'a');
    await until(() => seenA.includes('DELETED a') && seenB.includes('DELETED a'));
    assert.equal(seenA.at(-1), 'DELETED a');
    assert.equal(seenB.at(-1), 'DELETED a');
    a.stop();
    assert.equal(shared.size, 1, 'still followed by b');
    b.stop();
    assert.equal(shared.size, 0, 'the last follower out stops it');
    // A new follower starts a fresh informer.
    const c = shared.follow(store, () => {});
    await c.start();
    assert.deepEqual(c.list().map((o) => o.metadata!.name), ['b']);
    c.stop();
  });
});
