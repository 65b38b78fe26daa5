import type { StoreEvent, WatchCallbacks, WatchHandle } from './store.js';
import { StoreError } from './store.js';

/**
 * Fan-out of committed events to in-process store watchers, shared by the
 * backends that own their revision counter (memory, sqlite). Events are queued
 * per watcher and delivered in a microtask, so a write never runs watcher code
 * inside its own call stack and a watcher registered mid-write sees a gap-free
 * sequence (history replay + live events).
 */
export class WatcherSet {
  private readonly watchers = new Set<QueuedWatcher>();

  /** `currentRevision` is the last published revision, for progress notifications. */
  constructor(private readonly currentRevision: () => number) {}

  /**
   * Register a watcher whose history replay (`backlog`) precedes live events.
   * Live events at or below `afterRevision` (or at or below the last backlog
   * event) are dropped: a watch from a future revision must not see the
   * writes before it, and a replay that overlaps a publish must not duplicate.
   */
  add(prefix: string, callbacks: WatchCallbacks, backlog: StoreEvent[], afterRevision = -Infinity): WatchHandle {
    const w = new QueuedWatcher(prefix, callbacks, afterRevision, () => this.watchers.delete(w), this.currentRevision);
    this.watchers.add(w);
    if (backlog.length > 0) w.push(backlog);
    return w;
  }

  /**
   * A watch that ends with `err` before delivering anything (e.g. Compacted).
   * It is not registered, and stopping it before the microtask runs
   * suppresses the error, as for any stopped watch.
   */
  rejected(callbacks: WatchCallbacks, err: StoreError): WatchHandle {
    const w = new QueuedWatcher('', callbacks, Infinity, () => {}, this.currentRevision);
    w.fail(err);
    return w;
  }

  publish(events: StoreEvent[]): void {
    if (events.length === 0 || this.watchers.size === 0) return;
    for (const w of this.watchers) {
      const mine = events.filter((e) => e.key.startsWith(w.prefix));
      if (mine.length > 0) w.push(mine);
    }
  }

  /** End every watcher with an error (store closing or failing), after the events already queued for it. */
  failAll(err: StoreError): void {
    for (const w of [...this.watchers]) w.fail(err);
  }

  get size(): number {
    return this.watchers.size;
  }
}

/** A progress marker queued behind the events published before it. */
interface ProgressMarker {
  progress: number;
}

type Queued = StoreEvent | ProgressMarker;

function isProgress(q: Queued): q is ProgressMarker {
  return 'progress' in q;
}

class QueuedWatcher implements WatchHandle {
  private queue: Queued[] = [];
  private scheduled = false;
  private stopped = false;
  private failed = false;

  constructor(
    readonly prefix: string,
    private readonly callbacks: WatchCallbacks,
    /** Highest revision queued so far; later events must be above it. */
    private last: number,
    private readonly detach: () => void,
    private readonly currentRevision: () => number,
  ) {}

  requestProgress(): void {
    if (this.stopped || this.failed) return;
    const revision = this.currentRevision();
    if (revision > this.last) this.last = revision;
    this.queue.push({ progress: revision });
    this.schedule();
  }

  push(events: StoreEvent[]): void {
    if (this.stopped || this.failed) return;
    for (const e of events) {
      if (e.revision <= this.last) continue;
      this.last = e.revision;
      this.queue.push(e);
    }
    if (this.queue.length > 0) this.schedule();
  }

  fail(err: StoreError): void {
    if (this.stopped || this.failed) return;
    this.failed = true;
    this.detach();
    // Queued events were committed before the failure: deliver them first
    // (the pending delivery microtask, if any, runs before this one).
    this.schedule();
    queueMicrotask(() => {
      if (this.stopped) return;
      this.stopped = true;
      this.callbacks.onError(err);
    });
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue = [];
    this.detach();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      if (this.stopped || this.queue.length === 0) return;
      const batch = this.queue;
      this.queue = [];
      try {
        let events: StoreEvent[] = [];
        for (const q of batch) {
          if (!isProgress(q)) {
            events.push(q);
            continue;
          }
          if (events.length > 0) this.callbacks.onEvents(events);
          events = [];
          if (this.stopped) return;
          this.callbacks.onProgress?.(q.progress);
        }
        if (events.length > 0) this.callbacks.onEvents(events);
      } catch (err) {
        // A failing consumer ends its own watch, never the process or other watchers.
        this.fail(new StoreError('Unavailable', `watch consumer failed: ${(err as Error)?.message ?? String(err)}`));
      }
    });
  }
}
