import type {
  DeleteResult,
  GetOptions,
  KeyValue,
  ListOptions,
  ListResult,
  Store,
  StoreEvent,
  WatchCallbacks,
  WatchHandle,
} from './store.js';
import { StoreError } from './store.js';
import { WatcherSet } from './watchers.js';

/** One version of a key: its value from `revision` on, or a tombstone (kv undefined). */
interface Version {
  revision: number;
  kv: KeyValue | undefined;
}

/**
 * In-memory MVCC store: for tests and for `--storage-backend memory`.
 * Keeps every version of every key until compaction, so gets, lists and
 * watches at past revisions behave as on the durable backends.
 */
export class MemoryStore implements Store {
  readonly backend = 'memory';
  readonly progressAfterReplay = true;
  private revision = 0;
  private compacted = 0;
  private closed = false;
  private readonly current = new Map<string, KeyValue>();
  private readonly versions = new Map<string, Version[]>();
  private readonly log: StoreEvent[] = [];
  private sortedKeys: string[] | undefined;
  private readonly watchers = new WatcherSet(() => this.revision);

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  async get(key: string, opts: GetOptions = {}): Promise<KeyValue | undefined> {
    this.checkOpen();
    if (opts.revision === undefined) return this.current.get(key);
    this.checkReadable(opts.revision);
    return this.valueAt(key, opts.revision);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const revision = opts.revision ?? this.revision;
    if (opts.revision !== undefined) this.checkReadable(opts.revision);
    const keys = this.keysWithPrefix(prefix, opts.revision !== undefined);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const items: KeyValue[] = [];
    let remaining = 0;
    for (const key of keys) {
      if (opts.startKey !== undefined && key < opts.startKey) continue;
      const kv = opts.revision === undefined ? this.current.get(key) : this.valueAt(key, revision);
      if (!kv) continue;
      if (items.length < limit) items.push(kv);
      else remaining++;
    }
    return { items, revision, remaining };
  }

  async count(prefix: string): Promise<number> {
    this.checkOpen();
    let n = 0;
    for (const key of this.current.keys()) if (key.startsWith(prefix)) n++;
    return n;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.checkOpen();
    if (this.current.has(key)) throw new StoreError('KeyExists', `key ${key} already exists`, this.current.get(key));
    const revision = ++this.revision;
    const kv: KeyValue = { key, value, createRevision: revision, modRevision: revision };
    this.commit({ type: 'put', key, revision, kv });
    return kv;
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    this.checkOpen();
    const prev = this.current.get(key);
    if (!prev) throw new StoreError('NotFound', `key ${key} not found`);
    if (prev.modRevision !== expectedModRevision) {
      throw new StoreError('Conflict', `key ${key} was modified at revision ${prev.modRevision}`, prev);
    }
    const revision = ++this.revision;
    const kv: KeyValue = { key, value, createRevision: prev.createRevision, modRevision: revision };
    this.commit({ type: 'put', key, revision, kv, prevKv: prev });
    return kv;
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    this.checkOpen();
    const prev = this.current.get(key);
    if (!prev) throw new StoreError('NotFound', `key ${key} not found`);
    if (expectedModRevision !== undefined && prev.modRevision !== expectedModRevision) {
      throw new StoreError('Conflict', `key ${key} was modified at revision ${prev.modRevision}`, prev);
    }
    const revision = ++this.revision;
    this.commit({ type: 'delete', key, revision, prevKv: prev });
    return { prev, revision };
  }

  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle {
    if (this.closed) return this.watchers.rejected(callbacks, new StoreError('Closed', 'store is closed'));
    if (afterRevision < this.compacted) return this.watchers.rejected(callbacks, compactedError(this.compacted));
    // The log is in revision order: find the first event after afterRevision
    // instead of scanning the whole retained history.
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.log[mid]!.revision <= afterRevision) lo = mid + 1;
      else hi = mid;
    }
    const backlog: StoreEvent[] = [];
    for (let i = lo; i < this.log.length; i++) if (this.log[i]!.key.startsWith(prefix)) backlog.push(this.log[i]!);
    // afterRevision also filters live events: a watch from a future revision
    // must not see the writes up to it.
    return this.watchers.add(prefix, callbacks, backlog, afterRevision);
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision <= this.compacted) return;
    if (revision > this.revision) throw new StoreError('FutureRevision', `compact revision ${revision} is newer than ${this.revision}`);
    this.compacted = revision;
    let drop = 0;
    while (drop < this.log.length && this.log[drop]!.revision <= revision) drop++;
    this.log.splice(0, drop);
    for (const [key, versions] of this.versions) {
      // Keep the newest version at or below the compacted revision: reads at
      // revisions above it still need to see it.
      let keepFrom = 0;
      for (let i = 0; i < versions.length; i++) if (versions[i]!.revision <= revision) keepFrom = i;
      const kept = versions.slice(keepFrom);
      if (kept.length === 1 && kept[0]!.kv === undefined) {
        this.versions.delete(key);
        this.sortedKeys = undefined;
      } else this.versions.set(key, kept);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watchers.failAll(new StoreError('Closed', 'store is closed'));
  }

  private commit(event: StoreEvent): void {
    if (event.type === 'put') {
      if (!this.current.has(event.key) && !this.versions.has(event.key)) this.insertSortedKey(event.key);
      this.current.set(event.key, event.kv!);
    } else {
      this.current.delete(event.key);
    }
    let versions = this.versions.get(event.key);
    if (!versions) {
      versions = [];
      this.versions.set(event.key, versions);
    }
    versions.push({ revision: event.revision, kv: event.kv });
    this.log.push(event);
    this.watchers.publish([event]);
  }

  private valueAt(key: string, revision: number): KeyValue | undefined {
    const versions = this.versions.get(key);
    if (!versions) return undefined;
    let lo = 0;
    let hi = versions.length - 1;
    let found: Version | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (versions[mid]!.revision <= revision) {
        found = versions[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found?.kv;
  }

  /** Keeps the sorted key index up to date: re-sorting every key after each create made lists O(n log n). */
  private insertSortedKey(key: string): void {
    if (!this.sortedKeys) return;
    this.sortedKeys.splice(lowerBound(this.sortedKeys, key), 0, key);
  }

  private keysWithPrefix(prefix: string, includeHistory: boolean): string[] {
    if (!this.sortedKeys) this.sortedKeys = [...this.versions.keys()].sort();
    const all = this.sortedKeys;
    // Binary search the first key >= prefix, then walk while the prefix matches.
    const lo = lowerBound(all, prefix);
    const out: string[] = [];
    for (let i = lo; i < all.length && all[i]!.startsWith(prefix); i++) {
      if (includeHistory || this.current.has(all[i]!)) out.push(all[i]!);
    }
    return out;
  }

  private checkReadable(revision: number): void {
    if (revision > this.revision) {
      throw new StoreError('FutureRevision', `revision ${revision} is newer than the current revision ${this.revision}`);
    }
    if (revision < this.compacted) throw compactedError(this.compacted);
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreError('Closed', 'store is closed');
  }
}

/** Index of the first element of sorted `all` that is >= `key`. */
function lowerBound(all: string[], key: string): number {
  let lo = 0;
  let hi = all.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (all[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function compactedError(compactedRevision: number): StoreError {
  return new StoreError(
    'Compacted',
    `required revision has been compacted (compacted revision ${compactedRevision})`,
    undefined,
    compactedRevision,
  );
}
