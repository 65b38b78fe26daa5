import { addQuantities, compareQuantities, formatQuantity, quantityFromJson, quantitySign, type Quantity } from '../../api/quantity.js';

/**
 * corev1.ResourceList and the helpers of kube's quota package
 * (k8s.io/apiserver/pkg/quota/v1/resources.go) over it: quantities by
 * resource name, added, subtracted, masked and compared as kube does.
 */
export type ResourceList = Map<string, Quantity>;

export const ZERO: Quantity = { mantissa: 0n, exponent: 0, format: 'DecimalSI' };

/** resource.NewQuantity(n, DecimalSI). */
export function count(n: number): Quantity {
  return { mantissa: BigInt(n), exponent: 0, format: 'DecimalSI' };
}

/** A ResourceList from its JSON form; entries that are not quantities are left out. */
export function resourceListFromJson(v: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!v || typeof v !== 'object' || Array.isArray(v)) return out;
  for (const [name, raw] of Object.entries(v as Record<string, unknown>)) {
    const q = quantityFromJson(raw);
    if (q) out.set(name, q);
  }
  return out;
}

/** The JSON form (Quantity.String() per resource), keys sorted as Go's map encoding writes them. */
export function resourceListToJson(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...list.keys()].sort()) out[name] = formatQuantity(list.get(name)!);
  return out;
}

function negate(q: Quantity): Quantity {
  return { mantissa: -q.mantissa, exponent: q.exponent, format: q.format };
}

/** quota.Add: every resource of either list, summed. */
export function add(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [name, q] of b) {
    const have = out.get(name);
    out.set(name, have ? addQuantities(have, q) : q);
  }
  return out;
}

/** quota.Subtract: a − b for every resource of either list. */
export function subtract(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [name, q] of b) {
    const have = out.get(name);
    out.set(name, have ? addQuantities(have, negate(q)) : negate(q));
  }
  return out;
}

/** quota.SubtractWithNonNegativeResult: a − b, no value below zero. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [name, q] of subtract(a, b)) out.set(name, quantitySign(q) < 0 ? ZERO : q);
  return out;
}

/** quota.Mask: only the named resources. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const name of names) {
    const q = list.get(name);
    if (q) out.set(name, q);
  }
  return out;
}

/** quota.LessThanOrEqual: whether every resource of `a` that `b` has is within it, and the names that are not. */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): { allowed: boolean; exceeded: string[] } {
  const exceeded: string[] = [];
  for (const [name, q] of a) {
    const limit = b.get(name);
    if (limit && compareQuantities(q, limit) > 0) exceeded.push(name);
  }
  return { allowed: exceeded.length === 0, exceeded };
}

/** quota.Equals: the same resources with equal values. */
export function equals(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [name, q] of a) {
    const other = b.get(name);
    if (!other || compareQuantities(q, other) !== 0) return false;
  }
  return true;
}

/** quota.RemoveZeros. */
export function removeZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, q]) => quantitySign(q) !== 0));
}

/** quota.IsNegative: the names of negative values. */
export function negativeNames(list: ResourceList): string[] {
  return [...list].filter(([, q]) => quantitySign(q) < 0).map(([name]) => name);
}

/** prettyPrint: `name=value` sorted by name, comma-separated. */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()].sort().map((name) => `${name}=${formatQuantity(list.get(name)!)}`).join(',');
}

/** prettyPrintResourceNames: names sorted, comma-separated. */
export function prettyPrintNames(names: Iterable<string>): string {
  return [...names].sort().join(',');
}

/** quota.Intersection of two name lists, in the order of `a`. */
export function intersection(a: readonly string[], b: readonly string[]): string[] {
  const set = new Set(b);
  return a.filter((n) => set.has(n));
}
