import { jsonEqual } from '../machinery/object.js';
import type { Toleration } from './pod-spec.js';

/**
 * kube's toleration helpers (pkg/util/tolerations and the core helper's
 * AddOrUpdateTolerationInPod), shared by RuntimeClass,
 * PodTolerationRestriction and ExtendedResourceToleration.
 */

/** Whether `ss` tolerates everything `t` does. */
export function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (jsonEqual(ss, t)) return true;
  // An empty key with Exists matches every key.
  if ((t.key ?? '') !== (ss.key ?? '') && ((ss.key ?? '') !== '' || ss.operator !== 'Exists')) return false;
  // An empty effect matches every effect.
  if ((t.effect ?? '') !== (ss.effect ?? '') && (ss.effect ?? '') !== '') return false;
  if (ss.effect === 'NoExecute' && ss.tolerationSeconds !== undefined && ss.tolerationSeconds !== null) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (ss.operator ?? '') {
    case 'Equal':
    case '':
      return t.operator === 'Equal' && (t.value ?? '') === (ss.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** MergeTolerations: both lists, keeping of tolerations that cover one another only the wider (the first of equal ones). */
export function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  next: for (let i = 0; i < all.length; i++) {
    const t = all[i]!;
    for (const kept of merged) if (isSuperset(kept, t)) continue next;
    for (const later of all.slice(i + 1)) if (!jsonEqual(t, later) && isSuperset(later, t)) continue next;
    merged.push(t);
  }
  return merged;
}

/** VerifyAgainstWhitelist: every toleration is covered by one of the whitelist (an empty whitelist allows all). */
export function verifyAgainstWhitelist(tolerations: readonly Toleration[], whitelist: readonly Toleration[]): boolean {
  if (whitelist.length === 0 || tolerations.length === 0) return true;
  return tolerations.every((t) => whitelist.some((w) => isSuperset(w, t)));
}

/** Toleration.MatchToleration: same key, effect, operator and value. */
function matchToleration(a: Toleration, b: Toleration): boolean {
  return (a.key ?? '') === (b.key ?? '') && (a.effect ?? '') === (b.effect ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '');
}

/** AddOrUpdateTolerationInPod: replaces a matching toleration or appends; undefined when it is there already. */
export function addOrUpdateToleration(tolerations: readonly Toleration[], toleration: Toleration): Toleration[] | undefined {
  const out: Toleration[] = [];
  let updated = false;
  for (const t of tolerations) {
    if (matchToleration(toleration, t)) {
      if (jsonEqual(toleration, t)) return undefined;
      out.push(toleration);
      updated = true;
      continue;
    }
    out.push(t);
  }
  if (!updated) out.push(toleration);
  return out;
}
