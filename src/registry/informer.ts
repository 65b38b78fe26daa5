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

/**
 * A keyed work queue: a key queued while it is being processed runs again
 * afterwards; a failed key is retried after a delay.
 */
export class WorkQueue {
  private readonly pending = new Set<string>();
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly work: (key: string) => Promise<void>, private readonly retryMs = 1000) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.running.has(key)) {
      this.again.add(key);
      return;
    }
    if (this.pending.has(key)) return;
    this.pending.add(key);
    queueMicrotask(() => void this.run(key));
  }

  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.add(key);
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  private async run(key: string): Promise<void> {
    this.pending.delete(key);
    if (this.stopped) return;
    this.running.add(key);
    try {
      await this.work(key);
    } catch (err) {
      if (process.env.CAPSTAN_DEBUG) process.stderr.write(`controller: ${key}: ${(err as Error).stack ?? String(err)}\n`);
      this.addAfter(key, this.retryMs);
    } finally {
      this.running.delete(key);
      if (this.again.delete(key)) this.add(key);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
