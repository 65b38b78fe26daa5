/**
 * Objects are plain JSON values; ObjectMeta gets a typed view. Objects read
 * from storage or a cache are shared: never mutate them, copy first
 * (`cloneObject`) and change the copy.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  selfLink?: string;
  [extra: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/**
 * A deep copy of a JSON value (objects, arrays, strings, numbers, booleans,
 * null), which every stored object is. Written out because structuredClone
 * is about eight times slower on a 100-container Deployment, and writes copy
 * objects several times.
 */
export function cloneObject<T>(obj: T): T {
  return copyJson(obj, 0) as T;
}

/**
 * Recursion is the fast way for the shallow objects every write copies; past
 * RECURSION_LIMIT levels (a body may nest 10,000, see nesting.ts) the rest is
 * copied with an explicit stack.
 */
const RECURSION_LIMIT = 200;

function copyJson(v: unknown, depth: number): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (depth > RECURSION_LIMIT) return copyDeep(v);
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyJson(v[i], depth + 1);
    return out;
  }
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(src)) setMember(out, k, copyJson(src[k], depth + 1));
  return out;
}

function setMember(out: Record<string, unknown>, k: string, value: unknown): void {
  // A JSON key "__proto__" is data: define it, do not set the prototype.
  if (k === '__proto__') Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
  else out[k] = value;
}

function copyDeep(root: object): unknown {
  const shell = (v: object): unknown[] | Record<string, unknown> => (Array.isArray(v) ? new Array<unknown>(v.length) : {});
  const top = shell(root);
  const work: Array<{ src: object; out: unknown[] | Record<string, unknown> }> = [{ src: root, out: top }];
  while (work.length > 0) {
    const { src, out } = work.pop()!;
    const copyChild = (child: unknown): unknown => {
      if (child === null || typeof child !== 'object') return child;
      const c = shell(child);
      work.push({ src: child, out: c });
      return c;
    };
    if (Array.isArray(src)) {
      for (let i = 0; i < src.length; i++) (out as unknown[])[i] = copyChild(src[i]);
    } else {
      const rec = src as Record<string, unknown>;
      for (const k of Object.keys(rec)) setMember(out as Record<string, unknown>, k, copyChild(rec[k]));
    }
  }
  return top;
}

export function metaOf(obj: KubeObject): ObjectMeta {
  if (!obj.metadata || typeof obj.metadata !== 'object') obj.metadata = {};
  return obj.metadata;
}

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** RFC 3339 with second precision in UTC, as metav1.Time serializes. */
export function nowTimestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 3339 with six fractional digits in UTC, as metav1.MicroTime serializes (Lease times, events.k8s.io eventTime). */
export function nowMicroTimestamp(date = new Date()): string {
  // A Date has millisecond precision: the last three digits are always zero.
  return date.toISOString().replace(/Z$/, '000Z');
}

/** Deep equality of JSON values (key order ignored). */
export { jsonEqual } from './deep-json.js';

/** The value at a path of nested objects, or undefined where the path breaks off. */
export function valueAt(obj: unknown, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}
