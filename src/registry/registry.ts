import type { ApiCatalog } from '../api/catalog.js';
import type { ResourceInfo } from '../api/types.js';
import type { KeyLayout } from '../storage/keys.js';
import type { Store } from '../storage/store.js';
import { DEFAULT_WATCH_CACHE_OPTIONS, type WatchCacheOptions, type WatchCacheStats } from '../cache/watch-cache.js';
import { ResourceStore } from './resource-store.js';
import { builtinDescriptor, storageResourceInfo } from './builtin-descriptors.js';
import type { ResourceDescriptor } from './descriptor.js';
import { FeatureGates } from '../machinery/feature-gates.js';
import { resourceNotFound } from '../machinery/errors.js';

/**
 * The served resources' descriptors and one ResourceStore per stored
 * resource. Every served version of a resource (and cohabiting resources
 * such as events.k8s.io events, stored with core events) shares the store of
 * its storage version. Built-in descriptors come from builtin-descriptors.ts
 * on first use; others are added and removed while the server runs
 * (addResource / removeResource), which the catalog (discovery, OpenAPI)
 * and the watch caches follow.
 */
export class Registry {
  private readonly stores = new Map<string, ResourceStore>();
  private readonly descriptors = new Map<string, ResourceDescriptor>();
  /** Served `group/resource` of descriptors added at run time → the versions they serve. */
  private readonly added = new Map<string, ResourceInfo[]>();
  /** Run-time resources since removed (a request may still hold their ResourceInfo). */
  private readonly removed = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly keys: KeyLayout,
    private readonly cacheOptions: WatchCacheOptions = DEFAULT_WATCH_CACHE_OPTIONS,
    private readonly gates: FeatureGates = FeatureGates.defaults(),
    /** Told of resources added and removed at run time (discovery and OpenAPI follow it). */
    private readonly catalog?: ApiCatalog,
  ) {}

  /** The key layout of this registry's storage (custom descriptors need it for their prefix). */
  get keyLayout(): KeyLayout {
    return this.keys;
  }

  /** The descriptor of a served resource (any served version of it). */
  descriptorFor(info: ResourceInfo): ResourceDescriptor {
    const id = `${info.group}/${info.name}`;
    let desc = this.descriptors.get(id);
    if (!desc) {
      // A request that found the resource just before it was removed.
      if (this.removed.has(id)) throw resourceNotFound();
      desc = builtinDescriptor(info, this.keys, this.gates);
      this.descriptors.set(id, desc);
    }
    return desc;
  }

  storeFor(info: ResourceInfo): ResourceStore {
    const desc = this.descriptorFor(info);
    const id = `${desc.storage.group}/${desc.storage.resource}`;
    let rs = this.stores.get(id);
    if (!rs) {
      // The store follows the stored resource's own descriptor (its field labels index the cache).
      const owner = desc.storage.group === desc.group ? desc : this.descriptorFor(storageResourceInfo(info));
      rs = new ResourceStore(
        {
          group: owner.storage.group,
          resource: owner.storage.resource,
          kind: owner.storage.kind,
          namespaced: owner.namespaced,
          prefix: owner.prefix,
          fields: owner.fields.extract,
        },
        owner.strategy,
        this.store,
        this.cacheOptions,
        this.gates,
        { statusStrategy: owner.statusStrategy, ...(owner.hooks ? { hooks: owner.hooks } : {}) },
      );
      this.stores.set(id, rs);
    }
    return rs;
  }

  /**
   * Serves a new resource: its descriptor and the versions it is served in
   * (each a ResourceInfo of the descriptor's group and resource). Discovery
   * and OpenAPI show it from the next request on.
   */
  addResource(desc: ResourceDescriptor, versions: readonly ResourceInfo[]): void {
    const id = `${desc.group}/${desc.resource}`;
    const builtIn = (info: ResourceInfo): boolean => !this.added.has(id) && this.catalog?.knownResource(info.group, info.version, info.name) !== undefined;
    if ((this.descriptors.has(id) && !this.added.has(id)) || versions.some(builtIn)) throw new Error(`resource ${id} is built in`);
    for (const info of versions) {
      if (info.group !== desc.group || info.name !== desc.resource) throw new Error(`version ${info.version} of ${id} names another resource`);
    }
    if (this.added.has(id)) this.removeResource(desc.group, desc.resource);
    this.removed.delete(id);
    this.descriptors.set(id, desc);
    this.added.set(id, [...versions]);
    for (const info of versions) this.catalog?.addCustomResource(info, desc.schema.own);
  }

  /** Whether `group/resource` is served as a run-time addition (a CRD's, once its serving controller added it). */
  isAdded(group: string, resource: string): boolean {
    return this.added.has(`${group}/${resource}`);
  }

  /**
   * Stops serving a resource added at run time: it leaves discovery and
   * OpenAPI, its watch cache stops (ending its open watches), and requests
   * for it get 404. Its stored objects stay where they are.
   */
  removeResource(group: string, resource: string): boolean {
    const id = `${group}/${resource}`;
    const versions = this.added.get(id);
    const desc = this.descriptors.get(id);
    if (!versions || !desc) return false;
    for (const info of versions) this.catalog?.removeCustomResource(info.group, info.version, info.name);
    this.added.delete(id);
    this.descriptors.delete(id);
    this.removed.add(id);
    const storeId = `${desc.storage.group}/${desc.storage.resource}`;
    this.stores.get(storeId)?.cache.stop();
    this.stores.delete(storeId);
    return true;
  }

  /** Watch cache figures per stored resource (`group/resource`), for metrics. */
  cacheStats(): Array<{ group: string; resource: string; stats: WatchCacheStats }> {
    return [...this.stores.values()].filter((rs) => rs.cache.isReady).map((rs) => ({ group: rs.desc.group, resource: rs.desc.resource, stats: rs.cache.stats() }));
  }

  /** Stops every watch cache (server shutdown). */
  stop(): void {
    for (const rs of this.stores.values()) rs.cache.stop();
  }

  /** The namespaced resources among `infos`, one served version per storage (the first met). */
  namespacedResources(infos: readonly ResourceInfo[]): ResourceInfo[] {
    const out = new Map<string, ResourceInfo>();
    for (const info of infos) {
      if (!info.namespaced) continue;
      const prefix = this.storeFor(info).desc.prefix;
      if (!out.has(prefix)) out.set(prefix, info);
    }
    return [...out.values()];
  }
}
