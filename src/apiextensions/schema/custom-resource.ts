/**
 * One served version of a custom resource, with its structural schema parsed
 * once: what kube's crdHandler does with a decoded object (unstructured
 * schema coercion: ObjectMeta decoding, pruning, null removal, embedded
 * metadata), its defaulter, and its strategy's schema validation.
 */

import { type FieldError, fieldErrorString } from '../../machinery/errors.js';
import { type JsonObject, type JsonValue, hasOwn, isJsonObject, setOwn } from '../../machinery/json-value.js';
import { applyDefaults, pruneNonNullableNulls } from './defaulting.js';
import { validateListSetsAndMaps } from './listtype.js';
import { type EmbeddedMetaValidator, coerceEmbedded, decodeObjectMeta, validateEmbeddedResources } from './objectmeta.js';
import { pruneUnknown } from './prune.js';
import { type Structural, parseStructural } from './structural.js';
import { ValidationRules } from './validation-rules.js';
import { validateValue, validateValueUpdate } from './value-validation.js';

export interface CoercedObject {
  readonly object: JsonObject;
  /** Paths of the fields dropped as unknown, in kube's order (root metadata, schema, embedded metadata); empty unless tracked. */
  readonly unknown: string[];
  /** Why the object cannot be decoded (ObjectMeta cannot hold its metadata, an embedded kind is not a string). */
  readonly error?: string;
}

export interface CustomResourceSchemaOptions {
  /** The CRD's spec.preserveUnknownFields (v1 forbids it being true, but stored v1beta1 CRDs may have it). */
  readonly preserveUnknownFields?: boolean;
}

export class CustomResourceSchema {
  readonly structural: Structural | undefined;
  private readonly hasDefaults: boolean;
  private readonly hasEmbedded: boolean;
  /** x-kubernetes-validations compiled on first use, then kept for the life of this version's schema. */
  #rules: ValidationRules | undefined;

  constructor(
    /** The version's openAPIV3Schema; undefined: no schema (everything preserved, nothing validated). */
    readonly raw: JsonObject | undefined,
    private readonly opts: CustomResourceSchemaOptions = {},
  ) {
    this.structural = raw === undefined ? undefined : parseStructural(raw);
    this.hasDefaults = this.structural !== undefined && some(this.structural, (n) => n.default !== undefined);
    this.hasEmbedded = this.structural !== undefined && some(this.structural, (n) => n.embeddedResource);
  }

  /** Whether pruning applies (a schema, and the CRD does not preserve unknown fields). */
  private get prunes(): boolean {
    return this.structural !== undefined && this.opts.preserveUnknownFields !== true;
  }

  /**
   * unstructuredSchemaCoercer.apply: metadata through ObjectMeta, unknown
   * fields pruned, non-nullable nulls without default dropped, embedded
   * resources' metadata coerced. `track`: collect the unknown paths
   * (fieldValidation Warn/Strict). `objectMeta: false` skips ObjectMeta,
   * the root's and embedded ones (objects read back from storage were
   * decoded on their way in).
   */
  coerce(obj: JsonObject, track: boolean, opts: { objectMeta?: boolean } = {}): CoercedObject {
    const unknown: string[] = [];
    let out: JsonObject = obj;
    if (opts.objectMeta !== false && hasOwn(obj, 'metadata')) {
      const d = decodeObjectMeta(obj.metadata as JsonValue, '', track);
      if (d.error !== undefined) return { object: obj, unknown: [], error: d.error };
      unknown.push(...d.unknown);
      if (d.meta !== obj.metadata) {
        out = { ...out };
        setOwn(out, 'metadata', d.meta);
      }
    }
    if (this.prunes) {
      const p = pruneUnknown(out, this.structural, true, track);
      unknown.push(...p.pruned);
      out = pruneNonNullableNulls(p.value, this.structural) as JsonObject;
    }
    if (this.structural !== undefined && opts.objectMeta !== false && this.hasEmbedded) {
      const c = coerceEmbedded(out, this.structural, track);
      if (c.error !== undefined) return { object: obj, unknown: [], error: fieldErrorString(c.error) };
      unknown.push(...c.unknown);
      out = c.value as JsonObject;
    }
    return { object: out, unknown };
  }

  /**
   * What kube's decoder makes of an object without fieldValidation: coerced
   * (unknown fields dropped silently; left as it is when it cannot be
   * decoded, which the request path reports) and defaulted. Never mutates
   * `obj`. `objectMeta: false` for objects read back from storage.
   */
  decode(obj: JsonObject, opts: { objectMeta?: boolean } = {}): JsonObject {
    const coerced = this.coerce(obj, false, opts);
    return this.default(coerced.error === undefined ? coerced.object : obj);
  }

  /** The object with the schema's defaults applied (the same reference when there are none to apply). */
  default(obj: JsonObject): JsonObject {
    if (!this.hasDefaults) return obj;
    const out = applyDefaults(obj, this.structural);
    return isJsonObject(out) ? out : obj;
  }

  /**
   * The strategy's schema checks, in kube's order: OpenAPI value validation,
   * embedded resources' TypeMeta/ObjectMeta, then list-type set/map uniqueness.
   */
  validate(obj: JsonObject, validateMeta: EmbeddedMetaValidator): FieldError[] {
    return this.check(obj, undefined, validateMeta);
  }

  /**
   * validate for an update: value errors of fields unchanged from `old` are
   * ratcheted away, as kube does by default; rule errors of unchanged values
   * go to `warn` instead (kube's warnings).
   */
  validateUpdate(obj: JsonObject, old: JsonObject, validateMeta: EmbeddedMetaValidator, warn?: (text: string) => void): FieldError[] {
    return this.check(obj, old, validateMeta, warn);
  }

  /** The schema's x-kubernetes-validations, compiled once. */
  get rules(): ValidationRules | undefined {
    if (this.structural === undefined) return undefined;
    return (this.#rules ??= new ValidationRules(this.structural));
  }

  private check(obj: JsonObject, old: JsonObject | undefined, validateMeta: EmbeddedMetaValidator, warn?: (text: string) => void): FieldError[] {
    if (this.raw === undefined || this.structural === undefined) return [];
    const errs = [
      ...(old === undefined ? validateValue(obj, this.raw) : validateValueUpdate(obj, old, this.raw)),
      ...validateEmbeddedResources('', obj, { ...this.structural, embeddedResource: false }, validateMeta),
      ...validateListSetsAndMaps('', this.structural, obj),
    ];
    const rules = this.rules;
    if (!rules || rules.empty) return errs;
    // kube's hasBlockingErr: rules are not run over values of the wrong type.
    if (errs.some((e) => e.type === 'FieldValueTypeInvalid')) {
      return [...errs, { type: 'FieldValueInvalid', field: '<nil>', value: 'null', detail: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' }];
    }
    return [...errs, ...rules.validate(obj, old, warn)];
  }
}

/** Whether any node of the schema satisfies `test`. */
function some(s: Structural, test: (n: Structural) => boolean): boolean {
  if (test(s)) return true;
  for (const p of s.properties.values()) if (some(p, test)) return true;
  if (s.items !== undefined && some(s.items, test)) return true;
  return s.additionalProperties !== undefined && s.additionalProperties !== true && some(s.additionalProperties, test);
}
