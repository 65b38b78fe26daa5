/**
 * Swagger 2.0 path items for served resources, generated from the catalog the
 * way kube-apiserver's installer and kube-openapi lay them out: one path per
 * collection, item, subresource and deprecated watch endpoint; operation ids
 * like `listAppsV1NamespacedDeployment`; parameters sorted by name, those
 * common to every operation of a path hoisted to the path.
 *
 * Parameters are produced inline here; the document builder replaces the
 * ones kube shares (`#/parameters/...`) afterwards.
 */
import type { DefinitionsFile, SubresourceTemplate } from './definitions-types.js';
import { canonicalJson, type JsonObject } from '../machinery/json.js';
import type { ResourceInfo, SubresourceInfo } from './types.js';

const OBJECT_MEDIA = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor'];
const STREAM_MEDIA = [...OBJECT_MEDIA, 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch', 'application/cbor-seq'];
const PATCH_MEDIA = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'application/apply-patch+cbor',
];
const STATUS_DEF = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
const WATCH_EVENT_DEF = 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent';
const CONNECT_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;
const LIST_PARAMS = [
  'allowWatchBookmarks',
  'continue',
  'fieldSelector',
  'labelSelector',
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'shardSelector',
  'timeoutSeconds',
  'watch',
];

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options';

interface OpSpec {
  method: HttpMethod;
  action: string;
  operationId: string;
  description: string;
  consumes: string[];
  produces: string[];
  params: JsonObject[];
  responses: JsonObject;
  gvk: { group: string; version: string; kind: string };
}

function ref(def: string): JsonObject {
  return { $ref: `#/definitions/${def}` };
}

function pascal(s: string): string {
  return s.length === 0 ? s : s[0]?.toUpperCase() + s.slice(1);
}

/** `rbac.authorization.k8s.io` → [`rbac`, `authorization`]; the core group is `core`. */
function groupParts(group: string): string[] {
  if (group === '') return ['core'];
  return group.replace(/\.k8s\.io$/, '').split('.');
}

/** Operation-id prefix: `CoreV1`, `RbacAuthorizationV1`, `AppsV1`. */
export function operationPrefix(group: string, version: string): string {
  return groupParts(group).map(pascal).join('') + pascal(version);
}

/** Operation-id stem of a group's own discovery path: `Apps`, `RbacAuthorization`. */
export function groupOperationStem(group: string): string {
  return groupParts(group).map(pascal).join('');
}

/** Tag of a group-version's operations: `core_v1`, `rbacAuthorization_v1`. */
export function operationTag(group: string, version: string): string {
  return `${groupTag(group)}_${version}`;
}

export function groupTag(group: string): string {
  const parts = groupParts(group);
  return (parts[0] ?? '') + parts.slice(1).map(pascal).join('');
}

/** English article kube's installer puts before a kind ("a Pod", "an Ingress", "Endpoints"). */
function article(kind: string): string {
  if (kind.endsWith('s') && !kind.endsWith('ss')) return ' ';
  return /^[aeiouAEIOU]/.test(kind) ? ' an ' : ' a ';
}

function responses(entries: [string, string, JsonObject?][]): JsonObject {
  const out: JsonObject = {};
  for (const [code, description, schema] of entries) out[code] = schema ? { description, schema } : { description };
  out['401'] = { description: 'Unauthorized' };
  return out;
}

function byName(a: JsonObject, b: JsonObject): number {
  const na = String(a['name']);
  const nb = String(b['name']);
  if (na !== nb) return na < nb ? -1 : 1;
  // Same name (proxy's `path` in path and in query): path parameter first.
  const ia = String(a['in']);
  const ib = String(b['in']);
  return ia === ib ? 0 : ia === 'path' ? -1 : ib === 'path' ? 1 : ia < ib ? -1 : 1;
}

/** Builds the path item from operation specs, hoisting the non-body parameters all operations share. */
function pathItem(ops: OpSpec[], tag: string): JsonObject {
  const first = ops[0];
  if (!first) return {};
  const keyed = ops.map((op) => op.params.map((p) => canonicalJson(p)));
  const common = first.params.filter((p, i) => p['in'] !== 'body' && keyed.every((keys) => keys.includes(keyed[0]?.[i] as string)));
  const commonKeys = new Set(common.map((p) => canonicalJson(p)));
  const item: JsonObject = {};
  for (const op of ops) {
    const own = op.params.filter((p) => !commonKeys.has(canonicalJson(p))).sort(byName);
    const o: JsonObject = {
      consumes: op.consumes,
      description: op.description,
      operationId: op.operationId,
    };
    if (own.length > 0) o['parameters'] = own;
    o['produces'] = op.produces;
    o['responses'] = op.responses;
    o['schemes'] = ['https'];
    // Tagged by the path's group-version, not the operation's kind (deployments/scale is apps_v1).
    o['tags'] = [tag];
    o['x-kubernetes-action'] = op.action;
    o['x-kubernetes-group-version-kind'] = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
    item[op.method] = o;
  }
  if (common.length > 0) item['parameters'] = [...common].sort(byName);
  return item;
}

export interface PathContext {
  defs: DefinitionsFile;
}

function param(ctx: PathContext, name: string): JsonObject {
  const p = ctx.defs.parameters[name];
  if (!p) throw new Error(`definitions.json lacks parameter ${name}`);
  return p;
}

function nameParam(kind: string): JsonObject {
  return { description: `name of the ${kind}`, in: 'path', name: 'name', required: true, type: 'string', uniqueItems: true };
}

function bodyParam(def: string): JsonObject {
  return { in: 'body', name: 'body', required: true, schema: ref(def) };
}

function writeParams(ctx: PathContext, def: string): JsonObject[] {
  return [bodyParam(def), param(ctx, 'dryRun'), param(ctx, 'fieldManager'), param(ctx, 'fieldValidation')];
}

function patchParams(ctx: PathContext): JsonObject[] {
  return [param(ctx, 'body:patch'), param(ctx, 'dryRun'), param(ctx, 'fieldManager:patch'), param(ctx, 'fieldValidation'), param(ctx, 'force')];
}

function listParams(ctx: PathContext): JsonObject[] {
  return LIST_PARAMS.map((n) => param(ctx, `list:${n}`));
}

function deleteParams(ctx: PathContext): JsonObject[] {
  return [
    param(ctx, 'body:delete'),
    param(ctx, 'dryRun'),
    param(ctx, 'delete:gracePeriodSeconds'),
    param(ctx, 'delete:ignoreStoreReadErrorWithClusterBreakingPotential'),
    param(ctx, 'delete:orphanDependents'),
    param(ctx, 'delete:propagationPolicy'),
  ];
}

function deleteCollectionParams(ctx: PathContext): JsonObject[] {
  return [
    ...deleteParams(ctx),
    ...LIST_PARAMS.filter((n) => n !== 'allowWatchBookmarks' && n !== 'watch').map((n) => param(ctx, `list:${n}`)),
  ];
}

/**
 * Path items of one served resource (collection, item, subresources, watch
 * endpoints) under `prefix` (`/api/v1` or `/apis/<group>/<version>`).
 */
export function resourcePaths(ctx: PathContext, prefix: string, r: ResourceInfo): Record<string, JsonObject> {
  const tag = operationTag(r.group, r.version);
  const out: Record<string, JsonObject> = {};
  const opPrefix = operationPrefix(r.group, r.version);
  const ns = r.namespaced ? 'Namespaced' : '';
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const pretty = param(ctx, 'pretty');
  const scopeParams = r.namespaced ? [param(ctx, 'namespace')] : [];
  const base = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.name}` : `${prefix}/${r.name}`;
  const verbs = new Set(r.verbs);
  const objectRef = ref(r.definition);
  const listRef = r.listKind ? ref(r.definition.slice(0, r.definition.lastIndexOf('.') + 1) + r.listKind) : undefined;
  const canWatch = verbs.has('watch');

  // Collection.
  const collection: OpSpec[] = [];
  if (verbs.has('list') && listRef) {
    collection.push({
      method: 'get',
      action: 'list',
      operationId: `list${opPrefix}${ns}${r.kind}`,
      description: `${canWatch ? 'list or watch' : 'list'} objects of kind ${r.kind}`,
      consumes: ['*/*'],
      produces: STREAM_MEDIA,
      params: [...scopeParams, pretty, ...listParams(ctx)],
      responses: responses([['200', 'OK', listRef]]),
      gvk,
    });
  }
  if (verbs.has('create')) {
    collection.push({
      method: 'post',
      action: 'post',
      operationId: `create${opPrefix}${ns}${r.kind}`,
      description: `create${article(r.kind)}${r.kind}`,
      consumes: ['*/*'],
      produces: OBJECT_MEDIA,
      params: [...scopeParams, pretty, ...writeParams(ctx, r.definition)],
      responses: responses([
        ['200', 'OK', objectRef],
        ['201', 'Created', objectRef],
        ['202', 'Accepted', objectRef],
      ]),
      gvk,
    });
  }
  if (verbs.has('deletecollection')) {
    collection.push({
      method: 'delete',
      action: 'deletecollection',
      operationId: `delete${opPrefix}Collection${ns}${r.kind}`,
      description: `delete collection of ${r.kind}`,
      consumes: ['*/*'],
      produces: OBJECT_MEDIA,
      params: [...scopeParams, pretty, ...deleteCollectionParams(ctx)],
      responses: responses([['200', 'OK', ref(STATUS_DEF)]]),
      gvk,
    });
  }
  if (collection.length > 0) out[base] = pathItem(collection, tag);

  // List across all namespaces.
  if (r.namespaced && verbs.has('list') && listRef) {
    out[`${prefix}/${r.name}`] = pathItem([
      {
        method: 'get',
        action: 'list',
        operationId: `list${opPrefix}${r.kind}ForAllNamespaces`,
        description: `${canWatch ? 'list or watch' : 'list'} objects of kind ${r.kind}`,
        consumes: ['*/*'],
        produces: STREAM_MEDIA,
        params: [pretty, ...listParams(ctx)],
        responses: responses([['200', 'OK', listRef]]),
        gvk,
      },
    ], tag);
  }

  // Item.
  const itemParams = [nameParam(r.kind), ...scopeParams, pretty];
  const item: OpSpec[] = [];
  if (verbs.has('get')) {
    item.push({
      method: 'get',
      action: 'get',
      operationId: `read${opPrefix}${ns}${r.kind}`,
      description: `read the specified ${r.kind}`,
      consumes: ['*/*'],
      produces: OBJECT_MEDIA,
      params: itemParams,
      responses: responses([['200', 'OK', objectRef]]),
      gvk,
    });
  }
  if (verbs.has('update')) {
    item.push({
      method: 'put',
      action: 'put',
      operationId: `replace${opPrefix}${ns}${r.kind}`,
      description: `replace the specified ${r.kind}`,
      consumes: ['*/*'],
      produces: OBJECT_MEDIA,
      params: [...itemParams, ...writeParams(ctx, r.definition)],
      responses: responses([
        ['200', 'OK', objectRef],
        ['201', 'Created', objectRef],
      ]),
      gvk,
    });
  }
  if (verbs.has('patch')) {
    item.push({
      method: 'patch',
      action: 'patch',
      operationId: `patch${opPrefix}${ns}${r.kind}`,
      description: `partially update the specified ${r.kind}`,
      consumes: PATCH_MEDIA,
      produces: OBJECT_MEDIA,
      params: [...itemParams, ...patchParams(ctx)],
      responses: responses([
        ['200', 'OK', objectRef],
        ['201', 'Created', objectRef],
      ]),
      gvk,
    });
  }
  if (verbs.has('delete')) {
    const deleted = r.deleteReturnsObject ? objectRef : ref(STATUS_DEF);
    item.push({
      method: 'delete',
      action: 'delete',
      operationId: `delete${opPrefix}${ns}${r.kind}`,
      description: `delete${article(r.kind)}${r.kind}`,
      consumes: ['*/*'],
      produces: OBJECT_MEDIA,
      params: [...itemParams, ...deleteParams(ctx)],
      responses: responses([
        ['200', 'OK', deleted],
        ['202', 'Accepted', deleted],
      ]),
      gvk,
    });
  }
  if (item.length > 0) out[`${base}/{name}`] = pathItem(item, tag);

  // Subresources.
  for (const s of r.subresources) Object.assign(out, subresourcePaths(ctx, prefix, r, s, `${base}/{name}/${s.name}`));

  // Deprecated watch endpoints.
  if (canWatch) {
    const watchBase = r.namespaced ? `${prefix}/watch/namespaces/{namespace}/${r.name}` : `${prefix}/watch/${r.name}`;
    const watchOp = (action: string, operationId: string, description: string, params: JsonObject[]): OpSpec => ({
      method: 'get',
      action,
      operationId,
      description,
      consumes: ['*/*'],
      produces: STREAM_MEDIA,
      params,
      responses: responses([['200', 'OK', ref(WATCH_EVENT_DEF)]]),
      gvk,
    });
    const listDesc = `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`;
    out[watchBase] = pathItem([watchOp('watchlist', `watch${opPrefix}${ns}${r.kind}List`, listDesc, [...scopeParams, pretty, ...listParams(ctx)])], tag);
    out[`${watchBase}/{name}`] = pathItem([
      watchOp(
        'watch',
        `watch${opPrefix}${ns}${r.kind}`,
        `watch changes to an object of kind ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
        [nameParam(r.kind), ...scopeParams, pretty, ...listParams(ctx)],
      ),
    ], tag);
    if (r.namespaced) {
      out[`${prefix}/watch/${r.name}`] = pathItem([
        watchOp('watchlist', `watch${opPrefix}${r.kind}ListForAllNamespaces`, listDesc, [pretty, ...listParams(ctx)]),
      ], tag);
    }
  }
  return out;
}

function templateFor(ctx: PathContext, r: ResourceInfo, s: SubresourceInfo): SubresourceTemplate | undefined {
  return ctx.defs.subresourceTemplates[`${r.group}/${r.version}/${r.name}/${s.name}`];
}

function subresourcePaths(ctx: PathContext, prefix: string, r: ResourceInfo, s: SubresourceInfo, path: string): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  const opPrefix = operationPrefix(r.group, r.version);
  const ns = r.namespaced ? 'Namespaced' : '';
  const subName = pascal(s.name);
  const gvk = { group: s.group, version: s.version, kind: s.kind };
  const scopeParams = r.namespaced ? [param(ctx, 'namespace')] : [];
  const template = templateFor(ctx, r, s);
  const verbs = new Set(s.verbs);
  const tag = operationTag(r.group, r.version);

  if (s.connect) {
    const query = template?.queryParameters ?? [];
    const base = [nameParam(s.kind), ...scopeParams, ...(template?.pretty ? [param(ctx, 'pretty')] : []), ...query];
    const connectOps = (withPath: boolean): OpSpec[] =>
      CONNECT_METHODS.filter((m) => connectMethodAllowed(m, verbs)).map((m) => ({
        method: m,
        action: 'connect',
        operationId: `connect${opPrefix}${pascal(m)}${ns}${r.kind}${subName}${withPath ? 'WithPath' : ''}`,
        description: `connect ${m.toUpperCase()} requests to ${s.name} of ${r.kind}`,
        consumes: ['*/*'],
        produces: ['*/*'],
        params: withPath ? [...base, param(ctx, 'path:proxy')] : base,
        responses: responses([['200', 'OK', template?.responseSchema ?? { type: 'string' }]]),
        gvk,
      }));
    out[path] = pathItem(connectOps(false), tag);
    if (template?.withPath) out[`${path}/{path}`] = pathItem(connectOps(true), tag);
    return out;
  }

  const body = s.definition ? ref(s.definition) : undefined;
  const itemParams = [nameParam(s.kind), ...scopeParams, param(ctx, 'pretty')];
  const ops: OpSpec[] = [];
  if (verbs.has('get')) {
    ops.push({
      method: 'get',
      action: 'get',
      operationId: `read${opPrefix}${ns}${r.kind}${subName}`,
      description: `read ${s.name} of the specified ${r.kind}`,
      consumes: ['*/*'],
      produces: template?.produces ?? OBJECT_MEDIA,
      params: [...itemParams, ...(template?.queryParameters ?? [])],
      responses: responses([['200', 'OK', template?.responseSchema ?? body ?? { type: 'string' }]]),
      gvk,
    });
  }
  if (verbs.has('update') && s.definition) {
    ops.push({
      method: 'put',
      action: 'put',
      operationId: `replace${opPrefix}${ns}${r.kind}${subName}`,
      description: `replace ${s.name} of the specified ${r.kind}`,
      consumes: ['*/*'],
      produces: OBJECT_MEDIA,
      params: [...itemParams, ...writeParams(ctx, s.definition)],
      responses: responses([
        ['200', 'OK', ref(s.definition)],
        ['201', 'Created', ref(s.definition)],
      ]),
      gvk,
    });
  }
  if (verbs.has('patch') && s.definition) {
    ops.push({
      method: 'patch',
      action: 'patch',
      operationId: `patch${opPrefix}${ns}${r.kind}${subName}`,
      description: `partially update ${s.name} of the specified ${r.kind}`,
      consumes: PATCH_MEDIA,
      produces: OBJECT_MEDIA,
      params: [...itemParams, ...patchParams(ctx)],
      responses: responses([
        ['200', 'OK', ref(s.definition)],
        ['201', 'Created', ref(s.definition)],
      ]),
      gvk,
    });
  }
  if (verbs.has('create') && s.definition) {
    ops.push({
      method: 'post',
      action: 'post',
      operationId: `create${opPrefix}${ns}${r.kind}${subName}`,
      description: `create ${s.name} of${article(r.kind)}${r.kind}`,
      consumes: ['*/*'],
      produces: OBJECT_MEDIA,
      params: [...itemParams, ...writeParams(ctx, s.definition)],
      responses: responses([
        ['200', 'OK', ref(s.definition)],
        ['201', 'Created', ref(s.definition)],
        ['202', 'Accepted', ref(s.definition)],
      ]),
      gvk,
    });
  }
  if (ops.length > 0) out[path] = pathItem(ops, tag);
  return out;
}

/** HEAD and OPTIONS come with proxy-style connect subresources, which take every verb. */
function connectMethodAllowed(method: HttpMethod, verbs: Set<string>): boolean {
  switch (method) {
    case 'get':
      return verbs.has('get');
    case 'post':
      return verbs.has('create');
    case 'put':
      return verbs.has('update');
    case 'patch':
      return verbs.has('patch');
    case 'delete':
      return verbs.has('delete');
    case 'head':
    case 'options':
      return verbs.has('delete') && verbs.has('update');
  }
}

const DISCOVERY_MEDIA = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** `/apis/<group>/<version>/` (or `/api/v1/`): the group-version's resource list. */
export function groupVersionRootPath(group: string, version: string): Record<string, JsonObject> {
  const path = group === '' ? `/api/${version}/` : `/apis/${group}/${version}/`;
  return {
    [path]: {
      get: {
        consumes: OBJECT_MEDIA,
        description: 'get available resources',
        operationId: `get${operationPrefix(group, version)}APIResources`,
        produces: OBJECT_MEDIA,
        responses: responses([['200', 'OK', ref('io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList')]]),
        schemes: ['https'],
        tags: [operationTag(group, version)],
      },
    },
  };
}

/** `/apis/<group>/`: the group's APIGroup document. */
export function groupRootPath(group: string): Record<string, JsonObject> {
  return {
    [`/apis/${group}/`]: {
      get: {
        consumes: DISCOVERY_MEDIA,
        description: 'get information of a group',
        operationId: `get${groupOperationStem(group)}APIGroup`,
        produces: DISCOVERY_MEDIA,
        responses: responses([['200', 'OK', ref('io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup')]]),
        schemes: ['https'],
        tags: [groupTag(group)],
      },
    },
  };
}

/** `/api/` and `/apis/`: the version and group lists. */
export function discoveryRootPaths(): Record<string, JsonObject> {
  const op = (operationId: string, def: string, tag: string): JsonObject => ({
    get: {
      consumes: DISCOVERY_MEDIA,
      description: 'get available API versions',
      operationId,
      produces: DISCOVERY_MEDIA,
      responses: responses([['200', 'OK', ref(def)]]),
      schemes: ['https'],
      tags: [tag],
    },
  });
  return {
    '/api/': op('getCoreAPIVersions', 'io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions', 'core'),
    '/apis/': op('getAPIVersions', 'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList', 'apis'),
  };
}
