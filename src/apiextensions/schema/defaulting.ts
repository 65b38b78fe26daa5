/**
 * Defaulting of custom resources from their structural schema, as kube's
 * pkg/apiserver/schema/defaulting does on every decode (requests and reads
 * from storage): a missing property with a default gets a copy of it, and so
 * does a null where the schema is not nullable; defaults apply inside lists
 * and maps and inside defaults just set. PruneNonNullableNullsWithoutDefaults
 * drops the nulls nothing can repair (non-nullable, no default), which kube
 * runs right after pruning.
 *
 * Both are copy-on-write: unchanged subtrees are shared, inputs never change.
 */

import { type JsonObject, type JsonValue, hasOwn, isJsonObject, setOwn } from '../../machinery/json-value.js';
import { type Structural, additionalSchema } from './structural.js';

function isNonNullableNull(x: JsonValue | undefined, s: Structural | undefined): boolean {
  return x === null && s !== undefined && !s.nullable;
}

/** A deep copy of a default (scalars, the common case, are shared: they are immutable). */
function copyOf(v: JsonValue): JsonValue {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copyOf);
  const out: JsonObject = {};
  for (const k of Object.keys(v)) setOwn(out, k, copyOf(v[k] as JsonValue));
  return out;
}

/** `x` with the schema's defaults applied (the same reference when nothing changed). */
export function applyDefaults(x: JsonValue, s: Structural | undefined): JsonValue {
  if (s === undefined) return x;
  if (isJsonObject(x)) {
    let out: JsonObject | undefined;
    const w = (): JsonObject => (out ??= { ...x });
    for (const [k, prop] of s.properties) {
      if (prop.default === undefined) continue;
      if (!hasOwn(x, k) || isNonNullableNull(x[k], prop)) setOwn(w(), k, copyOf(prop.default));
    }
    const cur = out ?? x;
    const ap = additionalSchema(s);
    for (const k of Object.keys(cur)) {
      const v = cur[k] as JsonValue;
      const prop = s.properties.get(k);
      let nv = v;
      if (prop !== undefined) nv = applyDefaults(v, prop);
      else if (ap !== undefined) {
        if (isNonNullableNull(v, ap) && ap.default !== undefined) nv = copyOf(ap.default);
        else nv = applyDefaults(v, ap);
      }
      if (nv !== v) setOwn(w(), k, nv);
    }
    return out ?? x;
  }
  if (Array.isArray(x)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < x.length; i++) {
      const v = x[i] as JsonValue;
      let nv = v;
      if (isNonNullableNull(v, s.items) && s.items?.default !== undefined) nv = copyOf(s.items.default);
      else nv = applyDefaults(v, s.items);
      if (nv !== v) (out ??= x.slice())[i] = nv;
    }
    return out ?? x;
  }
  return x;
}

/** `x` without null values where the schema is neither nullable nor defaulted. */
export function pruneNonNullableNulls(x: JsonValue, s: Structural | undefined): JsonValue {
  if (s === undefined) return x;
  if (isJsonObject(x)) {
    let out: JsonObject | undefined;
    const ap = additionalSchema(s);
    for (const k of Object.keys(x)) {
      const v = x[k] as JsonValue;
      const prop = s.properties.get(k) ?? ap;
      if (prop === undefined) continue;
      if (v === null && prop.default === undefined && !prop.nullable) {
        out ??= { ...x };
        delete out[k];
        continue;
      }
      const nv = pruneNonNullableNulls(v, prop);
      if (nv !== v) setOwn((out ??= { ...x }), k, nv);
    }
    return out ?? x;
  }
  if (Array.isArray(x)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < x.length; i++) {
      const v = x[i] as JsonValue;
      const nv = pruneNonNullableNulls(v, s.items);
      if (nv !== v) (out ??= x.slice())[i] = nv;
    }
    return out ?? x;
  }
  return x;
}
