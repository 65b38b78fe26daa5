import type { KubeObject } from '../machinery/object.js';

/**
 * The default class among several marked default, as kube 1.36 chooses it
 * for StorageClasses (pkg/volume/util GetDefaultClass) and IngressClasses:
 * the newest by creationTimestamp, then the first by name; undefined when
 * none is marked.
 */
export function newestDefaultClass(classes: readonly KubeObject[], isDefault: (c: KubeObject) => boolean): KubeObject | undefined {
  let best: KubeObject | undefined;
  for (const c of classes) {
    if (!isDefault(c)) continue;
    if (!best || newerOrFirstByName(c, best)) best = c;
  }
  return best;
}

function newerOrFirstByName(a: KubeObject, b: KubeObject): boolean {
  const ta = createdMs(a);
  const tb = createdMs(b);
  if (ta !== tb) return ta > tb;
  return String(a.metadata?.name ?? '') < String(b.metadata?.name ?? '');
}

function createdMs(o: KubeObject): number {
  const t = o.metadata?.creationTimestamp;
  const ms = typeof t === 'string' ? Date.parse(t) : NaN;
  // A zero metav1.Time (no timestamp) is the oldest.
  return Number.isNaN(ms) ? -Infinity : ms;
}
