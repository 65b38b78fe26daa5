import type { KubeObject } from '../../machinery/object.js';
import { Informer } from '../../registry/informer.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import type { QuotaState } from './check.js';
import { resourceListFromJson } from './resources.js';
import { scopeSelectorsOf } from './scopes.js';

/**
 * The ResourceQuotas admission weighs requests against (kube's
 * quotaAccessor): the watch cache's, by namespace, except where this
 * process wrote a newer status itself that the cache has not shown yet.
 */
export class QuotaIndex {
  private readonly byNamespace = new Map<string, Map<string, KubeObject>>();
  /** Status writes of this process newer than the cache (kube's updatedQuotas). */
  private readonly written = new Map<string, KubeObject>();
  private readonly informer: Informer;

  constructor(store: ResourceStore) {
    this.informer = new Informer(store, (type, obj) => {
      const ns = obj.metadata?.namespace ?? '';
      const name = obj.metadata?.name ?? '';
      let m = this.byNamespace.get(ns);
      if (type === 'DELETED') {
        m?.delete(name);
        if (m?.size === 0) this.byNamespace.delete(ns);
        this.written.delete(`${ns}/${name}`);
        return;
      }
      if (!m) this.byNamespace.set(ns, (m = new Map()));
      m.set(name, obj);
      const mine = this.written.get(`${ns}/${name}`);
      if (mine && !isNewer(mine, obj)) this.written.delete(`${ns}/${name}`);
    });
  }

  async start(): Promise<void> {
    await this.informer.start();
    await this.informer.waitForSync();
  }

  stop(): void {
    this.informer.stop();
  }

  /** Whether the namespace has any quota (the fast path of every write). */
  has(namespace: string): boolean {
    return (this.byNamespace.get(namespace)?.size ?? 0) > 0;
  }

  /** The namespace's quotas, the newest version known of each. */
  list(namespace: string): QuotaState[] {
    return [...(this.byNamespace.get(namespace)?.values() ?? [])].map((q) => {
      const mine = this.written.get(`${namespace}/${q.metadata?.name ?? ''}`);
      return quotaState(mine && isNewer(mine, q) ? mine : q);
    });
  }

  /** A status this process wrote. */
  remember(quota: KubeObject): void {
    const key = `${quota.metadata?.namespace ?? ''}/${quota.metadata?.name ?? ''}`;
    const cached = this.byNamespace.get(quota.metadata?.namespace ?? '')?.get(quota.metadata?.name ?? '');
    if (!cached || isNewer(quota, cached)) this.written.set(key, quota);
  }
}

function revision(obj: KubeObject): bigint {
  const rv = obj.metadata?.resourceVersion;
  return rv && /^\d+$/.test(rv) ? BigInt(rv) : 0n;
}

function isNewer(a: KubeObject, b: KubeObject): boolean {
  return revision(a) > revision(b);
}

/** A quota's status.hard and status.used as admission weighs them. */
export function quotaState(obj: KubeObject): QuotaState {
  const status = (obj.status ?? {}) as { hard?: unknown; used?: unknown };
  const used = status.used;
  return {
    object: obj,
    name: obj.metadata?.name ?? '',
    hard: resourceListFromJson(status.hard),
    used: resourceListFromJson(used),
    hasUsed: !!used && typeof used === 'object',
    scopes: scopeSelectorsOf(obj),
  };
}
