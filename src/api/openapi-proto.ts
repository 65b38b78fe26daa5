/**
 * Protobuf encoding of a Swagger 2.0 document as the gnostic `openapi.v2.Document`
 * message (github.com/google/gnostic-models openapiv2/OpenAPIv2.proto), the
 * form client-go asks /openapi/v2 for with
 * `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`.
 * client-go has no JSON fallback for it, so kubectl's client-side apply
 * (strategic-merge metadata), client-side validation and
 * `kubectl explain --output=plaintext-openapiv2` depend on this encoding.
 *
 * Field numbers follow OpenAPIv2.proto. Values the proto models as `Any`
 * (vendor extensions, defaults, examples, enums) are carried as YAML text.
 */
import { isJsonObject, type Json, type JsonObject } from '../machinery/json.js';
import { ProtoWriter } from './proto-writer.js';
import { toYaml } from './yaml-text.js';

function str(v: Json | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: Json | undefined): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function bool(v: Json | undefined): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

function strings(w: ProtoWriter, field: number, v: Json | undefined): void {
  if (!Array.isArray(v)) return;
  for (const s of v) if (typeof s === 'string') w.stringAlways(field, s);
}

/** `Any { yaml = 2 }`. */
function anyMessage(v: Json): ProtoWriter {
  const w = new ProtoWriter();
  w.string(2, toYaml(v));
  return w;
}

/** Repeated `NamedAny` for the `x-` keys of an object. */
function vendorExtensions(w: ProtoWriter, field: number, obj: JsonObject): void {
  for (const [k, v] of Object.entries(obj)) {
    if (!k.startsWith('x-')) continue;
    const named = new ProtoWriter();
    named.string(1, k);
    named.message(2, anyMessage(v));
    w.message(field, named);
  }
}

function schemaMessage(s: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  w.string(1, str(s['$ref']));
  w.string(2, str(s['format']));
  w.string(3, str(s['title']));
  w.string(4, str(s['description']));
  if (s['default'] !== undefined) w.message(5, anyMessage(s['default']));
  w.double(6, num(s['multipleOf']));
  w.double(7, num(s['maximum']));
  w.bool(8, bool(s['exclusiveMaximum']));
  w.double(9, num(s['minimum']));
  w.bool(10, bool(s['exclusiveMinimum']));
  w.int64(11, num(s['maxLength']));
  w.int64(12, num(s['minLength']));
  w.string(13, str(s['pattern']));
  w.int64(14, num(s['maxItems']));
  w.int64(15, num(s['minItems']));
  w.bool(16, bool(s['uniqueItems']));
  w.int64(17, num(s['maxProperties']));
  w.int64(18, num(s['minProperties']));
  strings(w, 19, s['required']);
  if (Array.isArray(s['enum'])) for (const e of s['enum']) w.message(20, anyMessage(e));
  const ap = s['additionalProperties'];
  if (isJsonObject(ap)) {
    const item = new ProtoWriter();
    item.message(1, schemaMessage(ap));
    w.message(21, item);
  } else if (typeof ap === 'boolean') {
    // A set oneof member is written even when false.
    const item = new ProtoWriter();
    item.boolAlways(2, ap);
    w.message(21, item);
  }
  const type = s['type'];
  if (typeof type === 'string' || Array.isArray(type)) {
    const t = new ProtoWriter();
    if (typeof type === 'string') t.stringAlways(1, type);
    else strings(t, 1, type);
    w.message(22, t);
  }
  const items = s['items'];
  if (isJsonObject(items) || Array.isArray(items)) {
    const it = new ProtoWriter();
    for (const x of Array.isArray(items) ? items : [items]) if (isJsonObject(x)) it.message(1, schemaMessage(x));
    w.message(23, it);
  }
  if (Array.isArray(s['allOf'])) for (const x of s['allOf']) if (isJsonObject(x)) w.message(24, schemaMessage(x));
  const props = s['properties'];
  if (isJsonObject(props)) {
    const p = new ProtoWriter();
    for (const [name, value] of Object.entries(props)) {
      if (!isJsonObject(value)) continue;
      const named = new ProtoWriter();
      named.string(1, name);
      named.message(2, schemaMessage(value));
      p.message(1, named);
    }
    w.message(25, p);
  }
  w.string(26, str(s['discriminator']));
  w.bool(27, bool(s['readOnly']));
  if (s['example'] !== undefined) w.message(30, anyMessage(s['example']));
  vendorExtensions(w, 31, s);
  return w;
}

/** Query/path/header/formData parameter: the four sub-schema messages share most fields. */
function nonBodyParameter(p: JsonObject): ProtoWriter {
  const where = str(p['in']);
  const sub = new ProtoWriter();
  const queryLike = where === 'query' || where === 'formData';
  // Query and formData have allow_empty_value at 5, shifting the later fields by one.
  const o = queryLike ? 1 : 0;
  sub.bool(1, bool(p['required']));
  sub.string(2, where);
  sub.string(3, str(p['description']));
  sub.string(4, str(p['name']));
  if (queryLike) sub.bool(5, bool(p['allowEmptyValue']));
  sub.string(5 + o, str(p['type']));
  sub.string(6 + o, str(p['format']));
  if (isJsonObject(p['items'])) sub.message(7 + o, primitivesItems(p['items']));
  sub.string(8 + o, str(p['collectionFormat']));
  if (p['default'] !== undefined) sub.message(9 + o, anyMessage(p['default']));
  sub.double(10 + o, num(p['maximum']));
  sub.bool(11 + o, bool(p['exclusiveMaximum']));
  sub.double(12 + o, num(p['minimum']));
  sub.bool(13 + o, bool(p['exclusiveMinimum']));
  sub.int64(14 + o, num(p['maxLength']));
  sub.int64(15 + o, num(p['minLength']));
  sub.string(16 + o, str(p['pattern']));
  sub.int64(17 + o, num(p['maxItems']));
  sub.int64(18 + o, num(p['minItems']));
  sub.bool(19 + o, bool(p['uniqueItems']));
  if (Array.isArray(p['enum'])) for (const e of p['enum']) sub.message(20 + o, anyMessage(e));
  sub.double(21 + o, num(p['multipleOf']));
  vendorExtensions(sub, 22 + o, p);
  const oneofField = where === 'header' ? 1 : where === 'formData' ? 2 : where === 'query' ? 3 : 4;
  const nb = new ProtoWriter();
  nb.message(oneofField, sub);
  return nb;
}

function primitivesItems(p: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  w.string(1, str(p['type']));
  w.string(2, str(p['format']));
  if (isJsonObject(p['items'])) w.message(3, primitivesItems(p['items']));
  w.string(4, str(p['collectionFormat']));
  if (p['default'] !== undefined) w.message(5, anyMessage(p['default']));
  w.double(6, num(p['maximum']));
  w.bool(7, bool(p['exclusiveMaximum']));
  w.double(8, num(p['minimum']));
  w.bool(9, bool(p['exclusiveMinimum']));
  w.int64(10, num(p['maxLength']));
  w.int64(11, num(p['minLength']));
  w.string(12, str(p['pattern']));
  w.int64(13, num(p['maxItems']));
  w.int64(14, num(p['minItems']));
  w.bool(15, bool(p['uniqueItems']));
  if (Array.isArray(p['enum'])) for (const e of p['enum']) w.message(16, anyMessage(e));
  w.double(17, num(p['multipleOf']));
  vendorExtensions(w, 18, p);
  return w;
}

/** `Parameter` (oneof body_parameter = 1, non_body_parameter = 2). */
function parameterMessage(p: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  if (p['in'] === 'body') {
    const b = new ProtoWriter();
    b.string(1, str(p['description']));
    b.string(2, str(p['name']));
    b.string(3, 'body');
    b.bool(4, bool(p['required']));
    if (isJsonObject(p['schema'])) b.message(5, schemaMessage(p['schema']));
    vendorExtensions(b, 6, p);
    w.message(1, b);
  } else {
    w.message(2, nonBodyParameter(p));
  }
  return w;
}

/** `ParametersItem` (oneof parameter = 1, json_reference = 2). */
function parametersItem(p: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  const ref = str(p['$ref']);
  if (ref !== undefined) {
    const j = new ProtoWriter();
    j.string(1, ref);
    j.string(2, str(p['description']));
    w.message(2, j);
  } else {
    w.message(1, parameterMessage(p));
  }
  return w;
}

function responsesMessage(responses: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  for (const [code, r] of Object.entries(responses)) {
    if (code.startsWith('x-') || !isJsonObject(r)) continue;
    const value = new ProtoWriter();
    const ref = str(r['$ref']);
    if (ref !== undefined) {
      const j = new ProtoWriter();
      j.string(1, ref);
      value.message(2, j);
    } else {
      const resp = new ProtoWriter();
      resp.string(1, str(r['description']));
      if (isJsonObject(r['schema'])) {
        const item = new ProtoWriter();
        item.message(1, schemaMessage(r['schema']));
        resp.message(2, item);
      }
      vendorExtensions(resp, 5, r);
      value.message(1, resp);
    }
    const named = new ProtoWriter();
    named.string(1, code);
    named.message(2, value);
    w.message(1, named);
  }
  vendorExtensions(w, 2, responses);
  return w;
}

function operationMessage(op: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  strings(w, 1, op['tags']);
  w.string(2, str(op['summary']));
  w.string(3, str(op['description']));
  w.string(5, str(op['operationId']));
  strings(w, 6, op['produces']);
  strings(w, 7, op['consumes']);
  if (Array.isArray(op['parameters'])) for (const p of op['parameters']) if (isJsonObject(p)) w.message(8, parametersItem(p));
  if (isJsonObject(op['responses'])) w.message(9, responsesMessage(op['responses']));
  strings(w, 10, op['schemes']);
  w.bool(11, bool(op['deprecated']));
  if (Array.isArray(op['security'])) for (const s of op['security']) if (isJsonObject(s)) w.message(12, securityRequirement(s));
  vendorExtensions(w, 13, op);
  return w;
}

const PATH_METHOD_FIELDS: [string, number][] = [
  ['get', 2],
  ['put', 3],
  ['post', 4],
  ['delete', 5],
  ['options', 6],
  ['head', 7],
  ['patch', 8],
];

function pathItemMessage(item: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  w.string(1, str(item['$ref']));
  for (const [method, field] of PATH_METHOD_FIELDS) {
    const op = item[method];
    if (isJsonObject(op)) w.message(field, operationMessage(op));
  }
  if (Array.isArray(item['parameters'])) for (const p of item['parameters']) if (isJsonObject(p)) w.message(9, parametersItem(p));
  vendorExtensions(w, 10, item);
  return w;
}

function securityRequirement(req: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  for (const [name, scopes] of Object.entries(req)) {
    const arr = new ProtoWriter();
    strings(arr, 1, scopes);
    const named = new ProtoWriter();
    named.string(1, name);
    named.message(2, arr);
    w.message(1, named);
  }
  return w;
}

function securityDefinitions(defs: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  for (const [name, def] of Object.entries(defs)) {
    if (!isJsonObject(def)) continue;
    const item = new ProtoWriter();
    const type = str(def['type']);
    if (type === 'apiKey') {
      const k = new ProtoWriter();
      k.string(1, type);
      k.string(2, str(def['name']));
      k.string(3, str(def['in']));
      k.string(4, str(def['description']));
      vendorExtensions(k, 5, def);
      item.message(2, k);
    } else if (type === 'basic') {
      const b = new ProtoWriter();
      b.string(1, type);
      b.string(2, str(def['description']));
      vendorExtensions(b, 3, def);
      item.message(1, b);
    } else {
      continue; // OAuth2 flows are not used by Kubernetes
    }
    const named = new ProtoWriter();
    named.string(1, name);
    named.message(2, item);
    w.message(1, named);
  }
  return w;
}

/** Encodes a Swagger 2.0 document (already free of unknown top-level keys) as `openapi.v2.Document`. */
export function encodeOpenApiV2Proto(doc: JsonObject): Buffer {
  const w = new ProtoWriter();
  w.string(1, str(doc['swagger']));
  const info = doc['info'];
  if (isJsonObject(info)) {
    const i = new ProtoWriter();
    i.string(1, str(info['title']));
    i.string(2, str(info['version']));
    i.string(3, str(info['description']));
    vendorExtensions(i, 7, info);
    w.message(2, i);
  }
  w.string(3, str(doc['host']));
  w.string(4, str(doc['basePath']));
  strings(w, 5, doc['schemes']);
  strings(w, 6, doc['consumes']);
  strings(w, 7, doc['produces']);
  const paths = doc['paths'];
  if (isJsonObject(paths)) {
    const p = new ProtoWriter();
    vendorExtensions(p, 1, paths);
    for (const [path, item] of Object.entries(paths)) {
      if (path.startsWith('x-') || !isJsonObject(item)) continue;
      const named = new ProtoWriter();
      named.string(1, path);
      named.message(2, pathItemMessage(item));
      p.message(2, named);
    }
    w.message(8, p);
  }
  const definitions = doc['definitions'];
  if (isJsonObject(definitions)) {
    const d = new ProtoWriter();
    for (const [name, schema] of Object.entries(definitions)) {
      if (!isJsonObject(schema)) continue;
      const named = new ProtoWriter();
      named.string(1, name);
      named.message(2, schemaMessage(schema));
      d.message(1, named);
    }
    w.message(9, d);
  }
  const parameters = doc['parameters'];
  if (isJsonObject(parameters)) {
    const d = new ProtoWriter();
    for (const [name, param] of Object.entries(parameters)) {
      if (!isJsonObject(param)) continue;
      const named = new ProtoWriter();
      named.string(1, name);
      named.message(2, parameterMessage(param));
      d.message(1, named);
    }
    w.message(10, d);
  }
  if (Array.isArray(doc['security'])) for (const s of doc['security']) if (isJsonObject(s)) w.message(12, securityRequirement(s));
  if (isJsonObject(doc['securityDefinitions'])) w.message(13, securityDefinitions(doc['securityDefinitions']));
  vendorExtensions(w, 16, doc);
  return w.finish();
}
