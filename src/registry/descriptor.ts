import type { CustomResourceSchema } from '../apiextensions/schema/index.js';
import type { ApplySchema } from '../apply/index.js';
import type { SchemaModel } from '../api/schema-model.js';
import type { ResourceInfo } from '../api/types.js';
import type { TableConvertor } from '../codec/table-convertor.js';
import type { JsonObject } from '../machinery/json.js';
import type { KubeObject } from '../machinery/object.js';
import type { UserInfo } from '../machinery/context.js';
import type { FieldSupport } from './field-selectors.js';
import type { DeleteOptions, DeleteResult, ResourceStore, UpdateFunc, UpdateOptions, UpdateResult, ValidateAdmission } from './resource-store.js';
import type { Strategy } from './strategy.js';

/**
 * Everything the server knows about one served resource (`group/resource`,
 * every served version of it): what kube-apiserver's genericregistry.Store
 * and its REST wrappers hold. Built-in descriptors are assembled in
 * builtin-descriptors.ts; run-time types (custom-descriptors.ts) are added to
 * and removed from the Registry while the server runs. Handlers reach a
 * type's behaviour only through its descriptor (ResourceScope.descriptor).
 */
export interface ResourceDescriptor {
  /** Served group and plural name (shared by every served version). */
  readonly group: string;
  readonly resource: string;
  readonly namespaced: boolean;
  /** The stored resource whose store serves this one (events.k8s.io events live with core events). */
  readonly storage: { readonly group: string; readonly resource: string; readonly kind: string };
  /** Storage key layout: the prefix of every key, with a trailing slash. */
  readonly prefix: string;
  /** Create, update and delete strategy, validation included (kube's Strategy.Validate*). */
  readonly strategy: Strategy;
  /** What a write through the status subresource may change. */
  readonly statusStrategy: StatusStrategy;
  readonly schema: SchemaHandle;
  /** Defaults of a served version, in place (kube's scheme defaulters, run on decode). */
  defaults(info: ResourceInfo, obj: KubeObject): void;
  /** Quantities in canonical form, in place: what decoding into Go types does to any body. */
  canonicalize(info: ResourceInfo, obj: KubeObject): void;
  /** Rows of `as=Table`. */
  readonly table: TableConvertor;
  /** Versions whose rows differ from `table` (a CRD's per-version printer columns). */
  readonly tablesByVersion?: ReadonlyMap<string, TableConvertor>;
  /** Field labels for field selectors and how to read them. */
  readonly fields: FieldSupport;
  /** Served version ↔ storage version. Never mutates its input. */
  toStorage(obj: KubeObject, info: ResourceInfo): KubeObject;
  toServed(obj: KubeObject, info: ResourceInfo): KubeObject;
  /** Subresources with behaviour of their own, by name (the rest of the catalog's answer 501). */
  readonly subresources: ReadonlyMap<string, SubresourceKind>;
  /** For resources without storage: what a create does. */
  readonly virtual?: VirtualKind;
  /** Behaviour around the generic store's writes (kube's REST wrappers, Begin/After hooks). */
  readonly hooks?: StoreHooks;
  /** The Scale view of the parent, where it is not the built-in workloads' (spec.replicas, status.replicas, spec.selector). */
  readonly scale?: ScaleView;
  /** The Warning header of each deprecated served version (empty: deprecated, no header). */
  readonly versionWarnings?: ReadonlyMap<string, string>;
  /**
   * A conversion that is a call and may fail (a CRD's conversion webhook):
   * served versions other than the storage version convert through it
   * instead of toServed/toStorage (handlers: ResourceScope.servedAll and
   * storageOf).
   */
  readonly asyncConversion?: AsyncConversion;
  /** The only media types its POST and PUT bodies may have, where not every codec's (custom resources: JSON and YAML; kube answers others 415). */
  readonly bodyTypes?: readonly string[];
  /** State that changes while the resource is served: a CRD being deleted takes no creates. */
  readonly lifecycle?: { terminating: boolean };
}

/** Served version ↔ storage version through a call; errors are kube's conversion texts (plain Errors). */
export interface AsyncConversion {
  /** Stored objects as the served version, in one call; `list`: they are a list's items. */
  toServed(objs: readonly KubeObject[], info: ResourceInfo, list: boolean): Promise<KubeObject[]>;
  toStorage(obj: KubeObject, info: ResourceInfo): Promise<KubeObject>;
}

/** The rows of `as=Table` for one served version. */
export function tableFor(desc: ResourceDescriptor, version: string): TableConvertor {
  return desc.tablesByVersion?.get(version) ?? desc.table;
}

/** An autoscaling/v1 Scale view of a parent object (served version). */
export interface ScaleView {
  scaleOf(parent: KubeObject): KubeObject;
  /** A copy of the parent with the desired replicas. */
  withReplicas(parent: KubeObject, replicas: number): KubeObject;
}

/**
 * The behaviours subresources have; handlers/ implements each once. A
 * resource names which of its subresources has which behaviour. `status`
 * and `approval` (a CertificateSigningRequest's conditions only) are the
 * main resource's handlers writing in that mode.
 */
export type SubresourceKind = 'status' | 'approval' | 'scale' | 'eviction' | 'binding' | 'finalize' | 'token';

/** Create-only resources: the pod binding, or a review answered by authn/authz. */
export type VirtualKind = 'binding' | ReviewKind;

export type ReviewKind = 'tokenreview' | 'selfsubjectreview' | 'selfsubjectaccessreview' | 'subjectaccessreview' | 'localsubjectaccessreview' | 'selfsubjectrulesreview';

/**
 * A write through `/status`. `request`: metadata comes from the request, as
 * kube's built-in status strategies leave it, except the fields in `keep`
 * (Deployments keep labels, Pods ownerReferences). `keep`: everything but
 * status and managedFields stays as stored (kube's custom resource status
 * strategy).
 */
export interface StatusStrategy {
  readonly metadata: 'request' | 'keep';
  readonly keep?: readonly StatusKeptMetadata[];
}

export type StatusKeptMetadata = 'labels' | 'annotations' | 'ownerReferences' | 'finalizers';

/**
 * The type's OpenAPI schema: the definition names of ResourceInfo resolve in
 * `model`, the one schema model field validation, strategic merge patch,
 * apply and quantity canonicalization read. The model and its views are
 * built lazily and live as long as the descriptor (not the process).
 */
export interface SchemaHandle {
  readonly model: SchemaModel;
  /** Definitions this type adds to the built-in ones (published in /openapi/v2 and v3). */
  readonly own: Readonly<Record<string, JsonObject>>;
  /** Whether strategic merge patch applies (built-in types; custom resources take json, merge and apply patches). */
  readonly strategicMergePatch: boolean;
  applySchema(definition: string): ApplySchema;
  /** Custom resources: the structural schema of a version's definition (kube's unstructured decoding instead of Go types). */
  customResource?(definition: string): CustomResourceSchema | undefined;
}

/**
 * Behaviour around the generic store's writes, as kube's REST wrappers add it
 * (Service allocation, the namespace's two-step deletion). Each hook gets the
 * store and the generic operation to call (`next`), and may change the input
 * before it and undo what it did when it fails.
 */
export interface StoreHooks {
  create?(store: ResourceStore, input: KubeObject, namespace: string | undefined, opts: CreateOptions, next: (input: KubeObject) => Promise<KubeObject>): Promise<KubeObject>;
  update?(store: ResourceStore, namespace: string | undefined, opts: UpdateOptions, tryUpdate: UpdateFunc, next: (tryUpdate: UpdateFunc) => Promise<UpdateResult>): Promise<UpdateResult>;
  delete?(store: ResourceStore, namespace: string | undefined, name: string, opts: DeleteOptions, next: () => Promise<DeleteResult>): Promise<DeleteResult>;
  /** Finalizers beyond metadata.finalizers that keep a Terminating object stored (namespaces' spec.finalizers). */
  pendingFinalizers?(obj: KubeObject): boolean;
}

export interface CreateOptions {
  dryRun?: boolean;
  validate?: ValidateAdmission;
  /** The API version the request came through (type rules that differ by it: events). */
  requestVersion?: string;
  /** The requesting user, for types that record it on create (CertificateSigningRequest). */
  user?: UserInfo;
}
