/**
 * Shape of the API catalog: every group, version, resource and subresource
 * the server can serve. Built-in entries are generated from the upstream
 * OpenAPI document (scripts/generate-catalog.ts → src/api/generated/catalog.json);
 * custom resources will add entries of the same shape at run time.
 */

export type Stability = 'stable' | 'beta' | 'alpha';

/** Verbs as discovery names them. */
export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface SubresourceInfo {
  /** e.g. `status`, `scale`, `log`, `exec`. */
  name: string;
  /** Kind of the subresource's request/response body (e.g. Scale in autoscaling/v1). */
  kind: string;
  group: string;
  version: string;
  /** Sorted discovery verbs. */
  verbs: string[];
  /** OpenAPI definition name of the body, when it has one. */
  definition?: string;
  /** True for connect-style subresources (exec, attach, portforward, proxy, log is not connect). */
  connect?: boolean;
}

export interface ResourceInfo {
  group: string;
  version: string;
  /** Plural lower-case name used in URLs, e.g. `deployments`. */
  name: string;
  singularName: string;
  kind: string;
  /** Kind of the collection, e.g. `DeploymentList`; absent for create-only types. */
  listKind?: string;
  namespaced: boolean;
  /** Sorted discovery verbs of the main resource. */
  verbs: string[];
  shortNames: string[];
  categories: string[];
  subresources: SubresourceInfo[];
  /** OpenAPI definition name of the kind, e.g. `io.k8s.api.apps.v1.Deployment`. */
  definition: string;
  /** Group and version the object is stored in (shared by every served version). */
  storage: { group: string; version: string; kind: string };
  /** kube-apiserver's storageVersionHash of the storage version. */
  storageVersionHash?: string;
  /** True when the kind has metadata (is an object); false for virtual types like TokenReview. */
  isObject: boolean;
  /**
   * True for resources without storage of their own: create-only operations
   * (bindings, token and access reviews) and computed lists (componentstatuses).
   * They have no watch, no storageVersionHash, and nothing to persist.
   */
  virtual?: boolean;
  /** True when DELETE answers with the deleted object rather than a Status (kube's ReturnDeletedObject). */
  deleteReturnsObject?: boolean;
}

export interface VersionInfo {
  version: string;
  stability: Stability;
  /** True when kube-apiserver 1.36 serves this version without --runtime-config. */
  enabledByDefault: boolean;
  resources: ResourceInfo[];
}

export interface GroupInfo {
  /** `''` for the core (legacy) group. */
  name: string;
  /** Versions in kube-apiserver's preference order (first is preferred). */
  versions: VersionInfo[];
  /**
   * kube-aggregator's groupPriorityMinimum for the group (higher sorts first in
   * discovery); custom resource groups get 1000 like an auto-registered APIService.
   */
  priority?: number;
}

export interface Catalog {
  /** Where the generated data came from, for humans. */
  source: string;
  /** e.g. `1.36`. */
  kubernetesMinor: string;
  /** Groups in kube-apiserver's discovery order; the core group first. */
  groups: GroupInfo[];
}
