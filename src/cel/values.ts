import { Optional } from '@marcbachmann/cel-js';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import type { DeclType, ObjectType } from './types.js';

/** A value as CEL expressions see it (bigint ints, Date timestamps, typed objects). Opaque outside src/cel/. */
export type CelValue = unknown;

/** Makes the runtime instance of an object type from its present fields. */
export type ObjectFactory = (t: ObjectType, fields: [string, CelValue][]) => CelValue;

/** Lists whose equality ignores order (x-kubernetes-list-type set and map). */
const unorderedLists = new WeakSet<readonly unknown[]>();

/** Whether a CEL list value compares without order. */
export function isUnorderedList(v: unknown): boolean {
  return Array.isArray(v) && unorderedLists.has(v);
}

const GO_DURATION = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;
const NANOS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** A Go duration string ("1h30m", "1.5s", "0") as a CEL duration, or undefined. */
export function parseGoDuration(text: string): unknown {
  if (text === '0' || text === '+0' || text === '-0') return new Duration(0, 0);
  const m = GO_DURATION.exec(text);
  if (!m) return undefined;
  let nanos = 0n;
  for (const part of text.matchAll(DURATION_PART)) {
    const [whole, frac = ''] = part[1]!.split('.');
    const unit = BigInt(NANOS[part[2]!]!);
    nanos += BigInt(whole || '0') * unit;
    if (frac) nanos += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
  }
  if (m[1] === '-') nanos = -nanos;
  return new Duration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function toTimestamp(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const d = new Date(DATE_ONLY.test(v) ? `${v}T00:00:00Z` : v);
  return Number.isNaN(d.getTime()) ? v : d;
}

function toBytes(v: unknown): unknown {
  return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : v;
}

/** Untyped JSON (dyn): integral numbers are ints, as kube's unstructured decoding makes them. */
export function dynToCel(v: unknown): CelValue {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(dynToCel);
  if (v !== null && typeof v === 'object') {
    const out = new Map<string, CelValue>();
    for (const [k, x] of Object.entries(v)) out.set(k, dynToCel(x));
    return out;
  }
  return v;
}

/**
 * JSON (as decoded from a request or storage) → the CEL value of declared
 * type `t`: integers → int, date-time strings → timestamp, base64 → bytes,
 * objects → their object type with escaped field names (unknown fields
 * dropped), set/map lists marked for order-free equality.
 */
export function jsonToCel(v: unknown, t: DeclType, make: ObjectFactory): CelValue {
  if (t.kind === 'optional') return v === undefined || v === null ? Optional.none() : Optional.of(jsonToCel(v, t.value, make));
  if (v === null || v === undefined) return null;
  switch (t.kind) {
    case 'scalar':
      switch (t.name) {
        case 'int': return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
        case 'double': return v;
        case 'timestamp': return toTimestamp(v);
        case 'duration': return typeof v === 'string' ? parseGoDuration(v) ?? v : v;
        case 'bytes': return toBytes(v);
        case 'dyn': return dynToCel(v);
        default: return v;
      }
    case 'list': {
      if (!Array.isArray(v)) return dynToCel(v);
      const out = v.map((x) => jsonToCel(x, t.elem, make));
      if (t.listType === 'set' || t.listType === 'map') unorderedLists.add(out);
      return out;
    }
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) return dynToCel(v);
      const out = new Map<string, CelValue>();
      for (const [k, x] of Object.entries(v)) out.set(k, jsonToCel(x, t.value, make));
      return out;
    }
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) return dynToCel(v);
      const src = v as Record<string, unknown>;
      const fields: [string, CelValue][] = [];
      for (const [name, f] of t.fields) {
        const x = src[f.jsonName];
        if (x === undefined || (x === null && f.type.kind === 'object')) continue;
        fields.push([name, jsonToCel(x, f.type, make)]);
      }
      return make(t, fields);
    }
    case 'named':
      return v;
  }
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

function formatTimestamp(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}Z`;
}

/**
 * A CEL result → JSON: int/uint → number (string beyond 2^53), timestamps
 * RFC 3339, durations Go-style seconds ("90s"), bytes base64, maps and
 * objects → plain objects (escaped field names unescaped by the caller's
 * schema, not here).
 */
export function celToJson(v: CelValue): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Date) return formatTimestamp(v);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (v instanceof Duration) return `${Number(v.valueOf()) / 1000}s`;
  if (v instanceof Optional) return v.hasValue() ? celToJson(v.value()) : null;
  if (Array.isArray(v)) return v.map(celToJson);
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) out[String(k)] = celToJson(x);
    return out;
  }
  if (typeof (v as { valueOf(): unknown }).valueOf === 'function') {
    const p = (v as { valueOf(): unknown }).valueOf();
    if (typeof p === 'bigint') return celToJson(p);
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = celToJson(x);
  return out;
}
