/**
 * Small helpers for walking plain-JSON objects the way kube's generated
 * defaulters walk typed structs. Go's "unset" has three shapes here: a
 * missing key, an explicit null (a nil pointer) and a zero value ("" / 0 /
 * false for non-pointer fields), so each helper says which it means.
 */

import { isRecord as isObject } from '../../machinery/json.js';

export type JsonObject = Record<string, unknown>;

export { isObject };

/** A nested object, created (as Go's zero struct would be) when missing or null. */
export function ensureObject(o: JsonObject, key: string): JsonObject {
  const v = o[key];
  if (isObject(v)) return v;
  const created: JsonObject = {};
  o[key] = created;
  return created;
}

/** A nested object if present; undefined for missing, null or non-objects (a nil pointer). */
export function objectAt(o: JsonObject, key: string): JsonObject | undefined {
  const v = o[key];
  return isObject(v) ? v : undefined;
}

/** The object elements of a list field (non-objects are left for validation to reject). */
export function objectsAt(o: JsonObject, key: string): JsonObject[] {
  const v = o[key];
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** Pointer fields: nil is a missing key or null. */
export function isNil(v: unknown): boolean {
  return v === undefined || v === null;
}

/** String fields compared with "" in Go. */
export function isEmptyString(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/** Numeric value fields compared with 0 in Go. */
export function isZeroNumber(v: unknown): boolean {
  return v === undefined || v === null || v === 0;
}

/** Slices and maps tested with len(x) == 0 in Go. */
export function isEmptyCollection(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return true;
}

export function defaultPtr(o: JsonObject, key: string, value: unknown): void {
  if (isNil(o[key])) o[key] = value;
}

export function defaultString(o: JsonObject, key: string, value: string): void {
  if (isEmptyString(o[key])) o[key] = value;
}

export function defaultNumber(o: JsonObject, key: string, value: number): void {
  if (isZeroNumber(o[key])) o[key] = value;
}
