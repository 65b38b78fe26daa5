import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EtcdStore, rangeEnd } from '../../src/storage/etcd.js';
import type { Store } from '../../src/storage/store.js';
import { etcdMissing, startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { describeStoreConformance } from './storage-conformance.js';

const missing = etcdMissing();
let etcd: TestEtcd | undefined;
let seq = 0;

function openIn(keyspace: string): Promise<EtcdStore> {
  return EtcdStore.open({ endpoints: [etcd!.endpoint], keyspace, connectTimeoutMs: 5000 });
}

describe('etcd store', { skip: missing }, () => {
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd?.destroy();
  });

  const keyspaces = new WeakMap<Store, string>();
  describeStoreConformance(
    'etcd3',
    async () => {
      // Fixed width: no keyspace may be a prefix of another.
      const keyspace = `/t${String(++seq).padStart(5, '0')}`;
      const s = await openIn(keyspace);
      keyspaces.set(s, keyspace);
      return s;
    },
    {
      sharedRevisions: true,
      progressMayCoalesce: true,
      // Events and progress come back over the network: a round trip, not a loop turn.
      settle: () => new Promise((r) => setTimeout(r, 300)),
      reopen: async (old) => {
        const keyspace = keyspaces.get(old);
        assert.ok(keyspace, 'reopen of a store this suite opened');
        await old.close();
        const s = await openIn(keyspace);
        keyspaces.set(s, keyspace);
        return s;
      },
    },
  );

  it('never reports progress past events it has not delivered, while writers on another client race a new watch', async () => {
    // etcd 3.4 answers progress requests without waiting for a new watch's
    // replay; the store must hold such answers back (see etcd-watch.ts).
    const keyspace = `/race${String(++seq).padStart(5, '0')}`;
    const watcher = await openIn(keyspace);
    const writer = await openIn(keyspace);
    try {
      for (let round = 0; round < 15; round++) {
        const prefix = `/r${round}/`;
        const from = await watcher.currentRevision();
        const seen: Array<{ kind: 'event' | 'progress'; revision: number }> = [];
        const h = watcher.watch(prefix, from, {
          onEvents: (events) => seen.push(...events.map((e) => ({ kind: 'event' as const, revision: e.revision }))),
          onProgress: (revision) => seen.push({ kind: 'progress', revision }),
          onError: (err) => assert.fail(err),
        });
        const asking = setInterval(() => h.requestProgress(), 2);
        const written = await Promise.all([writer.create(`${prefix}a`, '1'), writer.create(`${prefix}b`, '2'), writer.create(`/elsewhere/${round}`, '3')]);
        const mine = written.slice(0, 2).map((kv) => kv.modRevision);
        await new Promise((r) => setTimeout(r, 300));
        clearInterval(asking);
        h.stop();
        for (const [i, item] of seen.entries()) {
          if (item.kind !== 'progress') continue;
          const delivered = new Set(seen.slice(0, i).filter((x) => x.kind === 'event').map((x) => x.revision));
          for (const r of mine) if (r <= item.revision) assert.ok(delivered.has(r), `progress ${item.revision} came before event ${r}: ${JSON.stringify(seen)}`);
        }
        assert.deepEqual(seen.filter((x) => x.kind === 'event').map((x) => x.revision), mine.sort((a, b) => a - b));
      }
    } finally {
      await watcher.close();
      await writer.close();
    }
  });

  it('rangeEnd increments the last byte below 0xff', () => {
    assert.deepEqual(rangeEnd('/a/'), Buffer.from('/a0'));
    assert.deepEqual(rangeEnd(''), Buffer.from([0]));
    assert.deepEqual(rangeEnd('a\u00ff'), Buffer.from([0x61, 0xc3, 0xc0]));
  });
});
