/**
 * json.Marshal of apiextensions' internal types (apiextensions-apiserver
 * pkg/apis/apiextensions/types*.go), which field.Error prints as a bad value.
 * Internal types carry no json tags: every field is written under its Go
 * name in declaration order, zero values included, nil pointers, slices and
 * maps as null. Input is the v1 JSON these are converted from.
 */
import { goStruct, type GoJson } from '../../machinery/field-value.js';
import { isJsonObject } from '../../machinery/json-value.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const bool = (v: unknown): boolean => v === true;
/** A pointer field: the value when set, else nil. */
const ptr = (v: unknown): unknown => (v === undefined ? null : v);
const slice = <T>(v: unknown, each: (x: unknown) => T): T[] | null => (Array.isArray(v) ? v.map(each) : null);

function schemaMap(v: unknown): Record<string, GoJson> | null {
  if (!isJsonObject(v)) return null;
  const out: Record<string, GoJson> = {};
  for (const [k, x] of Object.entries(v)) out[k] = internalSchemaJson(x);
  return out;
}

/** JSONSchemaPropsOrBool: `true`/`false` or a schema (which allows). */
function propsOrBool(v: unknown): GoJson | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return goStruct([['Allows', v], ['Schema', null]]);
  return goStruct([['Allows', true], ['Schema', internalSchemaJson(v)]]);
}

function propsOrArray(v: unknown): GoJson | null {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return goStruct([['Schema', null], ['JSONSchemas', v.map(internalSchemaJson)]]);
  return goStruct([['Schema', internalSchemaJson(v)], ['JSONSchemas', null]]);
}

function dependencies(v: unknown): Record<string, GoJson> | null {
  if (!isJsonObject(v)) return null;
  const out: Record<string, GoJson> = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] = Array.isArray(x) ? goStruct([['Schema', null], ['Property', x]]) : goStruct([['Schema', internalSchemaJson(x)], ['Property', null]]);
  }
  return out;
}

/** The internal apiextensions.ValidationRule of a v1 x-kubernetes-validations item. */
export function validationRuleJson(r: { readonly [K in 'rule' | 'message' | 'messageExpression' | 'reason' | 'fieldPath' | 'optionalOldSelf']?: unknown }): GoJson {
  return goStruct([
    ['Rule', str(r.rule)],
    ['Message', str(r.message)],
    ['MessageExpression', str(r.messageExpression)],
    ['Reason', ptr(r.reason)],
    ['FieldPath', str(r.fieldPath)],
    ['OptionalOldSelf', ptr(r.optionalOldSelf)],
  ]);
}

/** The internal apiextensions.JSONSchemaProps of a v1 schema. */
export function internalSchemaJson(value: unknown): GoJson {
  const s = isJsonObject(value) ? value : {};
  const docs = s.externalDocs;
  return goStruct([
    ['ID', str(s.id)],
    ['Schema', str(s.$schema)],
    ['Ref', ptr(s.$ref)],
    ['Description', str(s.description)],
    ['Type', str(s.type)],
    ['Nullable', bool(s.nullable)],
    ['Format', str(s.format)],
    ['Title', str(s.title)],
    ['Default', ptr(s.default)],
    ['Maximum', ptr(s.maximum)],
    ['ExclusiveMaximum', bool(s.exclusiveMaximum)],
    ['Minimum', ptr(s.minimum)],
    ['ExclusiveMinimum', bool(s.exclusiveMinimum)],
    ['MaxLength', ptr(s.maxLength)],
    ['MinLength', ptr(s.minLength)],
    ['Pattern', str(s.pattern)],
    ['MaxItems', ptr(s.maxItems)],
    ['MinItems', ptr(s.minItems)],
    ['UniqueItems', bool(s.uniqueItems)],
    ['MultipleOf', ptr(s.multipleOf)],
    ['Enum', slice(s.enum, (x) => x)],
    ['MaxProperties', ptr(s.maxProperties)],
    ['MinProperties', ptr(s.minProperties)],
    ['Required', slice(s.required, (x) => x)],
    ['Items', propsOrArray(s.items)],
    ['AllOf', slice(s.allOf, internalSchemaJson)],
    ['OneOf', slice(s.oneOf, internalSchemaJson)],
    ['AnyOf', slice(s.anyOf, internalSchemaJson)],
    ['Not', s.not === undefined ? null : internalSchemaJson(s.not)],
    ['Properties', schemaMap(s.properties)],
    ['AdditionalProperties', propsOrBool(s.additionalProperties)],
    ['PatternProperties', schemaMap(s.patternProperties)],
    ['Dependencies', dependencies(s.dependencies)],
    ['AdditionalItems', propsOrBool(s.additionalItems)],
    ['Definitions', schemaMap(s.definitions)],
    ['ExternalDocs', isJsonObject(docs) ? goStruct([['Description', str(docs.description)], ['URL', str(docs.url)]]) : null],
    ['Example', ptr(s.example)],
    ['XPreserveUnknownFields', ptr(s['x-kubernetes-preserve-unknown-fields'])],
    ['XEmbeddedResource', bool(s['x-kubernetes-embedded-resource'])],
    ['XIntOrString', bool(s['x-kubernetes-int-or-string'])],
    ['XListMapKeys', slice(s['x-kubernetes-list-map-keys'], (x) => x)],
    ['XListType', ptr(s['x-kubernetes-list-type'])],
    ['XMapType', ptr(s['x-kubernetes-map-type'])],
    ['XValidations', slice(s['x-kubernetes-validations'], (x) => validationRuleJson(isJsonObject(x) ? x : {}))],
  ]);
}
