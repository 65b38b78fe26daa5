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
      // Events and progress come back over the network: a round trip, not a loop turn.
      settle: () => new Promise((r) => setTimeout(r, 150)),
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

  it('rangeEnd increments the last byte below 0xff', () => {
    assert.deepEqual(rangeEnd('/a/'), Buffer.from('/a0'));
    assert.deepEqual(rangeEnd(''), Buffer.from([0]));
    assert.deepEqual(rangeEnd('a\u00ff'), Buffer.from([0x61, 0xc3, 0xc0]));
  });
});
