/**
 * Safe readers over the plain JSON of served objects. Printers read many
 * optional fields; these return Go's zero value for anything absent or of the
 * wrong JSON type, which is what kube's printers see after decoding.
 */

import { isRecord } from '../../machinery/json.js';

export type JsonRecord = Record<string, unknown>;

const EMPTY: JsonRecord = Object.freeze({}) as JsonRecord;

export { isRecord };

/** The object, or an empty one (a nil struct pointer reads as zero fields). */
export function rec(v: unknown): JsonRecord {
  return isRecord(v) ? v : EMPTY;
}

/** The object, or undefined: for the `x != nil` tests of pointer fields. */
export function optRec(v: unknown): JsonRecord | undefined {
  return isRecord(v) ? v : undefined;
}

export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function recs(v: unknown): JsonRecord[] {
  return list(v).map(rec);
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** An integer field (int32/int64); non-numbers read as 0. */
export function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0;
}

export function bool(v: unknown): boolean {
  return v === true;
}

/** Whether a pointer field is set (JSON null is Go's nil). */
export function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

export function strings(v: unknown): string[] {
  return list(v).map(str);
}

/** A string map such as labels or a selector; non-string values read as "". */
export function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(rec(v))) out[k] = str(val);
  return out;
}
