/**
 * The watch cache (cache/watch-cache.ts) and the reads it serves through
 * ResourceStore (cache/resource-reader.ts), over both backends: Most Recent
 * reads are consistent (also after writes to other resources, through
 * progress notifications), Any does not wait, Not older than waits and 504s,
 * Exact and continued lists read snapshots of past revisions and 410 once
 * those are gone, watches start from a consistent state, from "0" or from a
 * revision (replay without gaps or duplicates), history is bounded by count
 * and age, selector transitions, sendInitialEvents, many writers and
 * watchers, and the cache's statistics.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';

import type { CachedObject } from '../../src/codec/cached-object.js';
import type { ReadAt, WatchStart } from '../../src/cache/read-semantics.js';
import type { ListRequest, WatchSink } from '../../src/cache/resource-reader.js';
import { DEFAULT_WATCH_CACHE_OPTIONS, type WatcherEvent, type WatchCacheOptions } from '../../src/cache/watch-cache.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { ResourceStore } from '../../src/registry/resource-store.js';
import { parseFieldSelector, parseLabelSelector } from '../../src/machinery/selectors.js';
import { fieldExtractorFor } from '../../src/registry/field-selectors.js';
import { strategyFor } from '../../src/registry/strategies.js';
import { ApiError } from '../../src/machinery/errors.js';
import { KeyLayout } from '../../src/storage/keys.js';
import { MemoryStore } from '../../src/storage/memory.js';
import { SqliteStore } from '../../src/storage/sqlite.js';
import type { GetOptions, KeyValue, ListOptions, Store, WatchCallbacks, WatchHandle } from '../../src/storage/store.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-watch-cache-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let dbSeq = 0;

const BACKENDS: Array<{ name: string; open: () => Store }> = [
  { name: 'memory', open: () => new MemoryStore() },
  { name: 'sqlite', open: () => SqliteStore.open({ path: join(dir, `cache-${++dbSeq}.db`) }) },
];

const keys = new KeyLayout();
const CONSISTENT: ReadAt = { kind: 'consistent' };
const ANY: ReadAt = { kind: 'any' };
const INITIAL: WatchStart = { kind: 'initial', at: CONSISTENT, initialEventsEndBookmark: false };
const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * A store whose watch deliveries (events, progress, errors) can be held back
 * and released: the cache then lags the store, as it does under load.
 */
class GatedStore implements Store {
  private holding = false;
  private readonly held: Array<() => void> = [];

  constructor(readonly inner: Store) {}

  get progressAfterReplay(): boolean {
    return this.inner.progressAfterReplay;
  }

  get backend(): string {
    return this.inner.backend;
  }

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
    for (const f of this.held.splice(0)) f();
  }

  private gated(f: () => void): void {
    if (this.holding) this.held.push(f);
    else f();
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  compactedRevision(): number {
    return this.inner.compactedRevision();
  }
  get(key: string, opts?: GetOptions): Promise<KeyValue | undefined> {
    return this.inner.get(key, opts);
  }
  list(prefix: string, opts?: ListOptions): ReturnType<Store['list']> {
    return this.inner.list(prefix, opts);
  }
  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }
  create(key: string, value: string): Promise<KeyValue> {
    return this.inner.create(key, value);
  }
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.inner.update(key, value, expectedModRevision);
  }
  delete(key: string, expectedModRevision?: number): ReturnType<Store['delete']> {
    return this.inner.delete(key, expectedModRevision);
  }
  watch(prefix: string, afterRevision: number, cb: WatchCallbacks): WatchHandle {
    return this.inner.watch(prefix, afterRevision, {
      onEvents: (events) => this.gated(() => cb.onEvents(events)),
      onProgress: (revision) => this.gated(() => cb.onProgress?.(revision)),
      onError: (err) => this.gated(() => cb.onError(err)),
    });
  }
  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

interface Harness {
  store: GatedStore;
  cms: ResourceStore;
  secrets: ResourceStore;
  /** Another registry (its own cache) on the same store: a second server. */
  peer: ResourceStore;
}

function resource(store: Store, resourceName: 'configmaps' | 'secrets', opts: WatchCacheOptions): ResourceStore {
  const fields = fieldExtractorFor('', resourceName, true);
  return new ResourceStore(
    { group: '', resource: resourceName, kind: resourceName === 'configmaps' ? 'ConfigMap' : 'Secret', namespaced: true, prefix: keys.resourcePrefix('', resourceName), fields: fields.extract },
    strategyFor('', resourceName, resourceName === 'configmaps' ? 'ConfigMap' : 'Secret'),
    store,
    opts,
  );
}

function harness(t: TestContext, open: () => Store, opts: Partial<WatchCacheOptions> = {}): Harness {
  const store = new GatedStore(open());
  const options = { ...DEFAULT_WATCH_CACHE_OPTIONS, waitMs: 5000, ...opts };
  const h: Harness = {
    store,
    cms: resource(store, 'configmaps', options),
    secrets: resource(store, 'secrets', options),
    peer: resource(store, 'configmaps', options),
  };
  t.after(async () => {
    store.release();
    for (const rs of [h.cms, h.secrets, h.peer]) rs.cache.stop();
    await store.close();
  });
  return h;
}

function cm(name: string, data: Record<string, string> = { v: '0' }, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

function secret(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', data: { k: 'dg==' } };
}

const rvOf = (o: KubeObject): number => Number(o.metadata!.resourceVersion);

/** Sets data (and optionally labels) of an existing ConfigMap; returns the new object. */
async function put(rs: ResourceStore, ns: string, name: string, data: Record<string, string>, labels?: Record<string, string>): Promise<KubeObject> {
  const r = await rs.update(ns, { name }, (cur) => {
    assert.ok(cur, `${ns}/${name} should exist`);
    const next = structuredClone(cur);
    next.data = data;
    if (labels) next.metadata!.labels = labels;
    return next;
  });
  return r.object;
}

/** A comparable view of list items or a state: `ns/name@rv data`. */
function describeItems(items: Iterable<CachedObject | KubeObject>): string[] {
  const out: string[] = [];
  for (const i of items) {
    const o = 'object' in i && 'key' in i ? (i as CachedObject).object : (i as KubeObject);
    out.push(`${o.metadata!.namespace}/${o.metadata!.name}@${o.metadata!.resourceVersion} ${JSON.stringify(o.data ?? {})}`);
  }
  return out;
}

async function rejectsWith(p: Promise<unknown>, code: number, reason?: string, message?: string | RegExp): Promise<ApiError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ApiError, `expected an ApiError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (reason !== undefined) assert.equal(caught.reason, reason);
  if (typeof message === 'string') assert.equal(caught.message, message);
  else if (message) assert.match(caught.message, message);
  return caught;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Lets queued store deliveries (microtasks, sqlite's setImmediate commits) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
}

interface Recorder {
  events: WatcherEvent[];
  /** `TYPE name@rv` per event, plus `END rv` for onInitialEventsEnd. */
  log: string[];
  endRevision?: number;
  ended: ApiError | undefined | 'open';
  sink: WatchSink;
}

function recorder(): Recorder {
  const r: Recorder = {
    events: [],
    log: [],
    ended: 'open',
    sink: {
      onEvents: (events) => {
        for (const e of events) {
          r.events.push(e);
          r.log.push(`${e.type} ${e.object.object.metadata!.name}@${e.object.object.metadata!.resourceVersion}`);
        }
      },
      onInitialEventsEnd: (revision) => {
        r.endRevision = revision;
        r.log.push(`END ${revision}`);
      },
      onEnd: (err) => (r.ended = err),
    },
  };
  return r;
}

/** Tracks whether a promise has settled. */
function tracked<T>(p: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  const promise = p.finally(() => (done = true));
  return { promise, settled: () => done };
}

/** Pages through a list with `limit`, checking every page's collection metadata. */
async function pageThrough(rs: ResourceStore, req: ListRequest, between?: (page: number) => Promise<void>): Promise<{ items: CachedObject[]; resourceVersion: string; pages: number }> {
  const items: CachedObject[] = [];
  let token: string | undefined;
  let rv: string | undefined;
  let pages = 0;
  do {
    const r = await rs.list({ ...req, ...(token ? { continueToken: token } : {}) });
    pages++;
    if (rv === undefined) rv = r.resourceVersion;
    else assert.equal(r.resourceVersion, rv, 'every chunk has the first chunk\'s resourceVersion');
    items.push(...r.items);
    token = r.continueToken;
    if (token) await between?.(pages);
  } while (token);
  return { items, resourceVersion: rv, pages };
}

for (const backend of BACKENDS) {
  describe(`watch cache over ${backend.name}`, () => {
    describe('Most Recent (consistent) reads', () => {
      it('see a write made just before, even by another server of the same store', async (t) => {
        const h = harness(t, backend.open);
        await h.cms.list({ readAt: CONSISTENT });
        for (let i = 0; i < 15; i++) {
          const made = await h.peer.create(cm(`x${i}`, { v: String(i) }), 'ns');
          const got = await h.cms.get('ns', `x${i}`);
          assert.equal(got.metadata!.resourceVersion, made.metadata!.resourceVersion);
          const list = await h.cms.list({ namespace: 'ns', readAt: CONSISTENT });
          assert.equal(list.resourceVersion, made.metadata!.resourceVersion);
          assert.equal(list.items.length, i + 1);
          const changed = await put(h.peer, 'ns', `x${i}`, { v: `changed-${i}` });
          assert.deepEqual((await h.cms.get('ns', `x${i}`)).data, { v: `changed-${i}` });
          assert.equal((await h.cms.get('ns', `x${i}`)).metadata!.resourceVersion, changed.metadata!.resourceVersion);
          await h.peer.delete('ns', `x${i}`);
          await rejectsWith(h.cms.get('ns', `x${i}`), 404, 'NotFound');
          await h.peer.create(cm(`x${i}`, { v: String(i) }), 'ns');
        }
      });

      it('reach a write to another resource (progress notifications), without waiting out the bound', async (t) => {
        const h = harness(t, backend.open, { waitMs: 20_000 });
        const a = await h.cms.create(cm('a'), 'ns');
        await h.cms.list({ readAt: CONSISTENT });
        const started = Date.now();
        for (let i = 0; i < 5; i++) {
          const s = await h.secrets.create(secret(`s${i}`), 'ns');
          const list = await h.cms.list({ readAt: CONSISTENT });
          // The collection is at the secret's revision; the item keeps its own.
          assert.equal(list.resourceVersion, s.metadata!.resourceVersion);
          assert.deepEqual(describeItems(list.items), [`ns/a@${a.metadata!.resourceVersion} {"v":"0"}`]);
          assert.equal(h.cms.cache.revision, rvOf(s));
        }
        // A missed progress notification would wait out 20 s per read.
        assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
      });
    });

    describe('Any and Not older than', () => {
      it('Any answers from the cache at once; consistent and not-older-than reads wait for it to catch up', async (t) => {
        const h = harness(t, backend.open, { waitMs: 20_000 });
        const a = await h.cms.create(cm('a'), 'ns');
        await h.cms.list({ readAt: CONSISTENT });
        h.store.hold();
        const b = await h.cms.create(cm('b'), 'ns');

        const any = await h.cms.list({ readAt: ANY });
        assert.equal(any.resourceVersion, a.metadata!.resourceVersion);
        assert.deepEqual(any.items.map((i) => i.name), ['a']);
        await rejectsWith(h.cms.get('ns', 'b', ANY), 404, 'NotFound');

        const consistent = tracked(h.cms.list({ readAt: CONSISTENT }));
        const notOlder = tracked(h.cms.list({ readAt: { kind: 'notOlderThan', revision: rvOf(b) } }));
        const get = tracked(h.cms.get('ns', 'b'));
        const getNotOlder = tracked(h.cms.get('ns', 'b', { kind: 'notOlderThan', revision: rvOf(b) }));
        await sleep(300);
        for (const p of [consistent, notOlder, get, getNotOlder]) assert.equal(p.settled(), false, 'waits while the cache lags');
        h.store.release();
        for (const l of [await consistent.promise, await notOlder.promise]) {
          assert.equal(l.resourceVersion, b.metadata!.resourceVersion);
          assert.deepEqual(l.items.map((i) => i.name), ['a', 'b']);
        }
        assert.equal((await get.promise).metadata!.resourceVersion, b.metadata!.resourceVersion);
        assert.equal((await getNotOlder.promise).metadata!.resourceVersion, b.metadata!.resourceVersion);
      });

      it('Not older than a future revision waits for it to be written', async (t) => {
        const h = harness(t, backend.open);
        await h.cms.create(cm('a'), 'ns');
        const target = (await h.store.currentRevision()) + 2;
        const list = tracked(h.cms.list({ readAt: { kind: 'notOlderThan', revision: target } }));
        const get = tracked(h.cms.get('ns', 'a', { kind: 'notOlderThan', revision: target }));
        await h.cms.create(cm('b'), 'ns');
        await sleep(50);
        assert.equal(list.settled(), false);
        await h.secrets.create(secret('s'), 'ns');
        const l = await list.promise;
        assert.equal(l.resourceVersion, String(target));
        assert.deepEqual(l.items.map((i) => i.name), ['a', 'b']);
        assert.equal((await get.promise).metadata!.name, 'a');
      });

      it('504 Too large resource version (with Retry-After) when the revision never comes', async (t) => {
        const h = harness(t, backend.open, { waitMs: 300 });
        await h.cms.create(cm('a'), 'ns');
        await h.secrets.create(secret('s'), 'ns');
        const current = await h.store.currentRevision();
        const future = current + 10;
        const message = `Timeout: Too large resource version: ${future}, current: ${current}`;
        const attempts: Array<[string, Promise<unknown>]> = [
          ['list NotOlderThan', h.cms.list({ readAt: { kind: 'notOlderThan', revision: future } })],
          ['list Exact', h.cms.list({ readAt: { kind: 'exact', revision: future } })],
          ['get', h.cms.get('ns', 'a', { kind: 'notOlderThan', revision: future })],
          ['watch sendInitialEvents', h.cms.watch({ start: { kind: 'initial', at: { kind: 'notOlderThan', revision: future }, initialEventsEndBookmark: true } }, recorder().sink)],
        ];
        for (const [what, p] of attempts) {
          const err = await rejectsWith(p, 504, 'Timeout', message);
          assert.equal(err.headers['Retry-After'], '1', what);
          assert.equal(err.status.details?.retryAfterSeconds, 1, what);
          assert.equal(err.status.details?.causes?.[0]?.reason, 'ResourceVersionTooLarge', what);
        }
      });
    });

    describe('Exact lists (snapshots of past revisions)', () => {
      it('read the state at every past revision, whole or in chunks; 410 once the store compacts it', async (t) => {
        const h = harness(t, backend.open);
        const states = new Map<number, string[]>();
        const record = async (): Promise<void> => {
          const l = await h.cms.list({ readAt: CONSISTENT });
          states.set(Number(l.resourceVersion), describeItems(l.items));
        };
        for (let i = 0; i < 8; i++) {
          await h.cms.create(cm(`c${i}`, { v: '0' }), i % 2 ? 'odd' : 'even');
          await record();
        }
        for (let i = 0; i < 8; i += 3) {
          await put(h.cms, i % 2 ? 'odd' : 'even', `c${i}`, { v: 'edited' });
          await record();
        }
        await h.secrets.create(secret('between'), 'even');
        await record();
        await h.cms.delete('even', 'c2');
        await record();
        await h.cms.create(cm('c2', { v: 'again' }), 'even');
        await record();
        await h.cms.delete('odd', 'c7');
        await record();

        const revisions = [...states.keys()].sort((x, y) => x - y);
        for (const rev of [...revisions].reverse()) {
          const whole = await h.cms.list({ readAt: { kind: 'exact', revision: rev } });
          assert.equal(whole.resourceVersion, String(rev));
          assert.deepEqual(describeItems(whole.items), states.get(rev), `Exact ${rev}`);
          const chunked = await pageThrough(h.cms, { limit: 3, readAt: { kind: 'exact', revision: rev } });
          assert.equal(chunked.resourceVersion, String(rev));
          assert.deepEqual(describeItems(chunked.items), states.get(rev), `Exact ${rev} in chunks`);
          const even = await h.cms.list({ namespace: 'even', readAt: { kind: 'exact', revision: rev } });
          assert.deepEqual(describeItems(even.items), states.get(rev)!.filter((s) => s.startsWith('even/')));
        }

        const compactTo = revisions[6]!;
        await h.store.compact(compactTo);
        await rejectsWith(h.cms.list({ readAt: { kind: 'exact', revision: compactTo - 1 } }), 410, 'Expired', 'The resourceVersion for the provided list is too old.');
        await rejectsWith(h.cms.list({ limit: 2, readAt: { kind: 'exact', revision: revisions[0]! } }), 410, 'Expired', 'The resourceVersion for the provided list is too old.');
        const at = await h.cms.list({ readAt: { kind: 'exact', revision: compactTo } });
        assert.deepEqual(describeItems(at.items), states.get(compactTo));
      });

      it('beyond the cache\'s history, reads the store (kube falls back to etcd); 410 once the store compacted it too', async (t) => {
        const h = harness(t, backend.open, { capacity: 4 });
        const first = await h.cms.create(cm('a'), 'ns');
        for (let i = 0; i < 6; i++) await put(h.cms, 'ns', 'a', { v: `n${i}` });
        await h.cms.list({ readAt: CONSISTENT });
        assert.equal(h.cms.cache.stats().historyEvents, 4);
        const oldest = h.cms.cache.oldestRevision;
        assert.ok(oldest > rvOf(first));
        const fromStore = await h.cms.list({ readAt: { kind: 'exact', revision: rvOf(first) } });
        assert.equal(fromStore.resourceVersion, String(rvOf(first)));
        assert.equal(fromStore.items[0]!.object.metadata!.resourceVersion, String(rvOf(first)));
        const atOldest = await h.cms.list({ readAt: { kind: 'exact', revision: oldest } });
        assert.equal(atOldest.items[0]!.object.metadata!.resourceVersion, String(oldest));
        await h.store.compact(oldest);
        await rejectsWith(h.cms.list({ readAt: { kind: 'exact', revision: rvOf(first) } }), 410, 'Expired', 'The resourceVersion for the provided list is too old.');
      });
    });

    describe('continue tokens', () => {
      async function seed(h: Harness, n: number): Promise<void> {
        for (let i = 0; i < n; i++) {
          await h.cms.create(cm(`p-${String(i).padStart(2, '0')}`, { v: String(i) }, { parity: i % 2 ? 'odd' : 'even' }), 'pages');
        }
        await h.cms.create(cm('elsewhere'), 'other');
      }

      it('pages read one snapshot while writes happen; remainingItemCount counts what is left', async (t) => {
        const h = harness(t, backend.open);
        await seed(h, 40);
        const before = await h.cms.list({ namespace: 'pages', readAt: CONSISTENT });
        let seen = 0;
        let n = 0;
        const pages: string[][] = [];
        let token: string | undefined;
        do {
          const r = await h.cms.list({ namespace: 'pages', limit: 7, ...(token ? { continueToken: token } : {}), readAt: CONSISTENT });
          assert.equal(r.resourceVersion, before.resourceVersion);
          pages.push(describeItems(r.items));
          seen += r.items.length;
          token = r.continueToken;
          if (token) assert.equal(r.remainingItemCount, 40 - seen);
          else assert.equal(r.remainingItemCount, undefined);
          // Writes between chunks, before and after the paging position.
          n++;
          await put(h.cms, 'pages', `p-${String(n * 5).padStart(2, '0')}`, { v: 'changed' });
          await h.cms.delete('pages', `p-${String(39 - n).padStart(2, '0')}`);
          await h.cms.create(cm(`p-${String(n * 6).padStart(2, '0')}x`), 'pages');
          await h.secrets.create(secret(`s-${n}`), 'pages');
        } while (token);
        assert.deepEqual(pages.flat(), describeItems(before.items));
        assert.equal(pages.length, 6);

        // Across namespaces: the same, with the other namespace's object in its place.
        const all = await h.cms.list({ readAt: CONSISTENT });
        const paged = await pageThrough(h.cms, { limit: 9, readAt: CONSISTENT }, async (page) => {
          await h.cms.create(cm(`late-${page}`), 'pages');
          await h.cms.delete('other', 'elsewhere').catch(() => undefined);
        });
        assert.equal(paged.resourceVersion, all.resourceVersion);
        assert.deepEqual(describeItems(paged.items), describeItems(all.items));
      });

      it('remainingItemCount is absent with label or field selectors', async (t) => {
        const h = harness(t, backend.open);
        await seed(h, 20);
        for (const sel of [
          { labelSelector: parseLabelSelector('parity') },
          { labelSelector: parseLabelSelector('parity=even') },
          { fieldSelector: parseFieldSelector('metadata.namespace=pages') },
          { fieldSelector: parseFieldSelector('metadata.name!=p-03') },
        ]) {
          const first = await h.cms.list({ namespace: 'pages', limit: 4, ...sel, readAt: CONSISTENT });
          assert.ok(first.continueToken, 'more to come');
          assert.equal(first.remainingItemCount, undefined);
          assert.equal(first.items.length, 4);
        }
        const evens = await pageThrough(h.cms, { namespace: 'pages', limit: 3, labelSelector: parseLabelSelector('parity=even'), readAt: CONSISTENT });
        assert.deepEqual(evens.items.map((i) => i.name), ['p-00', 'p-02', 'p-04', 'p-06', 'p-08', 'p-10', 'p-12', 'p-14', 'p-16', 'p-18']);
        // Without a selector the count is there (empty selectors are no selectors).
        const plain = await h.cms.list({ namespace: 'pages', limit: 4, labelSelector: parseLabelSelector(''), readAt: CONSISTENT });
        assert.equal(plain.remainingItemCount, 16);
      });

      it('an expired token (store compaction) is a 410 whose hint continues at the latest state', async (t) => {
        const h = harness(t, backend.open);
        await seed(h, 20);
        const first = await h.cms.list({ namespace: 'pages', limit: 5, readAt: CONSISTENT });
        assert.deepEqual(first.items.map((i) => i.name), ['p-00', 'p-01', 'p-02', 'p-03', 'p-04']);
        await h.cms.delete('pages', 'p-10');
        await h.cms.delete('pages', 'p-02');
        await h.cms.create(cm('p-07x'), 'pages');
        await put(h.cms, 'pages', 'p-15', { v: 'new' });
        await h.store.compact(await h.store.currentRevision());
        const err = await rejectsWith(h.cms.list({ namespace: 'pages', limit: 5, continueToken: first.continueToken!, readAt: CONSISTENT }), 410, 'Expired', CONTINUE_EXPIRED);
        const hint = (err.status.metadata as { continue?: string }).continue;
        assert.ok(hint, 'the Status carries a continue hint');
        const rest = await pageThrough(h.cms, { namespace: 'pages', limit: 6, continueToken: hint, readAt: CONSISTENT });
        const now = await h.cms.list({ namespace: 'pages', readAt: CONSISTENT });
        assert.equal(rest.resourceVersion, now.resourceVersion);
        assert.deepEqual(
          describeItems(rest.items),
          describeItems(now.items.filter((i) => i.name > 'p-04')),
        );
        assert.ok(rest.items.some((i) => i.name === 'p-07x'));
        assert.ok(!rest.items.some((i) => i.name === 'p-10'));
        assert.deepEqual(rest.items.find((i) => i.name === 'p-15')!.object.data, { v: 'new' });
      });

      it('a token beyond the cache\'s history continues from the store, and expires once the store compacted it', async (t) => {
        const h = harness(t, backend.open, { capacity: 3 });
        await seed(h, 10);
        const first = await h.cms.list({ namespace: 'pages', limit: 4, readAt: CONSISTENT });
        const second = await h.cms.list({ namespace: 'pages', limit: 4, continueToken: first.continueToken!, readAt: CONSISTENT });
        assert.deepEqual(second.items.map((i) => i.name), ['p-04', 'p-05', 'p-06', 'p-07']);
        for (let i = 0; i < 4; i++) await put(h.cms, 'pages', 'p-00', { v: `w${i}` });
        await h.cms.list({ readAt: CONSISTENT });
        const third = await h.cms.list({ namespace: 'pages', limit: 4, continueToken: second.continueToken!, readAt: CONSISTENT });
        assert.deepEqual(third.items.map((i) => i.name), ['p-08', 'p-09']);
        assert.equal(third.resourceVersion, first.resourceVersion);
        await h.store.compact(await h.store.currentRevision());
        await rejectsWith(h.cms.list({ namespace: 'pages', limit: 4, continueToken: second.continueToken!, readAt: CONSISTENT }), 410, 'Expired', CONTINUE_EXPIRED);
      });
    });

    describe('watch', () => {
      it('resourceVersion unset: ADDED for a consistent state (waiting for the cache), then live changes', async (t) => {
        const h = harness(t, backend.open, { waitMs: 20_000 });
        const a = await h.cms.create(cm('a'), 'ns');
        await h.cms.list({ readAt: CONSISTENT });
        h.store.hold();
        const b = await h.cms.create(cm('b'), 'ns');
        const w = recorder();
        const starting = tracked(h.cms.watch({ namespace: 'ns', start: INITIAL }, w.sink));
        await sleep(200);
        assert.equal(starting.settled(), false, 'a consistent start waits for the cache');
        h.store.release();
        const handle = await starting.promise;
        assert.deepEqual(w.log, [`ADDED a@${rvOf(a)}`, `ADDED b@${rvOf(b)}`]);
        const c = await put(h.cms, 'ns', 'b', { v: '1' });
        await h.cms.delete('ns', 'a');
        await settle();
        await h.cms.list({ readAt: CONSISTENT });
        assert.deepEqual(w.log.slice(2), [`MODIFIED b@${rvOf(c)}`, `DELETED a@${rvOf(c) + 1}`]);
        handle.stop();
        await h.cms.create(cm('after-stop'), 'ns');
        await h.cms.list({ readAt: CONSISTENT });
        assert.equal(w.log.length, 4);
        assert.equal(w.ended, 'open');
      });

      it('resourceVersion "0": the cache\'s state at once, and what it had not seen yet follows as events', async (t) => {
        const h = harness(t, backend.open, { waitMs: 20_000 });
        const a = await h.cms.create(cm('a'), 'ns');
        await h.cms.list({ readAt: CONSISTENT });
        h.store.hold();
        const b = await h.cms.create(cm('b'), 'ns');
        const w = recorder();
        await h.cms.watch({ start: { kind: 'initial', at: ANY, initialEventsEndBookmark: false } }, w.sink);
        assert.deepEqual(w.log, [`ADDED a@${rvOf(a)}`]);
        h.store.release();
        await h.cms.list({ readAt: CONSISTENT });
        assert.deepEqual(w.log, [`ADDED a@${rvOf(a)}`, `ADDED b@${rvOf(b)}`]);
      });

      it('from a revision: exactly the events after it, from history then live, for every start', async (t) => {
        const h = harness(t, backend.open);
        const all = recorder();
        await h.cms.watch({ start: INITIAL }, all.sink);
        const start = await h.store.currentRevision();
        const script: Array<() => Promise<unknown>> = [];
        for (let i = 0; i < 6; i++) script.push(() => h.cms.create(cm(`w${i}`), i % 2 ? 'x' : 'y'));
        for (let i = 0; i < 6; i += 2) script.push(() => put(h.cms, i % 2 ? 'x' : 'y', `w${i}`, { v: 'u1' }));
        script.push(() => h.secrets.create(secret('noise'), 'x'));
        script.push(() => h.cms.delete('x', 'w1'));
        script.push(() => h.cms.create(cm('w1', { v: 'reborn' }), 'x'));
        for (let i = 0; i < 6; i += 2) script.push(() => put(h.cms, i % 2 ? 'x' : 'y', `w${i}`, { v: 'u2' }));
        for (const step of script) await step();
        await h.cms.list({ readAt: CONSISTENT });
        const end = await h.store.currentRevision();
        assert.equal(all.log.length, 6 + 3 + 1 + 1 + 3);

        const revOf = (line: string): number => Number(line.slice(line.indexOf('@') + 1));
        const lines = (events: WatcherEvent[]): string[] => events.map((e) => `${e.type} ${e.object.name}@${e.object.revision}`);
        assert.deepEqual(lines(all.events), all.log);
        const revisions = all.log.map(revOf);
        assert.deepEqual(revisions, [...revisions].sort((x, y) => x - y), 'in revision order');
        assert.equal(new Set(revisions).size, revisions.length, 'no duplicates');
        for (let r = start; r <= end; r++) {
          const w = recorder();
          const handle = await h.cms.watch({ start: { kind: 'after', revision: r } }, w.sink);
          assert.deepEqual(w.log, all.log.filter((l) => revOf(l) > r), `after ${r}`);
          const scoped = recorder();
          const scopedHandle = await h.cms.watch({ namespace: 'x', start: { kind: 'after', revision: r } }, scoped.sink);
          assert.deepEqual(scoped.log, lines(all.events.filter((e) => e.object.revision > r && e.object.namespace === 'x')), `namespace x after ${r}`);
          // Live events follow the replay once.
          const live = await h.cms.create(cm(`live-${r}`), 'x');
          await h.cms.list({ readAt: CONSISTENT });
          assert.deepEqual(w.log.slice(-1), [`ADDED live-${r}@${rvOf(live)}`]);
          assert.deepEqual(scoped.log.slice(-1), [`ADDED live-${r}@${rvOf(live)}`]);
          handle.stop();
          scopedHandle.stop();
        }
        assert.equal(all.ended, 'open');
      });

      it('410 too old resource version once history was trimmed by count', async (t) => {
        const h = harness(t, backend.open, { capacity: 5 });
        const first = await h.cms.create(cm('a'), 'ns');
        for (let i = 0; i < 11; i++) await put(h.cms, 'ns', 'a', { v: `n${i}` });
        await h.cms.list({ readAt: CONSISTENT });
        const stats = h.cms.cache.stats();
        assert.equal(stats.historyEvents, 5);
        const oldest = h.cms.cache.oldestRevision;
        assert.equal(oldest, stats.oldestRevision);
        assert.equal(oldest, rvOf(first) + 6);
        await rejectsWith(h.cms.watch({ start: { kind: 'after', revision: rvOf(first) } }, recorder().sink), 410, 'Expired', `too old resource version: ${rvOf(first)} (${oldest})`);
        await rejectsWith(h.cms.watch({ start: { kind: 'after', revision: oldest - 1 } }, recorder().sink), 410, 'Expired', `too old resource version: ${oldest - 1} (${oldest})`);
        const w = recorder();
        await h.cms.watch({ start: { kind: 'after', revision: oldest } }, w.sink);
        assert.deepEqual(w.log, [1, 2, 3, 4, 5].map((k) => `MODIFIED a@${oldest + k}`));
      });

      it('history is bounded by age: older events leave with the next write', async (t) => {
        const h = harness(t, backend.open, { historyMs: 1000 });
        const a = await h.cms.create(cm('a'), 'ns');
        const b = await h.cms.create(cm('b'), 'ns');
        await h.cms.list({ readAt: CONSISTENT });
        assert.equal(h.cms.cache.stats().historyEvents, 2);
        await sleep(1300);
        const c = await h.cms.create(cm('c'), 'ns');
        await h.cms.list({ readAt: CONSISTENT });
        const stats = h.cms.cache.stats();
        assert.equal(stats.historyEvents, 1);
        assert.equal(stats.oldestRevision, rvOf(b));
        await rejectsWith(h.cms.watch({ start: { kind: 'after', revision: rvOf(a) } }, recorder().sink), 410, 'Expired', `too old resource version: ${rvOf(a)} (${rvOf(b)})`);
        const w = recorder();
        await h.cms.watch({ start: { kind: 'after', revision: rvOf(b) } }, w.sink);
        assert.deepEqual(w.log, [`ADDED c@${rvOf(c)}`]);
      });

      it('selector transitions: entering is ADDED, leaving is DELETED with the last matching content; replay says the same', async (t) => {
        const h = harness(t, backend.open);
        const from = await h.store.currentRevision();
        const live = recorder();
        await h.cms.watch({ namespace: 'ns', labelSelector: parseLabelSelector('w=yes'), start: INITIAL }, live.sink);
        const c1 = await h.cms.create(cm('w1', { v: 'in' }, { w: 'yes' }), 'ns');
        await h.cms.create(cm('w2', { v: 'out' }, { w: 'no' }), 'ns');
        const left = await put(h.cms, 'ns', 'w1', { v: 'leaving' }, { w: 'no' });
        await put(h.cms, 'ns', 'w1', { v: 'while-out' });
        const back = await put(h.cms, 'ns', 'w1', { v: 'back' }, { w: 'yes' });
        const mod = await put(h.cms, 'ns', 'w1', { v: 'still-in' });
        await put(h.cms, 'ns', 'w2', { v: 'unseen' });
        const entered = await put(h.cms, 'ns', 'w2', { v: 'entered' }, { w: 'yes' });
        const del1 = (await h.cms.delete('ns', 'w1'), await h.store.currentRevision());
        const left2 = await put(h.cms, 'ns', 'w2', { v: 'gone' }, { w: 'no' });
        await h.cms.delete('ns', 'w2');
        await h.cms.list({ readAt: CONSISTENT });
        assert.deepEqual(live.log, [
          `ADDED w1@${rvOf(c1)}`,
          `DELETED w1@${rvOf(left)}`,
          `ADDED w1@${rvOf(back)}`,
          `MODIFIED w1@${rvOf(mod)}`,
          `ADDED w2@${rvOf(entered)}`,
          `DELETED w1@${del1}`,
          `DELETED w2@${rvOf(left2)}`,
        ]);
        // Leaving: the content it had while it matched, at the revision of the change.
        const leaving = live.events[1]!.object.object;
        assert.deepEqual(leaving.data, { v: 'in' });
        assert.deepEqual(leaving.metadata!.labels, { w: 'yes' });
        assert.deepEqual(live.events[6]!.object.object.data, { v: 'entered' });

        const replay = recorder();
        await h.cms.watch({ namespace: 'ns', labelSelector: parseLabelSelector('w=yes'), start: { kind: 'after', revision: from } }, replay.sink);
        assert.deepEqual(replay.log, live.log);
        assert.deepEqual(
          replay.events.map((e) => e.object.object),
          live.events.map((e) => e.object.object),
        );
      });

      it('sendInitialEvents: the initial ADDED events, then the end at the state\'s revision, then changes', async (t) => {
        const h = harness(t, backend.open);
        const a = await h.cms.create(cm('a'), 'ns');
        const b = await h.cms.create(cm('b'), 'ns');
        const s = await h.secrets.create(secret('s'), 'ns');
        const w = recorder();
        await h.cms.watch({ start: { kind: 'initial', at: CONSISTENT, initialEventsEndBookmark: true } }, w.sink);
        // Consistent: the end is at the store's revision, even though the last write was a Secret.
        assert.deepEqual(w.log, [`ADDED a@${rvOf(a)}`, `ADDED b@${rvOf(b)}`, `END ${rvOf(s)}`]);
        const c = await h.cms.create(cm('c'), 'ns');
        await h.cms.list({ readAt: CONSISTENT });
        assert.deepEqual(w.log.slice(3), [`ADDED c@${rvOf(c)}`]);

        // An empty selection still ends its (empty) initial state.
        const none = recorder();
        await h.cms.watch({ namespace: 'empty', start: { kind: 'initial', at: CONSISTENT, initialEventsEndBookmark: true } }, none.sink);
        assert.deepEqual(none.log, [`END ${rvOf(c)}`]);

        // Not older than a future revision: waits for it; the end is at least it.
        const target = rvOf(c) + 2;
        const later = recorder();
        const starting = tracked(h.cms.watch({ start: { kind: 'initial', at: { kind: 'notOlderThan', revision: target }, initialEventsEndBookmark: true } }, later.sink));
        await h.cms.create(cm('d'), 'ns');
        await sleep(50);
        assert.equal(starting.settled(), false);
        assert.equal(later.log.length, 0);
        const e = await h.secrets.create(secret('e'), 'ns');
        await starting.promise;
        assert.equal(later.endRevision, rvOf(e));
        assert.deepEqual(later.log.slice(0, -1).map((l) => l.slice(0, l.indexOf('@'))), ['ADDED a', 'ADDED b', 'ADDED c', 'ADDED d']);

        // sendInitialEvents=false: changes only, from now.
        const quiet = recorder();
        await h.cms.watch({ start: { kind: 'now', at: CONSISTENT } }, quiet.sink);
        assert.deepEqual(quiet.log, []);
        const f = await h.cms.create(cm('f'), 'ns');
        await h.cms.list({ readAt: CONSISTENT });
        assert.deepEqual(quiet.log, [`ADDED f@${rvOf(f)}`]);
      });

      it('many writers and watchers: every watcher sees every event of its selection once, in order', async (t) => {
        const h = harness(t, backend.open);
        const namespaces = ['n0', 'n1', 'n2'];
        const WRITERS = 6;
        const OPS = 60;

        interface Watched {
          name: string;
          rec: Recorder;
          namespace?: string;
          selector?: string;
          initial: boolean;
          after?: number;
        }
        const watched: Watched[] = [];
        const startWatch = async (w: Omit<Watched, 'rec'>): Promise<void> => {
          const rec = recorder();
          const start: WatchStart = w.initial ? { kind: 'initial', at: CONSISTENT, initialEventsEndBookmark: true } : { kind: 'after', revision: w.after! };
          await h.cms.watch({ namespace: w.namespace, labelSelector: w.selector ? parseLabelSelector(w.selector) : undefined, start }, rec.sink);
          watched.push({ ...w, rec });
        };
        const origin = await h.store.currentRevision();
        await startWatch({ name: 'everything from the start', initial: false, after: origin });
        await startWatch({ name: 'initial state, all', initial: true });

        const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x7fffffff);
        const writer = async (id: number): Promise<void> => {
          const rand = rng(id + 1);
          const live = new Set<string>();
          for (let op = 0; op < OPS; op++) {
            const name = `w${id}-${Math.floor(rand() * 8)}`;
            const ns = namespaces[(id + name.length) % namespaces.length]!;
            const hot = rand() < 0.5 ? 'yes' : 'no';
            if (!live.has(name)) {
              await h.cms.create(cm(name, { v: `${op}` }, { hot }), ns);
              live.add(name);
            } else if (rand() < 0.25) {
              await h.cms.delete(ns, name);
              live.delete(name);
            } else {
              await put(h.cms, ns, name, { v: `${op}` }, { hot });
            }
            if (op % 7 === 0) await h.secrets.create(secret(`s${id}-${op}`), ns);
          }
        };
        const watchersDuringWrites = (async () => {
          for (let i = 0; i < 6; i++) {
            await sleep(5 + i * 7);
            const rev = await h.store.currentRevision();
            const ns = namespaces[i % 3]!;
            await startWatch({ name: `from ${rev - 3} (#${i})`, initial: false, after: Math.max(origin, rev - 3) });
            await startWatch({ name: `initial in ${ns} (#${i})`, initial: true, namespace: ns });
            await startWatch({ name: `initial hot=yes (#${i})`, initial: true, selector: 'hot=yes' });
          }
        })();
        await Promise.all([...Array.from({ length: WRITERS }, (_, i) => writer(i)), watchersDuringWrites]);
        const final = await h.cms.list({ readAt: CONSISTENT });
        const finalRev = Number(final.resourceVersion);
        assert.ok(watched.length >= 20);

        const reference = watched[0]!.rec.log;
        const revOf = (line: string): number => Number(line.slice(line.indexOf('@') + 1));
        assert.ok(reference.length >= WRITERS * OPS);
        for (const w of watched) {
          const lines = w.rec.log;
          const endAt = lines.findIndex((l) => l.startsWith('END '));
          const initialCount = w.initial ? endAt : 0;
          if (w.initial) assert.ok(endAt >= 0, `${w.name}: has an end of initial events`);
          const liveEvents = w.rec.events.slice(initialCount);
          const liveRevisions = liveEvents.map((e) => e.object.revision);
          const floor = w.initial ? w.rec.endRevision! : w.after!;
          for (let i = 0; i < liveRevisions.length; i++) {
            assert.ok(liveRevisions[i]! > (i === 0 ? floor : liveRevisions[i - 1]!), `${w.name}: event ${i} at ${liveRevisions[i]} is in order and new`);
          }
          // Replaying the events over the initial state (for a watch from a
          // revision: the state at that revision) gives the final state of the selection.
          const state = new Map<string, CachedObject>();
          if (!w.initial) {
            const at = await h.cms.list({ namespace: w.namespace, readAt: { kind: 'exact', revision: w.after! } });
            for (const o of at.items) state.set(o.key, o);
          }
          w.rec.events.forEach((e, i) => {
            const key = e.object.key;
            if (e.type === 'ADDED') assert.ok(!state.has(key), `${w.name}: ADDED ${key} (#${i}) while present`);
            else assert.ok(state.has(key), `${w.name}: ${e.type} ${key} (#${i}) while absent`);
            if (e.type === 'DELETED') state.delete(key);
            else state.set(key, e.object);
          });
          const expected = final.items.filter(
            (o) => (!w.namespace || o.namespace === w.namespace) && (!w.selector || o.object.metadata!.labels?.hot === 'yes'),
          );
          assert.deepEqual(describeItems([...state.values()].sort((x, y) => (x.key < y.key ? -1 : 1))), describeItems(expected), w.name);
          // Unfiltered watches from a revision see exactly the reference's events after it.
          if (!w.initial && !w.namespace && !w.selector) {
            assert.deepEqual(lines, reference.filter((l) => revOf(l) > w.after!), w.name);
          }
          const last = liveRevisions[liveRevisions.length - 1];
          if (last !== undefined) assert.ok(last <= finalRev);
        }
      });
    });

    describe('stats', () => {
      it('objects, history events, watchers and the age of the oldest event', async (t) => {
        const h = harness(t, backend.open, { capacity: 10 });
        await h.cms.list({ readAt: CONSISTENT });
        const empty = h.cms.cache.stats();
        assert.deepEqual(
          [empty.objects, empty.historyEvents, empty.watchers, empty.oldestEventAgeSeconds],
          [0, 0, 0, 0],
        );

        for (let i = 0; i < 6; i++) await h.cms.create(cm(`o${i}`), i % 2 ? 'a' : 'b');
        await h.cms.delete('b', 'o0');
        await h.secrets.create(secret('s'), 'a');
        const w1 = await h.cms.watch({ start: INITIAL }, recorder().sink);
        const w2 = await h.cms.watch({ namespace: 'a', start: INITIAL }, recorder().sink);
        const now = Date.now();
        const s = h.cms.cache.stats(now);
        assert.equal(s.objects, 5);
        assert.equal(s.historyEvents, 7);
        assert.equal(s.watchers, 2);
        assert.equal(s.revision, await h.store.currentRevision());
        assert.ok(s.oldestEventAgeSeconds >= 0 && s.oldestEventAgeSeconds < 30);
        const later = h.cms.cache.stats(now + 5000);
        assert.ok(Math.abs(later.oldestEventAgeSeconds - s.oldestEventAgeSeconds - 5) < 0.001);
        w1.stop();
        assert.equal(h.cms.cache.stats().watchers, 1);
        w2.stop();
        w2.stop();
        assert.equal(h.cms.cache.stats().watchers, 0);

        // Past the capacity the history keeps the newest 10.
        for (let i = 0; i < 12; i++) await put(h.cms, 'a', 'o1', { v: `n${i}` });
        await h.cms.list({ readAt: CONSISTENT });
        const full = h.cms.cache.stats();
        assert.equal(full.historyEvents, 10);
        assert.equal(full.objects, 5);
        assert.equal(full.oldestRevision, full.revision - 10);
        // The secrets cache counts its own.
        await h.secrets.list({ readAt: CONSISTENT });
        assert.equal(h.secrets.cache.stats().objects, 1);
      });
    });
  });
}

describe('watch cache: store fallback', () => {
  it(
    'a consistent read whose wait for the cache times out reads the store instead of answering with stale data',
    async (t) => {
      const h = harness(t, () => new MemoryStore(), { waitMs: 200 });
      await h.cms.create(cm('a'), 'ns');
      await h.cms.list({ readAt: CONSISTENT });
      h.store.hold();
      const b = await h.cms.create(cm('b'), 'ns');
      let list: Awaited<ReturnType<ResourceStore['list']>> | undefined;
      try {
        list = await h.cms.list({ readAt: CONSISTENT });
      } catch (err) {
        assert.ok(err instanceof ApiError, String(err));
        return;
      }
      assert.ok(Number(list.resourceVersion) >= rvOf(b), `a Most Recent list at ${list.resourceVersion}, before the write at ${rvOf(b)}`);
    },
  );
});
