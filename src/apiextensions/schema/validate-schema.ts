/**
 * Validation of a CRD version's openAPIV3Schema, with kube's messages and
 * field paths (apiextensions validation.go validateCustomResourceDefinitionValidation,
 * pkg/apiserver/schema validation.go/complete.go, defaulting/validation.go):
 *
 * 1. root rules: `nullable` not at the root; with the status subresource,
 *    only some keys at the root;
 * 2. structural schema: ValidateStructural's invariants and completeness
 *    (sorted by message, as kube sorts them), then, only when those pass,
 *    the defaults: pruned, valid metadata, valid against their own schema;
 * 3. the OpenAPI v3 subset CRDs accept: forbidden keywords, types, the
 *    x-kubernetes-* extensions and their combinations, list-map keys,
 *    x-kubernetes-validations' fields (the rules' CEL is checked elsewhere).
 *
 * Properties are visited in the schema's order (kube walks Go maps).
 */

import { type FieldError, fieldErrorString } from '../../machinery/errors.js';
import { goJson, goStruct } from '../../machinery/field-value.js';
import { internalSchemaJson } from './internal-json.js';
import { goJsonString } from '../../machinery/go-compat.js';
import { type JsonObject, type JsonValue, getOwn, hasOwn, isJsonObject } from '../../machinery/json-value.js';
import { coerceEmbedded, validateEmbeddedResources } from './objectmeta.js';
import { childPath, indexPath, keyPath } from './paths.js';
import { pruneUnknown } from './prune.js';
import { type Structural, parseStructural } from './structural.js';
import { validateValue } from './value-validation.js';

export interface CustomResourceSchemaValidationOptions {
  /** The version (or the CRD) has the status subresource: the root may hold only some keys. */
  readonly statusSubresource?: boolean;
  /** Defaults allowed (v1: true); the rules below hold for v1 CRDs unless an update ratchets them off. */
  readonly allowDefaults?: boolean;
  readonly requireStructuralSchema?: boolean;
  readonly requirePrunedDefaults?: boolean;
  readonly requireAtomicSetType?: boolean;
  readonly requireMapListKeysMapSetValidation?: boolean;
  readonly requireValidPropertyType?: boolean;
}

/** Keys allowed at the root of a schema whose version has the status subresource (kube's allowedFieldsAtRootSchema, by JSON name). */
const ALLOWED_AT_ROOT_WITH_STATUS = [
  'description', 'type', 'format', 'title', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems',
  'uniqueItems', 'multipleOf', 'required', 'items', 'properties', 'externalDocs', 'example', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-validations',
];
const ALLOWED_AT_ROOT_GO = '[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]';
const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const VALIDATION_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/**
 * The errors of a CRD version's openAPIV3Schema at `fldPath` (e.g.
 * `spec.versions[0].schema.openAPIV3Schema`); empty when the schema is valid.
 */
export function validateCustomResourceSchema(schema: JsonObject, fldPath: string, opts: CustomResourceSchemaValidationOptions = {}): FieldError[] {
  const o = {
    allowDefaults: opts.allowDefaults ?? true,
    requireStructuralSchema: opts.requireStructuralSchema ?? true,
    requirePrunedDefaults: opts.requirePrunedDefaults ?? true,
    requireAtomicSetType: opts.requireAtomicSetType ?? true,
    requireMapListKeysMapSetValidation: opts.requireMapListKeysMapSetValidation ?? true,
    requireValidPropertyType: opts.requireValidPropertyType ?? true,
  };
  const errs: FieldError[] = [];
  const parent = fldPath.endsWith('.openAPIV3Schema') ? fldPath.slice(0, -'.openAPIV3Schema'.length) : fldPath;
  if (opts.statusSubresource) {
    for (const k of Object.keys(schema)) {
      if (isZero(schema[k] as JsonValue)) continue;
      if (k === 'type') {
        if (schema.type !== 'object') {
          errs.push({ type: 'FieldValueInvalid', field: `${parent}.openAPIV3Schema.type`, value: schema.type, detail: 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled' });
          break;
        }
        continue;
      }
      if (!ALLOWED_AT_ROOT_WITH_STATUS.includes(k)) {
        errs.push({ type: 'FieldValueInvalid', field: `${parent}.openAPIV3Schema`, value: internalSchemaJson(schema), detail: `only ${ALLOWED_AT_ROOT_GO} fields are allowed at the root of the schema if the status subresource is enabled` });
        break;
      }
    }
  }
  if (getOwn(schema, 'nullable') === true) errs.push({ type: 'FieldValueForbidden', field: `${parent}.openAPIV3Schema.nullable`, detail: 'nullable cannot be true at the root' });
  if (o.requireStructuralSchema) {
    const s = parseStructural(schema);
    const structural = validateStructural(schema, s, fldPath);
    if (structural.length > 0) errs.push(...structural);
    else errs.push(...validateDefaults(fldPath, asRoot(s), o.requirePrunedDefaults));
  }
  errs.push(...validateOpenApiSchema(schema, fldPath, { allowDefaults: o.allowDefaults, insideResourceMeta: false }, true, o));
  return errs;
}

function isZero(v: JsonValue): boolean {
  return v === null || v === false || v === '' || v === 0 || (Array.isArray(v) && v.length === 0) || (isJsonObject(v) && Object.keys(v).length === 0);
}

function asRoot(s: Structural): Structural {
  return s.embeddedResource ? s : { ...s, embeddedResource: true };
}

// ---- structural invariants (pkg/apiserver/schema/validation.go, complete.go) ----

type Level = 'root' | 'item' | 'field';

function validateStructural(raw: JsonObject, s: Structural, path: string): FieldError[] {
  const errs = [...invariants(raw, s, 'root', path), ...completeness(s, path)];
  // kube sorts by Error() so the list is stable despite Go's map order.
  return errs.sort((a, b) => {
    const x = fieldErrorString(a);
    const y = fieldErrorString(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

const INT_OR_STRING_ANYOF = (v: JsonValue | undefined): boolean =>
  Array.isArray(v) && v.length === 2 && isJsonObject(v[0]) && isJsonObject(v[1]) && Object.keys(v[0]).join() === 'type' && v[0].type === 'integer' && Object.keys(v[1]).join() === 'type' && v[1].type === 'string';

function invariants(raw: JsonObject, s: Structural, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (s.type === 'array' && s.items === undefined) errs.push({ type: 'FieldValueRequired', field: `${path}.items`, detail: 'must be specified' });
  if (s.items !== undefined) errs.push(...invariants(s.items.raw, s.items, 'item', `${path}.items`));
  for (const [k, p] of s.properties) errs.push(...invariants(p.raw, p, 'field', keyPath(`${path}.properties`, k)));
  if (hasOwn(raw, 'additionalProperties') && raw.additionalProperties !== null) {
    if (lvl === 'root') errs.push({ type: 'FieldValueForbidden', field: `${path}.additionalProperties`, detail: 'must not be used at the root' });
    if (s.additionalProperties !== undefined && s.additionalProperties !== true) errs.push(...invariants(s.additionalProperties.raw, s.additionalProperties, 'field', `${path}.additionalProperties`));
  }
  if (s.intOrString && s.preserveUnknownFields) errs.push({ type: 'FieldValueInvalid', field: `${path}.x-kubernetes-preserve-unknown-fields`, value: true, detail: 'must be false if x-kubernetes-int-or-string is true' });
  if (s.intOrString && s.embeddedResource) errs.push({ type: 'FieldValueInvalid', field: `${path}.x-kubernetes-embedded-resource`, value: true, detail: 'must be false if x-kubernetes-int-or-string is true' });
  const skipAnyOf = INT_OR_STRING_ANYOF(getOwn(raw, 'anyOf'));
  const allOf = getOwn(raw, 'allOf');
  const skipFirstAllOfAnyOf = Array.isArray(allOf) && allOf.length >= 1 && isJsonObject(allOf[0]) && INT_OR_STRING_ANYOF(getOwn(allOf[0], 'anyOf'));
  errs.push(...valueValidation(raw, skipAnyOf, skipFirstAllOfAnyOf, path));
  const checkMetadata = lvl === 'root' || s.embeddedResource;
  if (s.embeddedResource && s.type !== 'object') {
    if (s.type === '') errs.push({ type: 'FieldValueRequired', field: `${path}.type`, detail: 'must be object if x-kubernetes-embedded-resource is true' });
    else errs.push({ type: 'FieldValueInvalid', field: `${path}.type`, value: s.type, detail: 'must be object if x-kubernetes-embedded-resource is true' });
  } else if (s.type === '' && !s.intOrString && !s.preserveUnknownFields) {
    const detail = lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    errs.push({ type: 'FieldValueRequired', field: `${path}.type`, detail });
  }
  if (s.embeddedResource && hasOwn(raw, 'additionalProperties') && raw.additionalProperties !== null) errs.push({ type: 'FieldValueForbidden', field: `${path}.additionalProperties`, detail: 'must not be used if x-kubernetes-embedded-resource is set' });
  if (lvl === 'root' && s.type !== '' && s.type !== 'object') errs.push({ type: 'FieldValueInvalid', field: `${path}.type`, value: s.type, detail: 'must be object at the root' });
  const kind = s.properties.get('kind');
  if (kind !== undefined && checkMetadata && kind.type !== 'string') errs.push({ type: 'FieldValueInvalid', field: `${keyPath(`${path}.properties`, 'kind')}.type`, value: kind.type, detail: 'must be string' });
  const apiVersion = s.properties.get('apiVersion');
  if (apiVersion !== undefined && checkMetadata && apiVersion.type !== 'string') errs.push({ type: 'FieldValueInvalid', field: `${keyPath(`${path}.properties`, 'apiVersion')}.type`, value: apiVersion.type, detail: 'must be string' });
  const metadata = s.properties.get('metadata');
  if (metadata !== undefined) errs.push(...metadataInvariants(metadata, checkMetadata, lvl, keyPath(`${path}.properties`, 'metadata')));
  if (s.embeddedResource && !s.preserveUnknownFields && s.properties.size === 0) {
    errs.push({ type: 'FieldValueRequired', field: `${path}.properties`, detail: 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields' });
  }
  return errs;
}

function metadataInvariants(s: Structural, checkMetadata: boolean, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && s.type !== 'object') errs.push({ type: 'FieldValueInvalid', field: `${path}.type`, value: s.type, detail: 'must be object' });
  if (lvl === 'root') {
    const others = Object.keys(s.raw).filter((k) => k !== 'type' && k !== 'default' && k !== 'properties');
    const props = [...s.properties.keys()];
    const onlyNames = props.every((k) => k === 'name' || k === 'generateName');
    if (others.length > 0 || !onlyNames) {
      errs.push({ type: 'FieldValueForbidden', field: path, detail: 'must not specify anything other than name and generateName, but metadata is implicitly specified' });
    }
  }
  return errs;
}

function subs(raw: JsonObject, key: string): JsonObject[] {
  const v = getOwn(raw, key);
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

/** Go's regexp.Compile error text for what RE2 rejects and ECMAScript accepts is not reproduced; only patterns neither engine compiles fail here. */
function patternError(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch {
    try {
      new RegExp(pattern);
      return undefined;
    } catch (err) {
      return `error parsing regexp: ${(err as Error).message}`;
    }
  }
}

function valueValidation(raw: JsonObject, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf) subs(raw, 'anyOf').forEach((v, i) => errs.push(...nested(v, false, indexPath(`${path}.anyOf`, i))));
  subs(raw, 'allOf').forEach((v, i) => errs.push(...nested(v, skipFirstAllOfAnyOf && i === 0, indexPath(`${path}.allOf`, i))));
  subs(raw, 'oneOf').forEach((v, i) => errs.push(...nested(v, false, indexPath(`${path}.oneOf`, i))));
  const not = getOwn(raw, 'not');
  if (isJsonObject(not)) errs.push(...nested(not, false, `${path}.not`));
  const pattern = getOwn(raw, 'pattern');
  if (typeof pattern === 'string' && pattern !== '') {
    const e = patternError(pattern);
    if (e !== undefined) errs.push({ type: 'FieldValueInvalid', field: `${path}.pattern`, value: pattern, detail: `must be a valid regular expression, but isn't: ${e}` });
  }
  return errs;
}

/** A schema under allOf/anyOf/oneOf/not: value validation only. */
function nested(v: JsonObject, skipAnyOf: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [...valueValidation(v, skipAnyOf, false, path)];
  const items = getOwn(v, 'items');
  if (isJsonObject(items)) errs.push(...nested(items, false, `${path}.items`));
  const props = getOwn(v, 'properties');
  if (isJsonObject(props)) for (const [k, p] of Object.entries(props)) if (isJsonObject(p)) errs.push(...nested(p, false, keyPath(`${path}.properties`, k)));
  const f = (key: string, detail: string): void => {
    errs.push({ type: 'FieldValueForbidden', field: `${path}.${key}`, detail });
  };
  if (typeof v.type === 'string' && v.type !== '') f('type', 'must be empty to be structural');
  if (hasOwn(v, 'additionalProperties')) f('additionalProperties', 'must be undefined to be structural');
  if (hasOwn(v, 'default') && v.default !== null) f('default', 'must be undefined to be structural');
  if (typeof v.title === 'string' && v.title !== '') f('title', 'must be empty to be structural');
  if (typeof v.description === 'string' && v.description !== '') f('description', 'must be empty to be structural');
  if (v.nullable === true) f('nullable', 'must be false to be structural');
  if (hasOwn(v, 'externalDocs')) f('externalDocs', 'must be undefined to be structural');
  if (v['x-kubernetes-preserve-unknown-fields'] === true) f('x-kubernetes-preserve-unknown-fields', 'must be false to be structural');
  if (v['x-kubernetes-embedded-resource'] === true) f('x-kubernetes-embedded-resource', 'must be false to be structural');
  if (v['x-kubernetes-int-or-string'] === true) f('x-kubernetes-int-or-string', 'must be false to be structural');
  if (Array.isArray(v['x-kubernetes-list-map-keys']) && v['x-kubernetes-list-map-keys'].length > 0) f('x-kubernetes-list-map-keys', 'must be empty to be structural');
  if (hasOwn(v, 'x-kubernetes-list-type')) f('x-kubernetes-list-type', 'must be undefined to be structural');
  if (hasOwn(v, 'x-kubernetes-map-type')) f('x-kubernetes-map-type', 'must be undefined to be structural');
  if (Array.isArray(v['x-kubernetes-validations']) && v['x-kubernetes-validations'].length > 0) f('x-kubernetes-validations', 'must be empty to be structural');
  if (isJsonObject(props) && hasOwn(props, 'metadata')) f(`properties[metadata]`, 'must not be specified in a nested context');
  return errs;
}

/** Every property or items a value validation names must also be specified structurally. */
function completeness(s: Structural, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const walkValueValidation = (v: JsonObject, sNode: Structural | undefined, sPath: string, vPath: string): void => {
    for (const key of ['allOf', 'anyOf', 'oneOf']) subs(v, key).forEach((x, i) => nestedCompleteness(x, sNode, sPath, indexPath(`${vPath}.${key}`, i)));
    const not = getOwn(v, 'not');
    if (isJsonObject(not)) nestedCompleteness(not, sNode, sPath, `${vPath}.not`);
  };
  const nestedCompleteness = (v: JsonObject, sNode: Structural | undefined, sPath: string, vPath: string): void => {
    if (sNode === undefined) {
      errs.push({ type: 'FieldValueRequired', field: sPath, detail: `because it is defined in ${vPath}` });
      return;
    }
    walkValueValidation(v, sNode, sPath, vPath);
    const items = getOwn(v, 'items');
    if (isJsonObject(items)) nestedCompleteness(items, sNode.items, `${sPath}.items`, `${vPath}.items`);
    const props = getOwn(v, 'properties');
    if (isJsonObject(props)) {
      for (const [k, p] of Object.entries(props)) {
        if (!isJsonObject(p)) continue;
        const sub = sNode.properties.get(k);
        if (sub === undefined) errs.push({ type: 'FieldValueRequired', field: keyPath(`${sPath}.properties`, k), detail: `because it is defined in ${keyPath(`${vPath}.properties`, k)}` });
        else nestedCompleteness(p, sub, keyPath(`${sPath}.properties`, k), keyPath(`${vPath}.properties`, k));
      }
    }
  };
  const walk = (node: Structural, p: string): void => {
    walkValueValidation(node.raw, node, p, p);
    if (node.items !== undefined) walk(node.items, `${p}.items`);
    for (const [k, sub] of node.properties) walk(sub, keyPath(`${p}.properties`, k));
    if (node.additionalProperties !== undefined && node.additionalProperties !== true) walk(node.additionalProperties, `${p}.additionalProperties`);
  };
  walk(s, path);
  return errs;
}

// ---- defaults (defaulting/validation.go) ----

function validateDefaults(path: string, s: Structural, requirePruned: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const walk = (node: Structural, p: string, insideMeta: boolean): void => {
    if (node.embeddedResource) insideMeta = false;
    if (node.default !== undefined && !insideMeta) {
      const def = node.default;
      const dPath = `${p}.default`;
      if (requirePruned && pruneUnknown(def, node, node.embeddedResource).value !== def) {
        errs.push({ type: 'FieldValueInvalid', field: dPath, value: def, detail: 'must not have unknown fields' });
      }
      const coerced = coerceEmbedded(def, node, false);
      if (coerced.error !== undefined) errs.push({ ...coerced.error, field: childPath(dPath, coerced.error.field) });
      else {
        const metaErrs = validateEmbeddedResources(dPath, def, node, () => []);
        if (metaErrs.length > 0) errs.push(...metaErrs);
        else errs.push(...validateValue(def, node.raw, dPath));
      }
    }
    if (node.items !== undefined) walk(node.items, `${p}.items`, insideMeta);
    for (const [k, sub] of node.properties) walk(sub, keyPath(`${p}.properties`, k), insideMeta || (node.embeddedResource && META_FIELDS.has(k)));
  };
  walk(s, path, false);
  return errs;
}

// ---- the OpenAPI v3 subset (ValidateCustomResourceDefinitionOpenAPISchema) ----

interface Ssv {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason?: string;
  readonly insideResourceMeta: boolean;
}

interface Opts {
  readonly requireAtomicSetType: boolean;
  readonly requireMapListKeysMapSetValidation: boolean;
  readonly requireValidPropertyType: boolean;
}

function standard(schema: JsonObject, path: string, ssv: Ssv, opts: Opts): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof schema.type === 'string' ? schema.type : '';
  if (opts.requireValidPropertyType && type !== '' && !OPENAPI_V3_TYPES.includes(type)) errs.push({ type: 'FieldValueNotSupported', field: `${path}.type`, value: type, supported: OPENAPI_V3_TYPES });
  if (hasOwn(schema, 'default') && schema.default !== null && !ssv.allowDefaults) {
    errs.push({ type: 'FieldValueForbidden', field: `${path}.default`, detail: `must not be set${ssv.disallowDefaultsReason ? ` ${ssv.disallowDefaultsReason}` : ''}` });
  }
  const f = (key: string, detail: string): void => {
    errs.push({ type: 'FieldValueForbidden', field: `${path}.${key}`, detail });
  };
  if (typeof schema.id === 'string' && schema.id !== '') f('id', 'id is not supported');
  if (hasOwn(schema, 'additionalItems')) f('additionalItems', 'additionalItems is not supported');
  if (isJsonObject(schema.patternProperties) && Object.keys(schema.patternProperties).length > 0) f('patternProperties', 'patternProperties is not supported');
  if (isJsonObject(schema.definitions) && Object.keys(schema.definitions).length > 0) f('definitions', 'definitions is not supported');
  if (hasOwn(schema, 'dependencies')) f('dependencies', 'dependencies is not supported');
  if (hasOwn(schema, '$ref')) f('$ref', '$ref is not supported');
  if (type === 'null') f('type', 'type cannot be set to null, use nullable as an alternative');
  if (Array.isArray(schema.items) && schema.items.length > 0) f('items', 'items must be a schema object and not an array');
  if (ssv.insideResourceMeta && schema['x-kubernetes-embedded-resource'] === true) f('x-kubernetes-embedded-resource', 'must not be used inside of resource meta');
  return errs;
}

function validateOpenApiSchema(schema: JsonObject, path: string, ssv: Ssv, isRoot: boolean, opts: Opts): FieldError[] {
  const errs: FieldError[] = [...standard(schema, path, ssv, opts)];
  const type = typeof schema.type === 'string' ? schema.type : '';
  if (schema.uniqueItems === true) errs.push({ type: 'FieldValueForbidden', field: `${path}.uniqueItems`, detail: 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic' });
  const props = isJsonObject(schema.properties) ? schema.properties : undefined;
  const ap = getOwn(schema, 'additionalProperties');
  if (ap !== undefined && ap !== null) {
    if (props !== undefined && Object.keys(props).length > 0 && (ap === false || isJsonObject(ap))) {
      errs.push({ type: 'FieldValueForbidden', field: `${path}.additionalProperties`, detail: 'additionalProperties and properties are mutual exclusive' });
    }
    const sub = ssv.insideResourceMeta ? { ...ssv, allowDefaults: false, disallowDefaultsReason: 'inside additionalProperties applying to object metadata' } : ssv;
    if (isJsonObject(ap)) errs.push(...validateOpenApiSchema(ap, `${path}.additionalProperties`, sub, false, opts));
  }
  if (props !== undefined) {
    for (const [k, p] of Object.entries(props)) {
      if (!isJsonObject(p)) continue;
      let sub = ssv;
      if ((isRoot || schema['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(k)) {
        sub = { ...sub, insideResourceMeta: true };
        if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${k}` };
      }
      errs.push(...validateOpenApiSchema(p, keyPath(`${path}.properties`, k), sub, false, opts));
    }
  }
  const not = getOwn(schema, 'not');
  if (isJsonObject(not)) errs.push(...validateOpenApiSchema(not, `${path}.not`, ssv, false, opts));
  for (const key of ['allOf', 'oneOf', 'anyOf']) subs(schema, key).forEach((x, i) => errs.push(...validateOpenApiSchema(x, indexPath(`${path}.${key}`, i), ssv, false, opts)));
  const defs = getOwn(schema, 'definitions');
  if (isJsonObject(defs)) for (const [k, d] of Object.entries(defs)) if (isJsonObject(d)) errs.push(...validateOpenApiSchema(d, keyPath(`${path}.definitions`, k), ssv, false, opts));
  const items = getOwn(schema, 'items');
  if (isJsonObject(items)) errs.push(...validateOpenApiSchema(items, `${path}.items`, ssv, false, opts));
  else if (Array.isArray(items)) items.forEach((x, i) => isJsonObject(x) && errs.push(...validateOpenApiSchema(x, indexPath(`${path}.items`, i), ssv, false, opts)));
  const deps = getOwn(schema, 'dependencies');
  if (isJsonObject(deps)) for (const [k, d] of Object.entries(deps)) if (isJsonObject(d)) errs.push(...validateOpenApiSchema(d, keyPath(`${path}.dependencies`, k), ssv, false, opts));
  errs.push(...extensions(schema, type, path, opts));
  return errs;
}

function extensions(schema: JsonObject, type: string, path: string, opts: Opts): FieldError[] {
  const errs: FieldError[] = [];
  const preserve = getOwn(schema, 'x-kubernetes-preserve-unknown-fields');
  if (preserve === false) errs.push({ type: 'FieldValueInvalid', field: `${path}.x-kubernetes-preserve-unknown-fields`, value: false, detail: 'must be true or undefined' });
  const mapType = getOwn(schema, 'x-kubernetes-map-type');
  if (typeof mapType === 'string' && type !== 'object') {
    if (type === '') errs.push({ type: 'FieldValueRequired', field: `${path}.type`, detail: 'must be object if x-kubernetes-map-type is specified' });
    else errs.push({ type: 'FieldValueInvalid', field: `${path}.type`, value: type, detail: 'must be object if x-kubernetes-map-type is specified' });
  }
  if (typeof mapType === 'string' && mapType !== 'atomic' && mapType !== 'granular') errs.push({ type: 'FieldValueNotSupported', field: `${path}.x-kubernetes-map-type`, value: mapType, supported: ['atomic', 'granular'] });
  const listType = getOwn(schema, 'x-kubernetes-list-type');
  const items = getOwn(schema, 'items');
  const itemSchema = isJsonObject(items) ? items : undefined;
  if (typeof listType === 'string' && type !== 'array') {
    if (type === '') errs.push({ type: 'FieldValueRequired', field: `${path}.type`, detail: 'must be array if x-kubernetes-list-type is specified' });
    else errs.push({ type: 'FieldValueInvalid', field: `${path}.type`, value: type, detail: 'must be array if x-kubernetes-list-type is specified' });
  } else if (opts.requireAtomicSetType && listType === 'set' && itemSchema !== undefined) {
    const it = itemSchema.type;
    const itList = getOwn(itemSchema, 'x-kubernetes-list-type');
    const itMap = getOwn(itemSchema, 'x-kubernetes-map-type');
    if (it === 'array' && typeof itList === 'string' && itList !== 'atomic') {
      errs.push({ type: 'FieldValueInvalid', field: `${path}.items.x-kubernetes-list-type`, value: goJson(goJsonString(itList)), detail: 'must be atomic as item of a list with x-kubernetes-list-type=set' });
    } else if (it === 'object' && itMap !== 'atomic') {
      // kube reports the item's list type (a *string, json.Marshal writes the string) as the value here: nil when unset.
      errs.push({ type: 'FieldValueInvalid', field: `${path}.items.x-kubernetes-map-type`, value: typeof itList === 'string' ? goJson(goJsonString(itList)) : null, detail: 'must be atomic as item of a list with x-kubernetes-list-type=set' });
    }
  }
  if (typeof listType === 'string' && listType !== 'atomic' && listType !== 'set' && listType !== 'map') errs.push({ type: 'FieldValueNotSupported', field: `${path}.x-kubernetes-list-type`, value: listType, supported: ['atomic', 'set', 'map'] });
  const keysRaw = getOwn(schema, 'x-kubernetes-list-map-keys');
  const keys = Array.isArray(keysRaw) ? keysRaw.filter((k): k is string => typeof k === 'string') : [];
  if (keys.length > 0) {
    if (typeof listType !== 'string') errs.push({ type: 'FieldValueRequired', field: `${path}.x-kubernetes-list-type`, detail: 'must be map if x-kubernetes-list-map-keys is non-empty' });
    else if (listType !== 'map') errs.push({ type: 'FieldValueInvalid', field: `${path}.x-kubernetes-list-type`, value: listType, detail: 'must be map if x-kubernetes-list-map-keys is non-empty' });
  }
  if (listType === 'map') {
    if (keys.length === 0) errs.push({ type: 'FieldValueRequired', field: `${path}.x-kubernetes-list-map-keys`, detail: 'must not be empty if x-kubernetes-list-type is map' });
    if (items === undefined || items === null) errs.push({ type: 'FieldValueRequired', field: `${path}.items`, detail: 'must have a schema if x-kubernetes-list-type is map' });
    if (Array.isArray(items)) errs.push({ type: 'FieldValueInvalid', field: `${path}.items`, value: goStruct([['Schema', null], ['JSONSchemas', items.map(internalSchemaJson)]]), detail: 'must only have a single schema if x-kubernetes-list-type is map' });
    if (itemSchema !== undefined && itemSchema.type !== 'object') errs.push({ type: 'FieldValueInvalid', field: `${path}.items.type`, value: typeof itemSchema.type === 'string' ? itemSchema.type : '', detail: "must be object if parent array's x-kubernetes-list-type is map" });
    if (itemSchema !== undefined && itemSchema.type === 'object') {
      const itemProps = isJsonObject(itemSchema.properties) ? itemSchema.properties : {};
      const seen = new Set<string>();
      for (const k of keys) {
        const p = getOwn(itemProps, k);
        if (isJsonObject(p)) {
          if (p.type === 'array' || p.type === 'object') errs.push({ type: 'FieldValueInvalid', field: `${keyPath(`${path}.items.properties`, k)}.type`, value: 'object', detail: "must be a scalar type if parent array's x-kubernetes-list-type is map" });
        } else {
          errs.push({ type: 'FieldValueInvalid', field: `${path}.x-kubernetes-list-map-keys`, value: keys, detail: 'entries must all be names of item properties' });
        }
        if (seen.has(k)) errs.push({ type: 'FieldValueInvalid', field: `${path}.x-kubernetes-list-map-keys`, value: keys, detail: 'must not contain duplicate entries' });
        seen.add(k);
      }
    }
  }
  if (opts.requireMapListKeysMapSetValidation && itemSchema !== undefined && (listType === 'set' || listType === 'map')) {
    if (itemSchema.nullable === true) errs.push({ type: 'FieldValueForbidden', field: `${path}.items.nullable`, detail: `cannot be nullable when x-kubernetes-list-type is ${listType}` });
    if (listType === 'map') {
      const required = Array.isArray(itemSchema.required) ? itemSchema.required : [];
      const itemProps = isJsonObject(itemSchema.properties) ? itemSchema.properties : {};
      for (const k of keys) {
        const p = getOwn(itemProps, k);
        if (!isJsonObject(p)) continue;
        if (!required.includes(k) && (!hasOwn(p, 'default') || p.default === null)) {
          errs.push({ type: 'FieldValueRequired', field: `${keyPath(`${path}.items.properties`, k)}.default`, detail: 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property' });
        }
        if (p.nullable === true) errs.push({ type: 'FieldValueForbidden', field: `${keyPath(`${path}.items.properties`, k)}.nullable`, detail: 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable' });
      }
    }
  }
  errs.push(...validationRules(schema, path));
  return errs;
}

const NEWLINES = /[\n\r]+/;

function validationRules(schema: JsonObject, path: string): FieldError[] {
  const rules = getOwn(schema, 'x-kubernetes-validations');
  if (!Array.isArray(rules)) return [];
  const errs: FieldError[] = [];
  rules.forEach((r, i) => {
    if (!isJsonObject(r)) return;
    const p = indexPath(`${path}.x-kubernetes-validations`, i);
    const rule = typeof r.rule === 'string' ? r.rule : '';
    const message = typeof r.message === 'string' ? r.message : '';
    const messageExpression = typeof r.messageExpression === 'string' ? r.messageExpression : '';
    const trimmedRule = rule.trim();
    const trimmedMsg = message.trim();
    if (trimmedRule === '') errs.push({ type: 'FieldValueRequired', field: `${p}.rule`, detail: 'rule is not specified' });
    else if (message.length > 0 && trimmedMsg === '') errs.push({ type: 'FieldValueInvalid', field: `${p}.message`, value: message, detail: 'message must be non-empty if specified' });
    else if (NEWLINES.test(trimmedMsg)) errs.push({ type: 'FieldValueInvalid', field: `${p}.message`, value: message, detail: 'message must not contain line breaks' });
    else if (NEWLINES.test(trimmedRule) && trimmedMsg === '') errs.push({ type: 'FieldValueRequired', field: `${p}.message`, detail: 'message must be specified if rule contains line breaks' });
    if (messageExpression.length > 0 && messageExpression.trim() === '') errs.push({ type: 'FieldValueRequired', field: `${p}.messageExpression`, detail: 'messageExpression must be non-empty if specified' });
    if (typeof r.reason === 'string' && !VALIDATION_REASONS.includes(r.reason)) errs.push({ type: 'FieldValueNotSupported', field: `${p}.reason`, value: r.reason, supported: VALIDATION_REASONS });
    const fieldPath = typeof r.fieldPath === 'string' ? r.fieldPath : '';
    if (fieldPath.length > 0 && fieldPath.trim() === '') errs.push({ type: 'FieldValueInvalid', field: `${p}.fieldPath`, value: fieldPath, detail: 'fieldPath must be non-empty if specified' });
    if (NEWLINES.test(fieldPath)) errs.push({ type: 'FieldValueInvalid', field: `${p}.fieldPath`, value: fieldPath, detail: 'fieldPath must not contain line breaks' });
    if (fieldPath.length > 0 && !fieldPathValid(schema, fieldPath)) errs.push({ type: 'FieldValueInvalid', field: `${p}.fieldPath`, value: fieldPath, detail: 'fieldPath must be a valid path' });
  });
  return errs;
}

/**
 * cel.ValidFieldPath, simplified: a JSON path of `.name` and `['name']`
 * steps (and `[n]` into lists) that the schema specifies.
 */
function fieldPathValid(schema: JsonObject, path: string): boolean {
  let s: Structural | undefined = parseStructural(schema);
  const step = /^\.([a-zA-Z_][a-zA-Z0-9_]*)|^\['((?:[^'\\]|\\.)*)'\]|^\[(\d+)\]/;
  let rest = path.trim();
  if (rest === '') return false;
  while (rest.length > 0) {
    const m = step.exec(rest);
    if (m === null || s === undefined) return false;
    rest = rest.slice(m[0].length);
    if (m[3] !== undefined) {
      s = s.items;
      continue;
    }
    const name = m[1] ?? (m[2] as string).replace(/\\(.)/g, '$1');
    const next: Structural | undefined = s.properties.get(name) ?? (s.additionalProperties !== true ? s.additionalProperties : undefined);
    if (next === undefined && !s.preserveUnknownFields) return false;
    s = next;
    if (s === undefined) return rest.length === 0;
  }
  return true;
}

/**
 * The options for validating an updated CRD's schemas, as kube ratchets them
 * (validationOptions from the old object): a rule the old CRD already broke
 * in one of its versions' schemas (unpruned defaults, non-atomic set items,
 * list-map keys neither required nor defaulted, unknown property types) is
 * not enforced on the update, so existing CRDs stay updatable.
 */
export function ratchetedSchemaValidationOptions(oldSchemas: readonly JsonObject[], base: CustomResourceSchemaValidationOptions = {}): CustomResourceSchemaValidationOptions {
  const brokenBy = (flag: 'requirePrunedDefaults' | 'requireAtomicSetType' | 'requireMapListKeysMapSetValidation' | 'requireValidPropertyType'): boolean =>
    oldSchemas.some((s) => {
      const strict = validateCustomResourceSchema(s, '', { [flag]: true }).map(fieldErrorString);
      const lax = new Set(validateCustomResourceSchema(s, '', { [flag]: false }).map(fieldErrorString));
      return strict.some((e) => !lax.has(e));
    });
  return {
    ...base,
    requirePrunedDefaults: !brokenBy('requirePrunedDefaults'),
    requireAtomicSetType: !brokenBy('requireAtomicSetType'),
    requireMapListKeysMapSetValidation: !brokenBy('requireMapListKeysMapSetValidation'),
    requireValidPropertyType: !brokenBy('requireValidPropertyType'),
  };
}
