/**
 * The view of an API type that strategic merge patch needs, built lazily from
 * OpenAPI v2 (swagger) definitions: for each field, the child type plus its
 * x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key.
 *
 * kube-apiserver drives SMP from Go struct tags; the OpenAPI extensions are
 * generated from those same tags, so they carry identical information. Where
 * the two views differ we follow the brief: fields the schema does not know
 * (and opaque values such as RawExtension, apiextensions JSON, FieldsV1 or
 * x-kubernetes-preserve-unknown-fields) are merged without schema, like a
 * merge patch with SMP directives, instead of failing as a Go struct lookup
 * would.
 *
 * Nothing is built up front: definitions are resolved on first use and cached
 * per definitions object, so one registry serves every request.
 */

export interface SwaggerSchema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  properties?: Record<string, SwaggerSchema>;
  items?: SwaggerSchema | SwaggerSchema[];
  additionalProperties?: SwaggerSchema | boolean;
  allOf?: SwaggerSchema[];
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  [extension: string]: unknown;
}

export type SwaggerDefinitions = Readonly<Record<string, SwaggerSchema>>;

/** Either the definitions map itself or a document holding it under "definitions". */
export type DefinitionsSource = SwaggerDefinitions | { readonly definitions: SwaggerDefinitions };

export type PatchSchemaKind = 'struct' | 'map' | 'list' | 'scalar' | 'opaque' | 'unknown';

export interface PatchField {
  /** For lookupField: the field's type. For lookupSlice: the list's element type. */
  readonly schema: PatchSchema;
  /** x-kubernetes-patch-strategy split on ",", e.g. ["merge", "retainKeys"]; [] when absent. */
  readonly strategies: readonly string[];
  /** x-kubernetes-patch-merge-key, "" when absent. */
  readonly mergeKey: string;
}

/** Types whose JSON form is free-form: navigation stops there. */
const OPAQUE_DEFINITIONS = new Set([
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.JSON',
]);

/** Types serialized as JSON scalars whatever their Go shape. */
const SCALAR_DEFINITIONS = new Set([
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  'io.k8s.apimachinery.pkg.api.resource.Quantity',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
]);

class Registry {
  private readonly byName = new Map<string, PatchSchema>();
  constructor(readonly definitions: SwaggerDefinitions) {}

  definition(name: string): PatchSchema | undefined {
    let s = this.byName.get(name);
    if (s === undefined) {
      const node = Object.prototype.hasOwnProperty.call(this.definitions, name) ? this.definitions[name] : undefined;
      if (node === undefined) return undefined;
      s = new PatchSchema(node, this, name);
      this.byName.set(name, s);
    }
    return s;
  }

  /** The schema a property/items/additionalProperties node stands for. */
  resolve(node: SwaggerSchema | undefined, name: string): PatchSchema {
    if (node === undefined) return PatchSchema.unknown;
    const ref = refOf(node);
    if (ref !== undefined) return this.definition(ref) ?? PatchSchema.unknown;
    return new PatchSchema(node, this, name);
  }
}

/** The definition a node stands for, by name: its $ref, or that of a lone allOf wrapper. */
export function refOf(node: { readonly $ref?: string; readonly allOf?: readonly { readonly $ref?: string }[] }): string | undefined {
  const ref = node.$ref ?? (node.allOf?.length === 1 ? node.allOf[0]?.$ref : undefined);
  if (typeof ref !== 'string') return undefined;
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/** The definitions map of a source that is either the map or a document holding it under "definitions". */
export function definitionsOf<T>(source: object): Readonly<Record<string, T>> {
  const inner = (source as { definitions?: unknown }).definitions;
  return (typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? inner : source) as Readonly<Record<string, T>>;
}

const registries = new WeakMap<object, Registry>();

function registryFor(source: DefinitionsSource): Registry {
  let r = registries.get(source);
  if (r === undefined) {
    r = new Registry(definitionsOf<SwaggerSchema>(source));
    registries.set(source, r);
  }
  return r;
}

/**
 * The patch schema of a definition, e.g. patchSchemaFor(defs, "io.k8s.api.apps.v1.Deployment").
 * Throws if the definition does not exist.
 */
export function patchSchemaFor(definitions: DefinitionsSource, definitionName: string): PatchSchema {
  const s = registryFor(definitions).definition(definitionName);
  if (s === undefined) throw new Error(`no OpenAPI definition named ${definitionName}`);
  return s;
}

/** A node's type; a nullable type lists "null" beside it. */
export function typeOf(node: { readonly type?: string | readonly string[] }): string | undefined {
  const t = node.type;
  if (Array.isArray(t)) return (t as readonly string[]).find((x) => x !== 'null');
  return t as string | undefined;
}

function splitStrategy(s: string | undefined): string[] {
  if (s === undefined || s === '') return [];
  return s.split(',');
}

export class PatchSchema {
  /** No schema information: maps merge, lists are replaced. */
  static readonly unknown: PatchSchema = new PatchSchema(undefined, undefined, '');

  readonly kind: PatchSchemaKind;
  private readonly fields = new Map<string, PatchField>();
  private itemsCache: PatchSchema | undefined;
  private valuesCache: PatchSchema | undefined;

  constructor(
    private readonly node: SwaggerSchema | undefined,
    private readonly registry: Registry | undefined,
    /** Definition name, or a descriptive path for inline schemas. */
    readonly name: string,
  ) {
    this.kind = classify(node, name);
  }

  /**
   * Name of the Go kind this type has (reflect.Kind.String()), which upstream
   * prints in "cannot merge lists without merge key for <kind>".
   */
  get goKind(): string {
    switch (this.kind) {
      case 'struct':
      case 'opaque':
        return 'struct';
      case 'map':
        return 'map';
      case 'list':
        return 'slice';
      case 'unknown':
        return 'interface';
      case 'scalar': {
        const node = this.node as SwaggerSchema;
        const t = typeOf(node);
        if (t === 'integer') return node.format === 'int32' ? 'int32' : 'int64';
        if (t === 'number') return node.format === 'float' ? 'float32' : 'float64';
        if (t === 'boolean') return 'bool';
        return SCALAR_DEFINITIONS.has(this.name) ? 'struct' : 'string';
      }
    }
  }

  /** Whether the type declares the field (maps accept every key). */
  hasField(name: string): boolean {
    if (this.kind === 'map') return true;
    if (this.kind !== 'struct') return false;
    return Object.prototype.hasOwnProperty.call(this.node?.properties ?? {}, name);
  }

  /** LookupPatchMetadataForStruct: the field's type and patch metadata. */
  lookupField(name: string): PatchField {
    if (this.kind === 'map') {
      return { schema: this.additionalProperties() ?? PatchSchema.unknown, strategies: [], mergeKey: '' };
    }
    if (!this.hasField(name)) return UNKNOWN_FIELD; // not cached: keys come from requests
    let f = this.fields.get(name);
    if (f === undefined) {
      f = this.computeField(name);
      this.fields.set(name, f);
    }
    return f;
  }

  /** LookupPatchMetadataForSlice: the list field's element type and patch metadata. */
  lookupSlice(name: string): PatchField {
    const f = this.lookupField(name);
    return { schema: f.schema.kind === 'list' ? f.schema.items() : PatchSchema.unknown, strategies: f.strategies, mergeKey: f.mergeKey };
  }

  /** Element type of a list. */
  items(): PatchSchema {
    if (this.itemsCache === undefined) {
      const items = this.kind === 'list' ? this.node?.items : undefined;
      const node = Array.isArray(items) ? items[0] : items;
      this.itemsCache = this.registry ? this.registry.resolve(node, `${this.name}[]`) : PatchSchema.unknown;
    }
    return this.itemsCache;
  }

  /** Value type of a map (additionalProperties), undefined for non-maps. */
  additionalProperties(): PatchSchema | undefined {
    if (this.kind !== 'map') return undefined;
    if (this.valuesCache === undefined) {
      const ap = this.node?.additionalProperties;
      this.valuesCache = typeof ap === 'object' && this.registry ? this.registry.resolve(ap, `${this.name}{}`) : PatchSchema.unknown;
    }
    return this.valuesCache;
  }

  private computeField(name: string): PatchField {
    const props = this.kind === 'struct' ? this.node?.properties : undefined;
    const prop = props && Object.prototype.hasOwnProperty.call(props, name) ? props[name] : undefined;
    if (prop === undefined || this.registry === undefined) return { schema: PatchSchema.unknown, strategies: [], mergeKey: '' };
    // The extensions sit on the property, next to a $ref or inside allOf wrappers.
    const strategy = prop['x-kubernetes-patch-strategy'] ?? prop.allOf?.find((s) => s['x-kubernetes-patch-strategy'])?.['x-kubernetes-patch-strategy'];
    const mergeKey = prop['x-kubernetes-patch-merge-key'] ?? prop.allOf?.find((s) => s['x-kubernetes-patch-merge-key'])?.['x-kubernetes-patch-merge-key'];
    return {
      schema: this.registry.resolve(prop, `${this.name}.${name}`),
      strategies: splitStrategy(typeof strategy === 'string' ? strategy : undefined),
      mergeKey: typeof mergeKey === 'string' ? mergeKey : '',
    };
  }
}

const UNKNOWN_FIELD: PatchField = { schema: PatchSchema.unknown, strategies: [], mergeKey: '' };

function classify(node: SwaggerSchema | undefined, name: string): PatchSchemaKind {
  if (node === undefined) return 'unknown';
  if (OPAQUE_DEFINITIONS.has(name)) return 'opaque';
  if (SCALAR_DEFINITIONS.has(name)) return 'scalar';
  if (node['x-kubernetes-int-or-string'] === true) return 'scalar';
  const hasProps = node.properties !== undefined && Object.keys(node.properties).length > 0;
  if (node['x-kubernetes-preserve-unknown-fields'] === true && !hasProps) return 'opaque';
  if (hasProps) return 'struct';
  const ap = node.additionalProperties;
  if (ap !== undefined && ap !== false) return 'map';
  const t = typeOf(node);
  if (t === 'array' || node.items !== undefined) return 'list';
  if (t === 'string' || t === 'integer' || t === 'number' || t === 'boolean') return 'scalar';
  // An object without declared fields (empty struct) or a schema without type.
  return 'opaque';
}
