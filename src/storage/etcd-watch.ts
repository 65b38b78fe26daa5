import type { IDuplexStream, IEvent, IKeyValue, IWatchRequest, IWatchResponse } from 'etcd3';
import type { KeyValue, StoreEvent, WatchCallbacks, WatchHandle } from './store.js';
import { StoreError } from './store.js';
import { compactedError } from './memory.js';

export interface EtcdWatchSpec {
  /** First key of the range (keyspace included). */
  key: string;
  rangeEnd: Buffer;
  /** Deliver events with revision above this. */
  afterRevision: number;
  /** Characters of keyspace to strip from delivered keys. */
  stripPrefix: number;
  callbacks: WatchCallbacks;
}

type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 2000;
/** Well beyond etcd's watch sync interval (100 ms). */
const SYNC_SETTLED_MS = 1000;
/** The longest a write waits for etcd to register watches created before it. */
const REGISTER_WAIT_MS = 1000;
/** How long close() waits for watches to catch up with the store's own writes. */
const CLOSE_DRAIN_MS = 2000;

/**
 * Every store watch multiplexed on one etcd gRPC watch stream, with ids we
 * choose (so a response is routed without relying on creation order). When
 * the stream breaks (etcd restarted, unreachable), it reconnects with backoff
 * and re-creates each watch from the revision after the last event it
 * delivered: consumers see no gap and no repeat. A watch whose next revision
 * was compacted meanwhile ends with Compacted, as etcd cancels it.
 */
export class EtcdWatchStream {
  private stream: WatchStream | undefined;
  private connecting = false;
  private readonly watchers = new Map<number, EtcdWatcher>();
  private nextId = 1;
  private backoffMs = RECONNECT_MIN_MS;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** Watches whose create request etcd has not acknowledged yet, and who waits for that. */
  private readonly unacknowledged = new Set<number>();
  private acknowledgedWaiters: Array<() => void> = [];

  constructor(
    private readonly openStream: () => Promise<WatchStream>,
    private readonly onCompacted: (revision: number) => void,
    /** Whether the range had no event in (after, through]: see EtcdWatcher.replayUntil. */
    readonly quietBetween: (spec: EtcdWatchSpec, after: number, through: number) => Promise<boolean>,
  ) {}

  add(spec: EtcdWatchSpec): WatchHandle {
    const w = new EtcdWatcher(this.nextId++, spec, this);
    this.watchers.set(w.id, w);
    if (this.stream) this.sendCreate(w);
    else this.connect();
    return w;
  }

  /** A watch that ends with `err` before delivering anything (unless stopped first). */
  rejected(callbacks: WatchCallbacks, err: StoreError): WatchHandle {
    let stopped = false;
    queueMicrotask(() => {
      if (!stopped) callbacks.onError(err);
    });
    return {
      stop: () => void (stopped = true),
      requestProgress: () => undefined,
    };
  }

  /**
   * Ends every watch with `err`, once each has delivered the events up to
   * `untilRevision` (the closing store's last write) or CLOSE_DRAIN_MS passed.
   */
  async close(untilRevision: number, err: StoreError): Promise<void> {
    const deadline = Date.now() + CLOSE_DRAIN_MS;
    while (this.stream && Date.now() < deadline && [...this.watchers.values()].some((w) => w.seen < untilRevision)) {
      for (const w of this.watchers.values()) if (w.seen < untilRevision) w.requestProgress();
      await new Promise((r) => setTimeout(r, 10));
    }
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const w of [...this.watchers.values()]) w.fail(err);
    this.stream?.cancel();
    this.stream = undefined;
  }

  /**
   * Resolves once etcd has registered every watch created so far. A write
   * issued after watch() waits for this, so that the watch is in etcd's
   * synced set before the write commits and sees it live, as on the
   * in-process stores, not through a replay.
   */
  registered(): Promise<void> | undefined {
    if (this.unacknowledged.size === 0 || !this.stream) return undefined;
    return new Promise((resolve) => {
      // An etcd that stopped answering must not hold writes beyond their own deadline.
      const timer = setTimeout(resolve, REGISTER_WAIT_MS);
      this.acknowledgedWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private acknowledge(id: number | undefined): void {
    if (id === undefined) this.unacknowledged.clear();
    else this.unacknowledged.delete(id);
    if (this.unacknowledged.size > 0) return;
    const waiters = this.acknowledgedWaiters;
    this.acknowledgedWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** @internal */
  remove(w: EtcdWatcher, cancelRemote: boolean): void {
    this.acknowledge(w.id);
    if (!this.watchers.delete(w.id)) return;
    if (cancelRemote && this.stream) this.stream.write({ cancel_request: { watch_id: w.id } });
  }

  /** @internal */
  sendProgressRequest(): void {
    this.stream?.write({ progress_request: {} });
  }

  private connect(): void {
    if (this.connecting || this.stream || this.closed) return;
    this.connecting = true;
    this.openStream().then(
      (stream) => {
        this.connecting = false;
        if (this.closed) {
          stream.cancel();
          return;
        }
        this.stream = stream;
        stream.on('data', (res: IWatchResponse) => this.onResponse(res));
        stream.on('error', () => this.onBroken(stream));
        stream.on('end', () => this.onBroken(stream));
        for (const w of this.watchers.values()) this.sendCreate(w);
        if ([...this.watchers.values()].some((w) => w.progressPending)) this.sendProgressRequest();
      },
      () => {
        this.connecting = false;
        this.scheduleReconnect();
      },
    );
  }

  private onBroken(stream: WatchStream): void {
    if (this.stream !== stream) return;
    this.stream = undefined;
    // Writes must not wait for a stream that is gone.
    this.acknowledge(undefined);
    stream.cancel();
    if (!this.closed) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer || this.watchers.size === 0) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect();
    }, this.backoffMs);
    this.reconnectTimer.unref();
    this.backoffMs = Math.min(RECONNECT_MAX_MS, this.backoffMs * 2);
  }

  private sendCreate(w: EtcdWatcher): void {
    w.creating();
    this.unacknowledged.add(w.id);
    this.stream!.write({
      create_request: {
        key: Buffer.from(w.spec.key),
        range_end: w.spec.rangeEnd,
        start_revision: w.seen + 1,
        prev_kv: true,
        watch_id: w.id,
      },
    });
  }

  private onResponse(res: IWatchResponse): void {
    this.backoffMs = RECONNECT_MIN_MS;
    const id = Number(res.watch_id);
    const revision = Number(res.header.revision);
    if (id === -1) {
      // A progress notification for the whole stream (RequestProgress).
      for (const w of this.watchers.values()) w.progress(revision);
      return;
    }
    const w = this.watchers.get(id);
    if (!w) return;
    if (res.canceled) {
      const compactRevision = Number(res.compact_revision);
      if (compactRevision > 0) {
        this.onCompacted(compactRevision);
        w.fail(compactedError(compactRevision));
      } else {
        w.fail(new StoreError('Unavailable', `etcd canceled the watch${res.cancel_reason ? `: ${res.cancel_reason}` : ''}`));
      }
      return;
    }
    if (res.created) {
      w.created(revision);
      this.acknowledge(id);
    }
    if (res.events.length > 0) w.deliver(res.events, revision);
  }
}

class EtcdWatcher implements WatchHandle {
  /** Revision of the last event delivered (or the watch's start). */
  seen: number;
  progressPending = false;
  private done = false;
  /**
   * A watch created at or below etcd's revision is "unsynced" in etcd until
   * its replay has been sent, and etcd before 3.4.25/3.5.8 answers progress
   * requests without waiting for that: a progress revision may overtake
   * replayed events. So until an event batch stamped at or above the
   * revision etcd reported at creation (`replayUntil`) shows the replay is
   * through, a progress revision is delivered only after ranges show that no
   * key in the watch's range changed between the last delivered event and it.
   */
  private replayUntil = Infinity;
  private createdAt = 0;
  private verifying = false;

  constructor(
    readonly id: number,
    readonly spec: EtcdWatchSpec,
    private readonly owner: EtcdWatchStream,
  ) {
    this.seen = spec.afterRevision;
  }

  creating(): void {
    this.replayUntil = Infinity;
  }

  created(storeRevision: number): void {
    this.createdAt = performance.now();
    // Equal too: a write landing between etcd reading its revision and registering the watch leaves it unsynced.
    this.replayUntil = storeRevision >= this.seen ? storeRevision : 0;
  }

  deliver(raw: IEvent[], stampedRevision: number): void {
    if (this.done) return;
    if (stampedRevision >= this.replayUntil && this.replayUntil > 0) {
      this.replayUntil = 0;
      // A progress request answered during the replay was held back: ask again.
      if (this.progressPending) queueMicrotask(() => this.owner.sendProgressRequest());
    }
    const events: StoreEvent[] = [];
    for (const e of raw) {
      const revision = Number(e.kv.mod_revision);
      // After a reconnect etcd may resend what this watch already delivered.
      if (revision <= this.seen) continue;
      const key = e.kv.key.toString('utf8').slice(this.spec.stripPrefix);
      const ev: StoreEvent = { type: e.type === 'Delete' ? 'delete' : 'put', key, revision };
      if (ev.type === 'put') ev.kv = this.toKv(e.kv, key);
      if (e.prev_kv) ev.prevKv = this.toKv(e.prev_kv, key);
      events.push(ev);
    }
    if (events.length === 0) return;
    this.seen = events[events.length - 1]!.revision;
    this.safely(() => this.spec.callbacks.onEvents(events));
  }

  progress(revision: number): void {
    if (this.done || !this.progressPending) return;
    if (this.replayUntil > 0) {
      if (this.replayUntil !== Infinity) this.verifyQuietThrough(revision);
      return;
    }
    this.progressPending = false;
    this.safely(() => this.spec.callbacks.onProgress?.(revision));
  }

  private verifyQuietThrough(revision: number): void {
    if (this.verifying) return;
    this.verifying = true;
    const after = this.seen;
    this.owner.quietBetween(this.spec, after, revision).then(
      (quiet) => {
        this.verifying = false;
        if (!quiet || this.done || this.seen !== after || !this.progressPending) return;
        // etcd moves a watch with nothing to replay to its synced set within
        // one sync pass (100 ms); well past that, answers can be trusted again.
        if (performance.now() - this.createdAt > SYNC_SETTLED_MS) this.replayUntil = 0;
        this.progressPending = false;
        this.safely(() => this.spec.callbacks.onProgress?.(revision));
      },
      () => {
        this.verifying = false;
      },
    );
  }

  requestProgress(): void {
    if (this.done) return;
    this.progressPending = true;
    this.owner.sendProgressRequest();
  }

  fail(err: StoreError): void {
    if (this.done) return;
    this.done = true;
    this.owner.remove(this, true);
    this.spec.callbacks.onError(err);
  }

  stop(): void {
    if (this.done) return;
    this.done = true;
    this.owner.remove(this, true);
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      // A failing consumer ends its own watch, never the stream or other watches.
      this.fail(new StoreError('Unavailable', `watch consumer failed: ${(err as Error)?.message ?? String(err)}`));
    }
  }

  private toKv(kv: IKeyValue, key: string): KeyValue {
    return { key, value: kv.value.toString('utf8'), createRevision: Number(kv.create_revision), modRevision: Number(kv.mod_revision) };
  }
}
