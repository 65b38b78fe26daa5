import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { WorkQueue, WorkQueueMetrics } from '../../src/registry/work-queue.js';

/** The controllers' work queue: dedup, re-runs, worker limit, per-item exponential retries, figures. */

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('WorkQueue', () => {
  it('runs a key added many times once, and once more when added while it runs', async () => {
    const runs: string[] = [];
    let gate = deferred();
    const q = new WorkQueue(async (k) => {
      runs.push(k);
      await gate.promise;
    });
    q.add('a');
    q.add('a');
    q.add('a');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(runs, ['a']);
    q.add('a');
    q.add('a');
    const first = gate;
    gate = deferred();
    first.resolve();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(runs, ['a', 'a']);
    gate.resolve();
    await q.idle();
    assert.deepEqual(runs, ['a', 'a']);
    q.stop();
  });

  it('processes at most `workers` keys at once, oldest first', async () => {
    let running = 0;
    let most = 0;
    const order: string[] = [];
    const q = new WorkQueue(
      async (k) => {
        order.push(k);
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setImmediate(r));
        running--;
      },
      { workers: 2 },
    );
    for (const k of ['a', 'b', 'c', 'd', 'e']) q.add(k);
    await q.idle();
    assert.equal(most, 2);
    assert.deepEqual(order, ['a', 'b', 'c', 'd', 'e']);
    q.stop();
  });

  it('retries a failing key after base × 2^failures (capped), and forgets its failures on success', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
    let runs = 0;
    const q = new WorkQueue(
      async () => {
        runs++;
        if (runs <= 4) throw new Error('not yet');
      },
      { backoff: { baseMs: 100, maxMs: 400 } },
    );
    q.add('k');
    await settle();
    assert.equal(runs, 1);
    // Waits of 100, 200, 400 and (capped) 400 ms before runs 2 to 5.
    for (const wait of [100, 200, 400, 400]) {
      const before: number = runs;
      t.mock.timers.tick(wait - 1);
      await settle();
      assert.equal(runs, before, `not before ${wait} ms`);
      t.mock.timers.tick(1);
      await settle();
      assert.equal(runs, before + 1, `after ${wait} ms`);
    }
    assert.equal(q.numRequeues('k'), 0, 'the success forgot the failures');
    q.stop();
  });

  it('caps the delay and counts adds, retries, depth and work durations per named queue', async () => {
    const metrics = new WorkQueueMetrics();
    const gate = deferred();
    const q = new WorkQueue(
      async (k) => {
        if (k === 'bad') throw new Error('always');
        await gate.promise;
      },
      { name: 'test_queue', metrics, workers: 1, backoff: { baseMs: 60_000, maxMs: 120_000 } },
    );
    q.add('slow');
    q.add('bad');
    q.add('bad');
    await new Promise((r) => setImmediate(r));
    const f = metrics.figures('test_queue');
    assert.equal(f.adds, 3);
    assert.equal(f.depth, 1, '"bad" waits behind "slow"');
    gate.resolve();
    await q.idle();
    assert.equal(f.depth, 0);
    assert.equal(f.retries, 1);
    assert.equal(q.numRequeues('bad'), 1);
    assert.equal(f.durationCount, 2);
    assert.equal(f.durationBuckets.at(-1), 2, 'every duration is under the largest bucket (10 s)');
    q.addRateLimited('bad');
    q.addRateLimited('bad');
    assert.equal(q.numRequeues('bad'), 3);
    q.stop();
  });
});
