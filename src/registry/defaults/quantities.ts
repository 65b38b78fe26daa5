import { canonicalQuantityJson } from '../../api/quantity.js';
import { loadDefinitions } from '../../api/definitions.js';
import { type JsonObject, type JsonValue, setOwn } from '../../machinery/json-value.js';
import type { DefinitionsSource, SchemaModel } from '../../api/schema-model.js';
import { type FieldType, fieldTypeFor, Kind } from '../../validation/fields/schema.js';
import type { KubeObject } from '../../machinery/object.js';

/**
 * kube-apiserver decodes every body into Go structs, where a
 * resource.Quantity keeps only its value and format, and encodes what it
 * stores and returns with Quantity.MarshalJSON: quantities come back in
 * canonical form whatever was written ("1000m" reads back "1", the number 2
 * as "2", "1.5Gi" as "1536Mi").
 *
 * canonicalizeQuantities does the same to a decoded object of a served
 * version, in place: every value whose type is
 * io.k8s.apimachinery.pkg.api.resource.Quantity (struct fields, list items
 * and map values such as resources.limits or ResourceQuota's hard) becomes
 * its canonical string. `definition` is the object's OpenAPI definition
 * (ResourceInfo.definition, e.g. `io.k8s.api.core.v1.Pod`); unknown
 * definitions are left alone. Values that are not quantities (text that does
 * not parse, which decoding rejects before this runs, and null, which a Go
 * pointer keeps as nil) are left as they are. Numbers lose their exponent
 * spelling once JSON.parse has read them, so a bare 1e3 reads back as "1k"
 * where kube keeps "1e3".
 *
 * Handlers call it once a request's object is decoded and defaulted, before
 * admission sees it, as kube's decode does.
 */
export function canonicalizeQuantities(definition: string, obj: KubeObject, definitions: SchemaModel | DefinitionsSource = loadDefinitions()): void {
  const t = fieldTypeFor(definitions, definition);
  if (t !== undefined) walk(obj, t);
}

/** The canonical value for a position of type t; containers are changed in place and returned. */
function walk(value: unknown, t: FieldType): unknown {
  if (typeof value !== 'object' || value === null) return t.kind === Kind.Quantity ? canonicalQuantityJson(value) : value;
  switch (t.kind) {
    case Kind.Struct:
      if (!Array.isArray(value)) {
        const obj = value as Record<string, unknown>;
        for (const key of Object.keys(obj)) {
          const f = t.field(key);
          if (f !== undefined) set(obj, key, walk(obj[key], f));
        }
      }
      break;
    case Kind.Map:
      if (!Array.isArray(value)) {
        const obj = value as Record<string, unknown>;
        for (const key of Object.keys(obj)) set(obj, key, walk(obj[key], t.elem));
      }
      break;
    case Kind.List:
      if (Array.isArray(value)) for (let i = 0; i < value.length; i++) value[i] = walk(value[i], t.elem);
      break;
  }
  return value;
}

function set(obj: Record<string, unknown>, key: string, v: unknown): void {
  if (obj[key] !== v) setOwn(obj as JsonObject, key, v as JsonValue);
}
