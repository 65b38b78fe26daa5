import type { KeyValue, ListResult, Store, StoreError, StoreEvent, WatchHandle } from '../storage/store.js';
import type { KubeObject } from '../machinery/object.js';
import { ApiError, gone } from '../machinery/errors.js';
import { CorruptObjectError } from '../storage/stored-object.js';
import { CachedObject } from '../codec/cached-object.js';
import { SortedKeys } from './sorted-keys.js';

/**
 * The watch cache of one resource (kube-apiserver's Cacher + watchCache): it
 * lists the store once, then follows the store's own watch, and serves gets,
 * lists and watches from memory. It keeps the current objects in key order
 * and a bounded history of events (by age and by count), from which watches
 * resume and past states (snapshots) are rebuilt for Exact and continued lists.
 *
 * The cache only learns of changes from the store's watch, never from the
 * writer, so several servers on one store stay consistent.
 *
 * Values that do not decode (corrupt objects) are held by key beside the
 * objects: reads of them fail (resource-reader.ts). A change to or from such a
 * value cannot be told as an event, so, as kube-apiserver's cacher
 * re-initialises there, every watch ends and history restarts after it.
 */

export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CacheEvent {
  type: CacheEventType;
  /** The new version; for DELETED the last version, at the delete's revision. */
  object: CachedObject;
  /** The version before this event (MODIFIED, DELETED). */
  prev?: CachedObject | undefined;
  revision: number;
  /** When the cache received it (ms), for the history's age bound. */
  at: number;
}

/** What a watcher receives: an event as it applies to that watcher's selection. */
export interface WatcherEvent {
  type: CacheEventType;
  object: CachedObject;
}

export interface CacheWatchSink {
  onEvents(events: WatcherEvent[]): void;
  /** The cache can no longer serve this watch (re-initialisation, shutdown). */
  onEnd(err?: ApiError): void;
}

export interface CacheWatchOptions {
  /** Key prefix of the selection (a namespace or the whole resource). */
  prefix: string;
  /** Selector match; absent = everything under the prefix. */
  matches?: ((obj: KubeObject) => boolean) | undefined;
  /** Deliver events with revision > after. */
  after: number;
}

export interface CacheWatchHandle {
  stop(): void;
}

export interface WatchCacheOptions {
  /** Events older than this leave the history (ms). */
  historyMs: number;
  /** At most this many events are kept. */
  capacity: number;
  /** How long reads wait for the cache to reach a revision before giving up (ms). */
  waitMs: number;
}

export interface WatchCacheStats {
  objects: number;
  historyEvents: number;
  watchers: number;
  revision: number;
  oldestRevision: number;
  /** Seconds since the oldest event in history arrived (0 when empty). */
  oldestEventAgeSeconds: number;
}

export const DEFAULT_WATCH_CACHE_OPTIONS: WatchCacheOptions = {
  historyMs: 5 * 60_000,
  capacity: 100_000,
  waitMs: 3000,
};

/** Past states kept for Exact and continued lists (kube keeps snapshots until compaction). */
const MAX_SNAPSHOTS = 16;

/** How often an idle cache asks the store for progress. */
const PROGRESS_INTERVAL_MS = 5000;

export interface Snapshot {
  revision: number;
  /** Every object at `revision`, in key order. */
  objects: CachedObject[];
  keys: string[];
  /** The values at `revision` that do not decode, in key order. */
  corrupt: CorruptObjectError[];
}

type Decoder = (kv: KeyValue, revision?: number) => KubeObject;

class CacheWatcher {
  stopped = false;

  constructor(
    readonly prefix: string,
    readonly matches: ((obj: KubeObject) => boolean) | undefined,
    public after: number,
    readonly sink: CacheWatchSink,
    private readonly detach: (w: CacheWatcher) => void,
  ) {}

  /** The event as this watcher sees it: selector entries/exits become ADDED/DELETED. */
  view(e: CacheEvent): WatcherEvent | undefined {
    if (!e.object.key.startsWith(this.prefix)) return undefined;
    const m = this.matches;
    if (!m) return { type: e.type, object: e.object };
    const now = e.type !== 'DELETED' && m(e.object.object);
    const before = e.prev !== undefined && m(e.prev.object);
    if (e.type === 'ADDED') return now ? { type: 'ADDED', object: e.object } : undefined;
    if (e.type === 'DELETED') return before ? { type: 'DELETED', object: e.object } : undefined;
    if (now && before) return { type: 'MODIFIED', object: e.object };
    if (now) return { type: 'ADDED', object: e.object };
    // Leaving the selection: the previous content, at this event's revision.
    if (before) return { type: 'DELETED', object: e.prev!.atRevision(e.revision) };
    return undefined;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.detach(this);
  }
}

export class WatchCache {
  private readonly objects = new Map<string, CachedObject>();
  private readonly keys = new SortedKeys();
  /**
   * Keys whose current value does not decode. Any change to this set breaks
   * history (breakHistory), so it is also the set at every revision history covers.
   */
  private readonly corrupt = new Map<string, CorruptObjectError>();
  /** Events in revision order; `history[historyStart..]` are live. */
  private history: CacheEvent[] = [];
  private historyStart = 0;
  private readonly watchers = new Set<CacheWatcher>();
  private readonly snapshots: Snapshot[] = [];
  private readonly waiters: Array<{ revision: number; resolve: (ok: boolean) => void }> = [];
  private handle: WatchHandle | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private starting: Promise<void> | undefined;
  private ready = false;
  private stopped = false;
  /** Every event up to this revision has been applied. */
  private rev = 0;
  /** History covers (oldest, rev]: a watch from any revision >= oldest can be served. */
  private oldest = 0;

  constructor(
    private readonly store: Store,
    readonly prefix: string,
    private readonly decode: Decoder,
    private readonly opts: WatchCacheOptions = DEFAULT_WATCH_CACHE_OPTIONS,
  ) {}

  get revision(): number {
    return this.rev;
  }

  get oldestRevision(): number {
    return this.oldest;
  }

  /** Starts the cache on first use and resolves once it has caught up with the store. */
  ensureStarted(): Promise<void> {
    if (this.ready) return Promise.resolve();
    this.starting ??= this.start().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  private async start(): Promise<void> {
    // Start from the oldest state the store still has and replay its history,
    // so watches can resume from any revision the store retains; where the
    // store cannot tell when a replay is done, from the current state.
    let listed: ListResult;
    if (!this.store.progressAfterReplay) listed = await this.store.list(this.prefix);
    else {
      const compacted = this.store.compactedRevision();
      listed = compacted > 0 ? await this.store.list(this.prefix, { revision: compacted }) : { items: [], revision: 0, remaining: 0 };
    }
    const from = listed.revision;
    this.reset(from);
    for (const kv of listed.items) this.setCurrent(kv.key, this.decodeEntry(kv));
    this.handle = this.store.watch(this.prefix, from, {
      onEvents: (events) => this.apply(events),
      onProgress: (revision) => this.advance(revision),
      onError: (err) => this.restart(err),
    });
    // Keep an idle resource's revision moving with the store (as etcd's periodic
    // progress notifications do) and its history inside the age bound.
    this.ticker ??= setInterval(() => {
      this.handle?.requestProgress();
      this.trim(Date.now());
    }, PROGRESS_INTERVAL_MS);
    this.ticker.unref();
    await this.waitFresh();
    this.ready = true;
  }

  private reset(revision: number): void {
    this.objects.clear();
    this.keys.clear();
    this.corrupt.clear();
    this.history = [];
    this.historyStart = 0;
    this.snapshots.length = 0;
    this.rev = revision;
    this.oldest = revision;
  }

  /** The store's watch ended (compaction overtook it, store failure): end watchers, start over. */
  private restart(err: StoreError): void {
    this.handle = undefined;
    this.ready = false;
    this.starting = undefined;
    this.endWatchers();
    if (this.stopped || err.code === 'Closed') return;
    setTimeout(() => void this.ensureStarted().catch(() => undefined), 100).unref();
  }

  private endWatchers(): void {
    const ending = [...this.watchers];
    this.watchers.clear();
    for (const w of ending) {
      w.stopped = true;
      w.sink.onEnd();
    }
  }

  /**
   * A change at `revision` that no event can describe, because its value or
   * the one it replaces does not decode. kube-apiserver's cacher re-initialises
   * here: every watch ends without an error, and a watch resumed from before
   * it gets 410, so clients list again. The current state stays.
   */
  private breakHistory(revision: number): void {
    this.history = [];
    this.historyStart = 0;
    this.snapshots.length = 0;
    this.oldest = revision;
    this.endWatchers();
  }

  /** A value as the cache holds it: its object, or why it does not decode. */
  private decodeEntry(kv: KeyValue): CachedObject | CorruptObjectError {
    try {
      return new CachedObject(kv.key, this.decode(kv), kv.modRevision);
    } catch (err) {
      if (!(err instanceof CorruptObjectError)) throw err;
      process.stderr.write(`watch cache: ${err.storageMessage}\n`);
      return err;
    }
  }

  /** Sets the current value of `key` (undefined: deleted). */
  private setCurrent(key: string, entry: CachedObject | CorruptObjectError | undefined): void {
    const had = this.objects.has(key);
    if (entry instanceof CachedObject) {
      this.objects.set(key, entry);
      if (!had) this.keys.insert(key);
    } else if (had) {
      this.objects.delete(key);
      this.keys.delete(key);
    }
    if (entry instanceof CorruptObjectError) this.corrupt.set(key, entry);
    else this.corrupt.delete(key);
  }

  private apply(events: StoreEvent[]): void {
    const now = Date.now();
    let applied: CacheEvent[] = [];
    for (const e of events) {
      if (e.revision <= this.rev) continue;
      const prev = this.objects.get(e.key);
      const wasCorrupt = this.corrupt.has(e.key);
      const next = e.type === 'put' ? this.decodeEntry(e.kv!) : undefined;
      this.setCurrent(e.key, next);
      this.rev = e.revision;
      if (wasCorrupt || next instanceof CorruptObjectError) {
        // Watchers get what came before, then end.
        if (applied.length > 0) this.dispatch(applied);
        applied = [];
        this.breakHistory(e.revision);
        continue;
      }
      let ev: CacheEvent | undefined;
      if (next) ev = { type: prev ? 'MODIFIED' : 'ADDED', object: next, prev, revision: e.revision, at: now };
      else if (prev) ev = { type: 'DELETED', object: prev.atRevision(e.revision), prev, revision: e.revision, at: now };
      if (ev) {
        this.history.push(ev);
        applied.push(ev);
      }
    }
    this.trim(now);
    if (applied.length > 0) this.dispatch(applied);
    this.wake();
  }

  private advance(revision: number): void {
    if (revision > this.rev) this.rev = revision;
    this.wake();
  }

  private wake(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (this.rev >= w.revision) {
        this.waiters.splice(i, 1);
        w.resolve(true);
      }
    }
  }

  /** Drops history beyond the age and count bounds; `oldest` moves with it. */
  private trim(now: number): void {
    let start = this.historyStart;
    const live = (): number => this.history.length - start;
    while (live() > 0 && (live() > this.opts.capacity || now - this.history[start]!.at > this.opts.historyMs)) {
      this.oldest = this.history[start]!.revision;
      start++;
    }
    if (start !== this.historyStart) {
      this.historyStart = start;
      // Compact the array once the dead prefix dominates, keeping trims O(1) amortised.
      if (start > 1024 && start * 2 > this.history.length) {
        this.history = this.history.slice(start);
        this.historyStart = 0;
      }
      while (this.snapshots.length > 0 && this.snapshots[0]!.revision < this.oldest) this.snapshots.shift();
    }
  }

  private dispatch(events: CacheEvent[]): void {
    for (const w of [...this.watchers]) {
      if (w.stopped) continue;
      const out: WatcherEvent[] = [];
      for (const e of events) {
        if (e.revision <= w.after) continue;
        const v = w.view(e);
        if (v) out.push(v);
      }
      if (out.length > 0) {
        w.after = events[events.length - 1]!.revision;
        try {
          w.sink.onEvents(out);
        } catch {
          w.stop();
        }
      }
    }
  }

  /**
   * Waits until every store write up to its current revision is in the cache
   * (a consistent read). False when that takes longer than the wait bound.
   */
  async waitFresh(): Promise<boolean> {
    const target = await this.store.currentRevision();
    return this.waitForRevision(target);
  }

  /** Waits until the cache has reached `revision`; false after the wait bound. */
  waitForRevision(revision: number, timeoutMs = this.opts.waitMs): Promise<boolean> {
    if (this.rev >= revision) return Promise.resolve(true);
    return new Promise((resolve) => {
      // Progress requests make the store confirm revisions that had no event for this prefix.
      const poll = setInterval(() => this.handle?.requestProgress(), 100);
      const waiter = {
        revision,
        resolve: (ok: boolean): void => {
          clearInterval(poll);
          clearTimeout(timer);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        waiter.resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
      this.handle?.requestProgress();
    });
  }

  /** The current object at `key`; CorruptObjectError when its value does not decode. */
  get(key: string): CachedObject | undefined {
    const corrupt = this.corrupt.get(key);
    if (corrupt) throw corrupt;
    return this.objects.get(key);
  }

  /** Current values under `prefix` that do not decode, in key order. */
  corruptUnder(prefix: string): CorruptObjectError[] {
    return [...this.corrupt.values()].filter((c) => c.key.startsWith(prefix)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** The key read straight from the store (the fallback when the cache cannot answer in time). */
  async readStore(key: string): Promise<CachedObject | undefined> {
    const kv = await this.store.get(key);
    return kv ? new CachedObject(kv.key, this.decode(kv), kv.modRevision) : undefined;
  }

  /**
   * Every object under `prefix` read straight from the store, at `revision`
   * (current when absent): the fallback for states the cache no longer holds.
   * Undefined when the store has compacted that revision too.
   */
  async listStore(prefix: string, revision?: number): Promise<Snapshot | undefined> {
    let listed;
    try {
      listed = await this.store.list(prefix, revision === undefined ? {} : { revision });
    } catch (err) {
      if ((err as StoreError).code === 'Compacted') return undefined;
      throw err;
    }
    const objects: CachedObject[] = [];
    const corrupt: CorruptObjectError[] = [];
    for (const kv of listed.items) {
      const entry = this.decodeEntry(kv);
      if (entry instanceof CachedObject) objects.push(entry);
      else corrupt.push(entry);
    }
    return { revision: listed.revision, objects, keys: objects.map((o) => o.key), corrupt };
  }

  /** Current objects under `prefix` from `startKey` on, in key order. */
  *current(prefix: string, startKey?: string): Generator<CachedObject> {
    for (const k of this.keys.range(prefix, startKey)) yield this.objects.get(k)!;
  }

  countCurrent(prefix: string): number {
    if (prefix === this.prefix) return this.objects.size;
    let n = 0;
    for (const _ of this.keys.range(prefix)) n++;
    return n;
  }

  /**
   * Every object as it was at `revision`, in key order: the current state, or
   * one rebuilt by rolling history back. Undefined when history no longer
   * reaches that far.
   */
  snapshot(revision: number): Snapshot | undefined {
    if (revision > this.rev) return undefined;
    // Nothing changed since `revision`: it is the current state, whatever was compacted meanwhile.
    const latest = this.history.length > this.historyStart ? this.history[this.history.length - 1]!.revision : this.oldest;
    // Like kube's snapshots, past states go when the store compacts them, even if the cache could rebuild them.
    if (revision < latest && revision < Math.max(this.oldest, this.store.compactedRevision())) return undefined;
    if (revision < this.oldest) return undefined;
    const hit = this.snapshots.find((s) => s.revision === revision);
    if (hit) return hit;
    const state = new Map(this.objects);
    for (let i = this.history.length - 1; i >= this.historyStart; i--) {
      const e = this.history[i]!;
      if (e.revision <= revision) break;
      if (e.type === 'ADDED') state.delete(e.object.key);
      else state.set(e.object.key, e.prev!);
    }
    const keys = [...state.keys()].sort();
    // The corrupt values are the current ones: a change to them breaks history (breakHistory).
    const snap: Snapshot = { revision, keys, objects: keys.map((k) => state.get(k)!), corrupt: this.corruptUnder(this.prefix) };
    this.snapshots.push(snap);
    this.snapshots.sort((a, b) => a.revision - b.revision);
    if (this.snapshots.length > MAX_SNAPSHOTS) this.snapshots.shift();
    return snap;
  }

  /**
   * Starts a watch: history after `opts.after` is replayed synchronously, then
   * live events follow, so nothing is lost or repeated. 410 when history no
   * longer reaches back to `opts.after`.
   */
  watch(opts: CacheWatchOptions, sink: CacheWatchSink): CacheWatchHandle {
    if (opts.after < this.oldest) {
      throw gone(`too old resource version: ${opts.after} (${this.oldest})`, 'Expired');
    }
    const w = new CacheWatcher(opts.prefix, opts.matches, opts.after, sink, (x) => this.watchers.delete(x));
    const replay: WatcherEvent[] = [];
    for (let i = this.firstEventAfter(opts.after); i < this.history.length; i++) {
      const v = w.view(this.history[i]!);
      if (v) replay.push(v);
    }
    w.after = Math.max(opts.after, this.rev);
    if (this.stopped) {
      // The resource stopped being served (or the server is stopping) while this watch began.
      w.stopped = true;
      sink.onEnd();
      return w;
    }
    this.watchers.add(w);
    if (replay.length > 0) sink.onEvents(replay);
    return w;
  }

  private firstEventAfter(revision: number): number {
    let lo = this.historyStart;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.history[mid]!.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  stats(now = Date.now()): WatchCacheStats {
    const first = this.history[this.historyStart];
    return {
      objects: this.objects.size,
      historyEvents: this.history.length - this.historyStart,
      watchers: this.watchers.size,
      revision: this.rev,
      oldestRevision: this.oldest,
      oldestEventAgeSeconds: first ? Math.max(0, (now - first.at) / 1000) : 0,
    };
  }

  stop(): void {
    this.stopped = true;
    if (this.ticker) clearInterval(this.ticker);
    this.handle?.stop();
    for (const w of [...this.watchers]) {
      w.stopped = true;
      w.sink.onEnd();
    }
    this.watchers.clear();
    for (const w of this.waiters.splice(0)) w.resolve(false);
  }

  /** Reads are served only once the cache has started. */
  get isReady(): boolean {
    return this.ready;
  }
}
