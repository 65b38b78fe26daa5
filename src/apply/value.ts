/**
 * Value semantics of structured-merge-diff (sigs.k8s.io/structured-merge-diff
 * value package) over plain JSON: the total order used to sort set and map-key
 * path elements, equality (ints and floats compare numerically), and the
 * human-readable rendering that appears in conflict messages.
 *
 * A decoded JSON number is an int when it is integral (kube decodes integral
 * literals as int64); the int/float distinction only matters for ordering
 * ties, which compare numerically anyway.
 */
import { compareGoStrings, formatFloatG, strconvQuote } from '../machinery/go-compat.js';
import { type JsonObject, type JsonValue, isJsonObject } from '../machinery/json-value.js';
import { jsonEqual } from '../machinery/deep-json.js';
import { cloneObject } from '../machinery/object.js';

export type { JsonObject, JsonValue } from '../machinery/json-value.js';
export { isJsonObject } from '../machinery/json-value.js';

export function isScalar(v: JsonValue): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** Rank of a value's kind in value.Compare: numbers < strings < bools < lists < maps < null. */
function rank(v: JsonValue): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v === null) return 5;
  return 4;
}

/** value.Compare: a total order over values of any kind. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareGoStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const la = a as JsonValue[];
      const lb = b as JsonValue[];
      for (let i = 0; ; i++) {
        if (i >= la.length) return i >= lb.length ? 0 : -1;
        if (i >= lb.length) return 1;
        const c = compareValues(la[i] as JsonValue, lb[i] as JsonValue);
        if (c !== 0) return c;
      }
    }
    case 4:
      return compareMaps(a as JsonObject, b as JsonObject);
    default:
      return 0;
  }
}

/** MapCompare: keys visited in lexical order; a key missing on one side makes that side greater. */
function compareMaps(a: JsonObject, b: JsonObject): number {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareGoStrings);
  for (const k of keys) {
    const ha = Object.prototype.hasOwnProperty.call(a, k);
    const hb = Object.prototype.hasOwnProperty.call(b, k);
    if (!ha) return 1;
    if (!hb) return -1;
    const c = compareValues(a[k] as JsonValue, b[k] as JsonValue);
    if (c !== 0) return c;
  }
  return 0;
}

/** value.Equals. */
export function valuesEqual(a: JsonValue, b: JsonValue): boolean {
  return jsonEqual(a, b);
}

/** value.ToString: how path elements render values (`[name="x"]`, `[=3]`). */
export function valueToString(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : formatFloatG(v);
  if (typeof v === 'string') return strconvQuote(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  // Go iterates the map in its own order here; sorted keys keep us deterministic.
  return Object.keys(v)
    .sort(compareGoStrings)
    .map((k) => `${k}=${valueToString(v[k] as JsonValue)}`)
    .join('');
}

export function deepCopy<T extends JsonValue>(v: T): T {
  return cloneObject(v);
}

/** Own-property read that never reaches the prototype chain. */
export function field(obj: JsonObject, key: string): JsonValue | undefined {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

export function asObject(v: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(v) ? v : undefined;
}
