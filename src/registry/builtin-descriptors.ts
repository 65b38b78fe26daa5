import { loadDefinitions } from '../api/definitions.js';
import { SchemaModel } from '../api/schema-model.js';
import type { ResourceInfo } from '../api/types.js';
import { schemaForDefinition, type ApplySchema } from '../apply/index.js';
import type { FeatureGates } from '../machinery/feature-gates.js';
import type { KeyLayout } from '../storage/keys.js';
import { toServedVersion, toStorageVersion } from './convert.js';
import { applyDefaults, canonicalizeQuantities } from './defaults/index.js';
import type { ResourceDescriptor, SchemaHandle, StatusStrategy, StoreHooks, SubresourceKind, VirtualKind } from './descriptor.js';
import { fieldExtractorFor } from './field-selectors.js';
import { NAMESPACE_HOOKS } from './namespaces.js';
import { CRD_HOOKS } from './crds.js';
import { ServiceAllocation } from './services/service-store.js';
import { strategyFor } from './strategies.js';
import { tableConvertorFor } from './tables.js';

/**
 * The one place built-in resources get their descriptors: the generated
 * catalog (src/api/catalog.ts) says what is served; today's per-type tables
 * (strategies, tables/, field-selectors, defaults/, conversions/,
 * validation/) say how each type behaves. Keys below are `group/resource`.
 */

/** Subresources with behaviour of their own (status is every type's where the catalog serves it). */
const SUBRESOURCES: Record<string, Record<string, SubresourceKind>> = {
  '/namespaces': { finalize: 'finalize' },
  '/pods': { eviction: 'eviction', binding: 'binding' },
  '/replicationcontrollers': { scale: 'scale' },
  '/serviceaccounts': { token: 'token' },
  'apps/deployments': { scale: 'scale' },
  'apps/replicasets': { scale: 'scale' },
  'apps/statefulsets': { scale: 'scale' },
  'certificates.k8s.io/certificatesigningrequests': { approval: 'approval' },
};

/** Metadata a status write keeps from the stored object (kube's status strategies' PrepareForUpdate). */
const STATUS_KEEPS: Record<string, StatusStrategy['keep']> = {
  '/pods': ['ownerReferences'],
  'apps/deployments': ['labels'],
};

const VIRTUAL: Record<string, VirtualKind> = {
  '/bindings': 'binding',
  'authentication.k8s.io/tokenreviews': 'tokenreview',
  'authentication.k8s.io/selfsubjectreviews': 'selfsubjectreview',
  'authorization.k8s.io/selfsubjectaccessreviews': 'selfsubjectaccessreview',
  'authorization.k8s.io/subjectaccessreviews': 'subjectaccessreview',
  'authorization.k8s.io/localsubjectaccessreviews': 'localsubjectaccessreview',
  'authorization.k8s.io/selfsubjectrulesreviews': 'selfsubjectrulesreview',
};

/** Store hooks per stored resource; each registry gets its own (they hold allocators). */
function hooksFor(group: string, resource: string): StoreHooks | undefined {
  if (group === '' && resource === 'namespaces') return NAMESPACE_HOOKS;
  if (group === '' && resource === 'services') return new ServiceAllocation();
  if (group === 'apiextensions.k8s.io' && resource === 'customresourcedefinitions') return CRD_HOOKS;
  return undefined;
}

/** A built-in type's schema: a model over the generated definitions, built on first use and cached with the descriptor. */
function builtinSchemaHandle(): SchemaHandle {
  const applySchemas = new Map<string, ApplySchema>();
  let model: SchemaModel | undefined;
  return {
    get model(): SchemaModel {
      return (model ??= new SchemaModel(loadDefinitions()));
    },
    own: {},
    strategicMergePatch: true,
    applySchema(definition) {
      let s = applySchemas.get(definition);
      if (!s) applySchemas.set(definition, (s = schemaForDefinition(definition, this.model)));
      return s;
    },
  };
}

function statusStrategyFor(storageKey: string): StatusStrategy {
  const keep = STATUS_KEEPS[storageKey];
  return keep ? { metadata: 'request', keep } : { metadata: 'request' };
}

/**
 * The descriptor of a built-in served resource (any served version of it):
 * `info.group`/`info.name` is what is served, `info.storage` where it is stored.
 */
export function builtinDescriptor(info: ResourceInfo, keys: KeyLayout, gates?: FeatureGates): ResourceDescriptor {
  const key = `${info.group}/${info.name}`;
  const storageGroup = info.storage.group;
  const schema = builtinSchemaHandle();
  const subresources = new Map<string, SubresourceKind>();
  for (const s of info.subresources) {
    const kind = s.name === 'status' ? 'status' : SUBRESOURCES[key]?.[s.name];
    if (kind) subresources.set(s.name, kind);
  }
  const hooks = hooksFor(storageGroup, info.name);
  const virtual = VIRTUAL[key];
  return {
    group: info.group,
    resource: info.name,
    namespaced: info.namespaced,
    storage: { group: storageGroup, resource: info.name, kind: info.storage.kind },
    prefix: keys.resourcePrefix(storageGroup, info.name),
    strategy: strategyFor(storageGroup, info.name, info.storage.kind, gates),
    statusStrategy: statusStrategyFor(`${storageGroup}/${info.name}`),
    schema,
    defaults: (served, obj) => applyDefaults(served.group, served.version, served.kind, obj),
    canonicalize: (served, obj) => canonicalizeQuantities(served.definition, obj, schema.model),
    table: tableConvertorFor(info.group, info.name),
    fields: fieldExtractorFor(info.group, info.name, info.namespaced),
    toStorage: toStorageVersion,
    toServed: toServedVersion,
    subresources,
    ...(virtual ? { virtual } : {}),
    ...(hooks ? { hooks } : {}),
  };
}

/** The ResourceInfo of the stored resource behind a served one (events.k8s.io events → core events). */
export function storageResourceInfo(info: ResourceInfo): ResourceInfo {
  return { ...info, group: info.storage.group, version: info.storage.version, kind: info.storage.kind };
}
