/**
 * The view of an API type that strategic merge patch needs, read from the
 * shared schema model (api/schema-model.ts): for each field, the child type
 * plus its x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key.
 *
 * kube-apiserver drives SMP from Go struct tags; the OpenAPI extensions are
 * generated from those same tags, so they carry identical information. Where
 * the two views differ we follow the brief: fields the schema does not know
 * (and opaque values such as RawExtension, apiextensions JSON, FieldsV1 or
 * x-kubernetes-preserve-unknown-fields) are merged without schema, like a
 * merge patch with SMP directives, instead of failing as a Go struct lookup
 * would.
 *
 * Nothing is built up front: types are resolved on first use and kept in the
 * model's patch view, so the descriptor that owns the model serves every
 * request with one set of them.
 */
import { type DefinitionsSource, type SchemaModel, type SchemaNode, type ViewKey, schemaModelOf } from '../api/schema-model.js';

/** One OpenAPI v2 schema node as written (the input type of test definitions). */
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

/** The patch view of one model: definitions resolved to PatchSchemas once. */
class PatchView {
  private readonly byName = new Map<string, PatchSchema>();
  constructor(private readonly model: SchemaModel) {}

  definition(name: string): PatchSchema | undefined {
    let s = this.byName.get(name);
    if (s === undefined) {
      const node = this.model.definition(name);
      if (node === undefined) return undefined;
      s = new PatchSchema(node, this, name);
      this.byName.set(name, s);
    }
    return s;
  }

  /** The schema a property/items/additionalProperties node stands for. */
  resolve(node: SchemaNode | undefined, name: string): PatchSchema {
    if (node === undefined) return PatchSchema.unknown;
    if (node.ref !== undefined) return this.definition(node.ref) ?? PatchSchema.unknown;
    return new PatchSchema(node, this, name);
  }
}

const PATCH_VIEW: ViewKey<PatchView> = { name: 'strategic merge patch', build: (model) => new PatchView(model) };

/**
 * The patch schema of a definition, e.g. patchSchemaFor(descriptor.schema.model, "io.k8s.api.apps.v1.Deployment").
 * Raw definitions get a model of their own (no cache). Throws if the definition does not exist.
 */
export function patchSchemaFor(source: SchemaModel | DefinitionsSource, definitionName: string): PatchSchema {
  const s = schemaModelOf(source).view(PATCH_VIEW).definition(definitionName);
  if (s === undefined) throw new Error(`no OpenAPI definition named ${definitionName}`);
  return s;
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
    private readonly node: SchemaNode | undefined,
    private readonly view: PatchView | undefined,
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
        const node = this.node as SchemaNode;
        const t = node.type;
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
    return this.node?.property(name) !== undefined;
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
      this.itemsCache = this.view ? this.view.resolve(items, `${this.name}[]`) : PatchSchema.unknown;
    }
    return this.itemsCache;
  }

  /** Value type of a map (additionalProperties), undefined for non-maps. */
  additionalProperties(): PatchSchema | undefined {
    if (this.kind !== 'map') return undefined;
    if (this.valuesCache === undefined) {
      const ap = this.node?.additionalProperties;
      this.valuesCache = typeof ap === 'object' && this.view ? this.view.resolve(ap, `${this.name}{}`) : PatchSchema.unknown;
    }
    return this.valuesCache;
  }

  private computeField(name: string): PatchField {
    const prop = this.kind === 'struct' ? this.node?.property(name) : undefined;
    if (prop === undefined || this.view === undefined) return { schema: PatchSchema.unknown, strategies: [], mergeKey: '' };
    // The extensions sit on the property, next to a $ref or inside allOf wrappers (the model reads both).
    return {
      schema: this.view.resolve(prop, `${this.name}.${name}`),
      strategies: splitStrategy(prop.patchStrategy),
      mergeKey: prop.patchMergeKey ?? '',
    };
  }
}

const UNKNOWN_FIELD: PatchField = { schema: PatchSchema.unknown, strategies: [], mergeKey: '' };

function classify(node: SchemaNode | undefined, name: string): PatchSchemaKind {
  if (node === undefined) return 'unknown';
  if (OPAQUE_DEFINITIONS.has(name)) return 'opaque';
  if (SCALAR_DEFINITIONS.has(name)) return 'scalar';
  if (node.intOrString) return 'scalar';
  if (node.preserveUnknownFields && !node.hasProperties) return 'opaque';
  if (node.hasProperties) return 'struct';
  const ap = node.additionalProperties;
  if (ap !== undefined && ap !== false) return 'map';
  const t = node.type;
  if (t === 'array' || node.hasItems) return 'list';
  if (t === 'string' || t === 'integer' || t === 'number' || t === 'boolean') return 'scalar';
  // An object without declared fields (empty struct) or a schema without type.
  return 'opaque';
}
