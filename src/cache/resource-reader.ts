import type { KubeObject } from '../machinery/object.js';
import type { FieldSelector, LabelSelector } from '../machinery/selectors.js';
import { decodeContinue, encodeContinue } from '../machinery/continue-token.js';
import { ApiError, gone } from '../machinery/errors.js';
import type { CachedObject } from '../codec/cached-object.js';
import type { CorruptObjectError } from '../storage/stored-object.js';
import type { ReadAt, WatchStart } from './read-semantics.js';
import type { Snapshot, WatchCache, WatcherEvent } from './watch-cache.js';

/**
 * Reads of one resource served from its watch cache with kube-apiserver's
 * resourceVersion semantics: consistent reads wait for the cache to catch up
 * with the store, "not older than" reads wait for the given revision (504
 * when it never comes), Exact and continued lists read a snapshot of a past
 * revision (410 once history no longer reaches it). A read that reaches a
 * value which does not decode fails, as kube-apiserver's reads from etcd do:
 * a get of it, and a list or initial watch state whose keys include it.
 */

export interface ReadScope {
  /** Key prefix of the resource (with trailing slash). */
  prefix: string;
  namespaced: boolean;
  fields: (obj: KubeObject) => Record<string, string>;
  /** The error of a list that reaches these corrupt values (in key order, at least one). */
  unreadable: (corrupt: readonly CorruptObjectError[]) => ApiError;
  /** kube's ListFromCacheSnapshot gate: false reads past states from the store only (default true). */
  snapshots?: boolean;
}

export interface ListRequest {
  namespace?: string | undefined;
  labelSelector?: LabelSelector | undefined;
  fieldSelector?: FieldSelector | undefined;
  limit?: number | undefined;
  continueToken?: string | undefined;
  readAt: ReadAt;
}

export interface ListResult {
  items: CachedObject[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

export interface WatchRequest {
  namespace?: string | undefined;
  labelSelector?: LabelSelector | undefined;
  fieldSelector?: FieldSelector | undefined;
  start: WatchStart;
}

export interface WatchSink {
  onEvents(events: WatcherEvent[]): void;
  /** All initial events were sent; the state they showed is at `revision` (sendInitialEvents). */
  onInitialEventsEnd?(revision: number): void;
  onEnd(err?: ApiError): void;
}

export interface ReaderWatch {
  stop(): void;
}

const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export function tooLargeResourceVersion(revision: number, current: number): ApiError {
  return new ApiError(
    {
      message: `Timeout: Too large resource version: ${revision}, current: ${current}`,
      reason: 'Timeout',
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
      code: 504,
    },
    { 'Retry-After': '1' },
  );
}

export class ResourceReader {
  constructor(
    private readonly cache: WatchCache,
    private readonly scope: ReadScope,
  ) {}

  private prefixFor(namespace: string | undefined): string {
    return this.scope.namespaced && namespace ? `${this.scope.prefix}${namespace}/` : this.scope.prefix;
  }

  private matcher(labels?: LabelSelector, fields?: FieldSelector): ((obj: KubeObject) => boolean) | undefined {
    const l = labels && !labels.empty ? labels : undefined;
    const f = fields && !fields.empty ? fields : undefined;
    if (!l && !f) return undefined;
    return (obj) => (!l || l.matches(obj.metadata?.labels)) && (!f || f.matches(this.scope.fields(obj)));
  }

  /**
   * Brings the cache to the state `at` asks for: waits, or fails with 504.
   * False when a consistent read could not be served from the cache in time
   * (the caller then reads the store, as kube-apiserver falls back to etcd).
   */
  private async reach(at: ReadAt): Promise<boolean> {
    await this.cache.ensureStarted();
    if (at.kind === 'consistent') return this.cache.waitFresh();
    if (at.kind === 'notOlderThan' || at.kind === 'exact') {
      if (!(await this.cache.waitForRevision(at.revision))) throw tooLargeResourceVersion(at.revision, this.cache.revision);
    }
    return true;
  }

  async get(key: string, at: ReadAt): Promise<CachedObject | undefined> {
    if (!(await this.reach(at))) return this.cache.readStore(key);
    return this.cache.get(key);
  }

  /** A past state: the cache's snapshot, else the store's (kube falls back to etcd), else undefined. */
  private async pastState(prefix: string, revision: number): Promise<Snapshot | undefined> {
    const kept = this.scope.snapshots === false ? undefined : this.cache.snapshot(revision);
    return kept ?? (await this.cache.listStore(prefix, revision));
  }

  async list(req: ListRequest): Promise<ListResult> {
    const prefix = this.prefixFor(req.namespace);
    const matches = this.matcher(req.labelSelector, req.fieldSelector);
    const limit = req.limit && req.limit > 0 ? req.limit : 0;

    let source: { revision: number; keys: readonly string[] | undefined; objects: readonly CachedObject[] | undefined; corrupt: readonly CorruptObjectError[] } | Snapshot;
    let startKey: string | undefined;
    if (req.continueToken) {
      const token = decodeContinue(req.continueToken);
      startKey = prefix + token.start;
      if (token.revision < 0) {
        // An inconsistent continuation: the rest of the list as it is now.
        source = (await this.reach({ kind: 'consistent' })) ? this.currentState(prefix) : (await this.cache.listStore(prefix))!;
      } else {
        await this.cache.ensureStarted();
        const snap = await this.pastState(prefix, token.revision);
        if (!snap) throw this.continueExpired(prefix, startKey);
        source = snap;
      }
    } else if (req.readAt.kind === 'exact') {
      await this.reach(req.readAt);
      const snap = await this.pastState(prefix, req.readAt.revision);
      if (!snap) throw gone('The resourceVersion for the provided list is too old.', 'Expired');
      source = snap;
    } else if (await this.reach(req.readAt)) {
      source = this.currentState(prefix);
    } else {
      source = (await this.cache.listStore(prefix))!;
    }

    const items: CachedObject[] = [];
    let lastKey: string | undefined;
    let remaining: number | undefined;
    /** Where the next page starts, which this one does not reach (undefined: the end of the prefix). */
    let stopKey: string | undefined;
    if (source.objects) {
      const keys = source.keys!;
      const begin = lowerBound(keys, startKey !== undefined && startKey > prefix ? startKey : prefix);
      const end = lowerBound(keys, prefixEnd(prefix));
      for (let i = begin; i < end; i++) {
        if (limit && items.length === limit) {
          remaining = end - i;
          stopKey = lastKey! + '\u0000';
          break;
        }
        const o = source.objects[i]!;
        lastKey = o.key;
        if (!matches || matches(o.object)) items.push(o);
      }
    } else {
      for (const o of this.cache.current(prefix, startKey)) {
        if (limit && items.length === limit) {
          remaining = this.countFrom(prefix, lastKey!);
          stopKey = lastKey! + '\u0000';
          break;
        }
        lastKey = o.key;
        if (!matches || matches(o.object)) items.push(o);
      }
    }
    // Corrupt values among the keys this page went through fail it, whatever the selectors.
    const from = startKey !== undefined && startKey > prefix ? startKey : prefix;
    const reached = source.corrupt.filter((c) => c.key.startsWith(prefix) && c.key >= from && (stopKey === undefined || c.key < stopKey));
    if (reached.length > 0) throw this.scope.unreadable(reached);

    const result: ListResult = { items, resourceVersion: String(source.revision) };
    if (remaining !== undefined && remaining > 0 && lastKey !== undefined) {
      // Later chunks read the same state: keep a snapshot of it.
      if (!source.objects && this.scope.snapshots !== false) this.cache.snapshot(source.revision);
      result.continueToken = encodeContinue({ revision: source.revision, start: lastKey.slice(prefix.length) + '\u0000' });
      if (!matches) result.remainingItemCount = remaining;
    }
    return result;
  }

  /** The cache's current state under `prefix`, read in place. */
  private currentState(prefix: string): { revision: number; keys: undefined; objects: undefined; corrupt: CorruptObjectError[] } {
    return { revision: this.cache.revision, keys: undefined, objects: undefined, corrupt: this.cache.corruptUnder(prefix) };
  }

  /** Keys under `prefix` after `lastKey` in the current state. */
  private countFrom(prefix: string, lastKey: string): number {
    let n = 0;
    for (const _ of this.cache.current(prefix, lastKey + '\u0000')) n++;
    return n;
  }

  private continueExpired(prefix: string, startKey: string): ApiError {
    const err = gone(CONTINUE_EXPIRED, 'Expired');
    err.status.metadata = { continue: encodeContinue({ revision: -1, start: startKey.slice(prefix.length) }) };
    return err;
  }

  /**
   * Starts a watch as `req.start` says: initial ADDED events for a state read
   * at some point (then changes after it), or changes after a revision only.
   */
  async watch(req: WatchRequest, sink: WatchSink): Promise<ReaderWatch> {
    const prefix = this.prefixFor(req.namespace);
    const matches = this.matcher(req.labelSelector, req.fieldSelector);
    const start = req.start;
    if (start.kind === 'after') {
      await this.cache.ensureStarted();
      return this.cache.watch({ prefix, matches, after: start.revision }, sink);
    }
    await this.reach(start.at);
    // From here to registration nothing awaits, so no event falls in between.
    const revision = this.cache.revision;
    const initial: WatcherEvent[] = [];
    if (start.kind === 'initial') {
      // The initial state is a list: values that do not decode fail it.
      const corrupt = this.cache.corruptUnder(prefix);
      if (corrupt.length > 0) throw this.scope.unreadable(corrupt);
      for (const o of this.cache.current(prefix)) if (!matches || matches(o.object)) initial.push({ type: 'ADDED', object: o });
    }
    if (initial.length > 0) sink.onEvents(initial);
    if (start.kind === 'initial' && start.initialEventsEndBookmark) sink.onInitialEventsEnd?.(revision);
    return this.cache.watch({ prefix, matches, after: revision }, sink);
  }

  /** Current cache revision, after a consistent catch-up (for bookmarks). */
  async freshRevision(): Promise<number> {
    await this.cache.waitFresh();
    return this.cache.revision;
  }
}

function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first key after every key with `prefix` (prefixes end in '/', so bump it). */
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
