/**
 * Pruning of fields a structural schema does not specify, as kube's
 * pkg/apiserver/schema/pruning does for custom resources: unknown object
 * fields are dropped at every depth unless x-kubernetes-preserve-unknown-fields
 * keeps them; apiVersion, kind and metadata of the resource root and of
 * embedded resources are left to the ObjectMeta coercion (objectmeta.ts).
 *
 * Copy-on-write: unchanged subtrees are shared and nothing is mutated, so
 * values shared with a stored object stay intact. The pruned paths are those
 * kube reports as `unknown field "<path>"` for fieldValidation Warn/Strict.
 */

import { type JsonObject, type JsonValue, isJsonObject, setOwn } from '../../machinery/json-value.js';
import { type Structural, additionalSchema, asResourceRoot } from './structural.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

export interface PruneResult {
  readonly value: JsonValue;
  /** The removed fields' paths (`spec.foo`, `spec.list[0].bar`), in document order. */
  readonly pruned: string[];
}

/** Prunes `value` against `s`; `isResourceRoot` treats the top as a resource (its apiVersion/kind/metadata are kept). */
export function pruneUnknown(value: JsonValue, s: Structural | undefined, isResourceRoot: boolean, track = true): PruneResult {
  const pruned: string[] = [];
  const out = prune(value, isResourceRoot ? asResourceRoot(s) : s, track ? '' : UNTRACKED, pruned, 0);
  return { value: out, pruned };
}

/** The path of untracked walks: no strings are built, nothing is reported. */
const UNTRACKED = '\u0000';

function childPath(path: string, key: string): string {
  if (path === UNTRACKED) return path;
  return path === '' ? key : `${path}.${key}`;
}

function indexed(path: string, i: number): string {
  return path === UNTRACKED ? path : `${path}[${i}]`;
}

/** `depth`: path elements so far, as kube's parentPath length (meta keys one level down are dropped silently). */
function prune(x: JsonValue, s: Structural | undefined, path: string, pruned: string[], depth: number): JsonValue {
  if (s?.preserveUnknownFields) return skipPrune(x, s, path, pruned, depth);
  if (isJsonObject(x)) {
    const keys = Object.keys(x);
    let out: JsonObject | undefined;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const v = x[k] as JsonValue;
      let nv: JsonValue | undefined = v;
      if (s !== undefined && s.embeddedResource && META_FIELDS.has(k)) {
        // kept as is
      } else {
        const p = childPath(path, k);
        const prop = s?.properties.get(k);
        if (s !== undefined && prop !== undefined) nv = prune(v, prop, p, pruned, depth + 1);
        else if (s !== undefined && s.additionalProperties !== undefined) nv = prune(v, additionalSchema(s), p, pruned, depth + 1);
        else {
          if (p !== UNTRACKED && (s === undefined || !META_FIELDS.has(k) || depth + 1 > 1)) pruned.push(p);
          nv = undefined;
        }
      }
      if (out === undefined && nv !== v) out = copyPrefix(x, keys, i);
      if (out !== undefined && nv !== undefined) setOwn(out, k, nv);
    }
    return out ?? x;
  }
  if (Array.isArray(x)) return pruneList(x, s?.items, path, pruned, depth, prune);
  return x;
}

function skipPrune(x: JsonValue, s: Structural, path: string, pruned: string[], depth: number): JsonValue {
  if (isJsonObject(x)) {
    const keys = Object.keys(x);
    let out: JsonObject | undefined;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const v = x[k] as JsonValue;
      let nv = v;
      if (!(s.embeddedResource && META_FIELDS.has(k))) {
        const prop = s.properties.get(k);
        if (prop !== undefined) nv = prune(v, prop, childPath(path, k), pruned, depth + 1);
        else if (s.additionalProperties !== undefined) nv = prune(v, additionalSchema(s), childPath(path, k), pruned, depth + 1);
      }
      if (out === undefined && nv !== v) out = copyPrefix(x, keys, i);
      if (out !== undefined) setOwn(out, k, nv);
    }
    return out ?? x;
  }
  if (Array.isArray(x)) {
    return pruneList(x, s.items, path, pruned, depth, prune);
  }
  return x;
}

type Walk = (x: JsonValue, s: Structural | undefined, path: string, pruned: string[], depth: number) => JsonValue;

function pruneList(list: JsonValue[], items: Structural | undefined, path: string, pruned: string[], depth: number, walk: Walk): JsonValue {
  let out: JsonValue[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const v = list[i] as JsonValue;
    const nv = walk(v, items, indexed(path, i), pruned, depth + 1);
    if (out === undefined && nv !== v) out = list.slice(0, i);
    if (out !== undefined) out.push(nv);
  }
  return out ?? list;
}

function copyPrefix(obj: JsonObject, keys: readonly string[], end: number): JsonObject {
  const out: JsonObject = {};
  for (let i = 0; i < end; i++) setOwn(out, keys[i] as string, obj[keys[i] as string] as JsonValue);
  return out;
}
