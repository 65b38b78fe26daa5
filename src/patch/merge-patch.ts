/**
 * RFC 7386 JSON Merge Patch as kube-apiserver applies it
 * (gopkg.in/evanphx/json-patch.v4 MergePatch, called by the PATCH handler for
 * application/merge-patch+json). Behaviour beyond the RFC that clients can see:
 *
 * - a body that is not JSON, is `null`, or is a string/number/bool is rejected
 *   with "Invalid JSON Patch" (400);
 * - an array body replaces the document (null elements dropped);
 * - wherever a patch value is stored instead of merged, nulls inside it are
 *   pruned (object members removed, array elements dropped) — except when an
 *   object in the document is replaced by a non-object patch value, which is
 *   stored exactly as sent;
 * - a null in the document counts as absent.
 */

import { MergePatchError } from './errors.js';
import { JsonSyntaxError, decodeJson } from '../machinery/json-decode.js';
import { type JsonObject, type JsonValue, copyObject, deepEqual, getOwn, hasOwn, isJsonObject, setOwn } from '../machinery/json-value.js';

/**
 * Applies a merge patch to `doc` (JSON data). `patch` is preferably the
 * request body (string/bytes), so decoding failures get kube's answer; any
 * other value is taken as an already-decoded patch (to pass a decoded JSON
 * string use mergePatchValue).
 */
export function applyMergePatch(doc: unknown, patch: unknown): JsonValue {
  let decoded: JsonValue;
  if (typeof patch === 'string' || patch instanceof Uint8Array) {
    try {
      decoded = decodeJson(patch);
    } catch (err) {
      if (err instanceof JsonSyntaxError) throw new MergePatchError('Invalid JSON Patch');
      throw err;
    }
  } else {
    decoded = (patch ?? null) as JsonValue;
  }
  return mergePatchValue(doc as JsonValue, decoded);
}

/** Applies an already-decoded merge patch (doMergePatch without the decoding). */
export function mergePatchValue(doc: JsonValue, patch: JsonValue): JsonValue {
  // Checked in the library's order: a null document wins over a null patch.
  if (doc === null) throw new MergePatchError('Invalid JSON Document');
  if (patch === null) throw new MergePatchError('Invalid JSON Patch');
  if (isJsonObject(patch)) {
    if (isJsonObject(doc)) return mergeDocs(doc, patch);
    // The document is not an object: the patch becomes the document.
    return pruneDocNulls(patch);
  }
  if (Array.isArray(patch)) return pruneAryNulls(patch);
  throw new MergePatchError('Invalid JSON Patch');
}

function mergeDocs(doc: JsonObject, patch: JsonObject): JsonObject {
  const out = copyObject(doc);
  for (const key of Object.keys(patch)) {
    const v = patch[key] as JsonValue;
    if (v === null) {
      delete out[key];
      continue;
    }
    const cur = getOwn(doc, key);
    setOwn(out, key, cur === undefined || cur === null ? pruneNulls(v) : merge(cur, v));
  }
  return out;
}

function merge(cur: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(cur)) return pruneNulls(patch);
  if (!isJsonObject(patch)) return patch;
  return mergeDocs(cur, patch);
}

function pruneNulls(v: JsonValue): JsonValue {
  if (isJsonObject(v)) return pruneDocNulls(v);
  if (Array.isArray(v)) return pruneAryNulls(v);
  return v;
}

function pruneDocNulls(doc: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(doc)) {
    const v = doc[key] as JsonValue;
    if (v !== null) setOwn(out, key, pruneNulls(v));
  }
  return out;
}

function pruneAryNulls(ary: JsonValue[]): JsonValue[] {
  const out: JsonValue[] = [];
  for (const v of ary) if (v !== null) out.push(pruneNulls(v));
  return out;
}

/**
 * jsonpatch.CreateMergePatch for two objects: the patch that turns `original`
 * into `modified` (removed members → null, arrays replaced wholesale).
 */
export function createMergePatch(original: JsonObject, modified: JsonObject): JsonObject {
  const into: JsonObject = {};
  for (const key of Object.keys(modified)) {
    const bv = modified[key] as JsonValue;
    if (!hasOwn(original, key)) {
      setOwn(into, key, bv);
      continue;
    }
    const av = original[key] as JsonValue;
    if (isJsonObject(av) && isJsonObject(bv)) {
      const sub = createMergePatch(av, bv);
      if (Object.keys(sub).length > 0) setOwn(into, key, sub);
    } else if (!deepEqual(av, bv)) {
      setOwn(into, key, bv);
    }
  }
  for (const key of Object.keys(original)) {
    if (!hasOwn(modified, key)) setOwn(into, key, null);
  }
  return into;
}
