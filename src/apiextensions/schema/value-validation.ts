/**
 * OpenAPI value validation of custom resources, as kube-apiserver runs it
 * with k8s.io/kube-openapi's SchemaValidator over the CRD version's schema
 * (unsupported formats stripped) and turns its result into field errors
 * (apiextensions validation.kubeOpenAPIResultToFieldErrors).
 *
 * Per schema node the validators run in kube-openapi's order: type,
 * allOf/oneOf/anyOf/not, string (lengths, pattern), format, number, array
 * (items first, then min/max items), enum, object (min/max properties,
 * properties, required). Messages are kube-openapi's (`spec.size in body
 * must be of type integer: "string"`); the field errors are kube's:
 * Required, NotSupported (enum), TooLong, TooMany, and Invalid for the rest,
 * and a combinator's own failure (`"spec.x" must validate one and only one
 * schema (oneOf). Found none valid`) is an Invalid value "" at the path
 * `<nil>` (the validator's nil root path) unless a path is given.
 *
 * Properties are visited in the schema's order (kube iterates a Go map, so
 * its order varies between runs).
 */

import { isDeepStrictEqual } from 'node:util';

import type { FieldError } from '../../machinery/errors.js';
import { formatFloatG, goJsonEncode } from '../../machinery/go-compat.js';
import { type JsonObject, type JsonValue, getOwn, hasOwn, isJsonObject } from '../../machinery/json-value.js';
import { formatCheck, supportedFormat } from './formats.js';

const IN = 'body';

type Code = 'type' | 'required' | 'tooLong' | 'tooShort' | 'pattern' | 'enum' | 'multipleOf' | 'max' | 'min' | 'unique' | 'maxItems' | 'minItems' | 'tooFewProperties' | 'tooManyProperties' | 'forbiddenProperty';

/** One error of kube-openapi's Result: a *errors.Validation, or a composite message (errors.New). */
type OpenApiError =
  | { readonly kind: 'validation'; readonly code: Code; readonly name: string; readonly value: unknown; readonly message: string; readonly values?: readonly JsonValue[]; readonly valid?: number }
  | { readonly kind: 'composite'; readonly message: string };

interface Result {
  errors: OpenApiError[];
  /** kube-openapi's MatchCount: how many checks passed, which picks the best failing alternative. */
  matchCount: number;
}

/**
 * Validates `value` against `schema` (a CRD version's openAPIV3Schema or a
 * node of it). `fldPath` prefixes the error paths, as ValidateCustomResource's
 * fldPath does; undefined is kube's nil path (custom resources).
 */
export function validateValue(value: JsonValue, schema: JsonObject, fldPath?: string): FieldError[] {
  const r = newResult();
  validateNode(schema, value, '', r, undefined);
  return toFieldErrors(r.errors, fldPath);
}

/**
 * An update's validation with kube's ratcheting (CRDValidationRatcheting, on
 * by default): errors of a value equal to the old object's correlated value
 * are dropped. Values correlate through properties, map keys and the items
 * of list-type map (by key) and set lists; atomic lists only as a whole.
 */
export function validateValueUpdate(value: JsonValue, old: JsonValue, schema: JsonObject, fldPath?: string): FieldError[] {
  const r = newResult();
  validateNode(schema, value, '', r, { value: old });
  return toFieldErrors(r.errors, fldPath);
}

/** The old value a node correlates with (undefined: none). */
type Old = { readonly value: JsonValue } | undefined;

function oldProperty(old: Old, key: string): Old {
  return old !== undefined && isJsonObject(old.value) && hasOwn(old.value, key) ? { value: old.value[key] as JsonValue } : undefined;
}

function oldItem(schema: JsonObject, old: Old, item: JsonValue): Old {
  if (old === undefined || !Array.isArray(old.value)) return undefined;
  const listType = getOwn(schema, 'x-kubernetes-list-type');
  if (listType === 'set') return old.value.some((o) => isDeepStrictEqual(o, item)) ? { value: item } : undefined;
  if (listType !== 'map' || !isJsonObject(item)) return undefined;
  const keysRaw = getOwn(schema, 'x-kubernetes-list-map-keys');
  const keys = Array.isArray(keysRaw) ? keysRaw.filter((k): k is string => typeof k === 'string') : [];
  const match = old.value.find((o) => isJsonObject(o) && keys.every((k) => hasOwn(o, k) === hasOwn(item, k) && isDeepStrictEqual(o[k], item[k])));
  return match === undefined ? undefined : { value: match };
}

function newResult(): Result {
  return { errors: [], matchCount: 0 };
}

function add(r: Result, e: OpenApiError): void {
  // kube-openapi's Result.AddErrors keeps one error per message.
  const msg = e.message;
  if (!r.errors.some((x) => x.message === msg)) r.errors.push(e);
}

function merge(into: Result, from: Result): void {
  for (const e of from.errors) add(into, e);
  into.matchCount += from.matchCount;
}

function typesOf(schema: JsonObject): string[] {
  if (getOwn(schema, 'x-kubernetes-int-or-string') === true) return ['integer', 'string'];
  const t = getOwn(schema, 'type');
  return typeof t === 'string' && t !== '' ? [t] : [];
}

function num(schema: JsonObject, key: string): number | undefined {
  const v = getOwn(schema, key);
  return typeof v === 'number' ? v : undefined;
}

/** The JSON type and Go format kube-openapi infers for decoded unstructured data. */
function dataType(v: JsonValue): [string, string] {
  if (typeof v === 'boolean') return ['boolean', ''];
  if (typeof v === 'string') return ['string', ''];
  if (typeof v === 'number') return Number.isInteger(v) ? ['integer', 'int64'] : ['number', 'float64'];
  if (Array.isArray(v)) return ['array', ''];
  return ['object', ''];
}

function invalidType(path: string, typeName: string, value: string): OpenApiError {
  return { kind: 'validation', code: 'type', name: path, value, message: `${path} in ${IN} must be of type ${typeName}: ${JSON.stringify(value)}` };
}

function validation(code: Code, path: string, value: unknown, message: string, extra: { values?: readonly JsonValue[]; valid?: number } = {}): OpenApiError {
  return { kind: 'validation', code, name: path, value, message: `${path} in ${IN} ${message}`, ...extra };
}

function validateNode(schema: JsonObject, data: JsonValue, path: string, r: Result, old: Old): void {
  // Ratcheting: an unchanged value keeps whatever it was (kube drops its errors).
  if (old !== undefined && isDeepStrictEqual(old.value, data)) {
    r.matchCount++;
    return;
  }
  const types = typesOf(schema);
  const format = supportedFormat(types.length === 1 ? (types[0] as string) : '', typeof getOwn(schema, 'format') === 'string' ? (getOwn(schema, 'format') as string) : '');
  if (data === null) {
    if (types.length > 0 || format !== '') {
      if (types.length > 0 && getOwn(schema, 'nullable') !== true) add(r, invalidType(path, types.join(','), 'null'));
    }
    validateEnum(schema, data, path, r);
    return;
  }
  const run = (f: () => void): void => {
    f();
    r.matchCount++;
  };
  if (types.length > 0 || format !== '') run(() => validateType(types, format, data, path, r));
  run(() => validateCombinators(schema, data, path, r, old));
  if (typeof data === 'string') {
    run(() => validateString(schema, data, path, r));
    const check = format !== '' ? formatCheck(format) : undefined;
    if (check !== undefined) run(() => {
      if (!check(data)) add(r, { kind: 'validation', code: 'type', name: path, value: data, message: `${path} in ${IN} must be of type ${format}: ${JSON.stringify(data)}` });
    });
  }
  if (typeof data === 'number') run(() => validateNumber(schema, data, path, r));
  if (Array.isArray(data)) run(() => validateArray(schema, data, path, r, old));
  run(() => validateEnum(schema, data, path, r));
  if (isJsonObject(data)) run(() => validateObject(schema, data, path, r, old));
  r.matchCount++;
}

function validateType(types: readonly string[], format: string, data: JsonValue, path: string, r: Result): void {
  const [schType, dataFormat] = dataType(data);
  const isString = typeof data === 'string';
  const isSlice = Array.isArray(data);
  const isFloatInt = schType === 'number' && Number.isInteger(data) && types.includes('integer');
  const isIntFloat = schType === 'integer' && types.includes('number');
  const isLowerInt = format === 'int64' && dataFormat === 'int32';
  const isLowerFloat = format === 'float64' && dataFormat === 'float32';
  if (!isString && !isSlice && format !== '' && !(types.includes(schType) || dataFormat === format || isFloatInt || isIntFloat || isLowerInt || isLowerFloat)) {
    add(r, invalidType(path, format, dataFormat));
    return;
  }
  if (!(types.includes('number') || types.includes('integer')) && format !== '' && (isString || isSlice)) return;
  if (!(types.includes(schType) || isFloatInt || isIntFloat)) add(r, invalidType(path, types.join(','), schType));
}

function subSchemas(schema: JsonObject, key: string): JsonObject[] {
  const v = getOwn(schema, key);
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

function validateCombinators(schema: JsonObject, data: JsonValue, path: string, r: Result, old: Old): void {
  const quoted = JSON.stringify(path);
  const anyOf = subSchemas(schema, 'anyOf');
  if (anyOf.length > 0) {
    let best: Result | undefined;
    let success: Result | undefined;
    for (const s of anyOf) {
      const sub = newResult();
      validateNode(s, data, path, sub, old);
      if (sub.errors.length === 0) {
        success = sub;
        best = undefined;
        break;
      }
      if (best === undefined || sub.matchCount > best.matchCount) best = sub;
    }
    if (success === undefined) add(r, { kind: 'composite', message: `${quoted} must validate at least one schema (anyOf)` });
    if (best !== undefined) merge(r, best);
    else if (success !== undefined) merge(r, success);
  }
  const oneOf = subSchemas(schema, 'oneOf');
  if (oneOf.length > 0) {
    let best: Result | undefined;
    let first: Result | undefined;
    let validated = 0;
    for (const s of oneOf) {
      const sub = newResult();
      validateNode(s, data, path, sub, old);
      if (sub.errors.length === 0) {
        validated++;
        best = undefined;
        first ??= sub;
        continue;
      }
      if (validated === 0 && (best === undefined || sub.matchCount > best.matchCount)) best = sub;
    }
    if (validated !== 1) {
      const extra = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      add(r, { kind: 'composite', message: `${quoted} must validate one and only one schema (oneOf). ${extra}` });
      if (best !== undefined) merge(r, best);
    } else if (first !== undefined) merge(r, first);
  }
  const allOf = subSchemas(schema, 'allOf');
  if (allOf.length > 0) {
    let validated = 0;
    for (const s of allOf) {
      const sub = newResult();
      validateNode(s, data, path, sub, old);
      if (sub.errors.length === 0) validated++;
      merge(r, sub);
    }
    if (validated !== allOf.length) add(r, { kind: 'composite', message: `${quoted} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}` });
  }
  const not = getOwn(schema, 'not');
  if (isJsonObject(not)) {
    const sub = newResult();
    validateNode(not, data, path, sub, old);
    if (sub.errors.length === 0) add(r, { kind: 'composite', message: `${quoted} must not validate the schema (not)` });
  }
}

/** Go's utf8.RuneCountInString. */
function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function validateString(schema: JsonObject, data: string, path: string, r: Result): void {
  const maxLength = num(schema, 'maxLength');
  const minLength = num(schema, 'minLength');
  const pattern = getOwn(schema, 'pattern');
  if (maxLength !== undefined || minLength !== undefined) {
    const n = runeCount(data);
    if (minLength !== undefined && n < minLength) {
      add(r, validation('tooShort', path, data, `should be at least ${minLength} chars long`));
      return;
    }
    if (maxLength !== undefined && n > maxLength) {
      add(r, validation('tooLong', path, data, `should be at most ${maxLength} chars long`, { valid: maxLength }));
      return;
    }
  }
  if (typeof pattern === 'string' && pattern !== '') {
    const re = compilePattern(pattern);
    if (re !== undefined && !re.test(data)) add(r, validation('pattern', path, data, `should match '${pattern}'`));
  }
}

const PATTERNS = new Map<string, RegExp | undefined>();

/** ECMA-262 patterns compiled once; one our engine cannot compile matches nothing (kube rejects it at CRD validation). */
function compilePattern(pattern: string): RegExp | undefined {
  if (!PATTERNS.has(pattern)) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      try {
        re = new RegExp(pattern);
      } catch {
        re = undefined;
      }
    }
    PATTERNS.set(pattern, re);
  }
  return PATTERNS.get(pattern);
}

/** %v of the bound: an int64 when the value is an integer (kube-openapi's native-type path), else a float64. */
function bound(b: number, data: number): string {
  return Number.isInteger(data) ? String(Math.trunc(b)) : formatFloatG(b);
}

function validateNumber(schema: JsonObject, data: number, path: string, r: Result): void {
  const multipleOf = num(schema, 'multipleOf');
  const maximum = num(schema, 'maximum');
  const minimum = num(schema, 'minimum');
  if (multipleOf !== undefined && multipleOf > 0) {
    const q = data / multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) add(r, validation('multipleOf', path, data, `should be a multiple of ${formatFloatG(multipleOf)}`));
  }
  if (maximum !== undefined) {
    const exclusive = getOwn(schema, 'exclusiveMaximum') === true;
    const b = Number.isInteger(data) ? Math.trunc(maximum) : maximum;
    if (exclusive ? data >= b : data > b) add(r, validation('max', path, data, `should be less than ${exclusive ? '' : 'or equal to '}${bound(maximum, data)}`));
  }
  if (minimum !== undefined) {
    const exclusive = getOwn(schema, 'exclusiveMinimum') === true;
    const b = Number.isInteger(data) ? Math.trunc(minimum) : minimum;
    if (exclusive ? data <= b : data < b) add(r, validation('min', path, data, `should be greater than ${exclusive ? '' : 'or equal to '}${bound(minimum, data)}`));
  }
}

function validateArray(schema: JsonObject, data: JsonValue[], path: string, r: Result, old: Old): void {
  const items = getOwn(schema, 'items');
  if (isJsonObject(items)) data.forEach((v, i) => validateNode(items, v, `${path}[${i}]`, r, oldItem(schema, old, v)));
  const minItems = num(schema, 'minItems');
  const maxItems = num(schema, 'maxItems');
  if (minItems !== undefined && data.length < minItems) add(r, validation('minItems', path, data.length, `should have at least ${minItems} items`));
  if (maxItems !== undefined && data.length > maxItems) add(r, validation('maxItems', path, data.length, `should have at most ${maxItems} items`, { valid: maxItems }));
  if (getOwn(schema, 'uniqueItems') === true) {
    const seen = new Set<string>();
    for (const v of data) {
      const k = goJsonEncode(v);
      if (seen.has(k)) {
        add(r, { kind: 'validation', code: 'unique', name: path, value: undefined, message: `${path} in ${IN} shouldn't contain duplicates` });
        break;
      }
      seen.add(k);
    }
  }
}

function validateEnum(schema: JsonObject, data: JsonValue, path: string, r: Result): void {
  const values = getOwn(schema, 'enum');
  if (!Array.isArray(values) || values.length === 0) return;
  const key = goJsonEncode(data);
  if (values.some((v) => goJsonEncode(v) === key)) return;
  add(r, { kind: 'validation', code: 'enum', name: path, value: data, values, message: `${path} in ${IN} should be one of [${values.map(goPrintV).join(' ')}]` });
}

/** fmt's %v of a decoded JSON value. */
function goPrintV(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : formatFloatG(v);
  if (Array.isArray(v)) return `[${v.map(goPrintV).join(' ')}]`;
  if (isJsonObject(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goPrintV(v[k] as JsonValue)}`).join(' ')}]`;
  return String(v);
}

function validateObject(schema: JsonObject, data: JsonObject, path: string, r: Result, old: Old): void {
  const n = Object.keys(data).length;
  const minProps = num(schema, 'minProperties');
  const maxProps = num(schema, 'maxProperties');
  if (minProps !== undefined && n < minProps) {
    add(r, validation('tooFewProperties', path, n, `should have at least ${minProps} properties`));
    return;
  }
  if (maxProps !== undefined && n > maxProps) {
    add(r, validation('tooManyProperties', path, n, `should have at most ${maxProps} properties`, { valid: maxProps }));
    return;
  }
  const properties = getOwn(schema, 'properties');
  const props = isJsonObject(properties) ? properties : {};
  const ap = getOwn(schema, 'additionalProperties');
  if (ap === false) {
    for (const k of Object.keys(data)) {
      if (!hasOwn(props, k)) add(r, { kind: 'validation', code: 'forbiddenProperty', name: path, value: k, message: `${path}.${k} in ${IN} is a forbidden property` });
    }
  } else if (isJsonObject(ap)) {
    for (const k of Object.keys(data)) if (!hasOwn(props, k)) validateNode(ap, data[k] as JsonValue, `${path}.${k}`, r, oldProperty(old, k));
  }
  for (const [k, ps] of Object.entries(props)) {
    if (!isJsonObject(ps) || !hasOwn(data, k)) continue;
    validateNode(ps, data[k] as JsonValue, path === '' ? k : `${path}.${k}`, r, oldProperty(old, k));
  }
  const required = getOwn(schema, 'required');
  if (Array.isArray(required)) {
    for (const k of required) {
      if (typeof k === 'string' && !hasOwn(data, k)) add(r, { kind: 'validation', code: 'required', name: `${path}.${k}`, value: undefined, message: `${path}.${k} in ${IN} is required` });
    }
  }
}

/** kubeOpenAPIResultToFieldErrors */
function toFieldErrors(errors: readonly OpenApiError[], fldPath: string | undefined): FieldError[] {
  const root = fldPath ?? '<nil>';
  return errors.map((e): FieldError => {
    if (e.kind === 'composite') return { type: 'FieldValueInvalid', field: root, value: '', detail: e.message };
    const name = e.name.startsWith('.') ? e.name.slice(1) : e.name;
    const field = name === '' ? root : fldPath === undefined ? name : `${fldPath}.${name}`;
    const value = e.value === undefined ? '' : e.value;
    switch (e.code) {
      case 'required':
        return { type: 'FieldValueRequired', field };
      case 'enum':
        return { type: 'FieldValueNotSupported', field, value, supported: (e.values ?? []).map((v) => (typeof v === 'string' ? v : goJsonEncode(v))) };
      case 'tooLong':
        return { type: 'FieldValueTooLong', field, value, detail: `may not be more than ${e.valid ?? -1} ${e.valid === 1 ? 'byte' : 'bytes'}` };
      case 'maxItems':
      case 'tooManyProperties':
        return { type: 'FieldValueTooMany', field, value: e.value, detail: `must have at most ${e.valid ?? -1} ${e.valid === 1 ? 'item' : 'items'}` };
      case 'type':
        return { type: 'FieldValueTypeInvalid', field, value, detail: e.message };
      default:
        return { type: 'FieldValueInvalid', field, value, detail: e.message };
    }
  });
}
