import type { Authorizer } from '../../authz/authorizer.js';
import { Informer } from '../../registry/informer.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { webhooksOf, type Webhook } from './configuration.js';

/**
 * The webhooks of every Mutating- or ValidatingWebhookConfiguration,
 * followed through the watch cache (kube's webhook configuration manager):
 * configurations in name order, each one's webhooks in their order. The
 * list is rebuilt on the first request after a change, so a change applies
 * as soon as this process's cache has it.
 */
export class WebhookSource {
  private readonly informer: Informer;
  private hooks: Webhook[] = [];
  private stale = true;

  constructor(store: ResourceStore, private readonly authorizer: Authorizer | undefined) {
    this.informer = new Informer(store, () => {
      this.stale = true;
    });
  }

  async start(shutdown: AbortSignal): Promise<void> {
    if (shutdown.aborted) return;
    shutdown.addEventListener('abort', () => this.informer.stop(), { once: true });
    void this.informer.start();
    await this.informer.waitForSync();
  }

  get hasSynced(): boolean {
    return this.informer.hasSynced;
  }

  webhooks(): readonly Webhook[] {
    if (this.stale) {
      this.stale = false;
      const configs = this.informer.list().sort((a, b) => compareNames(a.metadata?.name ?? '', b.metadata?.name ?? ''));
      this.hooks = configs.flatMap((c) => webhooksOf(c, this.authorizer));
    }
    return this.hooks;
  }
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
