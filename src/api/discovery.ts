/**
 * Discovery documents as kube-apiserver 1.36 serves them: the legacy
 * /api, /apis, /apis/<group>, /api/v1 and /apis/<group>/<version> documents,
 * and aggregated discovery (apidiscovery.k8s.io v2 and v2beta1) for /api and
 * /apis.
 *
 * Objects are built with their keys in the order of the Go structs' fields, so
 * that JSON.stringify gives the same bytes kube-apiserver sends; fields that
 * kube omits when empty are left out, fields it always writes are always there.
 */
import { createHash } from 'node:crypto';

import type { AggregatedGroupVersion, ApiCatalog, EnabledGroup, EnabledVersion } from './catalog.js';
import type { ResourceInfo } from './types.js';
import { compareKubeAwareVersions } from './versions.js';

// ---------------------------------------------------------------------------
// Document shapes (JSON field names and order as in k8s.io/apimachinery and k8s.io/api/apidiscovery).

export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface APIResourceList {
  kind: 'APIResourceList';
  /** Absent for the core group's /api/v1, which kube serves without it. */
  apiVersion?: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

export interface DiscoveryGroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: DiscoveryGroupVersionKind;
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: DiscoveryGroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  resources?: APIResourceDiscovery[];
  freshness: 'Current' | 'Stale';
}

export interface APIGroupDiscovery {
  metadata: { name?: string };
  versions: APIVersionDiscovery[];
}

export type AggregatedDiscoveryVersion = 'v2' | 'v2beta1';

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: `apidiscovery.k8s.io/${AggregatedDiscoveryVersion}`;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

// ---------------------------------------------------------------------------
// Legacy discovery.

/**
 * `GET /api`. `serverAddress` is the host:port clients should use (kube puts
 * its advertise address here, for every client CIDR).
 */
export function apiVersions(serverAddress: string): APIVersions {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/**
 * A group in discovery: its local versions (the catalog's, in its order) and
 * those of extension API servers (APIServices with a service), ordered as
 * kube-aggregator orders APIServices: versionPriority, then kube-aware version.
 */
interface DiscoveryGroup {
  name: string;
  priority: number;
  versions: Array<{ version: string; groupVersion: string; local?: EnabledVersion; remote?: AggregatedGroupVersion }>;
}

function discoveryGroups(catalog: ApiCatalog): DiscoveryGroup[] {
  const byName = new Map<string, DiscoveryGroup>();
  for (const g of catalog.groups()) {
    byName.set(g.name, { name: g.name, priority: g.priority, versions: g.versions.map((v) => ({ version: v.version, groupVersion: v.groupVersion, local: v })) });
  }
  const remote = [...catalog.aggregatedGroupVersions()].sort((a, b) => b.versionPriority - a.versionPriority || compareKubeAwareVersions(b.version, a.version));
  for (const gv of remote) {
    let g = byName.get(gv.group);
    if (!g) byName.set(gv.group, (g = { name: gv.group, priority: gv.groupPriority, versions: [] }));
    if (g.versions.some((v) => v.version === gv.version)) continue;
    g.priority = Math.max(g.priority, gv.groupPriority);
    g.versions.push({ version: gv.version, groupVersion: gv.group === '' ? gv.version : `${gv.group}/${gv.version}`, remote: gv });
  }
  return [...byName.values()].sort((a, b) => {
    if (a.name === '') return -1;
    if (b.name === '') return 1;
    if (a.priority !== b.priority) return b.priority - a.priority;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}

function groupVersionsOf(group: DiscoveryGroup): { versions: GroupVersionForDiscovery[]; preferredVersion: GroupVersionForDiscovery } {
  const versions = group.versions.map((v) => ({ groupVersion: v.groupVersion, version: v.version }));
  return { versions, preferredVersion: versions[0]! };
}

/** `GET /apis`: every served named group, local and aggregated, in kube-aggregator's order. */
export function apiGroupList(catalog: ApiCatalog): APIGroupList {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: discoveryGroups(catalog)
      .filter((g) => g.name !== '')
      .map((g) => ({ name: g.name, ...groupVersionsOf(g) })),
  };
}

/** `GET /apis/<group>`; undefined when the group is not served (kube answers 404). */
export function apiGroup(catalog: ApiCatalog, groupName: string): APIGroup | undefined {
  if (groupName === '') return undefined;
  const g = discoveryGroups(catalog).find((d) => d.name === groupName);
  if (!g) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', name: g.name, ...groupVersionsOf(g) };
}

function legacyResourceEntries(v: EnabledVersion): APIResource[] {
  const out: APIResource[] = [];
  for (const r of v.resources) {
    const entry: APIResource = { name: r.name, singularName: r.singularName, namespaced: r.namespaced, kind: r.kind, verbs: [...r.verbs] };
    if (r.shortNames.length > 0) entry.shortNames = [...r.shortNames];
    if (r.categories.length > 0) entry.categories = [...r.categories];
    if (r.storageVersionHash) entry.storageVersionHash = r.storageVersionHash;
    out.push(entry);
    for (const s of r.subresources) {
      const name = `${r.name}/${s.name}`;
      // kube sets group/version only for subresources whose kind lives elsewhere (scale, eviction, token).
      out.push(
        s.group !== r.group || s.version !== r.version
          ? { name, singularName: '', namespaced: r.namespaced, group: s.group, version: s.version, kind: s.kind, verbs: [...s.verbs] }
          : { name, singularName: '', namespaced: r.namespaced, kind: s.kind, verbs: [...s.verbs] },
      );
    }
  }
  // Sorted by name as the installer registers them: `pods` < `pods/attach` < `podtemplates`.
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `GET /api/v1` or `GET /apis/<group>/<version>`; undefined when not served. */
export function apiResourceList(catalog: ApiCatalog, groupName: string, version: string): APIResourceList | undefined {
  const v = catalog.groupVersion(groupName, version);
  if (!v) return undefined;
  if (groupName === '') return { kind: 'APIResourceList', groupVersion: v.groupVersion, resources: legacyResourceEntries(v) };
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: v.groupVersion, resources: legacyResourceEntries(v) };
}

// ---------------------------------------------------------------------------
// Aggregated discovery.

function aggregatedResource(r: ResourceInfo): APIResourceDiscovery {
  // The resource's own kind is reported with empty group and version: kube fills
  // only Kind for it, and the JSON tags of GroupVersionKind have no omitempty.
  const entry: APIResourceDiscovery = {
    resource: r.name,
    responseKind: { group: '', version: '', kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singularName,
    verbs: [...r.verbs],
  };
  if (r.shortNames.length > 0) entry.shortNames = [...r.shortNames];
  if (r.categories.length > 0) entry.categories = [...r.categories];
  if (r.subresources.length > 0) {
    entry.subresources = r.subresources.map((s) => {
      const differs = s.group !== r.group || s.version !== r.version;
      return {
        subresource: s.name,
        responseKind: { group: differs ? s.group : '', version: differs ? s.version : '', kind: s.kind },
        verbs: [...s.verbs],
      };
    });
  }
  return entry;
}

/** An extension server's legacy APIResourceList entries as aggregated discovery resources (kube-aggregator's conversion). */
function aggregatedFromLegacy(entries: readonly Record<string, unknown>[]): APIResourceDiscovery[] {
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const out = new Map<string, APIResourceDiscovery>();
  for (const e of entries) {
    const name = str(e.name);
    if (!name || name.includes('/')) continue;
    const entry: APIResourceDiscovery = {
      resource: name,
      responseKind: { group: str(e.group), version: str(e.version), kind: str(e.kind) },
      scope: e.namespaced === true ? 'Namespaced' : 'Cluster',
      singularResource: str(e.singularName),
      verbs: strings(e.verbs),
    };
    if (strings(e.shortNames).length > 0) entry.shortNames = strings(e.shortNames);
    if (strings(e.categories).length > 0) entry.categories = strings(e.categories);
    out.set(name, entry);
  }
  for (const e of entries) {
    const [parent, sub] = str(e.name).split('/', 2);
    const owner = sub ? out.get(parent!) : undefined;
    if (!owner) continue;
    (owner.subresources ??= []).push({ subresource: sub!, responseKind: { group: str(e.group), version: str(e.version), kind: str(e.kind) }, verbs: strings(e.verbs) });
  }
  return [...out.values()];
}

function aggregatedGroup(g: DiscoveryGroup): APIGroupDiscovery {
  const versions: APIVersionDiscovery[] = [];
  for (const v of g.versions) {
    if (v.local) versions.push({ version: v.version, resources: v.local.resources.map(aggregatedResource), freshness: 'Current' });
    // An extension server whose discovery was never read is left out, as kube-aggregator leaves it out until it answers.
    else if (v.remote?.resources) versions.push({ version: v.version, resources: aggregatedFromLegacy(v.remote.resources), freshness: v.remote.stale ? 'Stale' : 'Current' });
  }
  return { metadata: g.name === '' ? {} : { name: g.name }, versions };
}

/**
 * The aggregated discovery document for `/api` (scope `api`: the core group
 * only) or `/apis` (every named group, local and aggregated).
 */
export function aggregatedDiscovery(catalog: ApiCatalog, scope: 'api' | 'apis', version: AggregatedDiscoveryVersion = 'v2'): APIGroupDiscoveryList {
  const groups = discoveryGroups(catalog).filter((g) => (scope === 'api' ? g.name === '' : g.name !== ''));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items: groups.map(aggregatedGroup).filter((g) => g.versions.length > 0) };
}

// ---------------------------------------------------------------------------
// Negotiation and HTTP responses.

export type DiscoveryFormat =
  | { kind: 'aggregated'; version: AggregatedDiscoveryVersion; contentType: string }
  /** Legacy document; `mediaType` is what the client accepted (json, yaml or protobuf). */
  | { kind: 'legacy'; mediaType: string };

interface AcceptClause {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
  order: number;
}

function parseAccept(accept: string): AcceptClause[] {
  const out: AcceptClause[] = [];
  accept.split(',').forEach((raw, order) => {
    const parts = raw.split(';').map((s) => s.trim());
    const media = (parts.shift() ?? '').toLowerCase();
    if (media === '') return;
    const [type = '', subtype = ''] = media.split('/');
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of parts) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const k = p.slice(0, eq).trim().toLowerCase();
      const v = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (k === 'q') q = Number.isFinite(Number(v)) ? Number(v) : 0;
      else params[k] = v;
    }
    if (q > 0) out.push({ type, subtype, params, q, order });
  });
  // Highest quality first; among equals, the client's order.
  return out.sort((a, b) => b.q - a.q || a.order - b.order);
}

const LEGACY_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

export function aggregatedContentType(version: AggregatedDiscoveryVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/**
 * Chooses the representation of `/api` or `/apis` for an Accept header the way
 * kube-apiserver's negotiation does: the first acceptable clause wins;
 * aggregated discovery only when asked for by `g`/`v`/`as`. Returns undefined
 * when nothing is acceptable (kube answers 406).
 */
export function negotiateDiscovery(accept: string | undefined): DiscoveryFormat | undefined {
  const clauses = parseAccept(accept === undefined || accept.trim() === '' ? '*/*' : accept);
  for (const c of clauses) {
    const hasTarget = c.params['g'] !== undefined || c.params['v'] !== undefined || c.params['as'] !== undefined;
    if (hasTarget) {
      const jsonLike = (c.type === 'application' && c.subtype === 'json') || (c.type === '*' && c.subtype === '*');
      const v = c.params['v'];
      if (jsonLike && c.params['g'] === 'apidiscovery.k8s.io' && c.params['as'] === 'APIGroupDiscoveryList' && (v === 'v2' || v === 'v2beta1')) {
        return { kind: 'aggregated', version: v, contentType: aggregatedContentType(v) };
      }
      continue; // other conversions (Table, PartialObjectMetadata) are not offered by discovery
    }
    if (c.type === '*' && c.subtype === '*') return { kind: 'legacy', mediaType: 'application/json' };
    if (c.type === 'application' && c.subtype === '*') return { kind: 'legacy', mediaType: 'application/json' };
    const media = `${c.type}/${c.subtype}`;
    if (LEGACY_MEDIA_TYPES.includes(media)) return { kind: 'legacy', mediaType: media };
  }
  return undefined;
}

/** What the HTTP layer writes. */
export interface DiscoveryHttpResponse {
  status: 200 | 304 | 406;
  headers: Record<string, string>;
  /** JSON bytes for 200 aggregated responses; absent for 304/406 and for legacy documents. */
  body?: Buffer;
  /**
   * For legacy documents: the object to encode with the negotiated media type
   * (`headers['Content-Type']`). JSON callers can use `body`, which is set too.
   */
  object?: APIVersions | APIGroupList;
}

interface CachedAggregated {
  generation: number;
  /** Document bytes per version, with kube's trailing newline. */
  body: Record<AggregatedDiscoveryVersion, Buffer>;
  etag: string;
}

/**
 * Serves `/api` and `/apis` with negotiation and ETags, caching the encoded
 * documents until the catalog changes. Legacy group and resource-list
 * documents are cheap: call the builders above directly.
 */
export class DiscoveryService {
  private readonly cache = new Map<'api' | 'apis', CachedAggregated>();

  constructor(
    private readonly catalog: ApiCatalog,
    /** host:port for APIVersions.serverAddressByClientCIDRs. */
    private readonly serverAddress: string,
  ) {}

  private aggregated(scope: 'api' | 'apis'): CachedAggregated {
    const hit = this.cache.get(scope);
    if (hit && hit.generation === this.catalog.generation) return hit;
    const v2 = aggregatedDiscovery(this.catalog, scope, 'v2');
    const v2json = JSON.stringify(v2);
    const v2beta1json = JSON.stringify({ ...v2, apiVersion: 'apidiscovery.k8s.io/v2beta1' });
    const entry: CachedAggregated = {
      generation: this.catalog.generation,
      body: { v2: Buffer.from(v2json + '\n'), v2beta1: Buffer.from(v2beta1json + '\n') },
      // kube hashes json.Marshal of the document (no trailing newline): uppercase hex SHA-512.
      etag: createHash('sha512').update(v2json).digest('hex').toUpperCase(),
    };
    this.cache.set(scope, entry);
    return entry;
  }

  /** The current aggregated ETag (unquoted) of `/api` or `/apis`. */
  etag(scope: 'api' | 'apis'): string {
    return this.aggregated(scope).etag;
  }

  /**
   * Response for `GET /api` (scope `api`) or `GET /apis` (scope `apis`).
   * Aggregated responses carry `ETag`, `Vary: Accept`, `Cache-Control: public`
   * and answer a matching `If-None-Match` with 304, like kube-apiserver.
   */
  respond(scope: 'api' | 'apis', accept: string | undefined, ifNoneMatch?: string): DiscoveryHttpResponse {
    const format = negotiateDiscovery(accept);
    if (!format) return { status: 406, headers: {} };
    if (format.kind === 'aggregated') {
      const agg = this.aggregated(scope);
      const quoted = JSON.stringify(agg.etag);
      const headers: Record<string, string> = { ETag: quoted, Vary: 'Accept', 'Cache-Control': 'public' };
      if (ifNoneMatch !== undefined && ifNoneMatch === quoted) return { status: 304, headers };
      headers['Content-Type'] = format.contentType;
      return { status: 200, headers, body: agg.body[format.version] };
    }
    const object = scope === 'api' ? apiVersions(this.serverAddress) : apiGroupList(this.catalog);
    return {
      status: 200,
      headers: { 'Content-Type': format.mediaType },
      object,
      body: Buffer.from(JSON.stringify(object) + '\n'),
    };
  }
}
