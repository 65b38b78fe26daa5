import type { KubeObject } from './object.js';

/**
 * What in-process code (controllers, post-start work) writes through: the
 * API itself, as client-go's dynamic client does, so every write passes the
 * same authentication, admission, defaulting, strategy and field manager as
 * a request from outside. Failures are ApiErrors (machinery/errors.ts) with
 * the Status the server answered.
 */

export interface GroupVersionResource {
  group: string;
  version: string;
  /** Plural name as in URLs, e.g. `configmaps`. */
  resource: string;
}

/** A collection: the resource, in a namespace when namespaced. */
export interface CollectionRef extends GroupVersionResource {
  namespace?: string;
}

/** One object, or one of its subresources (`status`, `finalize`, …). */
export interface ObjectRef extends CollectionRef {
  name: string;
  subresource?: string;
}

export interface WriteOptions {
  /** The manager recorded in managedFields; default: the client's User-Agent prefix, as kube derives it. Required for apply. */
  fieldManager?: string;
  dryRun?: boolean;
}

/** json: RFC 6902; merge: RFC 7386; strategic: kube's strategic merge patch; apply: server-side apply. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface PatchOptions extends WriteOptions {
  /** Apply only: take fields other managers own. */
  force?: boolean;
}

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Unset: a consistent read. */
  resourceVersion?: string;
}

export interface ObjectList {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items: KubeObject[];
}

export interface ApiClient {
  get(ref: ObjectRef): Promise<KubeObject>;
  list(ref: CollectionRef, opts?: ListOptions): Promise<ObjectList>;
  /** POST to the collection (`obj` names itself or asks for a generated name). */
  create(ref: CollectionRef, obj: KubeObject, opts?: WriteOptions): Promise<KubeObject>;
  /** PUT; a resourceVersion in `obj` makes it conditional (Conflict when stale). */
  update(ref: ObjectRef, obj: KubeObject, opts?: WriteOptions): Promise<KubeObject>;
  patch(ref: ObjectRef, type: PatchType, patch: unknown, opts?: PatchOptions): Promise<KubeObject>;
  /** The deleted (or now terminating) object, or a Success Status, as the server answers. */
  delete(ref: ObjectRef, opts?: DeleteOptions): Promise<KubeObject>;
}

/** The URL path of a collection or object, as kube's REST mapping lays it out. */
export function resourcePath(ref: CollectionRef | ObjectRef): string {
  const root = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
  const ns = ref.namespace ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
  let path = `${root}${ns}/${ref.resource}`;
  if ('name' in ref) {
    path += `/${encodeURIComponent(ref.name)}`;
    if (ref.subresource) path += `/${ref.subresource}`;
  }
  return path;
}
