/**
 * The view of a built-in API type that field validation needs: for every
 * position in an object, which Go type kube-apiserver decodes it into.
 *
 * kube-apiserver decodes request bodies into generated Go structs with
 * sigs.k8s.io/json; what counts as an unknown field, a duplicate field or a
 * type error, and how each error is worded (Go type names, struct names), all
 * follow from those Go types. The OpenAPI v2 definitions are generated from
 * the same structs, so they carry the information, with a few translations:
 *
 * - an object with properties is a struct; with additionalProperties a map;
 *   an object with neither is an empty struct (every key is unknown), except
 *   the raw types below;
 * - types with their own UnmarshalJSON (Quantity, IntOrString, Time,
 *   MicroTime, RawExtension, FieldsV1, apiextensions JSON and the
 *   JSONSchemaPropsOr* unions) get kinds of their own because Go hands them
 *   the raw bytes: nothing inside them is checked for unknown or duplicate
 *   fields, and their errors are their own.
 *
 * Nothing is built up front: types are read from the shared schema model
 * (api/schema-model.ts) on first use and kept in the model's field view, so
 * the descriptor that owns the model serves every request with one set.
 */

import { type DefinitionsSource, type SchemaModel, type SchemaNode, type ViewKey, schemaModelOf } from '../../api/schema-model.js';

export type { DefinitionsSource } from '../../api/schema-model.js';

/**
 * How Go decodes a position. Numeric so the scanner's hot switch stays a
 * jump table.
 */
export const Kind = {
  /** A generated struct: only declared fields are known. */
  Struct: 0,
  /** map[string]T */
  Map: 1,
  /** []T */
  List: 2,
  String: 3,
  Bool: 4,
  /** Signed integers; `bits` says which. */
  Int: 5,
  Float: 6,
  /** []byte: a base64 string (or an array of bytes). */
  Bytes: 7,
  Quantity: 8,
  IntOrString: 9,
  Time: 10,
  MicroTime: 11,
  /** RawExtension, FieldsV1, apiextensions JSON: raw bytes kept, nothing checked. */
  Raw: 12,
  /** interface{}: any value; objects are maps (duplicates count, nothing is unknown). */
  Any: 13,
  /** apiextensions JSONSchemaPropsOrArray: object → JSONSchemaProps, array → []JSONSchemaProps. */
  SchemaOrArray: 14,
  /** apiextensions JSONSchemaPropsOrBool: object → JSONSchemaProps, true/false. */
  SchemaOrBool: 15,
  /** apiextensions JSONSchemaPropsOrStringArray: object → JSONSchemaProps, array → []string. */
  SchemaOrStringArray: 16,
  /** uint8 (elements of a []byte sent as an array). */
  Uint8: 17,
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

const RAW_DEFINITIONS = new Set([
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.JSON',
]);

const SPECIAL_DEFINITIONS: ReadonlyMap<string, Kind> = new Map<string, Kind>([
  ['io.k8s.apimachinery.pkg.api.resource.Quantity', Kind.Quantity],
  ['io.k8s.apimachinery.pkg.util.intstr.IntOrString', Kind.IntOrString],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.Time', Kind.Time],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime', Kind.MicroTime],
  ['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray', Kind.SchemaOrArray],
  ['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool', Kind.SchemaOrBool],
  ['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray', Kind.SchemaOrStringArray],
]);

const JSON_SCHEMA_PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** Go's name for a definition's type: package name (last path element) + type, e.g. `v1.DeploymentSpec`. */
export function goTypeNameOf(definitionName: string): string {
  const dot = definitionName.lastIndexOf('.');
  if (dot < 0) return definitionName;
  const pkgEnd = dot;
  const pkgStart = definitionName.lastIndexOf('.', pkgEnd - 1) + 1;
  return `${definitionName.slice(pkgStart, pkgEnd)}.${definitionName.slice(dot + 1)}`;
}

/** A position's Go type. Struct fields, list items and map values resolve lazily. */
export class FieldType {
  private fieldCache: Map<string, FieldType | null> | undefined;
  private elemCache: FieldType | undefined;

  constructor(
    readonly kind: Kind,
    /** reflect.Type.String(), as UnmarshalTypeError prints it: `int32`, `[]v1.Container`, `v1.PodSpec`. */
    readonly goType: string,
    /** reflect.Type.Name() of a struct (`PodSpec`): the "Go struct field <Struct>.<path>" part. */
    readonly structName: string,
    /** Bit size of Int (32 or 64). */
    readonly bits: number,
    /** Keys a struct does not declare are kept and not reported (x-kubernetes-preserve-unknown-fields). */
    readonly preserveUnknown: boolean,
    private readonly node: SchemaNode | undefined,
    private readonly registry: FieldView | undefined,
    private readonly elemFactory?: () => FieldType,
    private readonly fixedFields?: ReadonlyMap<string, FieldType>,
  ) {}

  private namesByLength: Array<readonly FieldRef[] | undefined> | undefined;

  /**
   * The declared field spelled by text[start, end) (a JSON key without
   * escapes), or undefined. Matching in place spares the scanner a string per
   * key and a hash of it.
   */
  matchField(text: string, start: number, end: number): FieldRef | undefined {
    let byLen = this.namesByLength;
    if (byLen === undefined) {
      byLen = [];
      const names = this.fixedFields !== undefined ? [...this.fixedFields.keys()] : [...(this.node?.properties.keys() ?? [])];
      for (const name of names) {
        const bucket = (byLen[name.length] ?? []) as FieldRef[];
        bucket.push(new FieldRef(name, this));
        byLen[name.length] = bucket;
      }
      this.namesByLength = byLen;
    }
    const bucket = byLen[end - start];
    if (bucket === undefined) return undefined;
    for (let k = 0; k < bucket.length; k++) {
      const ref = bucket[k] as FieldRef;
      if (text.startsWith(ref.name, start)) return ref;
    }
    return undefined;
  }

  /** A struct's field by its exact JSON name (kube decodes case-sensitively), or undefined. */
  field(name: string): FieldType | undefined {
    if (this.kind !== Kind.Struct) return undefined;
    if (this.fixedFields !== undefined) return this.fixedFields.get(name);
    let cache = this.fieldCache;
    if (cache === undefined) cache = this.fieldCache = new Map();
    let f = cache.get(name);
    if (f === undefined) {
      const prop = this.node?.property(name);
      f = prop !== undefined && this.registry !== undefined ? this.registry.resolve(prop) : null;
      // Only declared names are cached: unknown keys come from requests and are unbounded.
      if (f !== null) cache.set(name, f);
    }
    return f ?? undefined;
  }

  /** List items, map values, or (for the JSONSchemaProps unions) JSONSchemaProps. */
  get elem(): FieldType {
    let e = this.elemCache;
    if (e === undefined) {
      e = this.elemFactory ? this.elemFactory() : ANY;
      this.elemCache = e;
    }
    return e;
  }
}

/** A declared struct field: its name (the schema's own string) and its type, resolved on first use. */
export class FieldRef {
  private typeCache: FieldType | undefined;
  constructor(
    readonly name: string,
    private readonly owner: FieldType,
  ) {}

  get type(): FieldType {
    return (this.typeCache ??= this.owner.field(this.name) as FieldType);
  }
}

function scalar(kind: Kind, goType: string, bits = 0): FieldType {
  return new FieldType(kind, goType, '', bits, false, undefined, undefined);
}

export const ANY = new FieldType(Kind.Any, 'interface {}', '', 0, false, undefined, undefined);
export const STRING = scalar(Kind.String, 'string');
export const BOOL = scalar(Kind.Bool, 'bool');
export const INT32 = scalar(Kind.Int, 'int32', 32);
export const INT64 = scalar(Kind.Int, 'int64', 64);
export const FLOAT64 = scalar(Kind.Float, 'float64', 64);
export const UINT8 = scalar(Kind.Uint8, 'uint8', 8);
export const BYTES = new FieldType(Kind.Bytes, '[]uint8', '', 0, false, undefined, undefined, () => UINT8);
const RAW = scalar(Kind.Raw, 'runtime.RawExtension');

/** []T for a synthetic element type. */
export function listOf(elem: FieldType): FieldType {
  return new FieldType(Kind.List, `[]${elem.goType}`, '', 0, false, undefined, undefined, () => elem);
}

/** map[string]T for a synthetic element type. */
export function mapOf(elem: FieldType): FieldType {
  return new FieldType(Kind.Map, `map[string]${elem.goType}`, '', 0, false, undefined, undefined, () => elem);
}

/** A struct that is not in the definitions (e.g. handlers.jsonPatchOp). */
export function syntheticStruct(goType: string, fields: ReadonlyMap<string, FieldType>): FieldType {
  const dot = goType.lastIndexOf('.');
  return new FieldType(Kind.Struct, goType, goType.slice(dot + 1), 0, false, undefined, undefined, undefined, fields);
}

/** The field view of one model: definitions resolved to Go types once. */
class FieldView {
  private readonly byName = new Map<string, FieldType>();
  constructor(private readonly model: SchemaModel) {}

  definition(name: string): FieldType | undefined {
    let t = this.byName.get(name);
    if (t === undefined) {
      const node = this.model.definition(name);
      if (node === undefined) return undefined;
      t = this.build(node, name);
      this.byName.set(name, t);
    }
    return t;
  }

  /** The type a property/items/additionalProperties node stands for. */
  resolve(node: SchemaNode): FieldType {
    if (node.ref !== undefined) return this.definition(node.ref) ?? ANY;
    return this.build(node, undefined);
  }

  private build(node: SchemaNode, name: string | undefined): FieldType {
    if (name !== undefined) {
      if (RAW_DEFINITIONS.has(name)) return new FieldType(Kind.Raw, goTypeNameOf(name), '', 0, false, node, this);
      const special = SPECIAL_DEFINITIONS.get(name);
      if (special !== undefined) {
        return new FieldType(special, goTypeNameOf(name), '', 0, false, node, this, () => this.definition(JSON_SCHEMA_PROPS) ?? ANY);
      }
    }
    if (node.intOrString) return new FieldType(Kind.IntOrString, 'intstr.IntOrString', '', 0, false, node, this);
    const type = node.type;
    const hasProps = node.hasProperties;
    const preserve = node.preserveUnknownFields;
    const ap = node.additionalProperties;
    if (hasProps || (type === 'object' && ap === undefined)) {
      if (!hasProps && preserve) return ANY;
      const goType = name !== undefined ? goTypeNameOf(name) : 'struct {}';
      const structName = name !== undefined ? name.slice(name.lastIndexOf('.') + 1) : '';
      return new FieldType(Kind.Struct, goType, structName, 0, preserve, node, this);
    }
    if (ap !== undefined && ap !== false) {
      if (ap === true) return mapOf(ANY);
      const elem = this.resolve(ap);
      // map[ResourceName]resource.Quantity is the named type ResourceList; other named map types are not recorded in OpenAPI.
      const goType = ap.ref === QUANTITY ? 'v1.ResourceList' : `map[string]${elem.goType}`;
      return new FieldType(Kind.Map, goType, '', 0, false, node, this, () => elem);
    }
    if (type === 'array' || node.hasItems) {
      const items = node.items;
      const elem = items !== undefined ? this.resolve(items) : ANY;
      return new FieldType(Kind.List, `[]${elem.goType}`, '', 0, false, node, this, () => elem);
    }
    switch (type) {
      case 'string':
        return node.format === 'byte' ? BYTES : STRING;
      case 'boolean':
        return BOOL;
      case 'integer':
        return node.format === 'int32' ? INT32 : INT64;
      case 'number':
        return node.format === 'float' ? scalar(Kind.Float, 'float32', 32) : FLOAT64;
      default:
        return name !== undefined && type === undefined ? RAW : ANY;
    }
  }
}

const FIELD_VIEW: ViewKey<FieldView> = { name: 'field validation', build: (model) => new FieldView(model) };

/**
 * The field type of a definition, e.g. fieldTypeFor(descriptor.schema.model, 'io.k8s.api.apps.v1.Deployment').
 * Raw definitions get a model of their own (no cache). Undefined when the definition does not exist.
 */
export function fieldTypeFor(source: SchemaModel | DefinitionsSource, definitionName: string): FieldType | undefined {
  return schemaModelOf(source).view(FIELD_VIEW).definition(definitionName);
}
