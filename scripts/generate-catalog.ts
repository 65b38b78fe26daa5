/**
 * Generates src/api/generated/catalog.json and src/api/generated/definitions.json
 * from the upstream Kubernetes 1.36 OpenAPI v2 document in ../shared/k8s-api
 * (override the directory with CAPSTAN_SHARED_DIR).
 *
 * The OpenAPI paths carry groups, versions, resources, kinds, scopes, verbs and
 * subresources. What they do not carry (short names, categories, the order of
 * groups, storage versions) lives in the tables below: those are facts of
 * kube-apiserver's behaviour, checked against its own published discovery
 * documents (see the comment on each table).
 *
 * Run: npm run generate
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { Catalog, GroupInfo, ResourceInfo, SubresourceInfo, VersionInfo } from '../src/api/types.js';
import type { DefinitionsFile, SubresourceTemplate } from '../src/api/definitions-types.js';
import { isJsonObject, sortKeysDeep, type Json, type JsonObject } from '../src/machinery/json.js';
import { compareKubeAwareVersions, stabilityOf } from '../src/api/versions.js';

export const KUBERNETES_MINOR = '1.36';

// ---------------------------------------------------------------------------
// Facts not present in the OpenAPI document.
// ---------------------------------------------------------------------------

/**
 * Short names by `<group>/<resource>` (core group: empty group).
 * Verified against kube-apiserver's discovery dumps committed in
 * kubernetes/kubernetes api/discovery/ (api__v1.json, aggregated_v2.json and
 * the per-group apis__<group>__<version>.json files), which come from the
 * `ShortNames()` methods of the REST storages in pkg/registry.
 */
const SHORT_NAMES: Record<string, string[]> = {
  '/componentstatuses': ['cs'],
  '/configmaps': ['cm'],
  '/endpoints': ['ep'],
  '/events': ['ev'],
  '/limitranges': ['limits'],
  '/namespaces': ['ns'],
  '/nodes': ['no'],
  '/persistentvolumeclaims': ['pvc'],
  '/persistentvolumes': ['pv'],
  '/pods': ['po'],
  '/replicationcontrollers': ['rc'],
  '/resourcequotas': ['quota'],
  '/serviceaccounts': ['sa'],
  '/services': ['svc'],
  'apiextensions.k8s.io/customresourcedefinitions': ['crd', 'crds'],
  'apps/daemonsets': ['ds'],
  'apps/deployments': ['deploy'],
  'apps/replicasets': ['rs'],
  'apps/statefulsets': ['sts'],
  'autoscaling/horizontalpodautoscalers': ['hpa'],
  'batch/cronjobs': ['cj'],
  'certificates.k8s.io/certificatesigningrequests': ['csr'],
  'events.k8s.io/events': ['ev'],
  'networking.k8s.io/ingresses': ['ing'],
  'networking.k8s.io/ipaddresses': ['ip'],
  'networking.k8s.io/networkpolicies': ['netpol'],
  'policy/poddisruptionbudgets': ['pdb'],
  'scheduling.k8s.io/priorityclasses': ['pc'],
  'storage.k8s.io/storageclasses': ['sc'],
  'storage.k8s.io/volumeattributesclasses': ['vac'],
};

/**
 * Categories by `<group>/<resource>`, from the same discovery dumps
 * (`Categories()` methods in pkg/registry and the apiextensions/aggregator storages).
 */
const CATEGORIES: Record<string, string[]> = {
  '/pods': ['all'],
  '/replicationcontrollers': ['all'],
  '/services': ['all'],
  'apps/daemonsets': ['all'],
  'apps/deployments': ['all'],
  'apps/replicasets': ['all'],
  'apps/statefulsets': ['all'],
  'autoscaling/horizontalpodautoscalers': ['all'],
  'batch/cronjobs': ['all'],
  'batch/jobs': ['all'],
  'admissionregistration.k8s.io/mutatingadmissionpolicies': ['api-extensions'],
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': ['api-extensions'],
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': ['api-extensions'],
  'admissionregistration.k8s.io/validatingadmissionpolicies': ['api-extensions'],
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': ['api-extensions'],
  'admissionregistration.k8s.io/validatingwebhookconfigurations': ['api-extensions'],
  'apiextensions.k8s.io/customresourcedefinitions': ['api-extensions'],
  'apiregistration.k8s.io/apiservices': ['api-extensions'],
};

/**
 * groupPriorityMinimum per group: kube-apiserver's apiVersionPriorities
 * (cmd/kube-apiserver/app/aggregator.go merged with
 * pkg/controlplane/apiserver/aggregator.go DefaultGenericAPIServicePriorities).
 * Discovery lists groups by this number, highest first, ties by name. The
 * aggregator always lists its own group (apiregistration.k8s.io) first, which
 * the published /apis and aggregated discovery dumps confirm; we express that
 * with a priority above every other group.
 */
const GROUP_PRIORITY: Record<string, number> = {
  '': 18000,
  'apiregistration.k8s.io': 20000,
  apps: 17800,
  'events.k8s.io': 17750,
  'authentication.k8s.io': 17700,
  'authorization.k8s.io': 17600,
  autoscaling: 17500,
  batch: 17400,
  'certificates.k8s.io': 17300,
  'networking.k8s.io': 17200,
  policy: 17100,
  'rbac.authorization.k8s.io': 17000,
  'storage.k8s.io': 16800,
  'admissionregistration.k8s.io': 16700,
  'apiextensions.k8s.io': 16700,
  'scheduling.k8s.io': 16600,
  'coordination.k8s.io': 16500,
  'node.k8s.io': 16300,
  'discovery.k8s.io': 16200,
  'resource.k8s.io': 16200,
  'flowcontrol.apiserver.k8s.io': 16100,
  'internal.apiserver.k8s.io': 16000,
  'storagemigration.k8s.io': 15800,
};

/**
 * Resources stored in a version other than the group's most preferred one
 * that serves them: the ResourceEncodingOverrides of kube 1.36
 * (pkg/kubeapiserver/default_storage_factory_builder.go). Checked against the
 * storageVersionHash values in the discovery dumps (e.g. devicetaintrules →
 * resource.k8s.io/v1alpha3 "DJ3UJ0fj8MI=").
 */
const STORAGE_VERSION_OVERRIDES: Record<string, string> = {
  'admissionregistration.k8s.io/mutatingadmissionpolicies': 'v1beta1',
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': 'v1beta1',
  'certificates.k8s.io/clustertrustbundles': 'v1beta1',
  'certificates.k8s.io/podcertificaterequests': 'v1beta1',
  'coordination.k8s.io/leasecandidates': 'v1beta1',
  'resource.k8s.io/devicetaintrules': 'v1alpha3',
  'resource.k8s.io/resourcepoolstatusrequests': 'v1alpha3',
  'scheduling.k8s.io/podgroups': 'v1alpha2',
  'scheduling.k8s.io/workloads': 'v1alpha2',
};

/**
 * Resources that share the storage of another group's resource
 * (storageFactory.AddCohabitatingResources): the first of the pair stores both.
 */
const COHABITATION: Record<string, { group: string; resource: string }> = {
  'events.k8s.io/events': { group: '', resource: 'events' },
};

// ---------------------------------------------------------------------------
// Input shapes.
// ---------------------------------------------------------------------------

interface Swagger {
  definitions: Record<string, JsonObject>;
  parameters: Record<string, JsonObject>;
  paths: Record<string, JsonObject>;
  securityDefinitions?: JsonObject;
  security?: JsonObject[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
type Method = (typeof METHODS)[number];

/** Discovery verb of each HTTP method of a connect subresource (kube's installer). */
const CONNECT_VERB: Partial<Record<Method, string>> = {
  get: 'get',
  post: 'create',
  put: 'update',
  patch: 'patch',
  delete: 'delete',
};

const ACTION_VERB: Record<string, string> = {
  get: 'get',
  list: 'list',
  post: 'create',
  put: 'update',
  patch: 'patch',
  delete: 'delete',
  deletecollection: 'deletecollection',
  watch: 'watch',
  watchlist: 'watch',
};

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

interface ResourceAcc {
  group: string;
  version: string;
  name: string;
  namespaced: boolean;
  verbs: Set<string>;
  kind?: string;
  definition?: string;
  listKind?: string;
  deleteReturnsObject?: boolean;
  subresources: Map<string, SubAcc>;
}

interface SubAcc {
  name: string;
  gvk?: Gvk;
  verbs: Set<string>;
  connect: boolean;
  definition?: string;
}

// ---------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------

function str(v: Json | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function refName(schema: Json | undefined): string | undefined {
  if (!isJsonObject(schema)) return undefined;
  const ref = str(schema['$ref']);
  return ref?.startsWith('#/definitions/') ? ref.slice('#/definitions/'.length) : undefined;
}

function gvkOf(op: JsonObject): Gvk | undefined {
  const g = op['x-kubernetes-group-version-kind'];
  if (!isJsonObject(g)) return undefined;
  return { group: str(g['group']) ?? '', version: str(g['version']) ?? '', kind: str(g['kind']) ?? '' };
}

function resolveParam(swagger: Swagger, p: Json): JsonObject {
  if (!isJsonObject(p)) throw new Error('parameter is not an object');
  const ref = str(p['$ref']);
  if (ref === undefined) return p;
  const name = ref.replace('#/parameters/', '');
  const shared = swagger.parameters[name];
  if (!shared) throw new Error(`unknown shared parameter ${ref}`);
  return shared;
}

function paramsOf(swagger: Swagger, item: JsonObject, op: JsonObject): JsonObject[] {
  const list: JsonObject[] = [];
  for (const src of [item['parameters'], op['parameters']]) {
    if (Array.isArray(src)) for (const p of src) list.push(resolveParam(swagger, p));
  }
  return list;
}

function bodySchemaRef(params: JsonObject[]): string | undefined {
  const body = params.find((p) => p['in'] === 'body');
  return body ? refName(body['schema']) : undefined;
}

function responseRef(op: JsonObject, code = '200'): string | undefined {
  const responses = op['responses'];
  if (!isJsonObject(responses)) return undefined;
  const r = responses[code];
  return isJsonObject(r) ? refName(r['schema']) : undefined;
}

function lastSegment(definition: string): string {
  return definition.slice(definition.lastIndexOf('.') + 1);
}

/** kube-apiserver's storageVersionHash (apiserver/pkg/endpoints/discovery/storageversionhash.go). */
export function storageVersionHash(group: string, version: string, kind: string): string {
  const digest = createHash('sha256').update(`${group}/${version}/${kind}`).digest();
  return digest.subarray(0, 8).toString('base64');
}

function keyOf(group: string, resource: string): string {
  return `${group}/${resource}`;
}

// ---------------------------------------------------------------------------
// Catalog extraction.
// ---------------------------------------------------------------------------

const GV_PATH = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(.+)$/;

interface ParsedPath {
  group: string;
  version: string;
  watch: boolean;
  namespaced: boolean;
  resource: string;
  named: boolean;
  subresource?: string;
  withPath: boolean;
}

function parsePath(path: string): ParsedPath | undefined {
  const m = GV_PATH.exec(path);
  if (!m) return undefined;
  const group = m[2] ?? '';
  const version = (m[1] ?? m[3]) as string;
  let segs = (m[4] as string).split('/');
  let watch = false;
  if (segs[0] === 'watch') {
    watch = true;
    segs = segs.slice(1);
  }
  let namespaced = false;
  if (segs[0] === 'namespaces' && segs[1] === '{namespace}' && segs.length >= 3) {
    namespaced = true;
    segs = segs.slice(2);
  }
  const resource = segs[0];
  if (resource === undefined || resource === '') return undefined;
  const named = segs[1] === '{name}';
  const parsed: ParsedPath = { group, version, watch, namespaced, resource, named, withPath: segs[3] === '{path}' };
  if (named && segs[2] !== undefined) parsed.subresource = segs[2];
  return parsed;
}

function extractResources(swagger: Swagger): Map<string, ResourceAcc> {
  const resources = new Map<string, ResourceAcc>();
  const get = (p: ParsedPath): ResourceAcc => {
    const key = `${p.group}/${p.version}/${p.resource}`;
    let acc = resources.get(key);
    if (!acc) {
      acc = { group: p.group, version: p.version, name: p.resource, namespaced: false, verbs: new Set(), subresources: new Map() };
      resources.set(key, acc);
    }
    return acc;
  };

  for (const [path, item] of Object.entries(swagger.paths)) {
    const p = parsePath(path);
    if (!p) continue;
    const acc = get(p);
    if (p.namespaced && !p.watch) acc.namespaced = true;
    for (const method of METHODS) {
      const op = item[method];
      if (!isJsonObject(op)) continue;
      const action = str(op['x-kubernetes-action']);
      if (action === undefined) continue;
      const gvk = gvkOf(op);
      const params = paramsOf(swagger, item, op);

      if (p.subresource !== undefined) {
        let sub = acc.subresources.get(p.subresource);
        if (!sub) {
          sub = { name: p.subresource, verbs: new Set(), connect: false };
          acc.subresources.set(p.subresource, sub);
        }
        if (gvk) sub.gvk = gvk;
        if (action === 'connect') {
          sub.connect = true;
          const verb = CONNECT_VERB[method];
          if (verb) sub.verbs.add(verb);
        } else {
          const verb = ACTION_VERB[action];
          if (verb) sub.verbs.add(verb);
          const def = responseRef(op) ?? bodySchemaRef(params);
          if (def) sub.definition = def;
        }
        continue;
      }

      const verb = ACTION_VERB[action];
      if (verb === undefined) throw new Error(`unexpected action ${action} on ${path}`);
      // Every list carries the `watch` query parameter (it is part of ListOptions), even where the
      // storage cannot watch (componentstatuses); only resources with watch paths have the verb.
      acc.verbs.add(verb);
      if (gvk && !p.watch) acc.kind = gvk.kind;
      if (action === 'list') {
        const listDef = responseRef(op);
        if (listDef) acc.listKind = lastSegment(listDef);
      } else if (action === 'get' || action === 'put' || action === 'post') {
        const def = responseRef(op) ?? bodySchemaRef(params);
        if (def) acc.definition = def;
      } else if (action === 'delete') {
        const def = responseRef(op);
        acc.deleteReturnsObject = def !== undefined && def !== 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
      }
    }
  }
  return resources;
}

function definitionForKind(swagger: Swagger, gvk: Gvk): string | undefined {
  for (const [name, def] of Object.entries(swagger.definitions)) {
    const list = def['x-kubernetes-group-version-kind'];
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (isJsonObject(entry) && entry['group'] === gvk.group && entry['version'] === gvk.version && entry['kind'] === gvk.kind) {
        return name;
      }
    }
  }
  return undefined;
}

function hasObjectMeta(swagger: Swagger, definition: string): boolean {
  const props = swagger.definitions[definition]?.['properties'];
  if (!isJsonObject(props)) return false;
  return refName(props['metadata']) === 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
}

function buildCatalog(swagger: Swagger, source: string): Catalog {
  const accs = extractResources(swagger);

  // Group → version → resources.
  const byGroup = new Map<string, Map<string, ResourceAcc[]>>();
  for (const acc of accs.values()) {
    if (acc.kind === undefined) throw new Error(`no kind for ${acc.group}/${acc.version}/${acc.name}`);
    let versions = byGroup.get(acc.group);
    if (!versions) byGroup.set(acc.group, (versions = new Map()));
    let list = versions.get(acc.version);
    if (!list) versions.set(acc.version, (list = []));
    list.push(acc);
  }

  const groups: GroupInfo[] = [];
  for (const [groupName, versions] of byGroup) {
    const priority = GROUP_PRIORITY[groupName];
    if (priority === undefined) throw new Error(`no discovery priority known for group ${JSON.stringify(groupName)}`);
    const versionNames = [...versions.keys()].sort((a, b) => compareKubeAwareVersions(b, a));

    // Storage version of each resource: the most preferred version that serves it, unless overridden.
    const storageVersionOf = (resource: string): string => {
      const override = STORAGE_VERSION_OVERRIDES[keyOf(groupName, resource)];
      if (override) return override;
      const v = versionNames.find((vn) => versions.get(vn)?.some((r) => r.name === resource));
      if (!v) throw new Error(`no version for ${groupName}/${resource}`);
      return v;
    };

    const versionInfos: VersionInfo[] = versionNames.map((versionName) => {
      const accList = (versions.get(versionName) ?? []).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const resources = accList.map((acc): ResourceInfo => {
        const kind = acc.kind as string;
        const key = keyOf(groupName, acc.name);
        const virtual = !acc.verbs.has('watch');
        const definition =
          definitionForKind(swagger, { group: groupName, version: versionName, kind }) ?? acc.definition ?? '';
        if (definition === '') throw new Error(`no definition for ${key} ${versionName}`);

        let storage: { group: string; version: string; kind: string };
        const cohabit = COHABITATION[key];
        if (cohabit) {
          const target = accs.get(`${cohabit.group}/${storageVersionOfGroup(accs, cohabit.group, cohabit.resource)}/${cohabit.resource}`);
          if (!target?.kind) throw new Error(`cohabitation target of ${key} not found`);
          storage = { group: target.group, version: target.version, kind: target.kind };
        } else {
          const sv = storageVersionOf(acc.name);
          const target = accs.get(`${groupName}/${sv}/${acc.name}`);
          storage = { group: groupName, version: sv, kind: target?.kind ?? kind };
        }

        const subresources: SubresourceInfo[] = [...acc.subresources.values()]
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .map((s) => {
            const gvk = s.gvk ?? { group: groupName, version: versionName, kind };
            const info: SubresourceInfo = {
              name: s.name,
              kind: gvk.kind,
              group: gvk.group,
              version: gvk.version,
              verbs: [...s.verbs].sort(),
            };
            const def = s.definition ?? (s.connect ? undefined : definitionForKind(swagger, gvk));
            if (def && s.name !== 'log') info.definition = def;
            if (s.connect) info.connect = true;
            return info;
          });

        const info: ResourceInfo = {
          group: groupName,
          version: versionName,
          name: acc.name,
          singularName: kind.toLowerCase(),
          kind,
          namespaced: acc.namespaced,
          verbs: [...acc.verbs].sort(),
          shortNames: SHORT_NAMES[key] ?? [],
          categories: CATEGORIES[key] ?? [],
          subresources,
          definition,
          storage,
          isObject: !virtual && hasObjectMeta(swagger, definition),
        };
        if (acc.listKind) info.listKind = acc.listKind;
        if (!virtual) info.storageVersionHash = storageVersionHash(storage.group, storage.version, storage.kind);
        if (virtual) info.virtual = true;
        if (acc.deleteReturnsObject) info.deleteReturnsObject = true;
        return info;
      });
      const stability = stabilityOf(versionName);
      return { version: versionName, stability, enabledByDefault: stability === 'stable', resources };
    });
    groups.push({ name: groupName, versions: versionInfos, priority });
  }

  groups.sort((a, b) => {
    // The core group is served at /api; it leads the catalog.
    if (a.name === '') return -1;
    if (b.name === '') return 1;
    const pa = a.priority ?? 0;
    const pb = b.priority ?? 0;
    if (pa !== pb) return pb - pa;
    return a.name < b.name ? -1 : 1;
  });

  for (const key of [...Object.keys(SHORT_NAMES), ...Object.keys(CATEGORIES), ...Object.keys(STORAGE_VERSION_OVERRIDES)]) {
    const [g, r] = splitKey(key);
    if (![...accs.values()].some((a) => a.group === g && a.name === r)) throw new Error(`table entry ${key} matches no resource`);
  }

  return { source, kubernetesMinor: KUBERNETES_MINOR, groups };
}

function splitKey(key: string): [string, string] {
  const i = key.lastIndexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}

function storageVersionOfGroup(accs: Map<string, ResourceAcc>, group: string, resource: string): string {
  const override = STORAGE_VERSION_OVERRIDES[keyOf(group, resource)];
  if (override) return override;
  const versions = [...accs.values()].filter((a) => a.group === group && a.name === resource).map((a) => a.version);
  versions.sort((a, b) => compareKubeAwareVersions(b, a));
  const first = versions[0];
  if (first === undefined) throw new Error(`no versions for ${group}/${resource}`);
  return first;
}

// ---------------------------------------------------------------------------
// Definitions file.
// ---------------------------------------------------------------------------

function requireOp(swagger: Swagger, path: string, method: Method): { item: JsonObject; op: JsonObject } {
  const item = swagger.paths[path];
  const op = item?.[method];
  if (!item || !isJsonObject(op)) throw new Error(`upstream document lacks ${method.toUpperCase()} ${path}`);
  return { item, op };
}

function paramNamed(params: JsonObject[], name: string, where = 'query'): JsonObject {
  const p = params.find((q) => q['name'] === name && q['in'] === where);
  if (!p) throw new Error(`parameter ${where}:${name} not found`);
  return p;
}

/** Inline parameter objects by logical name, taken from the operations of a fully featured resource (pods). */
function extractParameters(swagger: Swagger): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  const ns = '/api/v1/namespaces/{namespace}/pods';
  const list = requireOp(swagger, ns, 'get');
  const listParams = paramsOf(swagger, list.item, list.op);
  out['namespace'] = paramNamed(listParams, 'namespace', 'path');
  out['pretty'] = paramNamed(listParams, 'pretty');
  for (const p of listParams) {
    const name = str(p['name']) as string;
    if (name !== 'namespace' && name !== 'pretty') out[`list:${name}`] = p;
  }
  const create = requireOp(swagger, ns, 'post');
  const createParams = paramsOf(swagger, create.item, create.op);
  out['dryRun'] = paramNamed(createParams, 'dryRun');
  out['fieldManager'] = paramNamed(createParams, 'fieldManager');
  out['fieldValidation'] = paramNamed(createParams, 'fieldValidation');
  const patch = requireOp(swagger, `${ns}/{name}`, 'patch');
  const patchParams = paramsOf(swagger, patch.item, patch.op);
  out['body:patch'] = paramNamed(patchParams, 'body', 'body');
  out['fieldManager:patch'] = paramNamed(patchParams, 'fieldManager');
  out['force'] = paramNamed(patchParams, 'force');
  const del = requireOp(swagger, `${ns}/{name}`, 'delete');
  const delParams = paramsOf(swagger, del.item, del.op);
  out['body:delete'] = paramNamed(delParams, 'body', 'body');
  for (const name of ['gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy']) {
    out[`delete:${name}`] = paramNamed(delParams, name);
  }
  const proxy = requireOp(swagger, `${ns}/{name}/proxy/{path}`, 'get');
  out['path:proxy'] = paramNamed(paramsOf(swagger, proxy.item, proxy.op), 'path', 'path');
  return out;
}

const STANDARD_PRODUCES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor'];

function extractSubresourceTemplates(swagger: Swagger): Record<string, SubresourceTemplate> {
  const out: Record<string, SubresourceTemplate> = {};
  for (const [path, item] of Object.entries(swagger.paths)) {
    const p = parsePath(path);
    if (!p?.subresource || p.withPath) continue;
    const op = item['get'] ?? item['post'];
    if (!isJsonObject(op)) continue;
    const action = str(op['x-kubernetes-action']);
    if (action !== 'connect' && p.subresource !== 'log') continue;
    const params = paramsOf(swagger, item, op);
    const query = params.filter((q) => q['in'] === 'query' && q['name'] !== 'pretty');
    query.sort((a, b) => ((str(a['name']) ?? '') < (str(b['name']) ?? '') ? -1 : 1));
    const template: SubresourceTemplate = {
      queryParameters: query,
      pretty: params.some((q) => q['name'] === 'pretty'),
      withPath: swagger.paths[`${path}/{path}`] !== undefined,
    };
    const produces = op['produces'];
    if (Array.isArray(produces) && JSON.stringify(produces) !== JSON.stringify(STANDARD_PRODUCES)) {
      template.produces = produces.filter((x): x is string => typeof x === 'string');
    }
    const responses = op['responses'];
    const ok = isJsonObject(responses) ? responses['200'] : undefined;
    if (isJsonObject(ok) && isJsonObject(ok['schema']) && refName(ok['schema']) === undefined) {
      template.responseSchema = ok['schema'];
    }
    out[`${p.group}/${p.version}/${p.resource}/${p.subresource}`] = template;
  }
  return out;
}

function buildDefinitions(swagger: Swagger, source: string): DefinitionsFile {
  const nonResourcePaths: Record<string, JsonObject> = {};
  for (const [path, item] of Object.entries(swagger.paths)) {
    // Everything that is neither a group-version nor discovery of groups/versions.
    if (/^\/apis?\//.test(path)) continue;
    nonResourcePaths[path] = item;
  }
  // Keys sorted once here (as Go's encoder would write them), so the OpenAPI
  // builders can emit definitions without sorting them again per request.
  return {
    source,
    kubernetesMinor: KUBERNETES_MINOR,
    definitions: sortKeysDeep(swagger.definitions) as Record<string, JsonObject>,
    sharedParameters: sortKeysDeep(swagger.parameters) as Record<string, JsonObject>,
    parameters: extractParameters(swagger),
    subresourceTemplates: extractSubresourceTemplates(swagger),
    nonResourcePaths,
    securityDefinitions: swagger.securityDefinitions ?? {},
    security: swagger.security ?? [],
  };
}

// ---------------------------------------------------------------------------
// Entry points.
// ---------------------------------------------------------------------------

export const SOURCE_OPENAPI = 'k8s-api/openapi-v2.json';

export function sourceNote(): string {
  return (
    `Generated by scripts/generate-catalog.ts from ../shared/${SOURCE_OPENAPI} ` +
    `(Kubernetes ${KUBERNETES_MINOR} OpenAPI v2, swagger.json.unprocessed of kubernetes-client/python, Apache-2.0); ` +
    'short names, categories, group priorities and storage versions from the tables in that script. Do not edit.'
  );
}

export interface GeneratedFiles {
  catalog: Catalog;
  definitions: DefinitionsFile;
}

export function generate(swaggerText: string): GeneratedFiles {
  const swagger = JSON.parse(swaggerText) as Swagger;
  const source = sourceNote();
  return { catalog: buildCatalog(swagger, source), definitions: buildDefinitions(swagger, source) };
}

/** Serialization used for the committed files (stable, diff-friendly for the catalog). */
export function serializeCatalog(catalog: Catalog): string {
  return JSON.stringify(catalog, null, 1) + '\n';
}

export function serializeDefinitions(defs: DefinitionsFile): string {
  // One line: the file is large and only machines read it.
  return JSON.stringify(defs) + '\n';
}

export function sharedDir(repoRoot: string): string {
  return process.env['CAPSTAN_SHARED_DIR'] ?? resolve(repoRoot, '..', 'shared');
}

/** Repository root from the compiled location (dist/scripts/) or the source location (scripts/). */
export function repoRootFrom(moduleUrl: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('package.json not found above ' + fileURLToPath(moduleUrl));
}

function main(): void {
  const root = repoRootFrom(import.meta.url);
  const input = join(sharedDir(root), SOURCE_OPENAPI);
  if (!existsSync(input)) {
    console.error(`generate-catalog: ${input} not found (set CAPSTAN_SHARED_DIR to the shared directory)`);
    process.exit(1);
  }
  const started = performance.now();
  const { catalog, definitions } = generate(readFileSync(input, 'utf8'));
  const outDir = join(root, 'src', 'api', 'generated');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'catalog.json'), serializeCatalog(catalog));
  writeFileSync(join(outDir, 'definitions.json'), serializeDefinitions(definitions));
  const resources = catalog.groups.reduce((n, g) => n + g.versions.reduce((m, v) => m + v.resources.length, 0), 0);
  console.log(
    `generate-catalog: ${catalog.groups.length} groups, ${resources} resources, ` +
      `${Object.keys(definitions.definitions).length} definitions in ${Math.round(performance.now() - started)} ms`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
