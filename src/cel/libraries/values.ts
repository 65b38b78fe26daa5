import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';

import { libraryError } from './errors.js';

/**
 * Runtime values as cel-js represents them: int is bigint, uint is
 * UnsignedInt, double is number, bytes Uint8Array, timestamp Date, duration
 * Duration, list Array (or Set), map Map or plain object.
 */
export type CelValue = unknown;

export const INT64_MAX = (1n << 63n) - 1n;
export const INT64_MIN = -(1n << 63n);

/** A string's code points: CEL indexes strings by code point, JavaScript by UTF-16 unit. */
export function codePoints(s: string): string[] {
  return Array.from(s);
}

export function toList(v: CelValue): CelValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof Set) return [...v];
  throw libraryError('no such overload');
}

/** CEL's type name of a runtime value (cel-go's TypeName()), for error texts. */
export function celTypeName(v: CelValue): string {
  if (v === null) return 'null_type';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
  }
  if (v instanceof UnsignedInt) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Date) return 'google.protobuf.Timestamp';
  if (v instanceof Duration) return 'google.protobuf.Duration';
  if (Array.isArray(v) || v instanceof Set) return 'list';
  if (v instanceof Optional) return 'optional_type';
  if (v instanceof Map || (typeof v === 'object' && (v as object).constructor === Object)) return 'map';
  const tag = (v as { celTypeName?: string }).celTypeName;
  return tag ?? 'object';
}

/** A number-like value (int, uint, double) as a comparable JS value, or undefined. */
function numeric(v: CelValue): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof UnsignedInt) return v.valueOf();
  return undefined;
}

function durationNanos(d: Duration): bigint {
  return d.seconds * 1_000_000_000n + BigInt(d.nanos);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Code-point order of two strings (Go compares UTF-8 bytes, which orders the same). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const x = codePoints(a);
  const y = codePoints(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const c = x[i]!.codePointAt(0)!;
    const d = y[i]!.codePointAt(0)!;
    if (c !== d) return c < d ? -1 : 1;
  }
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

/**
 * cel-go's Compare for the comparable types (numbers across int, uint and
 * double as CrossTypeNumericComparisons has it), or undefined when the two
 * values do not compare.
 */
export function compareValues(a: CelValue, b: CelValue): number | undefined {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) {
    if (typeof x === 'number' && Number.isNaN(x)) return undefined;
    if (typeof y === 'number' && Number.isNaN(y)) return undefined;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Duration && b instanceof Duration) {
    const d = durationNanos(a) - durationNanos(b);
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && a.constructor === b.constructor) {
    const cmp = (a as { compareTo?: (o: unknown) => number | undefined }).compareTo;
    if (typeof cmp === 'function') return cmp.call(a, b);
  }
  return undefined;
}

/** CEL equality of runtime values (heterogeneous: numbers compare across types, other kinds never equal). */
export function celEquals(a: CelValue, b: CelValue): boolean {
  if (a === b) return true;
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return x == y; // eslint-disable-line eqeqeq
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b) === 0;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Duration && b instanceof Duration) return durationNanos(a) === durationNanos(b);
  if ((Array.isArray(a) || a instanceof Set) && (Array.isArray(b) || b instanceof Set)) {
    const l = toList(a);
    const r = toList(b);
    return l.length === r.length && l.every((v, i) => celEquals(v, r[i]));
  }
  if (isMapValue(a) && isMapValue(b)) {
    const l = mapEntries(a);
    const r = mapEntries(b);
    if (l.length !== r.length) return false;
    return l.every(([k, v]) => {
      const other = r.find(([k2]) => celEquals(k, k2));
      return other !== undefined && celEquals(v, other[1]);
    });
  }
  const eq = (a as { equals?: (o: unknown) => boolean }).equals;
  if (typeof eq === 'function' && a.constructor === b.constructor) return eq.call(a, b);
  return false;
}

export function isMapValue(v: CelValue): v is Map<unknown, unknown> | Record<string, unknown> {
  return v instanceof Map || (typeof v === 'object' && v !== null && (v as object).constructor === Object);
}

export function mapEntries(v: Map<unknown, unknown> | Record<string, unknown>): Array<[unknown, unknown]> {
  return v instanceof Map ? [...v.entries()] : Object.entries(v);
}

/** Checked int64 arithmetic as cel-go does it. */
export function checkedInt(v: bigint): bigint {
  if (v > INT64_MAX || v < INT64_MIN) throw libraryError('integer overflow');
  return v;
}
