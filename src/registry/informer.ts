import type { ReaderWatch } from '../cache/resource-reader.js';
import type { CacheEventType } from '../cache/watch-cache.js';
import type { KubeObject } from '../machinery/object.js';
import type { ResourceStore } from './resource-store.js';

/**
 * A minimal in-process informer for controllers: follows one resource's
 * changes (initial state first), keeps the latest objects by key, and calls
 * back with each change. A watch that ends is restarted from a fresh list.
 */

export type InformerHandler = (type: CacheEventType, obj: KubeObject) => void;

export class Informer {
  private readonly objects = new Map<string, KubeObject>();
  private handle: ReaderWatch | undefined;
  private stopped = false;
  private synced = false;
  private readonly waiters: Array<() => void> = [];

  constructor(
    private readonly store: ResourceStore,
    private readonly onChange: InformerHandler,
    private readonly namespace?: string,
  ) {}

  static keyOf(obj: KubeObject): string {
    const m = obj.metadata ?? {};
    return m.namespace ? `${m.namespace}/${m.name}` : String(m.name);
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  list(): KubeObject[] {
    return [...this.objects.values()];
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the initial state has been delivered. */
  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    const seen = new Set<string>();
    let initial = true;
    try {
      this.handle = await this.store.watch({ namespace: this.namespace, start: { kind: 'initial', at: { kind: 'consistent' }, initialEventsEndBookmark: false } }, {
        onEvents: (events) => {
          for (const e of events) {
            const obj = e.object.object;
            const key = Informer.keyOf(obj);
            if (initial) seen.add(key);
            if (e.type === 'DELETED') this.objects.delete(key);
            else this.objects.set(key, obj);
            this.onChange(e.type, obj);
          }
        },
        onEnd: () => {
          if (!this.stopped) setTimeout(() => void this.start(), 200).unref();
        },
      });
    } catch {
      if (!this.stopped) setTimeout(() => void this.start(), 1000).unref();
      return;
    }
    // Objects that vanished while no watch was running are deleted now.
    initial = false;
    for (const [key, obj] of [...this.objects]) {
      if (!seen.has(key)) {
        this.objects.delete(key);
        this.onChange('DELETED', obj);
      }
    }
    if (!this.synced) {
      this.synced = true;
      for (const w of this.waiters.splice(0)) w();
    }
  }

  stop(): void {
    this.stopped = true;
    this.handle?.stop();
  }
}

/** How a controller follows one resource: an Informer of its own, or its share of one (SharedInformers). */
export interface ResourceFollower {
  get(key: string): KubeObject | undefined;
  list(): KubeObject[];
  readonly hasSynced: boolean;
  waitForSync(): Promise<void>;
  /** Resolves once the initial state has been delivered to this follower's handler. */
  start(): Promise<void>;
  stop(): void;
}

export type InformerFactory = (store: ResourceStore, onChange: InformerHandler) => ResourceFollower;

/** An informer of the caller's own. */
export const ownInformer: InformerFactory = (store, onChange) => new Informer(store, onChange);

interface SharedEntry {
  informer: Informer;
  handlers: Set<InformerHandler>;
  /** Followers started and not stopped (joined or still joining). */
  refs: number;
  started: Promise<void>;
}

/**
 * client-go's shared informer factory: one Informer per ResourceStore,
 * however many controllers follow it. A follower that joins late gets the
 * objects already known as ADDED, then every change; the informer starts
 * with its first follower and stops with its last (so leader-only
 * controllers' informers stop when the term ends, and the next term's start
 * afresh).
 */
export class SharedInformers {
  private readonly entries = new Map<ResourceStore, SharedEntry>();

  readonly follow: InformerFactory = (store, onChange) => new SharedFollower(this.entries, store, onChange);

  /** Stores followed right now (for tests). */
  get size(): number {
    return this.entries.size;
  }
}

class SharedFollower implements ResourceFollower {
  private entry: SharedEntry | undefined;
  private joined = false;
  private stopped = false;
  private readonly synced: Promise<void>;
  private markSynced!: () => void;

  constructor(
    private readonly entries: Map<ResourceStore, SharedEntry>,
    private readonly store: ResourceStore,
    private readonly onChange: InformerHandler,
  ) {
    this.synced = new Promise((r) => (this.markSynced = r));
  }

  get(key: string): KubeObject | undefined {
    return this.joined ? this.entry?.informer.get(key) : undefined;
  }

  list(): KubeObject[] {
    return this.joined && this.entry ? this.entry.informer.list() : [];
  }

  get hasSynced(): boolean {
    return this.joined;
  }

  waitForSync(): Promise<void> {
    return this.synced;
  }

  async start(): Promise<void> {
    if (this.entry || this.stopped) return;
    let e = this.entries.get(this.store);
    if (!e) {
      const handlers = new Set<InformerHandler>();
      const informer = new Informer(this.store, (type, obj) => {
        for (const h of [...handlers]) h(type, obj);
      });
      e = { informer, handlers, refs: 0, started: informer.start() };
      this.entries.set(this.store, e);
    }
    e.refs++;
    this.entry = e;
    await e.started;
    await e.informer.waitForSync();
    if (this.stopped) return;
    // Objects known so far, then every change: one synchronous step, so nothing falls in between.
    for (const obj of e.informer.list()) this.onChange('ADDED', obj);
    e.handlers.add(this.onChange);
    this.joined = true;
    this.markSynced();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const e = this.entry;
    if (!e) return;
    e.handlers.delete(this.onChange);
    if (--e.refs === 0) {
      e.informer.stop();
      if (this.entries.get(this.store) === e) this.entries.delete(this.store);
    }
  }
}

export { WorkQueue, WorkQueueMetrics, type WorkQueueOptions } from './work-queue.js';
