/**
 * The storage contract every backend (memory, sqlite, etcd3) implements.
 *
 * It is an MVCC key-value store in etcd's image: one global revision counter,
 * every write gets the next revision, history is kept until compaction, and a
 * watch can start from any retained revision. Values are opaque strings (the
 * registry stores JSON text); keys follow kube-apiserver's `/registry/...`
 * layout (see keys.ts).
 */

export interface KeyValue {
  key: string;
  value: string;
  /** Revision of the write that created this key (since its last deletion). */
  createRevision: number;
  /** Revision of the last write to this key. */
  modRevision: number;
}

export interface StoreEvent {
  type: 'put' | 'delete';
  key: string;
  /** Revision of the write that produced this event. */
  revision: number;
  /** For put: the new value. For delete: absent. */
  kv?: KeyValue;
  /** The value before this write; absent for a put that created the key. */
  prevKv?: KeyValue;
}

export interface GetOptions {
  /** Read as of this revision (must be retained); current state when absent. */
  revision?: number;
}

export interface ListOptions {
  /** Read as of this revision (must be retained); current state when absent. */
  revision?: number;
  /** Return at most this many items (0 or absent: no limit). */
  limit?: number;
  /** Start at this key (inclusive); used by continue tokens. */
  startKey?: string;
}

export interface ListResult {
  /** Items in ascending key order. */
  items: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** Number of matching keys after the returned items (0 when complete). */
  remaining: number;
}

export interface DeleteResult {
  /** The value that was deleted. */
  prev: KeyValue;
  /** Revision of the delete itself. */
  revision: number;
}

export type StoreErrorCode =
  | 'KeyExists'
  | 'NotFound'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'Unavailable'
  | 'Closed';

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** For Conflict: the current value of the key. For Compacted: nothing. */
    readonly current?: KeyValue,
    /** For Compacted: the compacted revision. */
    readonly compactedRevision?: number,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

export function isStoreError(err: unknown, code?: StoreErrorCode): err is StoreError {
  return err instanceof StoreError && (code === undefined || err.code === code);
}

export interface WatchHandle {
  /** Stop delivering events; idempotent. */
  stop(): void;
  /**
   * Ask for a progress notification (etcd's RequestWatchProgress): once every
   * event up to the store's current revision has been delivered, onProgress
   * is called with that revision, even when none of them matched the prefix.
   */
  requestProgress(): void;
}

export interface WatchCallbacks {
  /** Called with events in revision order; never with an empty batch. */
  onEvents(events: StoreEvent[]): void;
  /** Every event up to `revision` has been delivered (see requestProgress). */
  onProgress?(revision: number): void;
  /** Called once when the watch cannot continue (compaction, store closed, backend failure). */
  onError(err: StoreError): void;
}

export interface Store {
  /** Backend name, e.g. `memory`, `sqlite`. */
  readonly backend: string;
  /**
   * Whether a watch from a past revision answers requestProgress only after
   * its history replay (memory, sqlite). etcd before 3.4.25/3.5.8 may answer
   * with the current revision while a watch still replays, so watch caches
   * on it start from the current state, as kube-apiserver's do.
   */
  readonly progressAfterReplay: boolean;
  /** The latest committed revision (0 for an empty store). */
  currentRevision(): Promise<number>;
  /** The revision up to which history was compacted (0 when nothing was). */
  compactedRevision(): number;
  get(key: string, opts?: GetOptions): Promise<KeyValue | undefined>;
  /** Keys starting with `prefix`, in ascending key order. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Count of current keys under `prefix`. */
  count(prefix: string): Promise<number>;
  /** Fails with KeyExists if the key exists. */
  create(key: string, value: string): Promise<KeyValue>;
  /** Compare-and-swap on modRevision; Conflict (with the current value) or NotFound on mismatch. */
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue>;
  /** Deletes the key, optionally only if its modRevision matches; NotFound or Conflict otherwise. */
  delete(key: string, expectedModRevision?: number): Promise<DeleteResult>;
  /**
   * Deliver every event under `prefix` with revision > `afterRevision`, first the
   * retained history, then live events. Compacted history is an onError(Compacted).
   */
  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle;
  /** Drop history at or below `revision` (current values are kept). */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}
