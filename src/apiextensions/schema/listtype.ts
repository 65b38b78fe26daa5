/**
 * Uniqueness of x-kubernetes-list-type set and map lists, as kube's
 * pkg/apiserver/schema/listtype checks it in custom resource validation:
 * a set's repeated elements and a map list's repeated keys are each a
 * `Duplicate value` at the later index (once per distinct value).
 */

import type { FieldError } from '../../machinery/errors.js';
import { goJsonEncode } from '../../machinery/go-compat.js';
import { type JsonValue, hasOwn, isJsonObject } from '../../machinery/json-value.js';
import { type Structural, additionalSchema } from './structural.js';
import { indexPath, keyPath } from './paths.js';

export function validateListSetsAndMaps(path: string, s: Structural | undefined, obj: JsonValue): FieldError[] {
  if (s === undefined || !isJsonObject(obj)) return [];
  const errs: FieldError[] = [];
  const ap = additionalSchema(s);
  if (ap !== undefined) for (const k of Object.keys(obj)) errs.push(...validateValue(keyPath(path, k), ap, obj[k] as JsonValue));
  for (const k of Object.keys(obj)) {
    const sub = s.properties.get(k);
    if (sub !== undefined) errs.push(...validateValue(path === '' ? k : `${path}.${k}`, sub, obj[k] as JsonValue));
  }
  return errs;
}

function validateValue(path: string, s: Structural, v: JsonValue): FieldError[] {
  if (Array.isArray(v)) return validateArray(path, s, v);
  if (isJsonObject(v)) return validateListSetsAndMaps(path, s, v);
  return [];
}

function validateArray(path: string, s: Structural, list: JsonValue[]): FieldError[] {
  const errs: FieldError[] = [];
  if (s.listType === 'set') {
    for (const i of nonUnique(list)) errs.push({ type: 'FieldValueDuplicate', field: indexPath(path, i), value: list[i] });
  } else if (s.listType === 'map') {
    errs.push(...validateListMap(path, s, list));
  }
  if (s.items !== undefined) for (let i = 0; i < list.length; i++) errs.push(...validateValue(indexPath(path, i), s.items, list[i] as JsonValue));
  return errs;
}

/** Indices of the second appearance of each repeated value. */
function nonUnique(list: readonly (JsonValue | typeof UNSPECIFIED)[]): number[] {
  if (list.length <= 1) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  list.forEach((x, i) => {
    const id = x === UNSPECIFIED ? '\u0000unspecified' : typeof x === 'string' ? `s${x}` : `j${goJsonEncode(x)}`;
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

const UNSPECIFIED = Symbol('unspecified key');

function validateListMap(path: string, s: Structural, list: JsonValue[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i] as JsonValue;
    if (x !== null && !isJsonObject(x)) return [{ type: 'FieldValueInvalid', field: indexPath(path, i), value: x, detail: 'must be an object for an array of list-type map' }];
  }
  if (list.length <= 1) return [];
  if (s.listMapKeys.length === 1) {
    const keyField = s.listMapKeys[0] as string;
    const keys = list.map((x) => (isJsonObject(x) && hasOwn(x, keyField) ? (x[keyField] as JsonValue) : UNSPECIFIED));
    return nonUnique(keys).map((i) => {
      const k = keys[i] as JsonValue | typeof UNSPECIFIED;
      return { type: 'FieldValueDuplicate' as const, field: indexPath(path, i), value: k === UNSPECIFIED ? {} : { [keyField]: k } };
    });
  }
  const keys = list.map((x) => {
    const key: Record<string, JsonValue> = {};
    if (isJsonObject(x)) for (const f of s.listMapKeys) if (hasOwn(x, f)) key[f] = x[f] as JsonValue;
    return key;
  });
  return nonUnique(keys).map((i) => ({ type: 'FieldValueDuplicate' as const, field: indexPath(path, i), value: keys[i] }));
}
