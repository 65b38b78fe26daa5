/**
 * The unresponsive-watcher cut (handlers/watch-streams.ts) against a fake
 * response whose socket takes bytes only when the test says so: a watcher
 * that stops reading is cut once past its queue bounds; one that still reads,
 * only slowly (as every socket does when the kernel is short of TCP buffer
 * memory), is spared until it stops reading or falls far behind.
 */

import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SLOW_READER_FACTOR } from '../../src/handlers/watch-stream.js';
import { WatchStreams } from '../../src/handlers/watch-streams.js';
import type { Logger } from '../../src/machinery/logger.js';

/** A response whose socket holds what is written until take() says the client read it. */
class FakeResponse extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  writableEnded = false;
  writableFinished = false;
  socket = null;
  private pending: Array<{ size: number; cb: (() => void) | undefined }> = [];

  write(chunk: Buffer | string, encodingOrCb?: BufferEncoding | (() => void), cb?: () => void): boolean {
    const done = typeof encodingOrCb === 'function' ? encodingOrCb : cb;
    this.writableLength += chunk.length;
    this.pending.push({ size: chunk.length, cb: done });
    return true;
  }

  /** The client reads everything written so far. */
  take(): void {
    const done = this.pending;
    this.pending = [];
    for (const w of done) {
      this.writableLength -= w.size;
      w.cb?.();
    }
  }

  end(): void {
    this.writableEnded = true;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
}

const FRAME = Buffer.alloc(50, 'e');
const limits = { socketBytes: 100, queueEvents: 5, queueBytes: 1 << 20, endGraceMs: 50, cleanEndBytes: 1 << 20, slowReaderRecheckMs: 200 };

function setUp(): { streams: WatchStreams; open: () => { res: FakeResponse; cut: () => boolean; push: (n: number) => void; queued: () => number } } {
  const streams = new WatchStreams({ maxBufferedBytes: 1 << 30, shutdown: new AbortController().signal, limits });
  const logger: Logger = { info: () => undefined, error: () => undefined, v: () => false };
  let n = 0;
  return {
    streams,
    open: () => {
      const res = new FakeResponse();
      let stopped = false;
      const stream = streams.open(res as unknown as ServerResponse, { group: '', resource: 'configmaps' }, `watch-${n++}`, logger, { encode: () => [], stop: () => (stopped = true) })!;
      stream.open();
      return { res, cut: () => stopped, push: (k: number) => stream.push(Array.from({ length: k }, () => [FRAME])), queued: () => stream.queuedEventCount };
    },
  };
}

describe('the unresponsive-watcher cut', () => {
  it('cuts a watcher that stops reading once its queue is past its bounds', async () => {
    const { streams, open } = setUp();
    const w = open();
    w.push(2); // the socket's bound: 100 bytes
    w.push(limits.queueEvents + 1);
    await sleep(limits.slowReaderRecheckMs + 400);
    assert.ok(w.cut(), 'cut as unresponsive');
    assert.deepEqual(streams.terminatedWatchers(), [{ group: '', resource: 'configmaps', count: 1 }]);
  });

  it('spares a watcher that still reads, slowly, and cuts it once it stops', async () => {
    const { streams, open } = setUp();
    const w = open();
    const stalled = open();
    stalled.push(2 + limits.queueEvents + 1);
    // Events come faster than it reads, so its queue grows past its bounds and stays there, but its
    // socket takes bytes every 40 ms (two frames a time: the socket's bound is 100 bytes).
    const until = Date.now() + 3 * limits.slowReaderRecheckMs;
    let overBounds = 0;
    while (Date.now() < until) {
      w.push(w.queued() > limits.queueEvents ? 2 : 5);
      w.res.take();
      if (w.queued() > limits.queueEvents) overBounds++;
      await sleep(40);
    }
    assert.ok(overBounds >= 10, `past its bounds most of the time (${overBounds})`);
    assert.equal(w.cut(), false, 'a slow reader is not unresponsive');
    assert.ok(stalled.cut(), 'the one beside it that never read is cut');
    // It stops reading.
    await sleep(limits.slowReaderRecheckMs * 3 + 100);
    assert.ok(w.cut(), 'cut once it stopped reading');
    assert.equal(streams.terminatedWatchers()[0]!.count, 2);
  });

  it(`cuts a watcher that reads but falls ${SLOW_READER_FACTOR} times past its queue bounds`, async () => {
    const { open } = setUp();
    const w = open();
    for (let i = 0; i < 6 && !w.cut(); i++) {
      w.res.take();
      w.push(limits.queueEvents * SLOW_READER_FACTOR + 5);
      await sleep(100);
    }
    assert.ok(w.cut(), 'cut although its socket still takes bytes');
  });
});
