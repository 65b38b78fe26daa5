/**
 * OpenAPI 3.0 documents from the Swagger 2.0 paths and definitions, shaped like
 * kube-openapi's builder3 output that kube-apiserver serves at
 * /openapi/v3/<group-version>: schemas under components.schemas, a `$ref` with
 * siblings wrapped in `allOf`, body parameters turned into requestBody, and
 * one content entry per media type in requests and responses.
 */
import { isJsonObject, sortKeysDeep, type Json, type JsonObject } from '../machinery/json.js';

const DEF_PREFIX = '#/definitions/';
const SCHEMA_PREFIX = '#/components/schemas/';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/**
 * Types whose v3 schema lists alternatives (their Go types implement
 * OpenAPIV3OneOfTypes), where v2 can only say `type: string`.
 */
const ONE_OF_TYPES: Record<string, string[]> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': ['string', 'number'],
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': ['integer', 'string'],
};

const ZERO_BY_TYPE: Record<string, Json> = { string: '', integer: 0, number: 0, boolean: false };

function rewriteRef(ref: string): string {
  return ref.startsWith(DEF_PREFIX) ? SCHEMA_PREFIX + ref.slice(DEF_PREFIX.length) : ref;
}

export interface SchemaContext {
  definitions: Record<string, JsonObject>;
}

function isStructDefinition(ctx: SchemaContext, ref: string | undefined): boolean {
  if (ref === undefined || !ref.startsWith(DEF_PREFIX)) return false;
  const def = ctx.definitions[ref.slice(DEF_PREFIX.length)];
  return def !== undefined && isJsonObject(def['properties']);
}

/**
 * Converts a v2 schema. `defaultObject` asks for `default: {}` (what builder3
 * writes for non-pointer struct fields); we can only tell those apart in the
 * common cases the caller recognizes.
 */
export function convertSchema(ctx: SchemaContext, schema: JsonObject, defaultObject = false): JsonObject {
  const out: JsonObject = {};
  const ref = typeof schema['$ref'] === 'string' ? schema['$ref'] : undefined;
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref') continue;
    if (k === 'properties' && isJsonObject(v)) {
      const required = new Set(Array.isArray(schema['required']) ? schema['required'].filter((x): x is string => typeof x === 'string') : []);
      const isKind = Array.isArray(schema['x-kubernetes-group-version-kind']);
      const props: JsonObject = {};
      for (const [name, prop] of Object.entries(v)) {
        if (!isJsonObject(prop)) continue;
        const propRef = typeof prop['$ref'] === 'string' ? prop['$ref'] : undefined;
        const structField = isStructDefinition(ctx, propRef) && (name === 'metadata' || (isKind && (name === 'spec' || name === 'status')));
        const converted = convertSchema(ctx, prop, structField);
        // Required non-pointer scalars default to their zero value in builder3's output.
        const t = prop['type'];
        if (required.has(name) && propRef === undefined && typeof t === 'string' && t in ZERO_BY_TYPE && converted['default'] === undefined) {
          converted['default'] = ZERO_BY_TYPE[t] as Json;
        }
        props[name] = converted;
      }
      out[k] = props;
    } else if (k === 'items' && isJsonObject(v)) {
      const itemRef = typeof v['$ref'] === 'string' ? v['$ref'] : undefined;
      out[k] = convertSchema(ctx, v, isStructDefinition(ctx, itemRef));
    } else if ((k === 'additionalProperties' || k === 'not') && isJsonObject(v)) {
      out[k] = convertSchema(ctx, v);
    } else if ((k === 'allOf' || k === 'anyOf' || k === 'oneOf') && Array.isArray(v)) {
      out[k] = v.map((s) => (isJsonObject(s) ? convertSchema(ctx, s) : s));
    } else {
      out[k] = v;
    }
  }
  if (defaultObject && out['default'] === undefined) out['default'] = {};
  if (ref !== undefined) {
    const target = { $ref: rewriteRef(ref) };
    if (Object.keys(out).length === 0) return target;
    return { allOf: [target], ...out };
  }
  return out;
}

/** A whole definition (top-level schema) in v3 form. */
export function convertDefinition(ctx: SchemaContext, name: string, def: JsonObject): JsonObject {
  const converted = convertSchema(ctx, def);
  const oneOf = ONE_OF_TYPES[name];
  if (oneOf && converted['type'] !== undefined) {
    delete converted['type'];
    converted['oneOf'] = oneOf.map((t) => ({ type: t }));
  }
  return converted;
}

function convertParameter(p: JsonObject): JsonObject {
  const out: JsonObject = {};
  const schema: JsonObject = {};
  for (const [k, v] of Object.entries(p)) {
    if (k === 'name' || k === 'in' || k === 'description' || k === 'required' || k === 'deprecated' || k === 'allowEmptyValue') out[k] = v;
    else if (k === 'collectionFormat') continue;
    else schema[k] = v;
  }
  out['schema'] = schema;
  return out;
}

function withRewrittenRefs(v: Json): Json {
  if (Array.isArray(v)) return v.map(withRewrittenRefs);
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[k] = k === '$ref' && typeof x === 'string' ? rewriteRef(x) : withRewrittenRefs(x);
    return out;
  }
  return v;
}

function contentFor(mediaTypes: Json | undefined, schema: JsonObject): JsonObject {
  const content: JsonObject = {};
  const list = Array.isArray(mediaTypes) && mediaTypes.length > 0 ? mediaTypes : ['application/json'];
  for (const m of list) if (typeof m === 'string') content[m] = { schema: withRewrittenRefs(schema) as JsonObject };
  return content;
}

function convertOperation(op: JsonObject): JsonObject {
  const out: JsonObject = {};
  const params = Array.isArray(op['parameters']) ? op['parameters'].filter(isJsonObject) : [];
  for (const [k, v] of Object.entries(op)) {
    if (k === 'consumes' || k === 'produces' || k === 'schemes' || k === 'parameters' || k === 'responses') continue;
    out[k] = v;
  }
  const nonBody = params.filter((p) => p['in'] !== 'body').map(convertParameter);
  if (nonBody.length > 0) out['parameters'] = nonBody;
  const body = params.find((p) => p['in'] === 'body');
  if (body && isJsonObject(body['schema'])) {
    const requestBody: JsonObject = { content: contentFor(op['consumes'], body['schema']) };
    if (body['required'] === true) requestBody['required'] = true;
    out['requestBody'] = requestBody;
  }
  const responses = op['responses'];
  if (isJsonObject(responses)) {
    const converted: JsonObject = {};
    for (const [code, resp] of Object.entries(responses)) {
      if (!isJsonObject(resp)) continue;
      const r: JsonObject = { description: resp['description'] ?? '' };
      if (isJsonObject(resp['schema'])) r['content'] = contentFor(op['produces'], resp['schema']);
      converted[code] = r;
    }
    out['responses'] = converted;
  }
  return out;
}

/** Converts a v2 path item whose parameters are already inline (no `#/parameters` refs). */
export function convertPathItem(item: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(item)) {
    if (METHODS.includes(k) && isJsonObject(v)) out[k] = convertOperation(v);
    else if (k === 'parameters' && Array.isArray(v)) out[k] = v.filter(isJsonObject).map(convertParameter);
    else out[k] = v;
  }
  return out;
}

/** Names of the definitions a JSON tree refers to, transitively. */
export function referencedDefinitions(roots: Json[], definitions: Record<string, JsonObject>): Set<string> {
  const seen = new Set<string>();
  const stack: Json[] = [...roots];
  while (stack.length > 0) {
    const v = stack.pop() as Json;
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (isJsonObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string' && x.startsWith(DEF_PREFIX)) {
          const name = x.slice(DEF_PREFIX.length);
          if (!seen.has(name)) {
            seen.add(name);
            const def = definitions[name];
            if (def) stack.push(def);
          }
        } else if (typeof x === 'object' && x !== null) {
          stack.push(x);
        }
      }
    }
  }
  return seen;
}

/**
 * A whole Swagger 2.0 document as OpenAPI 3.0: what kube-aggregator serves
 * for an extension server that has no /openapi/v3 (openapiconv.ConvertV2ToV3),
 * in this module's shapes: shared parameters inlined, every definition under
 * components.schemas, security definitions as security schemes.
 */
export function convertV2Document(doc: JsonObject): JsonObject {
  const shared = isJsonObject(doc['parameters']) ? doc['parameters'] : {};
  const inline = (list: Json | undefined): Json | undefined =>
    Array.isArray(list) ? list.map((p) => (isJsonObject(p) && typeof p['$ref'] === 'string' && p['$ref'].startsWith('#/parameters/') ? (shared[p['$ref'].slice('#/parameters/'.length)] ?? p) : p)) : list;
  const definitions: Record<string, JsonObject> = {};
  if (isJsonObject(doc['definitions'])) for (const [k, v] of Object.entries(doc['definitions'])) if (isJsonObject(v)) definitions[k] = v;
  const paths: JsonObject = {};
  const sourcePaths = isJsonObject(doc['paths']) ? doc['paths'] : {};
  for (const path of Object.keys(sourcePaths).sort()) {
    const item = sourcePaths[path];
    if (!isJsonObject(item)) continue;
    const withParams: JsonObject = {};
    for (const [k, v] of Object.entries(item)) {
      if (k === 'parameters') withParams[k] = inline(v) as Json;
      else if (isJsonObject(v) && Array.isArray(v['parameters'])) withParams[k] = { ...v, parameters: inline(v['parameters']) as Json };
      else withParams[k] = v;
    }
    paths[path] = convertPathItem(withParams);
  }
  const schemas: JsonObject = {};
  for (const name of Object.keys(definitions).sort()) schemas[name] = convertDefinition({ definitions }, name, definitions[name]!);
  const components: JsonObject = { schemas };
  if (isJsonObject(doc['securityDefinitions'])) components['securitySchemes'] = doc['securityDefinitions'];
  const out: JsonObject = { components, info: doc['info'] ?? {}, openapi: '3.0.0', paths };
  if (doc['security'] !== undefined) out['security'] = doc['security'];
  return sortKeysDeep(out) as JsonObject;
}
