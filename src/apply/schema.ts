/**
 * The structured-merge-diff schema ("typed" view) of API types, built lazily
 * from OpenAPI v2 definitions the way kube-openapi's schemaconv does
 * (ToSchemaWithPreserveUnknownFields / OpenAPIv3ToSchema):
 *
 * - objects with properties are structs (maps with declared fields), granular
 *   unless `x-kubernetes-map-type: atomic`; `additionalProperties` maps are
 *   granular maps unless marked atomic; a map-type next to a `$ref` overrides
 *   the referenced type's;
 * - arrays: `x-kubernetes-list-type` atomic / set / map (+ list-map-keys);
 *   without it, `x-kubernetes-patch-strategy: merge` reads as an associative
 *   list keyed by the patch merge key (a set when there is no merge key);
 *   anything else is atomic;
 * - string formats other than "" and "byte" (int-or-string, date-time, ...),
 *   and Quantity, are untyped scalars; RawExtension is untyped atomic; a type
 *   without properties and without type, or an object without properties nor
 *   additionalProperties, is "deduced" (every key a field, lists atomic);
 * - `x-kubernetes-preserve-unknown-fields` lets unknown keys in, deduced.
 *
 * Custom resources without a schema use deducedSchema().
 */
import { loadDefinitions } from '../api/definitions.js';
import { type DefinitionsSource, SchemaModel, type SchemaNode, type ViewKey, schemaModelOf } from '../api/schema-model.js';
import { zeroObject } from './zero.js';
import type { JsonObject, JsonValue } from './value.js';

export type ScalarKind = 'numeric' | 'string' | 'boolean' | 'untyped';

export interface ListAtom {
  readonly elementType: TypeRef;
  /** atomic: replaced as a whole; associative: items merged by key (or by value for sets). */
  readonly relationship: 'atomic' | 'associative';
  /** Key field names of an associative list of maps; empty for a set of scalars. */
  readonly keys: readonly string[];
}

export interface StructField {
  readonly name: string;
  readonly type: TypeRef;
  /** The field's schema default (used for list-map keys the item omits). */
  readonly default?: JsonValue;
}

export interface MapAtom {
  /** Declared fields (struct fields). */
  readonly fields: ReadonlyMap<string, StructField>;
  /** Type of undeclared keys; undefined when undeclared keys are not allowed. */
  readonly elementType: TypeRef | undefined;
  readonly relationship: 'atomic' | 'separable' | 'granular';
}

/** One schema node: one or more of scalar, list, map (values pick the matching one). */
export interface Atom {
  readonly scalar?: ScalarKind;
  readonly list?: ListAtom;
  readonly map?: MapAtom;
}

export interface TypeRef {
  /** For messages: a definition name or "inlined". */
  readonly name: string;
  /** The atom, or undefined when the reference does not resolve. */
  atom(): Atom | undefined;
}

export interface ApplySchema {
  readonly root: TypeRef;
  /**
   * Whether objects of this schema are Go structs in kube (built-in types):
   * null-valued fields then disappear when the merged object is stored, as
   * they do after kube converts the merged value back into its Go type.
   */
  readonly goTyped: boolean;
  /** The kind's Go zero value as kube renders it: what a create is compared against. */
  readonly zero?: () => JsonObject;
}

class FixedRef implements TypeRef {
  constructor(
    readonly name: string,
    private readonly value: Atom,
  ) {}
  atom(): Atom {
    return this.value;
  }
}

class LazyRef implements TypeRef {
  private cached: Atom | undefined;
  private built = false;
  constructor(
    readonly name: string,
    private readonly build: () => Atom | undefined,
  ) {}
  atom(): Atom | undefined {
    if (!this.built) {
      this.built = true;
      this.cached = this.build();
    }
    return this.cached;
  }
}

/** A named type with the map element relationship overridden (map-type next to a $ref). */
class OverrideRef implements TypeRef {
  private cached: Atom | undefined;
  constructor(
    private readonly inner: TypeRef,
    private readonly relationship: MapAtom['relationship'],
  ) {}
  get name(): string {
    return this.inner.name;
  }
  atom(): Atom | undefined {
    if (this.cached === undefined) {
      const a = this.inner.atom();
      if (a === undefined) return undefined;
      this.cached = a.map ? { ...a, map: { ...a.map, relationship: this.relationship } } : a;
    }
    return this.cached;
  }
}

const untypedAtomicAtom: { scalar: ScalarKind; list: ListAtom; map: MapAtom } = {
  scalar: 'untyped',
  list: undefined as unknown as ListAtom,
  map: undefined as unknown as MapAtom,
};
/** __untyped_atomic_: any value, replaced as a whole. */
export const untypedAtomic: TypeRef = new FixedRef('__untyped_atomic_', untypedAtomicAtom);
untypedAtomicAtom.list = { elementType: untypedAtomic, relationship: 'atomic', keys: [] };
untypedAtomicAtom.map = { fields: new Map(), elementType: untypedAtomic, relationship: 'atomic' };

const deducedAtom: { scalar: ScalarKind; list: ListAtom; map: MapAtom } = {
  scalar: 'untyped',
  list: { elementType: untypedAtomic, relationship: 'atomic', keys: [] },
  map: undefined as unknown as MapAtom,
};
/** __untyped_deduced_: maps are granular with every key a field; lists and scalars atomic. */
export const deduced: TypeRef = new FixedRef('__untyped_deduced_', deducedAtom);
deducedAtom.map = { fields: new Map(), elementType: deduced, relationship: 'separable' };

/** The schema kube uses for custom resources without a structural schema. */
export function deducedSchema(): ApplySchema {
  return { root: deduced, goTyped: false };
}

const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/**
 * Defaults of list-map key fields. kube's OpenAPI carries `default: "TCP"` on
 * these (from +default markers); our generated v2 definitions do not, and
 * without it a port applied without protocol would not match its defaulted
 * live item.
 */
const KEY_FIELD_DEFAULTS: Readonly<Record<string, Readonly<Record<string, JsonValue>>>> = {
  'io.k8s.api.core.v1.ContainerPort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.ServicePort': { protocol: 'TCP' },
};

function mapRelationship(node: SchemaNode): MapAtom['relationship'] | undefined {
  const v = node.mapType;
  if (v === 'atomic') return 'atomic';
  if (v === 'granular') return 'separable';
  return undefined;
}

function listRelationship(node: SchemaNode): { relationship: ListAtom['relationship']; keys: readonly string[] } {
  const lt = node.listType;
  if (lt !== undefined) {
    if (lt === 'set') return { relationship: 'associative', keys: [] };
    if (lt === 'map') return { relationship: 'associative', keys: node.listMapKeys };
    return { relationship: 'atomic', keys: [] };
  }
  const ps = node.patchStrategy;
  if (ps === 'merge' || ps === 'merge,retainKeys') {
    const key = node.patchMergeKey;
    return { relationship: 'associative', keys: key !== undefined ? [key] : [] };
  }
  return { relationship: 'atomic', keys: [] };
}

function primitive(type: string, format: string): ScalarKind {
  switch (type) {
    case 'integer':
    case 'number':
      return 'numeric';
    case 'boolean':
      return 'boolean';
    case 'string':
      return format === '' || format === 'byte' ? 'string' : 'untyped';
    default:
      return 'untyped';
  }
}

/**
 * Converts schema model nodes to atoms; definitions are resolved by name and
 * cached here, and the builder itself is the model's apply view (one per
 * model, so one per descriptor).
 */
export class SchemaBuilder {
  private readonly named = new Map<string, TypeRef>();
  readonly model: SchemaModel;

  constructor(source: SchemaModel | DefinitionsSource) {
    this.model = schemaModelOf(source);
  }

  /** The type of a named definition (e.g. io.k8s.api.apps.v1.Deployment). */
  named_(name: string): TypeRef {
    let ref = this.named.get(name);
    if (ref === undefined) {
      ref = new LazyRef(name, () => {
        const node = this.model.definition(name);
        if (node === undefined) return undefined;
        if (name === QUANTITY) return { scalar: 'untyped' };
        return this.convert(node, name, false);
      });
      this.named.set(name, ref);
    }
    return ref;
  }

  /** makeRef: a property/items/additionalProperties node. */
  ref(node: SchemaNode | undefined, context: string, preserveUnknown: boolean): TypeRef {
    if (node === undefined) return untypedAtomic;
    const name = node.ref;
    if (name !== undefined) {
      if (name === RAW_EXTENSION) return untypedAtomic;
      const target = this.named_(name);
      const rel = mapRelationship(node);
      return rel === undefined ? target : new OverrideRef(target, rel);
    }
    const atom = this.convert(node, context, preserveUnknown);
    if (atom === deducedAtom) return deduced;
    return new FixedRef(`inlined in ${context}`, atom);
  }

  /** VisitSpec: one schema node to an atom. */
  convert(node: SchemaNode, context: string, inheritedPreserve: boolean): Atom {
    const preserve = inheritedPreserve || node.preserveUnknownFields;
    if (node.intOrString) return { scalar: 'untyped' };
    const type = node.type ?? '';
    switch (type) {
      case '':
        // Older specs omit the type of objects: with properties it is a struct, else anything goes.
        return node.hasProperties ? this.object(node, context, preserve) : deducedAtom;
      case 'object':
        return this.object(node, context, preserve);
      case 'array':
        return this.array(node, context, preserve);
      case 'integer':
      case 'number':
      case 'boolean':
      case 'string':
        return { scalar: primitive(type, node.format) };
      default:
        return { scalar: 'untyped' };
    }
  }

  private object(node: SchemaNode, context: string, preserve: boolean): Atom {
    const keyDefaults = KEY_FIELD_DEFAULTS[context];
    const fields = new Map<string, StructField>();
    for (const [name, member] of node.properties) {
      const def = member.hasDefault ? member.default : keyDefaults?.[name];
      fields.set(name, def === undefined ? { name, type: this.ref(member, context, preserve) } : { name, type: this.ref(member, context, preserve), default: def });
    }
    const ap = node.additionalProperties;
    let elementType: TypeRef | undefined;
    if (ap === undefined) elementType = preserve || fields.size === 0 ? deduced : undefined;
    else if (typeof ap === 'object') elementType = this.ref(ap, context, preserve);
    else if (ap === true) elementType = deduced;
    else elementType = preserve ? deduced : undefined;
    return { map: { fields, elementType, relationship: mapRelationship(node) ?? 'granular' } };
  }

  private array(node: SchemaNode, context: string, preserve: boolean): Atom {
    const { relationship, keys } = listRelationship(node);
    return { list: { elementType: this.ref(node.items, context, preserve), relationship, keys } };
  }
}

const APPLY_VIEW: ViewKey<SchemaBuilder> = { name: 'server-side apply', build: (model) => new SchemaBuilder(model) };

/** The apply view of a model: its types, built once per model. */
export function applyTypes(model: SchemaModel): SchemaBuilder {
  return model.view(APPLY_VIEW);
}

/**
 * The apply schema of a built-in kind by definition name, e.g. io.k8s.api.apps.v1.Deployment,
 * read from `model` (the descriptor's; a new model over the built-in definitions when absent).
 */
export function schemaForDefinition(definitionName: string, model: SchemaModel = new SchemaModel(loadDefinitions())): ApplySchema {
  const b = applyTypes(model);
  if (b.named_(definitionName).atom() === undefined) throw new Error(`no OpenAPI definition named ${definitionName}`);
  return { root: b.named_(definitionName), goTyped: true, zero: () => zeroObject(model, definitionName) };
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * The apply schema of a custom resource version from its openAPIV3Schema
 * (the CRD's validation schema). apiVersion, kind and metadata are typed as
 * kube's CRD OpenAPI builder types them (strings and ObjectMeta), whatever
 * the CRD declares for them. Without a schema the resource is deduced.
 * `model` (the descriptor's) supplies ObjectMeta.
 */
export function schemaForCustomResource(
  openAPIV3Schema: JsonObject | undefined,
  opts: { preserveUnknownFields?: boolean } = {},
  model: SchemaModel = new SchemaModel(loadDefinitions()),
): ApplySchema {
  if (openAPIV3Schema === undefined) return deducedSchema();
  const preserve = opts.preserveUnknownFields === true;
  const b = applyTypes(model);
  const rootNode = model.node({ ...openAPIV3Schema, type: 'object' });
  const root = new LazyRef('custom resource', () => {
    const atom = b.convert(rootNode, 'custom resource', preserve);
    const map = atom.map;
    if (map === undefined) return atom;
    const fields = new Map(map.fields);
    fields.set('apiVersion', { name: 'apiVersion', type: new FixedRef('string', { scalar: 'string' }) });
    fields.set('kind', { name: 'kind', type: new FixedRef('string', { scalar: 'string' }) });
    fields.set('metadata', { name: 'metadata', type: b.named_(OBJECT_META) });
    return { map: { ...map, fields } };
  });
  return { root, goTyped: false };
}

/** Resolves the atom of a type, treating a dangling reference as untyped atomic. */
export function resolve(ref: TypeRef): Atom {
  return ref.atom() ?? (untypedAtomic.atom() as Atom);
}
