import type { KubeObject } from '../machinery/object.js';

/**
 * The finalizers a DELETE leaves for the garbage collector (genericregistry's
 * deletionFinalizersForGarbageCollection): `orphan` when dependents are to
 * be orphaned, `foregroundDeletion` when they are to be deleted first. An
 * explicit orphanDependents wins over propagationPolicy, which wins over a
 * finalizer already on the object, which wins over the type's default.
 */

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** A type's DefaultGarbageCollectionPolicy (rest.GarbageCollectionPolicy). */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

export interface PropagationOptions {
  propagationPolicy?: string;
  orphanDependents?: boolean;
}

function shouldOrphan(policy: GarbageCollectionPolicy, finalizers: readonly string[], opts: PropagationOptions): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return opts.orphanDependents;
  if (opts.propagationPolicy === 'Orphan') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Foreground') return false;
  for (const f of finalizers) {
    if (f === ORPHAN_FINALIZER) return true;
    if (f === FOREGROUND_FINALIZER) return false;
  }
  return policy === 'OrphanDependents';
}

function shouldDeleteInForeground(policy: GarbageCollectionPolicy, finalizers: readonly string[], opts: PropagationOptions): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return false;
  if (opts.propagationPolicy === 'Foreground') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Orphan') return false;
  for (const f of finalizers) {
    if (f === FOREGROUND_FINALIZER) return true;
    if (f === ORPHAN_FINALIZER) return false;
  }
  return false;
}

/** The object's finalizers after the delete, and whether they differ (as sets) from the current ones. */
export function deletionFinalizers(policy: GarbageCollectionPolicy, obj: KubeObject, opts: PropagationOptions): { changed: boolean; finalizers: string[] } {
  const current = obj.metadata?.finalizers ?? [];
  const next = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (shouldOrphan(policy, current, opts)) next.push(ORPHAN_FINALIZER);
  if (shouldDeleteInForeground(policy, current, opts)) next.push(FOREGROUND_FINALIZER);
  const a = new Set(current);
  const b = new Set(next);
  const changed = a.size !== b.size || [...a].some((f) => !b.has(f));
  return { changed, finalizers: changed ? next : [...current] };
}

/**
 * The namespace REST's own rule (pkg/registry/core/namespace/storage):
 * the first DELETE of a namespace sets `orphan` / `foregroundDeletion` from
 * orphanDependents or propagationPolicy only (no type default: without
 * either, the finalizers already there stay as they are). CRDs get none on
 * their first DELETE (apiextensions' REST adds only its cleanup finalizer);
 * a later DELETE of either goes through the generic store's rule above.
 */
export function namespaceDeletionFinalizers(obj: KubeObject, opts: PropagationOptions): { changed: boolean; finalizers: string[] } {
  const current = obj.metadata?.finalizers ?? [];
  const orphan = opts.orphanDependents !== undefined ? opts.orphanDependents : opts.propagationPolicy !== undefined ? opts.propagationPolicy === 'Orphan' : current.includes(ORPHAN_FINALIZER);
  const foreground =
    opts.orphanDependents !== undefined ? !opts.orphanDependents : opts.propagationPolicy !== undefined ? opts.propagationPolicy === 'Foreground' : current.includes(FOREGROUND_FINALIZER);
  const next = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) next.push(ORPHAN_FINALIZER);
  if (foreground) next.push(FOREGROUND_FINALIZER);
  const changed = orphan !== current.includes(ORPHAN_FINALIZER) || foreground !== current.includes(FOREGROUND_FINALIZER);
  return { changed, finalizers: changed ? next : [...current] };
}
