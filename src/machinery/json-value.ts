/**
 * Plain JSON values as the patch engines see them, plus the few helpers every
 * engine needs to treat them as immutable and to survive hostile keys
 * (`__proto__` must stay an ordinary own property, never a prototype switch).
 */

import { jsonEqual } from './deep-json.js';
import { isRecord } from './json.js';
import { cloneObject } from './object.js';

export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

const hasOwnProperty = Object.prototype.hasOwnProperty;

export function isJsonObject(v: unknown): v is JsonObject {
  return isRecord(v);
}

export function hasOwn(obj: JsonObject, key: string): boolean {
  return hasOwnProperty.call(obj, key);
}

/** The own value under `key`, or undefined; never a prototype member. */
export function getOwn(obj: JsonObject, key: string): JsonValue | undefined {
  return hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/** Assigns an own property even for `__proto__`, which `obj[key] = v` would not. */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** A shallow copy that keeps `__proto__` keys as data. */
export function copyObject(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(obj)) setOwn(out, key, obj[key] as JsonValue);
  return out;
}

export function deepCopy(v: JsonValue): JsonValue {
  return cloneObject(v);
}

/** Structural equality (object key order ignored), as reflect.DeepEqual on decoded JSON. */
export function deepEqual(a: JsonValue, b: JsonValue): boolean {
  return jsonEqual(a, b);
}
