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

export { WorkQueue, WorkQueueMetrics, type WorkQueueOptions } from './work-queue.js';
