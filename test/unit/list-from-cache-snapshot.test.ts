/**
 * kube's ListFromCacheSnapshot gate: on (default), continued lists read the
 * watch cache's snapshot of the first chunk's state; off, they read that
 * state from the store. The pages are the same either way.
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { FeatureGates } from '../../src/machinery/feature-gates.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { DEFAULT_WATCH_CACHE_OPTIONS } from '../../src/cache/watch-cache.js';
import { fieldExtractorFor } from '../../src/registry/field-selectors.js';
import { ResourceStore } from '../../src/registry/resource-store.js';
import { strategyFor } from '../../src/registry/strategies.js';
import { KeyLayout } from '../../src/storage/keys.js';
import { MemoryStore } from '../../src/storage/memory.js';

const CONSISTENT = { kind: 'consistent' } as const;

async function pagesWith(gates: FeatureGates): Promise<{ pages: string[][]; snapshotReads: number; storeReads: number }> {
  const store = new MemoryStore();
  const fields = fieldExtractorFor('', 'configmaps', true);
  const rs = new ResourceStore(
    { group: '', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, prefix: new KeyLayout().resourcePrefix('', 'configmaps'), fields: fields.extract },
    { ...strategyFor('', 'configmaps', 'ConfigMap'), validate: undefined, validateUpdate: undefined },
    store,
    DEFAULT_WATCH_CACHE_OPTIONS,
    gates,
  );
  for (let i = 0; i < 5; i++) await rs.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: {} } as KubeObject, 'a');
  const snapshot = mock.method(rs.cache, 'snapshot');
  const listStore = mock.method(rs.cache, 'listStore');
  const pages: string[][] = [];
  let token: string | undefined;
  do {
    const r = await rs.list({ namespace: 'a', limit: 2, readAt: CONSISTENT, ...(token ? { continueToken: token } : {}) });
    pages.push(r.items.map((o) => o.object.metadata!.name!));
    // A write between chunks must not show in the later ones.
    if (pages.length === 1) await rs.delete('a', 'cm-4');
    token = r.continueToken;
  } while (token);
  return { pages, snapshotReads: snapshot.mock.callCount(), storeReads: listStore.mock.callCount() };
}

describe('ListFromCacheSnapshot', () => {
  const expected = [['cm-0', 'cm-1'], ['cm-2', 'cm-3'], ['cm-4']];

  it('on by default: continued lists read the cache snapshot', async () => {
    const r = await pagesWith(FeatureGates.defaults());
    assert.deepEqual(r.pages, expected);
    assert.ok(r.snapshotReads > 0);
    assert.equal(r.storeReads, 0);
  });

  it('off: the same pages, read from the store', async () => {
    const r = await pagesWith(FeatureGates.parse(['ListFromCacheSnapshot=false']));
    assert.deepEqual(r.pages, expected);
    assert.equal(r.snapshotReads, 0);
    assert.ok(r.storeReads > 0);
  });
});
