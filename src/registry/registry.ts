import type { ResourceInfo } from '../api/types.js';
import type { KeyLayout } from '../storage/keys.js';
import type { Store } from '../storage/store.js';
import { DEFAULT_WATCH_CACHE_OPTIONS, type WatchCacheOptions, type WatchCacheStats } from '../cache/watch-cache.js';
import { NamespaceStore } from './namespaces.js';
import { ServiceStore } from './services/service-store.js';
import { ResourceStore } from './resource-store.js';
import { fieldExtractorFor } from './field-selectors.js';
import { strategyFor } from './strategies.js';
import { FeatureGates } from '../machinery/feature-gates.js';

/**
 * One ResourceStore per stored resource. Every served version of a resource
 * (and cohabiting resources such as events.k8s.io events, stored with core
 * events) shares the store of its storage version.
 */
export class Registry {
  private readonly stores = new Map<string, ResourceStore>();

  constructor(
    private readonly store: Store,
    private readonly keys: KeyLayout,
    private readonly cacheOptions: WatchCacheOptions = DEFAULT_WATCH_CACHE_OPTIONS,
    private readonly gates: FeatureGates = FeatureGates.defaults(),
  ) {}

  storeFor(info: ResourceInfo): ResourceStore {
    const group = info.storage.group;
    const id = `${group}/${info.name}`;
    let rs = this.stores.get(id);
    if (!rs) {
      const fields = fieldExtractorFor(group, info.name, info.namespaced);
      const desc = {
        group,
        resource: info.name,
        kind: info.storage.kind,
        namespaced: info.namespaced,
        prefix: this.keys.resourcePrefix(group, info.name),
        fields: fields.extract,
      };
      const strategy = strategyFor(group, info.name, info.storage.kind);
      const Store = group === '' && info.name === 'namespaces' ? NamespaceStore : group === '' && info.name === 'services' ? ServiceStore : ResourceStore;
      rs = new Store(desc, strategy, this.store, this.cacheOptions, this.gates);
      this.stores.set(id, rs);
    }
    return rs;
  }

  get namespaces(): NamespaceStore {
    return this.stores.get('/namespaces') as NamespaceStore;
  }

  /** Watch cache figures per stored resource (`group/resource`), for metrics. */
  cacheStats(): Array<{ group: string; resource: string; stats: WatchCacheStats }> {
    return [...this.stores.values()].filter((rs) => rs.cache.isReady).map((rs) => ({ group: rs.desc.group, resource: rs.desc.resource, stats: rs.cache.stats() }));
  }

  /** Stops every watch cache (server shutdown). */
  stop(): void {
    for (const rs of this.stores.values()) rs.cache.stop();
  }

  /** The stores of every namespaced resource among `infos`, once per storage. */
  namespacedStores(infos: readonly ResourceInfo[]): ResourceStore[] {
    const out = new Map<string, ResourceStore>();
    for (const info of infos) {
      if (!info.namespaced) continue;
      const rs = this.storeFor(info);
      out.set(rs.desc.prefix, rs);
    }
    return [...out.values()];
  }
}
