import type { KubeObject } from '../machinery/object.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';

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

/** What a class-defaulting plugin acts on and how it reads its objects and classes. */
export interface DefaultClassRules {
  group: string;
  resource: string;
  /** The object names a class already (or chose none on purpose). */
  hasClass(obj: KubeObject): boolean;
  isDefault(cls: KubeObject): boolean;
  /** The spec field the default class's name goes into. */
  specField: string;
}

/**
 * The shape DefaultStorageClass and DefaultIngressClass share: on create of
 * the resource (not a subresource), an object naming no class gets the
 * default class's name in its spec; with no default, nothing changes.
 */
export class DefaultClassPlugin implements AdmissionPlugin {
  constructor(
    readonly name: string,
    private readonly rules: DefaultClassRules,
    private readonly classes: () => readonly KubeObject[],
    private readonly startLister: () => Promise<void> = async () => {},
  ) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  start(): Promise<void> {
    return this.startLister();
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== this.rules.group || attrs.resource.name !== this.rules.resource || attrs.subresource) return;
    const obj = attrs.object;
    if (!obj || this.rules.hasClass(obj)) return;
    const def = newestDefaultClass(this.classes(), (c) => this.rules.isDefault(c));
    if (!def) return;
    obj.spec = { ...specOf(obj), [this.rules.specField]: def.metadata?.name };
  }
}

export function specOf(obj: KubeObject): Record<string, unknown> {
  const s = obj.spec;
  return s && typeof s === 'object' && !Array.isArray(s) ? (s as Record<string, unknown>) : {};
}
