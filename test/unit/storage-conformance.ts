/**
 * The Store contract as tests, shared by every backend (memory, sqlite, etcd3).
 * A backend's test file calls describeStoreConformance with a factory of
 * fresh, empty stores; `reopen` (for durable backends) closes a store and
 * opens the same data again.
 *
 * Revisions are relative to the store's revision right after it was opened
 * (its base): 0 for memory and sqlite, the shared server's revision for etcd,
 * whose fresh store is an empty key namespace in a server other stores have
 * written to before. The tests of one file run one at a time and nothing else
 * writes to the server during a test, so a store's writes still get base+1,
 * base+2, ... Every expected revision is written `rev(n)` (= base + n).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KeyValue, ListResult, Store, StoreErrorCode, StoreEvent, WatchHandle } from '../../src/storage/store.js';
import { StoreError } from '../../src/storage/store.js';

export interface ConformanceOptions {
  /** Close `old` and open the same data again. */
  reopen?: (old: Store) => Promise<Store>;
  /**
   * The store's revisions come from a server shared with other stores (etcd):
   * a fresh store starts at the server's current revision, not 0, and its
   * compactedRevision may already be above 0 (but not above that revision).
   * Skips only the check that a fresh store is at revision 0, never compacted.
   */
  sharedRevisions?: boolean;
  /**
   * Lets issued writes commit and their events (and progress notifications)
   * reach watchers; used where a test checks what a watcher did or did not
   * receive. Default: a few turns of the event loop (enough for in-process
   * backends); a backend that watches over the network waits for the round trip.
   */
  settle?: (s: Store) => Promise<void>;
  /**
   * Progress requests issued close together may be answered by one
   * notification at the later revision (etcd answers per stream, over the
   * network). Every notification still comes after the events at or below it.
   */
  progressMayCoalesce?: boolean;
}

/** `rev(n)`: the revision of the store's n-th write (`rev(0)`: its revision when opened). */
export type Rev = (n: number) => number;

export function describeStoreConformance(
  name: string,
  open: () => Promise<Store> | Store,
  opts: ConformanceOptions = {},
): void {
  /**
   * Runs `fn` on a fresh store and closes whatever store it ends with. `rev`
   * numbers revisions from the store's revision when opened; a store `fn`
   * gets from `reopen` keeps that numbering (the same data, the same counter).
   */
  async function withStore(fn: (s: Store, rev: Rev) => Promise<Store | void>): Promise<void> {
    const s = await open();
    let last = s;
    try {
      const base = await s.currentRevision();
      assert.ok(Number.isSafeInteger(base) && base >= 0, `a fresh store's revision is a non-negative integer, got ${base}`);
      last = (await fn(s, (n) => base + n)) ?? s;
    } finally {
      await last.close();
    }
  }

  const settle = (s: Store): Promise<void> => (opts.settle ? opts.settle(s) : tick());

  describe(`${name}: store conformance`, () => {
    describe('revisions and writes', () => {
      it('starts empty', (t) =>
        withStore(async (s, rev) => {
          assert.equal(typeof s.backend, 'string');
          assert.equal(await s.currentRevision(), rev(0));
          assert.ok(s.compactedRevision() <= rev(0), `compacted ${s.compactedRevision()} above the revision ${rev(0)}`);
          if (opts.sharedRevisions) {
            t.diagnostic('skipped: revision 0 and compacted revision 0 (this store shares the revision counter of a server)');
          } else {
            assert.equal(rev(0), 0);
            assert.equal(s.compactedRevision(), 0);
          }
          assert.equal(await s.get('/a'), undefined);
          assert.deepEqual(await s.list('/'), { items: [], revision: rev(0), remaining: 0 });
          assert.equal(await s.count(''), 0);
        }));

      it('gives each write the next revision', () =>
        withStore(async (s, rev) => {
          const a = await s.create('/a', '1');
          assert.deepEqual(a, { key: '/a', value: '1', createRevision: rev(1), modRevision: rev(1) });
          const b = await s.create('/b', '2');
          assert.deepEqual(b, { key: '/b', value: '2', createRevision: rev(2), modRevision: rev(2) });
          const a2 = await s.update('/a', '3', rev(1));
          assert.deepEqual(a2, { key: '/a', value: '3', createRevision: rev(1), modRevision: rev(3) });
          const d = await s.delete('/b');
          assert.equal(d.revision, rev(4));
          assert.equal(await s.currentRevision(), rev(4));
        }));

      it('create fails KeyExists on an existing key without using a revision', () =>
        withStore(async (s, rev) => {
          await s.create('/a', '1');
          await rejectsWith(s.create('/a', '2'), 'KeyExists');
          assert.equal(await s.currentRevision(), rev(1));
          assert.equal((await s.get('/a'))?.value, '1');
        }));

      it('update is a compare-and-swap on modRevision', () =>
        withStore(async (s, rev) => {
          const a = await s.create('/a', '1');
          const a2 = await s.update('/a', '2', a.modRevision);
          assert.equal(a2.createRevision, rev(1));
          assert.equal(a2.modRevision, rev(2));
          const err = await rejectsWith(s.update('/a', '3', a.modRevision), 'Conflict');
          assert.deepEqual(err.current, a2, 'Conflict carries the current value');
          assert.equal(await s.currentRevision(), rev(2));
          assert.deepEqual(await s.get('/a'), a2);
        }));

      it('update fails NotFound for a missing or deleted key', () =>
        withStore(async (s, rev) => {
          // 0, not rev(0): the modRevision an absent key has (in etcd too), so
          // a compare on it alone would let the update through as a create.
          await rejectsWith(s.update('/missing', 'x', 0), 'NotFound');
          const a = await s.create('/a', '1');
          await s.delete('/a');
          await rejectsWith(s.update('/a', 'x', a.modRevision), 'NotFound');
          assert.equal(await s.currentRevision(), rev(2));
        }));

      it('delete without a precondition returns the previous value and its revision', () =>
        withStore(async (s, rev) => {
          const a = await s.create('/a', '1');
          const d = await s.delete('/a');
          assert.deepEqual(d, { prev: a, revision: rev(2) });
          assert.equal(await s.get('/a'), undefined);
          assert.equal(await s.count('/'), 0);
          await rejectsWith(s.delete('/a'), 'NotFound');
          await rejectsWith(s.delete('/never'), 'NotFound');
          assert.equal(await s.currentRevision(), rev(2));
        }));

      it('delete with a modRevision precondition', () =>
        withStore(async (s, rev) => {
          const a = await s.create('/a', '1');
          const a2 = await s.update('/a', '2', a.modRevision);
          const err = await rejectsWith(s.delete('/a', a.modRevision), 'Conflict');
          assert.deepEqual(err.current, a2);
          assert.deepEqual(await s.get('/a'), a2);
          const d = await s.delete('/a', a2.modRevision);
          assert.deepEqual(d, { prev: a2, revision: rev(3) });
          await rejectsWith(s.delete('/a', a2.modRevision), 'NotFound');
        }));

      it('a deleted then recreated key has a new createRevision', () =>
        withStore(async (s, rev) => {
          await s.create('/a', 'old');
          await s.delete('/a');
          const again = await s.create('/a', 'new');
          assert.deepEqual(again, { key: '/a', value: 'new', createRevision: rev(3), modRevision: rev(3) });
          const up = await s.update('/a', 'newer', rev(3));
          assert.equal(up.createRevision, rev(3));
          assert.equal((await s.get('/a', { revision: rev(1) }))?.createRevision, rev(1));
          assert.equal(await s.get('/a', { revision: rev(2) }), undefined);
        }));

      it('round-trips values exactly', () =>
        withStore(async (s) => {
          const values = [
            '',
            '{"kind":"Pod","metadata":{"name":"a"}}',
            'quotes \' " and \\ backslash, nul \u0000 tab \t newline \n',
            'unicode: ü ß 中文 😀 \u2028',
            'x'.repeat(1 << 20),
          ];
          for (const [i, v] of values.entries()) await s.create(`/v/${i}`, v);
          for (const [i, v] of values.entries()) assert.equal((await s.get(`/v/${i}`))?.value, v);
          const listed = await s.list('/v/');
          assert.deepEqual(
            listed.items.map((kv) => kv.value),
            values,
          );
        }));

      it('a failing op does not fail the others issued with it', () =>
        withStore(async (s, rev) => {
          await s.create('/taken', 'x');
          await s.create('/gone', 'y');
          // Each op has its own key (or fails on one no other op changes): a
          // networked backend may run ops issued together in any order.
          const results = await Promise.allSettled([
            s.create('/a', '1'),
            s.create('/taken', 'dup'),
            s.update('/missing', 'x', rev(1)),
            s.create('/b', '2'),
            s.delete('/taken', rev(999)),
            s.delete('/gone'),
          ]);
          assert.deepEqual(
            results.map((r) => (r.status === 'fulfilled' ? 'ok' : (r.reason as StoreError).code)),
            ['ok', 'KeyExists', 'NotFound', 'ok', 'Conflict', 'ok'],
          );
          assert.equal(await s.currentRevision(), rev(5));
          const listed = (await s.list('/')).items;
          assert.deepEqual(
            listed.map((kv) => kv.key),
            ['/a', '/b', '/taken'],
          );
          assert.equal(listed[2]!.modRevision, rev(1));
          assert.deepEqual(
            new Set([listed[0]!.modRevision, listed[1]!.modRevision, (results[5] as PromiseFulfilledResult<{ revision: number }>).value.revision]),
            new Set([rev(3), rev(4), rev(5)]),
          );
        }));

      it('concurrent conflicting updates: exactly one wins', () =>
        withStore(async (s, rev) => {
          const a = await s.create('/a', '0');
          const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => s.update('/a', `v${i}`, a.modRevision)));
          const won = results.filter((r): r is PromiseFulfilledResult<KeyValue> => r.status === 'fulfilled');
          assert.equal(won.length, 1);
          const winner = won[0]!.value;
          for (const r of results) {
            if (r.status === 'rejected') {
              assert.ok(r.reason instanceof StoreError && r.reason.code === 'Conflict');
              assert.deepEqual(r.reason.current, winner);
            }
          }
          assert.deepEqual(await s.get('/a'), winner);
          assert.equal(await s.currentRevision(), rev(2));
        }));

      it('concurrent creates of one key: exactly one wins', () =>
        withStore(async (s, rev) => {
          const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => s.create('/a', `v${i}`)));
          assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
          for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as StoreError).code, 'KeyExists');
          assert.equal(await s.currentRevision(), rev(1));
        }));

      it('concurrent writes get distinct consecutive revisions', () =>
        withStore(async (s, rev) => {
          const kvs = await Promise.all(Array.from({ length: 100 }, (_, i) => s.create(`/k/${pad(i)}`, `${i}`)));
          const revs = kvs.map((kv) => kv.modRevision).sort((x, y) => x - y);
          assert.deepEqual(
            revs,
            Array.from({ length: 100 }, (_, i) => rev(i + 1)),
          );
          assert.equal(await s.currentRevision(), rev(100));
        }));
    });

    describe('reads', () => {
      it('get and list at past revisions see the state as of that revision', () =>
        withStore(async (s, rev) => {
          const history = await runWorkload(s, 7, 150, newHistory(rev(0)));
          // From rev(0), the (empty) state before the store's first write.
          for (let r = history.base; r <= history.revision; r++) await assertSnapshot(s, history, r);
        }));

      it('reads above the current revision fail FutureRevision', () =>
        withStore(async (s, rev) => {
          await s.create('/a', '1');
          assert.equal((await s.get('/a', { revision: rev(1) }))?.value, '1');
          await rejectsWith(s.get('/a', { revision: rev(2) }), 'FutureRevision');
          await rejectsWith(s.list('/', { revision: rev(2) }), 'FutureRevision');
        }));

      it('list by prefix does not mix neighbouring prefixes', () =>
        withStore(async (s, rev) => {
          const keys = [
            '/registry/pods',
            '/registry/pods/a',
            '/registry/pods/ns1/b',
            '/registry/pods.x',
            '/registry/pods0',
            '/registry/pods\u00ff',
            '/registry/podtemplates/x',
            '/registry/pod/y',
            '/registry/a_b/1',
            '/registry/aXb/2',
            '/registry/a%/3',
            '/registry/a%b/4',
            '/registry/ab/5',
          ];
          for (const k of keys) await s.create(k, k);
          const prefixes: Record<string, string[]> = {
            '/registry/pods/': ['/registry/pods/a', '/registry/pods/ns1/b'],
            '/registry/pods/ns1/': ['/registry/pods/ns1/b'],
            '/registry/pod': [
              '/registry/pod/y',
              '/registry/pods',
              '/registry/pods.x',
              '/registry/pods/a',
              '/registry/pods/ns1/b',
              '/registry/pods0',
              '/registry/pods\u00ff',
              '/registry/podtemplates/x',
            ],
            '/registry/a_b/': ['/registry/a_b/1'],
            '/registry/a%': ['/registry/a%/3', '/registry/a%b/4'],
            '/registry/a%/': ['/registry/a%/3'],
            '/registry/pods/a': ['/registry/pods/a'],
            '/registry/none/': [],
            '': [...keys].sort(),
          };
          for (const [prefix, want] of Object.entries(prefixes)) {
            const got = await s.list(prefix);
            assert.deepEqual(
              got.items.map((kv) => kv.key),
              want,
              `list(${JSON.stringify(prefix)})`,
            );
            assert.equal(got.remaining, 0);
            assert.equal(await s.count(prefix), want.length, `count(${JSON.stringify(prefix)})`);
            const past = await s.list(prefix, { revision: rev(keys.length - 1) });
            assert.deepEqual(
              past.items.map((kv) => kv.key),
              want.filter((k) => k !== keys[keys.length - 1]),
              `list(${JSON.stringify(prefix)}) at a past revision`,
            );
          }
        }));

      it('lists in ascending key order whatever the write order', () =>
        withStore(async (s, rev) => {
          const keys = Array.from({ length: 50 }, (_, i) => `/k/${pad((i * 37) % 50)}`);
          for (const k of keys) await s.create(k, k);
          const got = await s.list('/k/');
          assert.deepEqual(
            got.items.map((kv) => kv.key),
            [...keys].sort(),
          );
          assert.equal(got.revision, rev(50));
          for (const kv of got.items) assert.equal(kv.value, kv.key);
        }));

      it('limit, startKey and remaining', () =>
        withStore(async (s, rev) => {
          for (let i = 0; i < 10; i++) await s.create(`/k/${pad(i)}`, `${i}`);
          await s.create('/l/0', 'other prefix');
          const page1 = await s.list('/k/', { limit: 3 });
          assert.deepEqual(keysOf(page1), ['/k/000', '/k/001', '/k/002']);
          assert.equal(page1.remaining, 7);
          assert.equal(page1.revision, rev(11));
          const page2 = await s.list('/k/', { limit: 3, startKey: '/k/003' });
          assert.deepEqual(keysOf(page2), ['/k/003', '/k/004', '/k/005']);
          assert.equal(page2.remaining, 4);
          const last = await s.list('/k/', { limit: 4, startKey: '/k/006' });
          assert.deepEqual(keysOf(last), ['/k/006', '/k/007', '/k/008', '/k/009']);
          assert.equal(last.remaining, 0);
          const over = await s.list('/k/', { limit: 100 });
          assert.equal(over.items.length, 10);
          assert.equal(over.remaining, 0);
          assert.equal((await s.list('/k/', { limit: 0 })).items.length, 10);
          // startKey need not exist, may precede the prefix, or be past its end.
          assert.deepEqual(keysOf(await s.list('/k/', { limit: 2, startKey: '/k/0045' })), ['/k/005', '/k/006']);
          assert.deepEqual(keysOf(await s.list('/k/', { limit: 1, startKey: '/a' })), ['/k/000']);
          assert.deepEqual(await s.list('/k/', { limit: 1, startKey: '/k/999' }), { items: [], revision: rev(11), remaining: 0 });
          assert.deepEqual(keysOf(await s.list('/k/', { startKey: '/k/008' })), ['/k/008', '/k/009']);
        }));

      it('paginates a consistent snapshot at a past revision while writes go on', () =>
        withStore(async (s, rev) => {
          for (let i = 0; i < 20; i++) await s.create(`/k/${pad(i)}`, `${i}`);
          const first = await s.list('/k/', { limit: 5 });
          const at = first.revision;
          const expected = (await s.list('/k/', { revision: at })).items;
          // Writes between pages: deletes, updates, creates before and after the cursor.
          await s.delete('/k/002');
          await s.delete('/k/007');
          await s.update('/k/008', 'changed', rev(8 + 1));
          await s.create('/k/0075', 'new');
          await s.create('/k/100', 'new');
          await s.delete('/k/019');
          const pages: KeyValue[] = [...first.items];
          let cursor = first;
          while (cursor.remaining > 0) {
            const nextKey = cursor.items[cursor.items.length - 1]!.key + '\u0000';
            cursor = await s.list('/k/', { revision: at, limit: 5, startKey: nextKey });
            assert.equal(cursor.revision, at);
            pages.push(...cursor.items);
            const seen = pages.length;
            assert.equal(cursor.remaining, expected.length - seen, `remaining after ${seen}`);
          }
          assert.deepEqual(pages, expected);
          assert.equal(pages.length, 20);
        }));

      it('count counts current keys under a prefix', () =>
        withStore(async (s) => {
          for (let i = 0; i < 5; i++) await s.create(`/a/${i}`, 'x');
          await s.create('/ab', 'x');
          await s.delete('/a/3');
          assert.equal(await s.count('/a/'), 4);
          assert.equal(await s.count('/a'), 5);
          assert.equal(await s.count(''), 5);
          assert.equal(await s.count('/b'), 0);
        }));
    });

    describe('watch', () => {
      it('from 0 delivers every event with kv and prevKv, in order', () =>
        withStore(async (s, rev) => {
          const history = await runWorkload(s, 3, 60, newHistory(rev(0)));
          const w = collect(s, '', rev(0));
          await w.waitForRevision(history.revision);
          assert.deepEqual(w.events.map(normalize), history.events);
          w.stop();
        }));

      it('from a middle revision delivers only later events', () =>
        withStore(async (s, rev) => {
          const history = await runWorkload(s, 4, 60, newHistory(rev(0)));
          for (const after of [rev(1), rev(17), rev(30), history.revision - 1]) {
            const w = collect(s, '', after);
            await w.waitForRevision(history.revision);
            assert.deepEqual(
              w.events.map(normalize),
              history.events.filter((e) => e.revision > after),
            );
            w.stop();
          }
        }));

      it('from the current revision delivers only live events', () =>
        withStore(async (s, rev) => {
          await s.create('/a', '1');
          const w = collect(s, '', await s.currentRevision());
          await settle(s);
          assert.equal(w.events.length, 0);
          await s.update('/a', '2', rev(1));
          await s.delete('/a');
          await w.waitForRevision(rev(3));
          assert.deepEqual(
            w.events.map((e) => [e.type, e.revision]),
            [
              ['put', rev(2)],
              ['delete', rev(3)],
            ],
          );
          w.stop();
        }));

      it('from a future revision skips the writes up to it', () =>
        withStore(async (s, rev) => {
          await s.create('/a', '1');
          const w = collect(s, '', rev(3));
          await s.create('/b', '2');
          await s.create('/c', '3');
          await s.create('/d', '4');
          await w.waitForRevision(rev(4));
          assert.deepEqual(
            w.events.map((e) => e.revision),
            [rev(4)],
          );
          w.stop();
        }));

      it('filters by prefix, in history and live', () =>
        withStore(async (s, rev) => {
          await s.create('/registry/pods/a', '1');
          await s.create('/registry/podtemplates/x', '1');
          await s.create('/registry/pods0', '1');
          const w = collect(s, '/registry/pods/', rev(0));
          await s.create('/registry/podtemplates/y', '2');
          await s.create('/registry/pods/b', '2');
          await w.waitForRevision(rev(5));
          await settle(s);
          assert.deepEqual(
            w.events.map((e) => e.key),
            ['/registry/pods/a', '/registry/pods/b'],
          );
          w.stop();
        }));

      it('keeps revision order without gaps or duplicates under concurrent writes', () =>
        withStore(async (s, rev) => {
          const all = collect(s, '', rev(0));
          const late: { after: number; w: Collector }[] = [];
          const writes: Promise<unknown>[] = [];
          for (let i = 0; i < 300; i++) {
            const k = `/k/${pad(i % 40)}`;
            writes.push(s.create(k, `${i}`).catch(() => s.delete(k).catch(() => undefined)));
            if (i % 25 === 0) {
              await Promise.resolve();
              const cur = await s.currentRevision();
              // Watches registered while writes are in flight, from the past, the head and the future.
              for (const after of [Math.max(rev(0), cur - 5), cur, cur + 2]) late.push({ after, w: collect(s, '', after) });
            }
            if (i % 60 === 0) await tick();
          }
          await Promise.all(writes);
          const head = await s.currentRevision();
          await all.waitForRevision(head);
          assertStrictlyIncreasing(all.events);
          assert.deepEqual(
            all.events.map((e) => e.revision),
            Array.from({ length: head - rev(0) }, (_, i) => rev(i + 1)),
          );
          for (const { after, w } of late) {
            await w.waitForRevision(head);
            assert.deepEqual(
              w.events.map(normalize),
              all.events.filter((e) => e.revision > after).map(normalize),
              `watch after ${after}`,
            );
            w.stop();
          }
          all.stop();
        }));

      it('delivers asynchronously and never an empty batch', () =>
        withStore(async (s, rev) => {
          let inCall = false;
          const batches: number[] = [];
          const h = s.watch('', rev(0), {
            onEvents: (events) => {
              assert.equal(inCall, false, 'watcher code must not run inside the write call');
              batches.push(events.length);
            },
            onError: () => assert.fail('unexpected error'),
          });
          inCall = true;
          const p = s.create('/a', '1');
          inCall = false;
          await p;
          await settle(s);
          assert.ok(batches.length > 0);
          assert.ok(batches.every((n) => n > 0));
          h.stop();
        }));

      it('answers requestProgress after the events before it, even when none matched the prefix', () =>
        withStore(async (s, rev) => {
          const seen: string[] = [];
          const h = s.watch('/mine/', rev(0), {
            onEvents: (events) => seen.push(...events.map((e) => `event ${e.revision}`)),
            onProgress: (revision) => seen.push(`progress ${revision}`),
            onError: () => assert.fail('unexpected error'),
          });
          await s.create('/mine/a', '1');
          await s.create('/other/b', '2');
          h.requestProgress();
          await s.create('/mine/c', '3');
          h.requestProgress();
          await settle(s);
          await settle(s);
          h.stop();
          const exact = [`event ${rev(1)}`, `progress ${rev(2)}`, `event ${rev(3)}`, `progress ${rev(3)}`];
          const coalesced = [`event ${rev(1)}`, `event ${rev(3)}`, `progress ${rev(3)}`];
          if (opts.progressMayCoalesce && seen.length === coalesced.length) assert.deepEqual(seen, coalesced);
          else assert.deepEqual(seen, exact);
          const delivered = seen.length;
          h.requestProgress();
          await settle(s);
          assert.equal(seen.length, delivered, 'a stopped watch gets no progress');
        }));

      it('stop() ends delivery and is idempotent', () =>
        withStore(async (s, rev) => {
          const w = collect(s, '', rev(0));
          await s.create('/a', '1');
          await w.waitForRevision(rev(1));
          w.stop();
          w.stop();
          await s.create('/b', '2');
          await settle(s);
          assert.equal(w.events.length, 1);
          // Stopped before its queued events were delivered: none arrive.
          await s.create('/c', '3');
          const w2 = collect(s, '', rev(0));
          w2.stop();
          await settle(s);
          assert.equal(w2.events.length, 0);
          assert.equal(w2.errors.length, 0);
        }));

      it('watching below the compacted revision fails Compacted', () =>
        withStore(async (s, rev) => {
          for (let i = 0; i < 5; i++) await s.create(`/k/${i}`, 'x');
          await s.compact(rev(3));
          const w = collect(s, '', rev(2));
          const err = await w.waitForError();
          assert.equal(err.code, 'Compacted');
          assert.equal(err.compactedRevision, rev(3));
          assert.equal(w.events.length, 0);
          const stopped = collect(s, '', rev(0));
          stopped.stop();
          await settle(s);
          assert.equal(stopped.errors.length, 0, 'no error after stop()');
          // At the compacted revision itself the history after it is retained.
          const ok = collect(s, '', rev(3));
          await ok.waitForRevision(rev(5));
          assert.deepEqual(
            ok.events.map((e) => e.revision),
            [rev(4), rev(5)],
          );
          ok.stop();
        }));

      it('close ends watches with Closed after the events committed before it', () =>
        withStore(async (s, rev) => {
          const w = collect(s, '', rev(0));
          const pending = s.create('/a', '1');
          await s.close();
          assert.equal((await pending).modRevision, rev(1), 'a write issued before close completes');
          const err = await w.waitForError();
          assert.equal(err.code, 'Closed');
          assert.deepEqual(
            w.events.map((e) => e.revision),
            [rev(1)],
          );
          const after = collect(s, '', rev(0));
          assert.equal((await after.waitForError()).code, 'Closed');
        }));
    });

    describe('compaction', () => {
      it('keeps current values and exact reads at every retained revision', () =>
        withStore(async (s, rev) => {
          const history = await runWorkload(s, 11, 200, newHistory(rev(0)));
          await s.compact(rev(120));
          assert.equal(s.compactedRevision(), rev(120));
          await assertHistory(s, history, rev(120), settle);
          // Deletes and recreations around the compaction point, then compact again.
          const more = await runWorkload(s, 12, 80, history);
          await s.compact(rev(250));
          assert.equal(s.compactedRevision(), rev(250));
          await assertHistory(s, more, rev(250), settle);
        }));

      it('reads below the compacted revision fail Compacted', () =>
        withStore(async (s, rev) => {
          for (let i = 0; i < 5; i++) await s.create(`/k/${i}`, 'x');
          await s.compact(rev(4));
          const err = await rejectsWith(s.get('/k/0', { revision: rev(3) }), 'Compacted');
          assert.equal(err.compactedRevision, rev(4));
          await rejectsWith(s.list('/k/', { revision: rev(1) }), 'Compacted');
          await rejectsWith(s.list('/k/', { revision: rev(0), limit: 1 }), 'Compacted');
          assert.equal((await s.list('/k/', { revision: rev(4) })).items.length, 4);
          assert.equal((await s.get('/k/0'))?.modRevision, rev(1), 'current values survive');
        }));

      it('is monotonic: older or equal revisions are no-ops, future ones fail', () =>
        withStore(async (s, rev) => {
          for (let i = 0; i < 5; i++) await s.create(`/k/${i}`, 'x');
          await s.compact(rev(3));
          await s.compact(rev(2));
          await s.compact(rev(3));
          assert.equal(s.compactedRevision(), rev(3));
          await rejectsWith(s.compact(rev(6)), 'FutureRevision');
          await s.compact(rev(5));
          assert.equal(s.compactedRevision(), rev(5));
          assert.equal(await s.count('/k/'), 5);
        }));

      it('compacting up to a trailing delete keeps the revision counter', () =>
        withStore(async (s, rev) => {
          await s.create('/a', '1');
          await s.delete('/a');
          await s.compact(rev(2));
          assert.equal(await s.currentRevision(), rev(2));
          assert.equal(await s.get('/a', { revision: rev(2) }), undefined);
          assert.equal((await s.create('/a', '2')).modRevision, rev(3));
        }));
    });

    describe('close', () => {
      it('fails operations after close with Closed; close is idempotent', () =>
        withStore(async (s, rev) => {
          await s.create('/a', '1');
          await s.close();
          await s.close();
          await rejectsWith(s.get('/a'), 'Closed');
          await rejectsWith(s.list('/'), 'Closed');
          await rejectsWith(s.count('/'), 'Closed');
          await rejectsWith(s.create('/b', '1'), 'Closed');
          await rejectsWith(s.update('/a', '2', rev(1)), 'Closed');
          await rejectsWith(s.delete('/a'), 'Closed');
          await rejectsWith(s.compact(rev(1)), 'Closed');
          await rejectsWith(s.currentRevision(), 'Closed');
        }));
    });

    const reopen = opts.reopen;
    if (reopen) {
      describe('persistence', () => {
        it('keeps data, revisions and history across close and reopen', () =>
          withStore(async (first, rev) => {
            const history = await runWorkload(first, 21, 150, newHistory(rev(0)));
            const s = await reopen(first);
            assert.equal(await s.currentRevision(), history.revision);
            // Nothing compacted by this test: every revision from rev(0) on reads exactly.
            await assertHistory(s, history, rev(0), settle);
            const next = await s.create('/after-reopen', 'x');
            assert.equal(next.modRevision, history.revision + 1);
            return s;
          }));

        it('keeps the compacted revision and the counter after compaction', () =>
          withStore(async (first, rev) => {
            const history = await runWorkload(first, 22, 120, newHistory(rev(0)));
            await first.compact(rev(90));
            // End with a delete compacted away, so no log row holds the newest revision.
            const x = await first.create('/x', '1');
            const del = await first.delete('/x', x.modRevision);
            await first.compact(del.revision);
            let s = await reopen(first);
            assert.equal(s.compactedRevision(), del.revision);
            assert.equal(await s.currentRevision(), del.revision);
            await rejectsWith(s.get('/x', { revision: del.revision - 1 }), 'Compacted');
            history.snapshots.set(del.revision, snapshotAt(history, history.revision));
            history.revision = del.revision;
            await assertSnapshot(s, history, del.revision);
            const y = await s.create('/y', '1');
            assert.equal(y.modRevision, del.revision + 1, 'a revision is never reused');
            s = await reopen(s);
            assert.equal(await s.currentRevision(), del.revision + 1);
            assert.deepEqual(await s.get('/y'), y);
            return s;
          }));

        it('replays history to a watch after reopen', () =>
          withStore(async (first, rev) => {
            const history = await runWorkload(first, 23, 80, newHistory(rev(0)));
            await first.compact(rev(40));
            const s = await reopen(first);
            const w = collect(s, '', rev(40));
            await w.waitForRevision(history.revision);
            assert.deepEqual(
              w.events.map(normalize),
              history.events.filter((e) => e.revision > rev(40)),
            );
            w.stop();
            return s;
          }));
      });
    }
  });
}

// ---- workload with an oracle ------------------------------------------------

interface History {
  /** The store's revision before its first write; snapshots start there (empty). */
  base: number;
  /** State after each revision from `base` on: snapshots.get(r) maps key → value at r. */
  snapshots: Map<number, Map<string, KeyValue>>;
  events: StoreEvent[];
  revision: number;
}

/** The history of a fresh store whose revision is `base`. */
function newHistory(base: number): History {
  return { base, snapshots: new Map([[base, new Map()]]), events: [], revision: base };
}

function snapshotAt(h: History, r: number): Map<string, KeyValue> {
  const snap = h.snapshots.get(r);
  assert.ok(snap, `no recorded state at revision ${r} (history ${h.base}..${h.revision})`);
  return snap;
}

/**
 * Random creates, CAS updates and deletes (including recreations) over a few
 * keys in two neighbouring prefixes, recording the expected state at every
 * revision and the expected events. Continues `from` (newHistory(base) for a
 * fresh store).
 */
async function runWorkload(s: Store, seed: number, writes: number, from: History): Promise<History> {
  const rand = mulberry32(seed);
  const h = from;
  const keys = Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? `/registry/podtemplates/k${i}` : `/registry/pods/ns/k${i}`));
  for (let n = 0; n < writes; n++) {
    const key = keys[Math.floor(rand() * keys.length)]!;
    const cur = snapshotAt(h, h.revision).get(key);
    const next = new Map(snapshotAt(h, h.revision));
    let event: StoreEvent;
    if (!cur) {
      const kv = await s.create(key, `v${n}`);
      next.set(key, kv);
      event = { type: 'put', key, revision: kv.modRevision, kv };
    } else if (rand() < 0.7) {
      const kv = await s.update(key, `v${n}`, cur.modRevision);
      assert.equal(kv.createRevision, cur.createRevision);
      next.set(key, kv);
      event = { type: 'put', key, revision: kv.modRevision, kv, prevKv: cur };
    } else {
      const d = await s.delete(key, rand() < 0.5 ? cur.modRevision : undefined);
      assert.deepEqual(d.prev, cur);
      next.delete(key);
      event = { type: 'delete', key, revision: d.revision, prevKv: cur };
    }
    assert.equal(event.revision, h.revision + 1, 'each write gets the next revision');
    h.revision = event.revision;
    h.snapshots.set(h.revision, next);
    h.events.push(event);
  }
  return h;
}

async function assertSnapshot(s: Store, h: History, r: number): Promise<void> {
  const want = [...snapshotAt(h, r).values()].sort((a, b) => (a.key < b.key ? -1 : 1));
  const got = await s.list('/registry/', { revision: r });
  assert.equal(got.revision, r);
  assert.deepEqual(got.items, want, `list at revision ${r}`);
  assert.equal(got.remaining, 0);
  const pods = await s.list('/registry/pods/', { revision: r, limit: 2 });
  const wantPods = want.filter((kv) => kv.key.startsWith('/registry/pods/'));
  assert.deepEqual(pods.items, wantPods.slice(0, 2), `limited list at revision ${r}`);
  assert.equal(pods.remaining, Math.max(0, wantPods.length - 2), `remaining at revision ${r}`);
  for (const key of new Set(h.events.map((e) => e.key))) {
    assert.deepEqual(await s.get(key, { revision: r }), snapshotAt(h, r).get(key), `get ${key} at revision ${r}`);
  }
}

/**
 * Every retained revision reads exactly; everything below `compacted` (down to
 * h.base) is gone. `compacted` = h.base: nothing of this store's history was.
 */
async function assertHistory(
  s: Store,
  h: History,
  compacted: number,
  settle: (s: Store) => Promise<void>,
): Promise<void> {
  for (let r = compacted; r <= h.revision; r++) await assertSnapshot(s, h, r);
  for (const r of [h.base, compacted - 1]) {
    if (r >= h.base && r < compacted) {
      await rejectsWith(s.list('/registry/', { revision: r }), 'Compacted');
      await rejectsWith(s.get(h.events[0]!.key, { revision: r }), 'Compacted');
    }
  }
  assert.deepEqual(
    (await s.list('/registry/')).items,
    [...snapshotAt(h, h.revision).values()].sort((a, b) => (a.key < b.key ? -1 : 1)),
  );
  assert.equal(await s.count('/registry/'), snapshotAt(h, h.revision).size);
  const w = collect(s, '', compacted);
  if (compacted < h.revision) await w.waitForRevision(h.revision);
  else await settle(s);
  assert.deepEqual(
    w.events.map(normalize),
    h.events.filter((e) => e.revision > compacted),
    `watch from the compacted revision ${compacted}`,
  );
  w.stop();
  if (compacted > h.base) {
    const late = collect(s, '', compacted - 1);
    assert.equal((await late.waitForError()).code, 'Compacted');
  }
}

// ---- helpers ----------------------------------------------------------------

interface Collector {
  events: StoreEvent[];
  errors: StoreError[];
  stop(): void;
  waitForRevision(revision: number, timeoutMs?: number): Promise<void>;
  waitForError(timeoutMs?: number): Promise<StoreError>;
}

function collect(s: Store, prefix: string, after: number): Collector {
  const events: StoreEvent[] = [];
  const errors: StoreError[] = [];
  let wake: (() => void) | undefined;
  const handle: WatchHandle = s.watch(prefix, after, {
    onEvents: (batch) => {
      assert.ok(batch.length > 0, 'never an empty batch');
      events.push(...batch);
      wake?.();
    },
    onError: (err) => {
      errors.push(err);
      wake?.();
    },
  });
  async function until(done: () => boolean, what: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (errors.length > 0 && !what.startsWith('error')) throw errors[0];
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; have ${events.length} events`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 50));
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }
  return {
    events,
    errors,
    stop: () => handle.stop(),
    waitForRevision: (revision, timeoutMs = 5000) =>
      until(() => events.length > 0 && events[events.length - 1]!.revision >= revision, `revision ${revision}`, timeoutMs),
    waitForError: async (timeoutMs = 5000) => {
      await until(() => errors.length > 0, 'error', timeoutMs);
      assert.equal(errors.length, 1, 'onError is called once');
      return errors[0]!;
    },
  };
}

/** An event with absent optional fields left out, for deepEqual. */
function normalize(e: StoreEvent): StoreEvent {
  const out: StoreEvent = { type: e.type, key: e.key, revision: e.revision };
  if (e.kv) out.kv = { ...e.kv };
  if (e.prevKv) out.prevKv = { ...e.prevKv };
  return out;
}

function assertStrictlyIncreasing(events: StoreEvent[]): void {
  for (let i = 1; i < events.length; i++) {
    assert.ok(events[i]!.revision > events[i - 1]!.revision, `revision order at ${i}`);
  }
}

async function rejectsWith(p: Promise<unknown>, code: StoreErrorCode): Promise<StoreError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof StoreError, `expected a StoreError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected ${code}, but the call succeeded`);
}

function keysOf(r: ListResult): string[] {
  return r.items.map((kv) => kv.key);
}

function pad(i: number): string {
  return String(i).padStart(3, '0');
}

/** Lets queued writes commit and queued events arrive. */
export async function tick(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
