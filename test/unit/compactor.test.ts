/**
 * The periodic compactor: it notes the store revision at every tick and
 * compacts to the newest noted revision older than the history window, so
 * at least that much history stays watchable.
 */

import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';

import { Compactor } from '../../src/storage/compactor.js';
import { MemoryStore } from '../../src/storage/memory.js';
import { isStoreError } from '../../src/storage/store.js';

async function write(store: MemoryStore, n: number): Promise<number> {
  for (let i = 0; i < n; i++) await store.create(`/registry/configmaps/ns/k${await store.currentRevision()}`, '{}');
  return store.currentRevision();
}

function spyCompact(store: MemoryStore): number[] {
  const calls: number[] = [];
  const original = store.compact.bind(store);
  store.compact = async (revision: number) => {
    calls.push(revision);
    return original(revision);
  };
  return calls;
}

describe('Compactor.tick', () => {
  it('compacts to the revision noted one window ago, never sooner', async () => {
    const store = new MemoryStore();
    const calls = spyCompact(store);
    const c = new Compactor(store, 5000, 1000);
    // [time of tick, writes before it, expected compacted revision after it]
    const steps: Array<[number, number, number]> = [
      [0, 3, 0], // notes rev 3
      [1000, 3, 0], // notes rev 6
      [4999, 2, 0], // notes rev 8; nothing is 5s old yet
      [5000, 1, 3], // notes rev 9; the t=0 mark (rev 3) is 5s old
      [5500, 0, 3], // the t=1000 mark is not old enough yet
      [6000, 0, 6],
      [20_000, 4, 9], // every older mark at once: the newest of them (t=6000, rev 9) wins
    ];
    for (const [now, writes, compacted] of steps) {
      await write(store, writes);
      await c.tick(now);
      assert.equal(store.compactedRevision(), compacted, `after the tick at ${now}`);
    }
    assert.deepEqual(calls, [3, 6, 9]);
  });

  it('history inside the window stays readable and watchable', async () => {
    const store = new MemoryStore();
    const c = new Compactor(store, 1000, 100);
    const early = await write(store, 2);
    await c.tick(0);
    const mid = await write(store, 2);
    await c.tick(600);
    await write(store, 2);
    await c.tick(1000);
    assert.equal(store.compactedRevision(), early);
    // A list at the noted revision still works; one before it is compacted.
    assert.equal((await store.list('/registry/', { revision: early })).items.length, 2);
    assert.equal((await store.list('/registry/', { revision: mid })).items.length, 4);
    await assert.rejects(store.list('/registry/', { revision: early - 1 }), (err: unknown) => isStoreError(err, 'Compacted'));
  });

  it('does not compact backwards or to the same revision twice', async () => {
    const store = new MemoryStore();
    const calls = spyCompact(store);
    const c = new Compactor(store, 1000, 100);
    await write(store, 5);
    await c.tick(0); // notes 5
    await store.compact(5);
    await c.tick(1000); // target 5 is not newer than the compacted revision
    await c.tick(1001); // notes 5 again
    await c.tick(2001); // target 5 again
    assert.deepEqual(calls, [5]);
  });

  it('an idle store never changes revision, so nothing is compacted', async () => {
    const store = new MemoryStore();
    const calls = spyCompact(store);
    const c = new Compactor(store, 1000, 100);
    for (const now of [0, 1000, 2000, 3000]) await c.tick(now);
    assert.deepEqual(calls, []);
    assert.equal(store.compactedRevision(), 0);
  });
});

describe('Compactor timer', () => {
  afterEach(() => mock.timers.reset());

  it('ticks every tickMs once started, and stops', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    const store = new MemoryStore();
    const c = new Compactor(store, 5000, 1000);
    const ticks: number[] = [];
    c.tick = async (now = Date.now()) => {
      ticks.push(now);
    };
    c.start();
    mock.timers.tick(3000);
    assert.equal(ticks.length, 3);
    c.stop();
    mock.timers.tick(3000);
    assert.equal(ticks.length, 3);
  });

  const intervals: Array<{ historyMs: number; tickMs: number }> = [
    { historyMs: 300_000, tickMs: 60_000 }, // a fifth of the window, at most a minute
    { historyMs: 10_000_000, tickMs: 60_000 },
    { historyMs: 20_000, tickMs: 4000 },
    { historyMs: 2000, tickMs: 1000 }, // at least a second
  ];
  for (const c of intervals) {
    it(`default tick for a ${c.historyMs}ms window is ${c.tickMs}ms`, () => {
      mock.timers.enable({ apis: ['setInterval'] });
      const compactor = new Compactor(new MemoryStore(), c.historyMs);
      let ticks = 0;
      compactor.tick = async () => {
        ticks++;
      };
      compactor.start();
      mock.timers.tick(c.tickMs - 1);
      assert.equal(ticks, 0);
      mock.timers.tick(1);
      assert.equal(ticks, 1);
      compactor.stop();
    });
  }

  it('a zero window disables compaction', () => {
    mock.timers.enable({ apis: ['setInterval'] });
    const c = new Compactor(new MemoryStore(), 0, 10);
    let ticks = 0;
    c.tick = async () => {
      ticks++;
    };
    c.start();
    mock.timers.tick(1000);
    assert.equal(ticks, 0);
    c.stop();
  });

  it('a failing tick does not stop the timer', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    const c = new Compactor(new MemoryStore(), 1000, 100);
    let ticks = 0;
    c.tick = async () => {
      ticks++;
      throw new Error('store closed');
    };
    c.start();
    mock.timers.tick(300);
    await new Promise((r) => setImmediate(r));
    assert.equal(ticks, 3);
    c.stop();
  });
});
