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
import { JsonSyntaxError, astToValue, parseJsonAst } from '../machinery/json-decode.js';
import type { OutOfRangeNumbers } from './out-of-range-numbers.js';
import { type JsonObject, type JsonValue, copyObject, deepEqual, getOwn, hasOwn, isJsonObject, setOwn } from '../machinery/json-value.js';

/**
 * Applies a merge patch to `doc` (JSON data). `patch` is preferably the
 * request body (string/bytes), so decoding failures get kube's answer; any
 * other value is taken as an already-decoded patch (to pass a decoded JSON
 * string use mergePatchValue). With `numbers`, literals beyond float64's
 * range travel as its placeholders (see out-of-range-numbers.ts).
 */
export function applyMergePatch(doc: unknown, patch: unknown, numbers?: OutOfRangeNumbers): JsonValue {
  let decoded: JsonValue;
  if (typeof patch === 'string' || patch instanceof Uint8Array) {
    try {
      const ast = parseJsonAst(patch);
      decoded = astToValue(numbers ? numbers.protect(ast) : ast);
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

/**
 * Merges without recursion (nesting is the client's to choose): each nested
 * object merge is queued with the output object it fills.
 */
function mergeDocs(doc: JsonObject, patch: JsonObject): JsonObject {
  const root = copyObject(doc);
  const work: Array<{ doc: JsonObject; patch: JsonObject; out: JsonObject }> = [{ doc, patch, out: root }];
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    for (const key of Object.keys(w.patch)) {
      const v = w.patch[key] as JsonValue;
      if (v === null) {
        delete w.out[key];
        continue;
      }
      const cur = getOwn(w.doc, key);
      if (cur === undefined || cur === null || !isJsonObject(cur)) {
        setOwn(w.out, key, pruneNulls(v));
      } else if (!isJsonObject(v)) {
        setOwn(w.out, key, v);
      } else {
        const out = copyObject(cur);
        setOwn(w.out, key, out);
        work.push({ doc: cur, patch: v, out });
      }
    }
  }
  return root;
}

/** A copy without null object members or array elements, at any depth (iteratively). */
function pruneNulls(v: JsonValue): JsonValue {
  if (!isJsonObject(v) && !Array.isArray(v)) return v;
  const work: Array<{ from: JsonObject | JsonValue[]; to: JsonObject | JsonValue[] }> = [];
  const start = (x: JsonValue): JsonValue => {
    if (!isJsonObject(x) && !Array.isArray(x)) return x;
    const to: JsonObject | JsonValue[] = Array.isArray(x) ? [] : {};
    work.push({ from: x, to });
    return to;
  };
  const root = start(v);
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    if (Array.isArray(w.from)) {
      for (const x of w.from) if (x !== null) (w.to as JsonValue[]).push(start(x));
    } else {
      for (const key of Object.keys(w.from)) {
        const x = w.from[key] as JsonValue;
        if (x !== null) setOwn(w.to as JsonObject, key, start(x));
      }
    }
  }
  return root;
}

function pruneDocNulls(doc: JsonObject): JsonObject {
  return pruneNulls(doc) as JsonObject;
}

function pruneAryNulls(ary: JsonValue[]): JsonValue[] {
  return pruneNulls(ary) as JsonValue[];
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
