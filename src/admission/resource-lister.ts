import type { KubeObject } from '../machinery/object.js';
import { Informer } from '../registry/informer.js';
import type { AdmissionPluginContext } from './plugin-context.js';

/**
 * kube's shared-informer lister for one cluster-scoped resource, as
 * admission plugins use them to list (classes with a default annotation):
 * every object the watch cache holds, kept current by a watch. Nothing is
 * listed while the resource is not served. Started by the plugin's `start`
 * (the server waits for the first list, as kube waits for the informer's
 * sync) and stopped at the context's shutdown.
 */
export class ResourceLister {
  private informer: Informer | undefined;

  constructor(
    private readonly ctx: Pick<AdmissionPluginContext, 'registry' | 'catalog' | 'shutdown'>,
    private readonly group: string,
    private readonly version: string,
    private readonly resource: string,
  ) {}

  async start(): Promise<void> {
    const info = this.ctx.catalog.resource(this.group, this.version, this.resource);
    if (!info || this.informer || this.ctx.shutdown.aborted) return;
    const informer = new Informer(this.ctx.registry.storeFor(info), () => {});
    this.informer = informer;
    this.ctx.shutdown.addEventListener('abort', () => informer.stop(), { once: true });
    // A first watch that fails is retried by the informer; the server does not wait for it.
    await informer.start();
  }

  /** Shared objects: do not mutate. */
  list(): KubeObject[] {
    return this.informer?.list() ?? [];
  }
}
