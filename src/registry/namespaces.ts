import { conflict, notFound } from '../machinery/errors.js';
import { cloneObject, metaOf, type KubeObject } from '../machinery/object.js';
import type { ResourceStore, UpdateResult } from './resource-store.js';
import type { StoreHooks } from './descriptor.js';
import { markForDeletion } from './graceful-delete.js';
import { namespaceDeletionFinalizers } from './gc-finalizers.js';

/**
 * Namespaces delete in two steps, as kube-apiserver's namespace registry does:
 * the first DELETE only marks the namespace Terminating; the namespace
 * controller empties it, removes the `kubernetes` entry of spec.finalizers
 * through the finalize subresource, and deletes it again, which removes it.
 */

export const NAMESPACE_FINALIZER = 'kubernetes';

const PURGE_MESSAGE =
  'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.';

function specFinalizers(ns: KubeObject): string[] {
  const spec = ns.spec as { finalizers?: unknown } | undefined;
  return Array.isArray(spec?.finalizers) ? (spec!.finalizers as string[]) : [];
}

/**
 * The namespace REST's behaviour around the generic store: spec.finalizers
 * keep a Terminating namespace stored, and the first DELETE only marks it
 * Terminating.
 */
export const NAMESPACE_HOOKS: StoreHooks = {
  pendingFinalizers: (obj) => specFinalizers(obj).length > 0,

  async delete(store, _namespace, name, opts, next) {
    const current = await store.get(undefined, name);
    const meta = current.metadata!;
    store.checkDeletePreconditions(current, opts);
    if (!meta.deletionTimestamp) {
      return markForDeletion(store, current, name, opts, (obj) => {
        const m = metaOf(obj);
        delete m.resourceVersion;
        obj.status = { ...((obj.status as object | undefined) ?? {}), phase: 'Terminating' };
        // The garbage collector's finalizers, from the request's propagation (kube's namespace REST).
        const gc = namespaceDeletionFinalizers(obj, opts);
        if (gc.changed) m.finalizers = gc.finalizers;
      });
    }
    if (specFinalizers(current).length > 0) throw conflict(store.groupResource, name, PURGE_MESSAGE);
    return next();
  },
};

/** PUT …/namespaces/<name>/finalize: only spec.finalizers changes. */
export function finalizeNamespace(store: ResourceStore, name: string, finalizers: string[], opts: { dryRun?: boolean; resourceVersion?: string }): Promise<UpdateResult> {
  return store.update(undefined, { name, dryRun: !!opts.dryRun, subresource: 'internal' }, (cur) => {
    if (!cur) throw notFound(store.groupResource, name);
    const next = cloneObject(cur);
    const meta = metaOf(next);
    if (opts.resourceVersion) meta.resourceVersion = opts.resourceVersion;
    else delete meta.resourceVersion;
    next.spec = { ...((next.spec as object | undefined) ?? {}), finalizers };
    return next;
  });
}
