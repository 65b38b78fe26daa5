/**
 * Plain JSON value types shared by the catalog generator and the OpenAPI
 * builders. OpenAPI documents are handled as JSON trees rather than typed
 * classes: they are only ever transformed and serialized, never interpreted
 * field by field.
 */

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

/**
 * Whether a decoded JSON value is an object (not null, not an array): the
 * one test every layer uses before reading fields.
 */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isJsonObject(v: Json | undefined): v is JsonObject {
  return isRecord(v);
}

const canonicalMemo = new WeakMap<object, string>();

/**
 * Deterministic serialization with object keys sorted, for equality and
 * hashing. Memoized per object: callers must not mutate trees they compare.
 */
export function canonicalJson(v: Json): string {
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  const hit = canonicalMemo.get(v);
  if (hit !== undefined) return hit;
  let out: string;
  if (Array.isArray(v)) {
    out = '[' + v.map(canonicalJson).join(',') + ']';
  } else {
    const keys = Object.keys(v).sort();
    out = '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(v[k] as Json)).join(',') + '}';
  }
  canonicalMemo.set(v, out);
  return out;
}

/** Copy of a JSON tree with object keys sorted recursively (Go's encoding/json does this for maps). */
export function sortKeysDeep(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeysDeep(v[k] as Json);
    return out;
  }
  return v;
}
