/**
 * One resolved view of a set of OpenAPI v2 definitions, shared by everything
 * that reads schemas: field validation, strategic merge patch, server-side
 * apply, quantity canonicalization. Each reads the same SchemaNodes and keeps
 * its own adapter (Go types, patch metadata, structured-merge-diff atoms) in
 * the model's view slots, so the definitions are read once per model.
 *
 * A model belongs to whoever owns its definitions: a resource descriptor's
 * SchemaHandle holds one (built-in types over the generated definitions, a
 * custom resource over the built-in ones plus its own). Nothing here is
 * cached per process: two descriptors, or two servers, have two models.
 * Nodes are built lazily, on first use.
 */
import type { JsonObject, JsonValue } from '../machinery/json-value.js';

/** The definitions a model reads: the map itself, or a document holding it under "definitions". */
export type DefinitionsSource = Readonly<Record<string, object>> | { readonly definitions: object };

type Raw = Readonly<Record<string, unknown>>;

function isObject(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function definitionsOf(source: object): Readonly<Record<string, Raw>> {
  const inner = (source as { definitions?: unknown }).definitions;
  return (isObject(inner) ? inner : source) as Readonly<Record<string, Raw>>;
}

/** The definition a node stands for, by name: its $ref, or that of a lone allOf wrapper. */
function refOf(node: Raw): string | undefined {
  let ref = node.$ref;
  if (ref === undefined && Array.isArray(node.allOf) && node.allOf.length === 1 && isObject(node.allOf[0])) ref = node.allOf[0].$ref;
  if (typeof ref !== 'string') return undefined;
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/** An extension on the node, or (next to a $ref) inside one of its allOf wrappers. */
function extension(node: Raw, key: string): unknown {
  if (node[key] !== undefined) return node[key];
  if (!Array.isArray(node.allOf)) return undefined;
  for (const s of node.allOf) if (isObject(s) && s[key] !== undefined) return s[key];
  return undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function strings(v: unknown): readonly string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** One schema node (a definition, a property, list items or map values), resolved. */
export class SchemaNode {
  /** The definition this node is, when it is one (e.g. io.k8s.api.apps.v1.Deployment). */
  readonly definitionName: string | undefined;
  /** The definition a $ref (or lone allOf wrapper) points to; the node's own keys still count (map-type, patch strategy). */
  readonly ref: string | undefined;
  /** The declared type, the first one that is not "null" for a list of types; undefined when absent. */
  readonly type: string | undefined;
  /** The declared format, "" when absent. */
  readonly format: string;
  readonly hasProperties: boolean;
  readonly hasItems: boolean;
  readonly intOrString: boolean;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  /** x-kubernetes-patch-strategy (from the node or its allOf wrappers), undefined when absent. */
  readonly patchStrategy: string | undefined;
  /** x-kubernetes-patch-merge-key, undefined when absent. */
  readonly patchMergeKey: string | undefined;
  /** x-kubernetes-list-type, undefined when absent. */
  readonly listType: string | undefined;
  readonly listMapKeys: readonly string[];
  /** x-kubernetes-map-type, undefined when absent. */
  readonly mapType: string | undefined;
  readonly required: readonly string[];
  readonly hasDefault: boolean;
  readonly default: JsonValue | undefined;

  private propsCache: ReadonlyMap<string, SchemaNode> | undefined;
  private itemsCache: SchemaNode | null | undefined;
  private valuesCache: SchemaNode | boolean | null | undefined;

  constructor(
    private readonly model: SchemaModel,
    private readonly raw: Raw,
    definitionName: string | undefined,
  ) {
    this.definitionName = definitionName;
    this.ref = refOf(raw);
    const t = raw.type;
    this.type = Array.isArray(t) ? (t.find((x) => x !== 'null') as string | undefined) : str(t);
    this.format = str(raw.format) ?? '';
    this.hasProperties = isObject(raw.properties) && Object.keys(raw.properties).length > 0;
    this.hasItems = raw.items !== undefined;
    this.intOrString = raw['x-kubernetes-int-or-string'] === true;
    this.preserveUnknownFields = raw['x-kubernetes-preserve-unknown-fields'] === true;
    this.embeddedResource = raw['x-kubernetes-embedded-resource'] === true;
    this.patchStrategy = str(extension(raw, 'x-kubernetes-patch-strategy'));
    this.patchMergeKey = str(extension(raw, 'x-kubernetes-patch-merge-key'));
    this.listType = str(raw['x-kubernetes-list-type']);
    this.listMapKeys = strings(raw['x-kubernetes-list-map-keys']);
    this.mapType = str(raw['x-kubernetes-map-type']);
    this.required = strings(raw.required);
    this.hasDefault = 'default' in raw;
    this.default = raw.default as JsonValue | undefined;
  }

  /** The referenced definition, undefined when there is no $ref or it dangles. */
  target(): SchemaNode | undefined {
    return this.ref === undefined ? undefined : this.model.definition(this.ref);
  }

  /** Declared properties in schema order (empty when none). */
  get properties(): ReadonlyMap<string, SchemaNode> {
    let p = this.propsCache;
    if (p === undefined) {
      const m = new Map<string, SchemaNode>();
      const props = this.raw.properties;
      if (isObject(props)) for (const [name, member] of Object.entries(props)) m.set(name, this.model.node(isObject(member) ? member : {}));
      p = this.propsCache = m;
    }
    return p;
  }

  /** One declared property by exact name, or undefined (names from requests are not cached). */
  property(name: string): SchemaNode | undefined {
    return this.properties.get(name);
  }

  /** The items schema of an array (the first one of a tuple), or undefined. */
  get items(): SchemaNode | undefined {
    if (this.itemsCache === undefined) {
      const items = Array.isArray(this.raw.items) ? (this.raw.items as unknown[])[0] : this.raw.items;
      this.itemsCache = isObject(items) ? this.model.node(items) : null;
    }
    return this.itemsCache ?? undefined;
  }

  /** additionalProperties: a schema, true/false, or undefined when absent. */
  get additionalProperties(): SchemaNode | boolean | undefined {
    if (this.valuesCache === undefined) {
      const ap = this.raw.additionalProperties;
      this.valuesCache = isObject(ap) ? this.model.node(ap) : typeof ap === 'boolean' ? ap : null;
    }
    return this.valuesCache ?? undefined;
  }
}

/** A key for one consumer's adapter over a model (e.g. the patch view). */
export interface ViewKey<T> {
  readonly name: string;
  build(model: SchemaModel): T;
}

export class SchemaModel {
  private readonly defs: Readonly<Record<string, Raw>>;
  private readonly byName = new Map<string, SchemaNode>();
  private readonly views = new Map<ViewKey<unknown>, unknown>();

  constructor(source: DefinitionsSource) {
    this.defs = definitionsOf(source);
  }

  /** The node of a named definition, undefined when there is none. */
  definition(name: string): SchemaNode | undefined {
    let n = this.byName.get(name);
    if (n === undefined) {
      const raw = Object.prototype.hasOwnProperty.call(this.defs, name) ? this.defs[name] : undefined;
      if (!isObject(raw)) return undefined;
      n = new SchemaNode(this, raw, name);
      this.byName.set(name, n);
    }
    return n;
  }

  /** An inline node (a schema that is not a definition of this model, e.g. a CRD's openAPIV3Schema). */
  node(raw: JsonObject | Raw): SchemaNode {
    return new SchemaNode(this, raw, undefined);
  }

  /** One consumer's adapter over this model, built on first use and kept with the model. */
  view<T>(key: ViewKey<T>): T {
    let v = this.views.get(key as ViewKey<unknown>) as T | undefined;
    if (v === undefined) {
      v = key.build(this);
      this.views.set(key as ViewKey<unknown>, v);
    }
    return v;
  }
}

/** The model of `source`: itself when it is one, else a new model over the definitions (callers without a descriptor). */
export function schemaModelOf(source: SchemaModel | DefinitionsSource): SchemaModel {
  return source instanceof SchemaModel ? source : new SchemaModel(source);
}
