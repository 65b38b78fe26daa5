import { escapeProperty } from './escaping.js';
import {
  JSON_DATE_SIZE, MAX_DATETIME_SIZE_JSON, MAX_DURATION_SIZE_JSON, MAX_REQUEST_SIZE_BYTES, MIN_DATETIME_SIZE_JSON,
  MIN_DURATION_SIZE_JSON, MIN_STRING_SIZE,
} from './limits.js';
import { listOf, mapOf, sized, Types, type DeclType, type ObjectField, type ObjectType } from './types.js';

/**
 * The part of an OpenAPI v3 (structural) schema that CEL typing reads: a
 * CRD's openAPIV3Schema or any JSONSchemaProps-shaped object.
 */
export interface OpenApiSchema {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly additionalProperties?: OpenApiSchema | boolean;
  readonly items?: OpenApiSchema;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly nullable?: boolean;
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly maxProperties?: number;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
}

const zeroIfNegative = (n: number): number => (n < 0 ? 0 : n);

function maxStringLengthPerRequest(s: OpenApiSchema): number {
  if (s['x-kubernetes-int-or-string']) return MAX_REQUEST_SIZE_BYTES - 2;
  switch (s.format) {
    case 'duration': return MAX_DURATION_SIZE_JSON;
    case 'date': return JSON_DATE_SIZE;
    case 'date-time': return MAX_DATETIME_SIZE_JSON;
    default: return MAX_REQUEST_SIZE_BYTES - 2;
  }
}

function maxEnumLength(s: OpenApiSchema): number {
  let max = 0;
  for (const v of s.enum ?? []) if (typeof v === 'string' && Buffer.byteLength(v) > max) max = Buffer.byteLength(v);
  return max;
}

const maxArrayItemsFromMinSize = (minSize: number): number => Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize + 1));
const maxPropertiesFromMinSize = (minSize: number): number => Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize + 6));

/** kube's WithTypeAndObjectMeta: apiVersion, kind, metadata.name and metadata.generateName are always there at a resource's root. */
function withTypeAndObjectMeta(s: OpenApiSchema): OpenApiSchema {
  const p = s.properties;
  const meta = p?.['metadata'];
  if (
    p?.['kind']?.type === 'string' && p['apiVersion']?.type === 'string' && meta?.type === 'object' &&
    meta.properties?.['name']?.type === 'string' && meta.properties['generateName']?.type === 'string'
  ) return s;
  const str: OpenApiSchema = { type: 'string' };
  return {
    ...s,
    properties: {
      ...p,
      kind: str,
      apiVersion: str,
      metadata: { type: 'object', properties: { name: str, generateName: str } },
    },
  };
}

/**
 * The CEL type of a structural schema, as kube's SchemaDeclType: undefined
 * when the schema is not exposed to CEL (e.g. an array without items).
 * `name` names object types (kube: the variable's type name, fields' types
 * `<name>.<field>`, list items `<name>.@idx`, map values `<name>.@elem`).
 * Unknown fields of x-kubernetes-preserve-unknown-fields objects are not
 * exposed, as in kube; x-kubernetes-int-or-string is dyn.
 */
export function schemaDeclType(s: OpenApiSchema | undefined, name: string, isResourceRoot = false): DeclType | undefined {
  if (!s) return undefined;
  if (s['x-kubernetes-int-or-string']) {
    const max = s.maxLength !== undefined ? zeroIfNegative(s.maxLength) * 4 : maxStringLengthPerRequest(s);
    return sized(Types.dyn, max, 1);
  }
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      if (!s.items) return undefined;
      const items = schemaDeclType(s.items, `${name}.@idx`, s.items['x-kubernetes-embedded-resource'] === true);
      if (!items) return undefined;
      const max = s.maxItems !== undefined ? zeroIfNegative(s.maxItems) : maxArrayItemsFromMinSize(items.minSerializedSize);
      return listOf(items, max, s['x-kubernetes-list-type']);
    }
    case 'object': {
      const ap = s.additionalProperties;
      if (ap !== undefined && typeof ap === 'object') {
        const values = schemaDeclType(ap, `${name}.@elem`, ap['x-kubernetes-embedded-resource'] === true);
        if (!values) return undefined;
        const max = s.maxProperties !== undefined ? zeroIfNegative(s.maxProperties) : maxPropertiesFromMinSize(values.minSerializedSize);
        return mapOf(Types.string, values, max);
      }
      const required = new Set(s.required ?? []);
      const fields = new Map<string, ObjectField>();
      let minSerializedSize = 2;
      for (const [prop, propSchema] of Object.entries(s.properties ?? {})) {
        const t = schemaDeclType(propSchema, `${name}.${prop}`, propSchema['x-kubernetes-embedded-resource'] === true);
        if (!t) continue;
        const escaped = escapeProperty(prop);
        if (escaped !== undefined) fields.set(escaped, { jsonName: prop, type: t, required: required.has(prop) });
        if (required.has(prop) && propSchema.default === undefined) minSerializedSize += prop.length + t.minSerializedSize + 4;
      }
      const obj: ObjectType = { kind: 'object', name, fields, minSerializedSize };
      return obj;
    }
    case 'string': {
      switch (s.format) {
        case 'byte':
          return sized(Types.bytes, s.maxLength !== undefined ? zeroIfNegative(s.maxLength) : maxStringLengthPerRequest(s), MIN_STRING_SIZE);
        case 'duration':
          return sized(Types.duration, maxStringLengthPerRequest(s), MIN_DURATION_SIZE_JSON);
        case 'date':
          return sized(Types.timestamp, maxStringLengthPerRequest(s), JSON_DATE_SIZE);
        case 'date-time':
          return sized(Types.timestamp, maxStringLengthPerRequest(s), MIN_DATETIME_SIZE_JSON);
      }
      let max: number;
      if (s.maxLength !== undefined) max = zeroIfNegative(s.maxLength) * 4;
      else if (s.enum && s.enum.length > 0) max = maxEnumLength(s);
      else max = maxStringLengthPerRequest(s);
      return sized(Types.string, max, MIN_STRING_SIZE);
    }
    case 'boolean': return Types.bool;
    case 'number': return Types.double;
    case 'integer': return Types.int;
  }
  return undefined;
}
