/**
 * Just enough of Go's encoding/json and of the apimachinery value types to
 * convert between API versions the way kube-apiserver does.
 *
 * kube-apiserver decodes a request into a typed Go struct, converts it
 * through the internal version and encodes the result with encoding/json.
 * What a client sees therefore follows Go's rules rather than the JSON it
 * sent: struct fields in declaration order, `omitempty` dropping zero
 * scalars, nil pointers and empty slices but never structs (so a zero
 * metav1.Time is written as `null` and a zero resource.Quantity as `"0"`),
 * unknown fields dropped, map keys sorted. Some conversions also store JSON
 * text in annotations, and that text must be byte-for-byte what Go writes so
 * that clients comparing annotations see no change.
 *
 * Types are described once (GoType) and used both to decode a JSON value into
 * a "Go value" (plain data where every struct field is present, zero-valued
 * when absent) and to encode it back.
 */

import { isRecord } from '../../machinery/json.js';
import { quantityError } from '../../api/quantity.js';
import { goJsonString } from '../../machinery/go-compat.js';

/** A Go value decoded by `decode`: the shape follows its GoType. */
export type GoValue = unknown;

export type GoType =
  | { kind: 'string' }
  | { kind: 'int'; bits: 32 | 64 }
  /** resource.Quantity (a struct in Go): `null` is the zero quantity, written as "0". */
  | { kind: 'quantity' }
  /** metav1.Time (a struct): `null` is the zero time, written as `null`; seconds precision, UTC. */
  | { kind: 'time' }
  /** metav1.MicroTime: like Time with microseconds. */
  | { kind: 'microtime' }
  | { kind: 'ptr'; elem: GoType }
  | { kind: 'slice'; elem: GoType }
  /** map[string]T: keys are written sorted. */
  | { kind: 'map'; elem: GoType }
  | { kind: 'struct'; fields: readonly GoField[] };

export interface GoField {
  /** The json tag name. */
  json: string;
  /** The Go field name: the key used by types without json tags (internal types). */
  go: string;
  type: GoType;
  omitempty: boolean;
}

export const goString: GoType = { kind: 'string' };
export const goInt32: GoType = { kind: 'int', bits: 32 };
export const goInt64: GoType = { kind: 'int', bits: 64 };
export const goQuantity: GoType = { kind: 'quantity' };
export const goTime: GoType = { kind: 'time' };
export const goMicroTime: GoType = { kind: 'microtime' };
export const goPtr = (elem: GoType): GoType => ({ kind: 'ptr', elem });
export const goSlice = (elem: GoType): GoType => ({ kind: 'slice', elem });
export const goMap = (elem: GoType): GoType => ({ kind: 'map', elem });
export const goStruct = (fields: readonly GoField[]): GoType => ({ kind: 'struct', fields });

/**
 * A struct field. The Go name defaults to the json name with its first letter
 * upper-cased, which is right for every untagged type converted here.
 */
export function field(json: string, type: GoType, opts: { omitempty?: boolean; go?: string } = {}): GoField {
  return { json, go: opts.go ?? json.charAt(0).toUpperCase() + json.slice(1), type, omitempty: opts.omitempty ?? false };
}

/** `field(..., {omitempty: true})`. */
export function optional(json: string, type: GoType, go?: string): GoField {
  return field(json, type, go === undefined ? { omitempty: true } : { omitempty: true, go });
}

export class GoDecodeError extends Error {}

export interface DecodeOptions {
  /**
   * encoding/json semantics (used for JSON kept in annotations): keys match
   * field names case-insensitively, and any type mismatch is an error.
   * Otherwise keys must match exactly and mismatched values decode as zero:
   * request bodies are checked elsewhere, and a conversion must not fail on
   * what the rest of the server accepted.
   */
  encodingJson: boolean;
  /** Match Go field names instead of json tags (types without json tags). */
  untagged?: boolean;
}

export function zeroValue(t: GoType): GoValue {
  switch (t.kind) {
    case 'string':
      return '';
    case 'int':
      return 0;
    case 'struct': {
      const out: Record<string, GoValue> = {};
      for (const f of t.fields) out[f.json] = zeroValue(f.type);
      return out;
    }
    default:
      return null;
  }
}

function mismatch(opts: DecodeOptions, what: string, zero: GoValue): GoValue {
  if (opts.encodingJson) throw new GoDecodeError(`cannot unmarshal ${what}`);
  return zero;
}

const INT_RANGE = { 32: [-(2 ** 31), 2 ** 31 - 1], 64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] } as const;

/**
 * Decodes a JSON value (already parsed) as the Go type `t`. JSON null leaves
 * the zero value, as in Go. Struct values get every field, so converters can
 * read them without checking for absence.
 */
export function decode(raw: unknown, t: GoType, opts: DecodeOptions): GoValue {
  if (raw === null || raw === undefined) return zeroValue(t);
  switch (t.kind) {
    case 'string':
      return typeof raw === 'string' ? raw : mismatch(opts, `${typeof raw} into string`, '');
    case 'int': {
      const [min, max] = INT_RANGE[t.bits];
      if (typeof raw === 'number' && Number.isInteger(raw) && raw >= min && raw <= max) return raw;
      return mismatch(opts, `${JSON.stringify(raw)} into int${t.bits}`, 0);
    }
    case 'quantity':
      // Quantity.UnmarshalJSON takes a quoted string or a bare number.
      if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
      if (typeof raw === 'string' && (!opts.encodingJson || quantityError(raw.trim()) === undefined)) return opts.encodingJson ? raw.trim() : raw;
      return mismatch(opts, `${JSON.stringify(raw)} into Quantity`, null);
    case 'time':
    case 'microtime':
      if (typeof raw === 'string' && (!opts.encodingJson || parseRfc3339(raw) !== undefined)) return raw;
      return mismatch(opts, `${JSON.stringify(raw)} into Time`, null);
    case 'ptr':
      return decode(raw, t.elem, opts);
    case 'slice':
      if (!Array.isArray(raw)) return mismatch(opts, `${typeof raw} into slice`, null);
      return raw.map((item) => decode(item, t.elem, opts));
    case 'map': {
      if (!isRecord(raw)) return mismatch(opts, `${typeof raw} into map`, null);
      const out: Record<string, GoValue> = {};
      for (const [k, v] of Object.entries(raw)) out[k] = decode(v, t.elem, opts);
      return out;
    }
    case 'struct': {
      if (!isRecord(raw)) return mismatch(opts, `${Array.isArray(raw) ? 'array' : typeof raw} into struct`, zeroValue(t));
      const out = zeroValue(t) as Record<string, GoValue>;
      // Keys are visited in document order, so the last key naming a field
      // wins, as when encoding/json assigns each key in turn.
      for (const [key, value] of Object.entries(raw)) {
        const f = findField(t.fields, key, opts);
        if (f) out[f.json] = decode(value, f.type, opts);
      }
      return out;
    }
  }
}

function findField(fields: readonly GoField[], key: string, opts: DecodeOptions): GoField | undefined {
  const nameOf = (f: GoField): string => (opts.untagged ? f.go : f.json);
  const exact = fields.find((f) => nameOf(f) === key);
  if (exact || !opts.encodingJson) return exact;
  // encoding/json falls back to a case-insensitive match.
  const folded = key.toLowerCase();
  return fields.find((f) => nameOf(f).toLowerCase() === folded);
}

/**
 * JSON as Go writes it: objects keep the order of their entries (struct
 * declaration order, or sorted keys for maps).
 */
export type OrderedJson = null | boolean | number | string | OrderedJson[] | OrderedObject;

export class OrderedObject {
  constructor(readonly entries: ReadonlyArray<readonly [string, OrderedJson]>) {}
}

function isEmptyValue(v: GoValue, t: GoType): boolean {
  switch (t.kind) {
    case 'string':
      return v === '';
    case 'int':
      return v === 0;
    case 'ptr':
      return v === null;
    case 'slice':
      return v === null || (v as unknown[]).length === 0;
    case 'map':
      return v === null || Object.keys(v as object).length === 0;
    default:
      // Structs (Quantity and Time included) are never empty for omitempty.
      return false;
  }
}

/** Encodes a Go value of type `t` as encoding/json would. */
export function encode(v: GoValue, t: GoType, opts: { untagged?: boolean } = {}): OrderedJson {
  switch (t.kind) {
    case 'string':
    case 'int':
      return v as string | number;
    case 'quantity':
      return v === null ? '0' : (v as string);
    case 'time':
      return v === null ? null : formatTime(v as string, false);
    case 'microtime':
      return v === null ? null : formatTime(v as string, true);
    case 'ptr':
      return v === null ? null : encode(v, t.elem, opts);
    case 'slice':
      return v === null ? null : (v as GoValue[]).map((item) => encode(item, t.elem, opts));
    case 'map': {
      if (v === null) return null;
      const m = v as Record<string, GoValue>;
      return new OrderedObject(
        Object.keys(m)
          .sort(compareGoStrings)
          .map((k) => [k, encode(m[k], t.elem, opts)] as const),
      );
    }
    case 'struct': {
      const s = v as Record<string, GoValue>;
      const entries: Array<readonly [string, OrderedJson]> = [];
      for (const f of t.fields) {
        const value = s[f.json] ?? zeroValue(f.type);
        // Untagged fields have no omitempty option.
        if (!opts.untagged && f.omitempty && isEmptyValue(value, f.type)) continue;
        entries.push([opts.untagged ? f.go : f.json, encode(value, f.type, opts)]);
      }
      return new OrderedObject(entries);
    }
  }
}

/** Go sorts map keys by their UTF-8 bytes; code point order is the same thing. */
function compareGoStrings(a: string, b: string): number {
  const ac = [...a];
  const bc = [...b];
  for (let i = 0; i < Math.min(ac.length, bc.length); i++) {
    const d = (ac[i]?.codePointAt(0) ?? 0) - (bc[i]?.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return ac.length - bc.length;
}

/** The plain JSON value (for API responses and stored objects). */
export function toPlain(v: OrderedJson): unknown {
  if (v instanceof OrderedObject) return Object.fromEntries(v.entries.map(([k, x]) => [k, toPlain(x)]));
  if (Array.isArray(v)) return v.map(toPlain);
  return v;
}

/**
 * The text json.Marshal writes: compact, with `<`, `>`, `&`, U+2028 and
 * U+2029 escaped (Go's HTML-safe default).
 */
export function marshalText(v: OrderedJson): string {
  if (v instanceof OrderedObject) return '{' + v.entries.map(([k, x]) => goJsonString(k) + ':' + marshalText(x)).join(',') + '}';
  if (Array.isArray(v)) return '[' + v.map(marshalText).join(',') + ']';
  if (typeof v === 'string') return goJsonString(v);
  return JSON.stringify(v);
}

interface ParsedTime {
  /** Milliseconds since the epoch of the whole seconds, UTC. */
  epochMs: number;
  /** Fractional-second digits as written. */
  fraction: string;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/** time.Parse(time.RFC3339Nano, s): undefined when Go would reject it. */
export function parseRfc3339(s: string): ParsedTime | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const d = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  if (d.getUTCDate() !== day) return undefined;
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return { epochMs: d.getTime() - offsetMinutes * 60_000, fraction: m[7] ?? '' };
}

/**
 * metav1.Time / MicroTime MarshalJSON: UTC, RFC 3339 with seconds (Time) or
 * exactly six fractional digits (MicroTime, truncated). Text Go could not
 * have parsed is passed through: the rest of the server accepted it.
 */
function formatTime(s: string, micro: boolean): string | null {
  const p = parseRfc3339(s);
  if (!p) return s;
  const iso = new Date(p.epochMs).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const seconds = iso.slice(0, 19);
  if (seconds === '0001-01-01T00:00:00' && !/[1-9]/.test(p.fraction)) return null; // the zero time is written as null
  return micro ? `${seconds}.${p.fraction.padEnd(6, '0').slice(0, 6)}Z` : `${seconds}Z`;
}
