/**
 * What survives kube-apiserver's decode into Go structs: every field the
 * struct does not declare is gone, at any depth. kube never stores unknown
 * fields of built-in types (there are no x-kubernetes-preserve-unknown-fields
 * in them), whatever the validation level; raw types (RawExtension, FieldsV1,
 * apiextensions JSON) keep their contents untouched.
 *
 * pruneUnknownFields works on the value the body decoded to and shares every
 * subtree it does not change, so the common case (nothing unknown) allocates
 * nothing. decodeLikeGo is the slow path for bodies where a key repeats with
 * objects as values: Go decodes the second object into the first (struct
 * fields merge, maps keep earlier entries, list elements are reused) where
 * JSON.parse keeps only the last.
 */

import { type JsonAst, astToValue, parseJsonAst } from '../../machinery/json-decode.js';
import { type JsonObject, type JsonValue, isJsonObject as isObject, setOwn } from '../../machinery/json-value.js';
import { zeroesNull } from './json-scan.js';
import { type FieldType, Kind, STRING, listOf } from './schema.js';

/** The value with every field its Go type does not declare removed; unchanged subtrees are shared. */
export function pruneUnknownFields(value: unknown, t: FieldType): unknown {
  switch (t.kind) {
    case Kind.Struct:
      return isObject(value) ? pruneStruct(value, t) : value;
    case Kind.Map:
      return isObject(value) ? pruneMap(value, t.elem) : value;
    case Kind.List:
      return Array.isArray(value) ? pruneList(value, t.elem) : value;
    case Kind.SchemaOrArray:
      if (Array.isArray(value)) return pruneList(value, t.elem);
      return isObject(value) ? pruneStruct(value, t.elem) : value;
    case Kind.SchemaOrBool:
    case Kind.SchemaOrStringArray:
      return isObject(value) ? pruneStruct(value, t.elem) : value;
    default:
      return value;
  }
}

function pruneStruct(obj: JsonObject, t: FieldType): JsonObject {
  const keys = Object.keys(obj);
  let out: JsonObject | undefined;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    const v = obj[key] as JsonValue;
    const f = t.field(key);
    let nv: unknown = v;
    if (f === undefined) {
      if (!t.preserveUnknown) {
        out ??= copyPrefix(obj, keys, k);
        continue;
      }
    } else {
      nv = pruneUnknownFields(v, f);
    }
    if (out === undefined && nv !== v) out = copyPrefix(obj, keys, k);
    if (out !== undefined) setOwn(out, key, nv as JsonValue);
  }
  return out ?? obj;
}

function pruneMap(obj: JsonObject, elem: FieldType): JsonObject {
  if (!canHoldUnknown(elem)) return obj;
  const keys = Object.keys(obj);
  let out: JsonObject | undefined;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    const v = obj[key] as JsonValue;
    const nv = pruneUnknownFields(v, elem);
    if (out === undefined && nv !== v) out = copyPrefix(obj, keys, k);
    if (out !== undefined) setOwn(out, key, nv as JsonValue);
  }
  return out ?? obj;
}

function pruneList(list: readonly unknown[], elem: FieldType): readonly unknown[] {
  if (!canHoldUnknown(elem)) return list;
  let out: unknown[] | undefined;
  for (let k = 0; k < list.length; k++) {
    const v = list[k];
    const nv = pruneUnknownFields(v, elem);
    if (out === undefined && nv !== v) out = list.slice(0, k);
    if (out !== undefined) out.push(nv);
  }
  return out ?? list;
}

/** Whether values of this type can contain fields to drop (skips walking maps of strings and the like). */
function canHoldUnknown(t: FieldType): boolean {
  switch (t.kind) {
    case Kind.Struct:
    case Kind.SchemaOrArray:
    case Kind.SchemaOrBool:
    case Kind.SchemaOrStringArray:
      return true;
    case Kind.Map:
    case Kind.List:
      return canHoldUnknown(t.elem);
    default:
      return false;
  }
}

function copyPrefix(obj: JsonObject, keys: readonly string[], end: number): JsonObject {
  const out: JsonObject = {};
  for (let k = 0; k < end; k++) {
    const key = keys[k] as string;
    setOwn(out, key, obj[key] as JsonValue);
  }
  return out;
}

/** The zero value encoding/json leaves in a slice element or map value it decoded from null. */
function zeroOf(t: FieldType): JsonValue {
  switch (t.kind) {
    case Kind.Struct:
      return {};
    case Kind.String:
      return '';
    case Kind.Bool:
      return false;
    case Kind.Quantity:
      return '0';
    default:
      return 0;
  }
}

/**
 * The value with every null list element and map value that Go decodes into
 * a zero value replaced by it (`ports: [null]` is one ServicePort with every
 * field unset, `finalizers: [null]` one empty name), as kube stores and
 * validates them; unchanged subtrees are shared.
 */
export function zeroNullElements(value: unknown, t: FieldType): unknown {
  switch (t.kind) {
    case Kind.Struct: {
      if (!isObject(value)) return value;
      let out: JsonObject | undefined;
      const keys = Object.keys(value);
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k] as string;
        const f = t.field(key);
        const v = value[key] as JsonValue;
        const nv = f === undefined ? v : zeroNullElements(v, f);
        if (out === undefined && nv !== v) out = copyPrefix(value, keys, k);
        if (out !== undefined) setOwn(out, key, nv as JsonValue);
      }
      return out ?? value;
    }
    case Kind.Map: {
      if (!isObject(value)) return value;
      let out: JsonObject | undefined;
      const keys = Object.keys(value);
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k] as string;
        const v = value[key] as JsonValue;
        const nv = v === null && zeroesNull(t.elem) ? zeroOf(t.elem) : zeroNullElements(v, t.elem);
        if (out === undefined && nv !== v) out = copyPrefix(value, keys, k);
        if (out !== undefined) setOwn(out, key, nv as JsonValue);
      }
      return out ?? value;
    }
    case Kind.List: {
      if (!Array.isArray(value)) return value;
      let out: unknown[] | undefined;
      for (let k = 0; k < value.length; k++) {
        const v: unknown = value[k];
        const nv = v === null && zeroesNull(t.elem) ? zeroOf(t.elem) : zeroNullElements(v, t.elem);
        if (out === undefined && nv !== v) out = value.slice(0, k);
        if (out !== undefined) out.push(nv);
      }
      return out ?? value;
    }
    default:
      return value;
  }
}

/**
 * Decodes JSON text the way encoding/json decodes it into the Go type:
 * repeated keys decode into what the earlier occurrence left, unknown fields
 * are dropped. Only needed when a body repeats a key with object values.
 */
export function decodeLikeGo(text: string, t: FieldType): unknown {
  return decodeInto(undefined, parseJsonAst(text), t);
}

function decodeInto(prev: JsonValue | undefined, ast: JsonAst, t: FieldType): JsonValue {
  switch (t.kind) {
    case Kind.Struct: {
      if (ast.kind !== 'object') return astToValue(ast);
      const out: JsonObject = {};
      if (isObject(prev)) for (const k of Object.keys(prev)) setOwn(out, k, prev[k] as JsonValue);
      for (const [key, child] of ast.members) {
        const f = t.field(key);
        if (f === undefined) {
          if (t.preserveUnknown) setOwn(out, key, astToValue(child));
          continue;
        }
        const before = Object.prototype.hasOwnProperty.call(out, key) ? out[key] : undefined;
        setOwn(out, key, decodeInto(before, child, f));
      }
      return out;
    }
    case Kind.Map: {
      if (ast.kind !== 'object') return astToValue(ast);
      // Go keeps the entries an earlier occurrence of the map put there; each element is decoded afresh.
      const out: JsonObject = {};
      if (isObject(prev)) for (const k of Object.keys(prev)) setOwn(out, k, prev[k] as JsonValue);
      for (const [key, child] of ast.members) setOwn(out, key, decodeInto(undefined, child, t.elem));
      return out;
    }
    case Kind.List: {
      if (ast.kind !== 'array') return astToValue(ast);
      // encoding/json reuses the slice's existing elements, so struct elements merge by index.
      const before = Array.isArray(prev) ? prev : [];
      return ast.items.map((item, i) => decodeInto(before[i], item, t.elem));
    }
    case Kind.SchemaOrArray:
      if (ast.kind === 'object') return decodeInto(undefined, ast, t.elem);
      if (ast.kind === 'array') return decodeInto(undefined, ast, listOf(t.elem));
      return astToValue(ast);
    case Kind.SchemaOrBool:
      return ast.kind === 'object' ? decodeInto(undefined, ast, t.elem) : astToValue(ast);
    case Kind.SchemaOrStringArray:
      if (ast.kind === 'object') return decodeInto(undefined, ast, t.elem);
      return ast.kind === 'array' ? decodeInto(undefined, ast, listOf(STRING)) : astToValue(ast);
    default:
      return astToValue(ast);
  }
}
