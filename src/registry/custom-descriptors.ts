import { createHash } from 'node:crypto';
import { loadDefinitions } from '../api/definitions.js';
import { JSON_TYPE, YAML_TYPE } from '../codec/media-type.js';
import { SchemaModel } from '../api/schema-model.js';
import type { ResourceInfo, SubresourceInfo } from '../api/types.js';
import { CustomResourceSchema } from '../apiextensions/schema/index.js';
import { schemaForCustomResource, type ApplySchema } from '../apply/index.js';
import type { JsonObject } from '../machinery/json.js';
import type { FieldError } from '../machinery/errors.js';
import { apiVersionOf, type KubeObject, type ObjectMeta } from '../machinery/object.js';
import type { KeyLayout } from '../storage/keys.js';
import { toServedVersion, toStorageVersion } from './convert.js';
import { ConversionWebhook, type ConversionObserver, type ConversionWebhookSpec } from './conversion-webhook.js';
import type { AsyncConversion, ResourceDescriptor, SchemaHandle, SubresourceKind } from './descriptor.js';
import type { WebhookClients } from './webhook-client.js';
import { customFieldSupport } from './field-selectors.js';
import { DEFAULT_STRATEGY } from './strategy.js';
import { validateObjectMeta } from './validate-meta.js';
import { customScale, type ScalePaths } from './custom-scale.js';
import { customTable, type PrinterColumn } from './custom-table.js';

/**
 * Descriptors of types defined while the server runs, the way kube's
 * apiextensions-apiserver serves a CustomResourceDefinition (registry/crd-spec.ts
 * turns a stored CRD into the spec; embedders may give one directly): names,
 * scope, versions with their openAPIV3Schema, subresources, printer columns,
 * selectable fields and warnings; this builds the descriptor (custom resource
 * strategy, schema, no defaults beyond the schema's, a table per version,
 * the Scale view, field labels, conversion by apiVersion rewrite, JSON and
 * YAML bodies only) and the served ResourceInfos.
 */

export interface CustomResourceVersion {
  name: string;
  /** The version objects are stored in; exactly one version has it. */
  storage: boolean;
  /** Served over the API (default true); an unserved version may still be the storage version. */
  served?: boolean;
  /** The version's openAPIV3Schema (structural). */
  schema?: JsonObject;
  /** additionalPrinterColumns (none: kube's Age column). */
  columns?: PrinterColumn[];
  /** Status as a subresource in this version (default: the spec's `status`). */
  status?: boolean;
  /** The scale subresource's paths in this version. */
  scale?: ScalePaths;
  /** selectableFields' paths (".spec.color"): field labels "spec.color". */
  selectableFields?: string[];
  /** The Warning header of requests for this version: set (possibly empty) only for a deprecated version. */
  warning?: string;
}

export interface CustomResourceSpec {
  group: string;
  kind: string;
  /** Plural lower-case name used in URLs. */
  plural: string;
  singular?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
  namespaced: boolean;
  versions: CustomResourceVersion[];
  /** Status as a subresource (spec and status written separately). */
  status?: boolean;
  /** The CRD's spec.preserveUnknownFields: nothing is pruned (v1beta1-era CRDs). */
  preserveUnknownFields?: boolean;
  /** Versions convert through a webhook (spec.conversion.strategy Webhook) rather than by apiVersion rewrite. */
  conversionWebhook?: ConversionWebhookSpec;
  /** A CRD being deleted: no creates (see ResourceDescriptor.lifecycle). */
  lifecycle?: { terminating: boolean };
}

/** What calls conversion webhooks: the server's webhook client and where the calls are counted. */
export interface ConversionWebhookCalls {
  clients: WebhookClients;
  observer?: ConversionObserver;
}

export interface CustomResource {
  descriptor: ResourceDescriptor;
  /** The served versions, for Registry.addResource. */
  versions: ResourceInfo[];
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
const CUSTOM_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];
const SCALE_DEFINITION = 'io.k8s.api.autoscaling.v1.Scale';

/** kube's OpenAPI definition name of a custom kind: the group reversed, then version and kind (com.example.v1.Widget). */
export function customDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** kube's discovery.StorageVersionHash: the first 8 bytes of sha256("group/version/kind"), base64. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** The Swagger 2.0 definitions of one version: the kind (schema plus typed apiVersion, kind, metadata) and its list. */
function versionDefinitions(spec: CustomResourceSpec, version: CustomResourceVersion, listKind: string): Record<string, JsonObject> {
  const name = customDefinitionName(spec.group, version.name, spec.kind);
  const schema = version.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const properties = (schema.properties as JsonObject | undefined) ?? {};
  const typeMeta = (field: string): JsonObject => ({ type: 'string', description: `${field} of the object.` });
  return {
    [name]: {
      ...schema,
      type: 'object',
      properties: { ...properties, apiVersion: typeMeta('APIVersion'), kind: typeMeta('Kind'), metadata: { $ref: `#/definitions/${OBJECT_META}` } },
      'x-kubernetes-group-version-kind': [{ group: spec.group, kind: spec.kind, version: version.name }],
    },
    [customDefinitionName(spec.group, version.name, listKind)]: {
      description: `${listKind} is a list of ${spec.kind}`,
      required: ['items'],
      type: 'object',
      properties: {
        apiVersion: typeMeta('APIVersion'),
        items: { type: 'array', items: { $ref: `#/definitions/${name}` } },
        kind: typeMeta('Kind'),
        metadata: { $ref: `#/definitions/${LIST_META}` },
      },
      'x-kubernetes-group-version-kind': [{ group: spec.group, kind: listKind, version: version.name }],
    },
  };
}

export function customResource(spec: CustomResourceSpec, keys: KeyLayout, calls?: ConversionWebhookCalls): CustomResource {
  const storageVersion = spec.versions.find((v) => v.storage);
  if (!storageVersion || spec.versions.filter((v) => v.storage).length !== 1) throw new Error(`${spec.plural}.${spec.group}: exactly one version must be the storage version`);
  const listKind = spec.listKind ?? `${spec.kind}List`;
  const storage = { group: spec.group, version: storageVersion.name, kind: spec.kind };
  const own: Record<string, JsonObject> = {};
  const schemas = new Map<string, JsonObject | undefined>();
  for (const v of spec.versions) {
    if (v.served === false) continue;
    Object.assign(own, versionDefinitions(spec, v, listKind));
    schemas.set(customDefinitionName(spec.group, v.name, spec.kind), v.schema);
  }
  const definitions = { ...loadDefinitions().definitions, ...own };
  const structural = customSchemas(spec);
  const applySchemas = new Map<string, ApplySchema>();
  let model: SchemaModel | undefined;
  const schema: SchemaHandle = {
    get model(): SchemaModel {
      return (model ??= new SchemaModel(definitions));
    },
    own,
    strategicMergePatch: false,
    applySchema(definition) {
      let s = applySchemas.get(definition);
      if (!s) applySchemas.set(definition, (s = schemaForCustomResource(schemas.get(definition), { preserveUnknownFields: spec.preserveUnknownFields === true }, this.model)));
      return s;
    },
    customResource: (definition) => structural.byDefinition.get(definition),
  };
  const statusIn = (v: CustomResourceVersion): boolean => v.status ?? spec.status === true;
  const served = spec.versions.filter((v) => v.served !== false);
  const versions: ResourceInfo[] = served.map((v) => {
    const definition = customDefinitionName(spec.group, v.name, spec.kind);
    const subresources: SubresourceInfo[] = [];
    if (v.scale) subresources.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: STATUS_VERBS, definition: SCALE_DEFINITION });
    if (statusIn(v)) subresources.push({ name: 'status', kind: spec.kind, group: spec.group, version: v.name, verbs: STATUS_VERBS, definition });
    return {
      group: spec.group,
      version: v.name,
      name: spec.plural,
      singularName: spec.singular ?? spec.kind.toLowerCase(),
      kind: spec.kind,
      listKind,
      namespaced: spec.namespaced,
      verbs: CUSTOM_VERBS,
      shortNames: spec.shortNames ?? [],
      categories: spec.categories ?? [],
      subresources,
      definition,
      storage,
      storageVersionHash: storageVersionHash(storage.group, storage.version, storage.kind),
      isObject: true,
    };
  });
  // The store is one per resource: status and scale follow the storage version's settings.
  const hasStatus = statusIn(storageVersion);
  const subresources = new Map<string, SubresourceKind>();
  if (spec.versions.some(statusIn)) subresources.set('status', 'status');
  if (spec.versions.some((v) => v.scale)) subresources.set('scale', 'scale');
  const scalePaths = storageVersion.scale ?? spec.versions.find((v) => v.scale)?.scale;
  const tables = new Map(served.map((v) => [v.name, customTable(v.columns ?? [])] as const));
  // An empty warning still marks the version deprecated (kube counts its requests), it only sends no header.
  const warnings = new Map(served.flatMap((v) => (v.warning !== undefined ? [[v.name, v.warning] as const] : [])));
  const selectable = [...new Set(spec.versions.flatMap((v) => v.selectableFields ?? []))];
  // Read from storage: pruned and defaulted by the current schema, as kube's storage decoding does.
  const fromStorage = (obj: KubeObject, info: ResourceInfo): KubeObject => structural.byVersion(info.version).decode(obj as JsonObject, { objectMeta: false }) as KubeObject;
  const descriptor: ResourceDescriptor = {
    group: spec.group,
    resource: spec.plural,
    namespaced: spec.namespaced,
    storage: { group: spec.group, resource: spec.plural, kind: spec.kind },
    prefix: keys.resourcePrefix(spec.group, spec.plural, false),
    // kube's customResourceStrategy: generation tracked, no create on PUT, updates need a resourceVersion.
    strategy: {
      ...DEFAULT_STRATEGY,
      tracksGeneration: true,
      genericMetaValidation: true,
      hasStatusSubresource: hasStatus,
      allowUnconditionalUpdate: false,
      ...(hasStatus ? { initialStatus: () => undefined } : {}),
      validate: (obj) => structural.of(obj).validate(obj as JsonObject, validateEmbeddedMeta),
      validateUpdate: (obj, old, warn) => structural.of(obj).validateUpdate(obj as JsonObject, old as JsonObject, validateEmbeddedMeta, warn),
    },
    statusStrategy: { metadata: 'keep' },
    schema,
    defaults: (info, obj) => replaceContent(obj, structural.byVersion(info.version).decode(obj as JsonObject) as KubeObject),
    canonicalize: () => undefined,
    table: tables.get(storageVersion.name) ?? customTable(storageVersion.columns ?? []),
    tablesByVersion: tables,
    fields: customFieldSupport(spec.namespaced, selectable),
    toStorage: toStorageVersion,
    toServed: (obj, info) => fromStorage(toServedVersion(obj, info), info),
    subresources,
    bodyTypes: [JSON_TYPE, YAML_TYPE],
    ...(spec.conversionWebhook ? { asyncConversion: webhookConversion(spec.conversionWebhook, listKind, fromStorage, calls) } : {}),
    ...(scalePaths ? { scale: customScale(scalePaths) } : {}),
    ...(warnings.size > 0 ? { versionWarnings: warnings } : {}),
    ...(spec.lifecycle ? { lifecycle: spec.lifecycle } : {}),
  };
  return { descriptor, versions };
}

/** Conversion through the CRD's webhook: a stored object (or a list's items) to a served version, a request's object to storage. */
function webhookConversion(spec: ConversionWebhookSpec, listKind: string, fromStorage: (obj: KubeObject, info: ResourceInfo) => KubeObject, calls: ConversionWebhookCalls | undefined): AsyncConversion {
  const unavailable = async (): Promise<never> => {
    throw new Error(`conversion webhook for ${spec.crdName}: no webhook client`);
  };
  if (!calls) return { toServed: unavailable, toStorage: unavailable };
  const webhook = new ConversionWebhook(spec, calls.clients, calls.observer);
  return {
    async toServed(objs, info, list) {
      const apiVersion = apiVersionOf(info.group, info.version);
      const converted = await webhook.convert(objs, apiVersion, list ? { listKind } : undefined);
      return converted.map((o) => fromStorage({ apiVersion, kind: info.kind, ...withoutTypeMeta(o) }, info));
    },
    async toStorage(obj, info) {
      const [stored] = await webhook.convert([obj], apiVersionOf(info.storage.group, info.storage.version));
      return { apiVersion: apiVersionOf(info.storage.group, info.storage.version), kind: info.storage.kind, ...withoutTypeMeta(stored!) };
    },
  };
}

function withoutTypeMeta(obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/**
 * The structural schema of every version (kube's crdHandler builds them once
 * per CRD), by version and by definition name; objects naming none of the
 * versions get the storage version's.
 */
function customSchemas(spec: CustomResourceSpec) {
  const opts = { preserveUnknownFields: spec.preserveUnknownFields === true };
  const versions = new Map(spec.versions.map((v) => [v.name, new CustomResourceSchema(v.schema, opts)]));
  const storage = versions.get(spec.versions.find((v) => v.storage)?.name ?? '') ?? new CustomResourceSchema(undefined, opts);
  const byVersion = (version: string): CustomResourceSchema => versions.get(version) ?? storage;
  return {
    byDefinition: new Map(spec.versions.map((v) => [customDefinitionName(spec.group, v.name, spec.kind), byVersion(v.name)])),
    byVersion,
    of: (obj: KubeObject): CustomResourceSchema => byVersion(typeof obj.apiVersion === 'string' ? obj.apiVersion.slice(obj.apiVersion.indexOf('/') + 1) : ''),
  };
}

/** Replaces an object's content in place (descriptor.defaults works in place). */
function replaceContent(obj: KubeObject, next: KubeObject): void {
  if (next === obj) return;
  for (const k of Object.keys(obj)) if (!Object.prototype.hasOwnProperty.call(next, k)) delete (obj as Record<string, unknown>)[k];
  Object.assign(obj, next);
}

/** An embedded resource's metadata under kube's ObjectMeta rules (names as path segments), at `<path>.metadata`. */
function validateEmbeddedMeta(meta: JsonObject, path: string): FieldError[] {
  const namespaced = typeof meta.namespace === 'string' && meta.namespace !== '';
  return validateObjectMeta(meta as ObjectMeta, { namespaced, nameRule: 'pathSegment' }).map((e) => (path === '' ? e : { ...e, field: `${path}.${e.field}` }));
}
