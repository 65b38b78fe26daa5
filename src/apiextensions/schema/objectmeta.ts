/**
 * TypeMeta and ObjectMeta of custom resources and of their embedded
 * resources (x-kubernetes-embedded-resource), as kube's
 * pkg/apiserver/schema/objectmeta handles them:
 *
 * - coercion (on every decode): metadata is decoded into ObjectMeta, so its
 *   unknown fields are dropped (and reported for fieldValidation as
 *   `unknown field "spec.template.metadata.foo"`), a value ObjectMeta cannot
 *   hold fails the decode, and an embedded apiVersion or kind must be a string;
 * - validation (in the strategy): an embedded resource needs apiVersion and
 *   kind, kind must be a DNS-1035 label in any case, and its metadata follows
 *   the ObjectMeta rules (the caller validates those: registry owns them).
 */

import { loadDefinitions } from '../../api/definitions.js';
import { SchemaModel } from '../../api/schema-model.js';
import type { FieldError } from '../../machinery/errors.js';
import { goJsonEncode } from '../../machinery/go-compat.js';
import { type JsonObject, type JsonValue, hasOwn, isJsonObject, setOwn } from '../../machinery/json-value.js';
import { isDns1035Label } from '../../machinery/name-validation.js';
import { type FieldType, fieldTypeFor, pruneUnknownFields, scanJson } from '../../validation/fields/index.js';
import { childPath, indexPath, keyPath } from './paths.js';
import { type Structural, additionalSchema } from './structural.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

let objectMetaType: FieldType | undefined;

/** ObjectMeta's Go type: only its fields survive a decode. */
function metaType(): FieldType {
  objectMetaType ??= fieldTypeFor(new SchemaModel(loadDefinitions()), OBJECT_META);
  if (objectMetaType === undefined) throw new Error('ObjectMeta is missing from the definitions');
  return objectMetaType;
}

export interface MetaDecode {
  /** The metadata as ObjectMeta holds it (unknown fields dropped). */
  readonly meta: JsonValue;
  /** `unknown field` paths, prefixed with `<parent>.metadata.`. */
  readonly unknown: string[];
  /** The decode error (`json: cannot unmarshal ...`), when ObjectMeta cannot hold the value. */
  readonly error?: string;
}

/** GetObjectMetaWithOptions: metadata (at `parent`, '' for the root) decoded strictly into ObjectMeta. */
export function decodeObjectMeta(meta: JsonValue, parent: string, track: boolean): MetaDecode {
  const t = metaType();
  const scan = scanJson(goJsonEncode(meta), t, { strict: track });
  if (scan.error !== undefined) return { meta, unknown: [], error: scan.error };
  const prefix = `${childPath(parent, 'metadata')}.`;
  const unknown = scan.strictErrors.filter((e) => e.startsWith('unknown field "')).map((e) => `${prefix}${e.slice('unknown field "'.length, -1)}`);
  return { meta: scan.unknownFields ? (pruneUnknownFields(meta, t) as JsonValue) : meta, unknown };
}

export interface CoerceResult {
  readonly value: JsonValue;
  /** Unknown metadata fields of embedded resources, sorted as kube sorts them. */
  readonly unknown: string[];
  /** A field error that fails the decode (kube's CoerceWithOptions error). */
  readonly error?: FieldError;
}

/** CoerceWithOptions below the root (the root's metadata is decodeObjectMeta's). Copy-on-write. */
export function coerceEmbedded(value: JsonValue, s: Structural | undefined, track: boolean): CoerceResult {
  const unknown: string[] = [];
  try {
    const out = coerce('', value, s, track, unknown);
    return { value: out, unknown: unknown.sort() };
  } catch (err) {
    if (err instanceof CoerceError) return { value, unknown: [], error: err.fieldError };
    throw err;
  }
}

class CoerceError extends Error {
  constructor(readonly fieldError: FieldError) {
    super(fieldError.detail ?? '');
  }
}

function coerce(path: string, x: JsonValue, s: Structural | undefined, track: boolean, unknown: string[]): JsonValue {
  if (s === undefined) return x;
  if (isJsonObject(x)) {
    let out: JsonObject | undefined;
    const ap = additionalSchema(s);
    for (const k of Object.keys(x)) {
      let v = x[k] as JsonValue;
      if (s.embeddedResource) {
        if ((k === 'apiVersion' || k === 'kind') && typeof v !== 'string') {
          throw new CoerceError({ type: 'FieldValueInvalid', field: childPath(path, k), value: v, detail: 'must be a string' });
        }
        if (k === 'metadata') {
          const d = decodeObjectMeta(v, path, track);
          unknown.push(...d.unknown);
          if (d.error !== undefined) throw new CoerceError({ type: 'FieldValueInvalid', field: childPath(path, 'metadata'), value: v, detail: d.error });
          const normalized = isJsonObject(d.meta) ? withoutEmptyFields(d.meta) : d.meta;
          if (normalized !== v) {
            v = normalized;
            setOwn((out ??= { ...x }), k, v);
          }
        }
      }
      const prop = s.properties.get(k);
      const sub = prop ?? ap;
      if (sub === undefined) continue;
      const nv = coerce(prop !== undefined ? childPath(path, k) : keyPath(path, k), v, sub, track, unknown);
      if (nv !== v) setOwn((out ??= { ...x }), k, nv);
    }
    return out ?? x;
  }
  if (Array.isArray(x)) {
    let out: JsonValue[] | undefined;
    x.forEach((v, i) => {
      const nv = coerce(indexPath(path, i), v, s.items, track, unknown);
      if (nv !== v) (out ??= x.slice())[i] = nv;
    });
    return out ?? x;
  }
  return x;
}

/**
 * ObjectMeta as kube writes it back (SetObjectMeta, then a zero
 * creationTimestamp removed): fields at their zero value are omitted
 * (omitempty), except deletionGracePeriodSeconds, a pointer.
 */
function withoutEmptyFields(meta: JsonObject): JsonObject {
  let out: JsonObject | undefined;
  for (const k of Object.keys(meta)) {
    const v = meta[k] as JsonValue;
    const empty = v === null || v === '' || (v === 0 && k !== 'deletionGracePeriodSeconds') || (Array.isArray(v) && v.length === 0) || (isJsonObject(v) && Object.keys(v).length === 0);
    if (!empty) continue;
    out ??= { ...meta };
    delete out[k];
  }
  return out ?? meta;
}

/** Checks an embedded resource's metadata with the ObjectMeta rules; errors carry paths under `<path>.metadata`. */
export type EmbeddedMetaValidator = (meta: JsonObject, path: string) => FieldError[];

/** objectmeta.Validate below the root: embedded resources' apiVersion, kind and metadata. */
export function validateEmbeddedResources(path: string, x: JsonValue, s: Structural | undefined, validateMeta: EmbeddedMetaValidator): FieldError[] {
  if (s === undefined) return [];
  const errs: FieldError[] = [];
  if (isJsonObject(x)) {
    if (s.embeddedResource) errs.push(...validateEmbedded(path, x, validateMeta));
    const ap = additionalSchema(s);
    for (const k of Object.keys(x)) {
      const prop = s.properties.get(k);
      if (prop !== undefined) errs.push(...validateEmbeddedResources(childPath(path, k), x[k] as JsonValue, prop, validateMeta));
      else if (ap !== undefined) errs.push(...validateEmbeddedResources(keyPath(path, k), x[k] as JsonValue, ap, validateMeta));
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => errs.push(...validateEmbeddedResources(indexPath(path, i), v, s.items, validateMeta)));
  }
  return errs;
}

/** schema.ParseGroupVersion's error, or undefined. */
function parseGroupVersionError(gv: string): string | undefined {
  const parts = gv.split('/');
  if (parts.length === 1 || (parts.length === 2 && gv !== '/')) return undefined;
  return `unexpected GroupVersion string: ${gv}`;
}

function validateEmbedded(path: string, x: JsonObject, validateMeta: EmbeddedMetaValidator): FieldError[] {
  const errs: FieldError[] = [];
  if (!hasOwn(x, 'apiVersion')) errs.push({ type: 'FieldValueRequired', field: childPath(path, 'apiVersion') });
  if (!hasOwn(x, 'kind')) errs.push({ type: 'FieldValueRequired', field: childPath(path, 'kind') });
  for (const k of Object.keys(x)) {
    const v = x[k] as JsonValue;
    const field = childPath(path, k);
    if (k === 'apiVersion') {
      if (typeof v !== 'string') errs.push({ type: 'FieldValueInvalid', field, value: v, detail: 'must be a string' });
      else if (v === '') errs.push({ type: 'FieldValueRequired', field });
      else {
        const e = parseGroupVersionError(v);
        if (e !== undefined) errs.push({ type: 'FieldValueInvalid', field, value: v, detail: e });
      }
    } else if (k === 'kind') {
      if (typeof v !== 'string') errs.push({ type: 'FieldValueInvalid', field, value: v, detail: 'must be a string' });
      else if (v === '') errs.push({ type: 'FieldValueRequired', field });
      else {
        const msgs = isDns1035Label(v.toLowerCase());
        if (msgs.length > 0) errs.push({ type: 'FieldValueInvalid', field, value: v, detail: `may have mixed case, but should otherwise match: ${msgs.join(',')}` });
      }
    } else if (k === 'metadata') {
      const d = decodeObjectMeta(v, path, false);
      if (d.error !== undefined || !isJsonObject(d.meta)) {
        errs.push({ type: 'FieldValueInvalid', field, value: v, detail: d.error ?? 'json: cannot unmarshal into Go value of type v1.ObjectMeta' });
      } else {
        const meta = { ...d.meta };
        if (typeof meta.name !== 'string' || meta.name === '') meta.name = 'fakename';
        errs.push(...validateMeta(meta, path));
      }
    }
  }
  return errs;
}
