import type { KubeObject } from '../machinery/object.js';
import { Informer } from '../registry/informer.js';
import type { AdmissionPluginContext } from './plugin-context.js';

/** What a plugin reads a resource's objects through (PluginLister; a fixed list in tests). */
export interface Lister {
  start(): Promise<void>;
  readonly hasSynced: boolean;
  /** The objects of one namespace ('' for cluster-scoped ones). Shared: do not mutate. */
  list(namespace?: string): KubeObject[];
  /** A consistent read of one namespace's objects from the store, past the informer (kube's live lookups). */
  liveList(namespace: string): Promise<KubeObject[]>;
}

/**
 * What kube's plugins get from a shared informer's lister: a resource's
 * objects as the watch cache has them, by namespace, kept current by an
 * informer that runs from the plugin's start until the server stops.
 */
export class PluginLister implements Lister {
  private readonly byNamespace = new Map<string, Map<string, KubeObject>>();
  private informer: Informer | undefined;

  constructor(
    private readonly ctx: AdmissionPluginContext,
    private readonly group: string,
    private readonly version: string,
    private readonly resource: string,
  ) {}

  /** Starts the informer and resolves once it has the initial state (kube's plugin ReadyFunc). */
  async start(): Promise<void> {
    if (this.informer) return this.informer.waitForSync();
    const info = this.ctx.catalog.resource(this.group, this.version, this.resource);
    if (!info) throw new Error(`admission: ${this.resource}.${this.group}/${this.version} is not served`);
    const informer = new Informer(this.ctx.registry.storeFor(info), (type, obj) => {
      const ns = obj.metadata?.namespace ?? '';
      const name = obj.metadata?.name ?? '';
      let objects = this.byNamespace.get(ns);
      if (type === 'DELETED') {
        objects?.delete(name);
        if (objects?.size === 0) this.byNamespace.delete(ns);
        return;
      }
      if (!objects) this.byNamespace.set(ns, (objects = new Map()));
      objects.set(name, obj);
    });
    this.informer = informer;
    this.ctx.shutdown.addEventListener('abort', () => informer.stop(), { once: true });
    void informer.start();
    await informer.waitForSync();
  }

  get hasSynced(): boolean {
    return this.informer?.hasSynced ?? false;
  }

  /** The objects of one namespace ('' for cluster-scoped ones). Shared: do not mutate. */
  list(namespace = ''): KubeObject[] {
    return [...(this.byNamespace.get(namespace)?.values() ?? [])];
  }

  async liveList(namespace: string): Promise<KubeObject[]> {
    const info = this.ctx.catalog.resource(this.group, this.version, this.resource)!;
    const result = await this.ctx.registry.storeFor(info).list({ namespace: namespace || undefined, readAt: { kind: 'consistent' } });
    return result.items.map((item) => item.object);
  }

  get(namespace: string, name: string): KubeObject | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }
}
