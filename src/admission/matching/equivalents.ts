import type { ApiCatalog } from '../../api/catalog.js';
import type { GroupVersionKind, ResourceInfo } from '../../api/types.js';
import type { KubeObject } from '../../machinery/object.js';
import { toServedVersion, toStorageVersion } from '../../registry/convert.js';

/**
 * kube's EquivalentResourceMapper for matchPolicy Equivalent: the same
 * objects served under other groups or versions (apps deployments in every
 * served version, events in core v1 and events.k8s.io/v1, a CRD's versions).
 * kube keys them by storage prefix; Capstan's resources that share storage
 * share their storage group and kind.
 */
export class EquivalentResources {
  private cache: { generation: number; byStorage: Map<string, ResourceInfo[]> } | undefined;

  constructor(private readonly catalog: ApiCatalog) {}

  /** The served resources holding the same objects as `resource`, itself included, that have `subresource`. */
  equivalentsOf(resource: ResourceInfo, subresource: string): ResourceInfo[] {
    const all = this.index().get(storageKey(resource)) ?? [];
    if (!subresource) return all;
    return all.filter((r) => r.subresources.some((s) => s.name === subresource));
  }

  private index(): Map<string, ResourceInfo[]> {
    const generation = this.catalog.generation;
    if (this.cache?.generation === generation) return this.cache.byStorage;
    const byStorage = new Map<string, ResourceInfo[]>();
    for (const r of this.catalog.allResources()) {
      const key = storageKey(r);
      byStorage.set(key, [...(byStorage.get(key) ?? []), r]);
    }
    this.cache = { generation, byStorage };
    return byStorage;
  }
}

function storageKey(r: ResourceInfo): string {
  return `${r.storage.group}/${r.storage.kind}/${r.name}`;
}

/** kube's KindFor: the kind a (sub)resource's requests carry (a subresource's own kind, e.g. autoscaling/v1 Scale). */
export function kindOf(resource: ResourceInfo, subresource: string): GroupVersionKind {
  if (subresource) {
    const sub = resource.subresources.find((s) => s.name === subresource);
    if (sub) return { group: sub.group, version: sub.version, kind: sub.kind };
  }
  return { group: resource.group, version: resource.version, kind: resource.kind };
}

/**
 * The request's object as the matched resource's version (kube's
 * VersionedAttributes for the kind a webhook or policy matched): a copy when
 * the versions differ, the object itself otherwise. Subresource bodies of
 * another kind (Scale, Eviction) are passed as they are.
 */
export function convertForMatch(obj: KubeObject, from: ResourceInfo, to: ResourceInfo, subresource: string): KubeObject {
  if (from === to || (from.group === to.group && from.version === to.version)) return obj;
  const fromKind = kindOf(from, subresource);
  if (subresource && fromKind.kind !== from.kind) return obj;
  return toServedVersion(toStorageVersion(obj, from), to);
}
