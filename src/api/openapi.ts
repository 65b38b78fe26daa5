/**
 * /openapi/v2 and /openapi/v3 for the served APIs, as kube-apiserver 1.36
 * serves them (kube-openapi handler semantics): documents are built lazily on
 * first request, cached until the catalog changes, and answered with ETags,
 * 304s, and — for v3 — hash-pinned immutable URLs with 301 redirects when the
 * hash is stale.
 *
 * The HTTP layer calls `respondV2` / `respondV3` and writes the returned
 * status, headers and body as they are.
 */
import { createHash } from 'node:crypto';

import type { ApiCatalog } from './catalog.js';
import { loadDefinitions } from './definitions.js';
import type { DefinitionsFile } from './definitions-types.js';
import { canonicalJson, isJsonObject, sortKeysDeep, type Json, type JsonObject } from '../machinery/json.js';
import { encodeOpenApiV2Proto } from './openapi-proto.js';
import { discoveryRootPaths, groupRootPath, groupVersionRootPath, resourcePaths } from './openapi-paths.js';
import { convertDefinition, convertPathItem, referencedDefinitions } from './openapi-v3.js';
import { mergeOpenApiV2 } from './openapi-merge.js';

export const OPENAPI_V2_PROTO_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const V2_PROTO_SUBTYPES = ['com.github.proto-openapi.spec.v2@v1.0+protobuf', 'com.github.proto-openapi.spec.v2.v1.0+protobuf'];

export { loadDefinitions } from './definitions.js';

/** Encoded document with its kube-style ETag (uppercase hex SHA-512 of the JSON bytes, unquoted). */
export interface EncodedDocument {
  body: Buffer;
  etag: string;
  contentType: string;
  lastModified: Date;
}

/** What the HTTP layer writes. */
export interface OpenApiHttpResponse {
  status: 200 | 301 | 304 | 404 | 406;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface OpenApiRequest {
  /** Request path, e.g. `/openapi/v3/apis/apps/v1` (query string excluded). */
  path?: string;
  /** The `hash` query parameter of /openapi/v3/<gv> requests. */
  hash?: string | undefined;
  accept?: string | undefined;
  ifNoneMatch?: string | undefined;
  ifModifiedSince?: string | undefined;
}

export interface OpenApiServiceOptions {
  /** info.version of the documents; kube-apiserver uses its git version. */
  gitVersion?: string;
  definitions?: DefinitionsFile;
  /** What extension API servers add (kube-aggregator's OpenAPI controllers). */
  aggregated?: AggregatedOpenApiSource;
}

/**
 * The extension API servers' part of /openapi/v2 and /openapi/v3, as
 * kube-aggregator's OpenAPI controllers keep it (aggregator/openapi-aggregation.ts).
 */
export interface AggregatedOpenApiSource {
  /** Moves whenever anything below changes. */
  readonly generation: number;
  /** Their /openapi/v2 documents, each filtered to its APIService's group-version, in merge order. */
  v2Documents(): readonly JsonObject[];
  /** /openapi/v3 entries they serve themselves (key → serverRelativeURL); requests for them are proxied. */
  v3Entries(): ReadonlyMap<string, string>;
  /** v3 documents made here from the v2 document of one that serves no /openapi/v3 (key → document). */
  v3Documents(): ReadonlyMap<string, JsonObject>;
}

function sha512Hex(data: Buffer): string {
  return createHash('sha512').update(data).digest('hex').toUpperCase();
}

function encodeDocument(doc: Json, lastModified: Date): EncodedDocument {
  const body = Buffer.from(JSON.stringify(doc));
  return { body, etag: sha512Hex(body), contentType: 'application/json', lastModified };
}

interface AcceptClause {
  type: string;
  subtype: string;
  q: number;
  order: number;
}

function parseAccept(accept: string | undefined): AcceptClause[] {
  const text = accept === undefined || accept.trim() === '' ? '*/*' : accept;
  const out: AcceptClause[] = [];
  text.split(',').forEach((raw, order) => {
    const parts = raw.split(';').map((s) => s.trim());
    const media = (parts.shift() ?? '').toLowerCase();
    if (media === '') return;
    const slash = media.indexOf('/');
    const type = slash < 0 ? media : media.slice(0, slash);
    const subtype = slash < 0 ? '' : media.slice(slash + 1);
    let q = 1;
    for (const p of parts) if (p.toLowerCase().startsWith('q=')) q = Number(p.slice(2)) || 0;
    if (q > 0) out.push({ type, subtype, q, order });
  });
  // goautoneg: quality first, then more specific ranges, then the client's order.
  const specificity = (c: AcceptClause): number => (c.type === '*' ? 0 : c.subtype === '*' ? 1 : 2);
  return out.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.order - b.order);
}

function matches(clause: AcceptClause, subtype: string): boolean {
  return (clause.type === 'application' || clause.type === '*') && (clause.subtype === subtype || clause.subtype === '*');
}

function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const quoted = JSON.stringify(etag);
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === quoted;
  });
}

function notModifiedSince(ifModifiedSince: string | undefined, lastModified: Date): boolean {
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  // HTTP dates have second resolution.
  return Number.isFinite(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}

/** Key of a v3 document for a non-resource path: `/logs/{logpath}` → `logs`. */
function v3KeyOfNonResourcePath(path: string): string {
  const segs = path.split('/').filter((s) => s !== '' && !s.startsWith('{'));
  return segs.join('/');
}

interface Built {
  generation: number;
  /** Every served path with inline parameters, by path. */
  inlinePaths: Record<string, JsonObject>;
  /** v3 document key → paths in it. */
  v3Keys: Map<string, string[]>;
}

export class OpenApiService {
  private defsLoaded: DefinitionsFile | undefined;
  private readonly gitVersion: string;
  private built: Built | undefined;
  private v2: { generation: number; aggregated: number; json: EncodedDocument; proto?: EncodedDocument } | undefined;
  /** This server's own v3 documents, per catalog generation. */
  private v3: { generation: number; docs: Map<string, EncodedDocument> } | undefined;
  /** The v3 root and the documents converted from extension servers' v2, per catalog and aggregated generation. */
  private v3Discovery: { generation: number; aggregated: number; root: EncodedDocument; converted: Map<string, EncodedDocument> } | undefined;
  private readonly aggregated: AggregatedOpenApiSource | undefined;
  private readonly v3Schemas = new Map<string, Json>();
  private sharedByJson: Map<string, string> | undefined;

  constructor(
    private readonly catalog: ApiCatalog,
    options: OpenApiServiceOptions = {},
  ) {
    // Definitions are parsed on first use: constructing the service at startup costs nothing.
    this.defsLoaded = options.definitions;
    this.gitVersion = options.gitVersion ?? `v${catalog.data.kubernetesMinor}.0`;
    this.aggregated = options.aggregated;
  }

  /** Built-in definitions plus those of resources added at run time (catalog.definitionsAdded), per catalog generation. */
  private get defs(): DefinitionsFile {
    this.defsLoaded ??= loadDefinitions();
    if (this.merged?.generation === this.catalog.generation) return this.merged.defs;
    const added = this.catalog.definitionsAdded();
    // Converted v3 schemas of run-time definitions may be stale now.
    for (const name of this.addedNames) this.v3Schemas.delete(name);
    this.addedNames = Object.keys(added);
    for (const name of this.addedNames) this.v3Schemas.delete(name);
    const defs = this.addedNames.length === 0 ? this.defsLoaded : { ...this.defsLoaded, definitions: { ...this.defsLoaded.definitions, ...added } };
    this.merged = { generation: this.catalog.generation, defs };
    return defs;
  }

  private merged: { generation: number; defs: DefinitionsFile } | undefined;
  private addedNames: string[] = [];

  // ---------------------------------------------------------------------------
  // Building.

  private build(): Built {
    if (this.built?.generation === this.catalog.generation) return this.built;
    const inlinePaths: Record<string, JsonObject> = {};
    const v3Keys = new Map<string, string[]>();
    const add = (key: string, paths: Record<string, JsonObject>): void => {
      Object.assign(inlinePaths, paths);
      const list = v3Keys.get(key) ?? [];
      list.push(...Object.keys(paths));
      v3Keys.set(key, list);
    };
    const roots = discoveryRootPaths();
    add('api', { '/api/': roots['/api/'] as JsonObject });
    add('apis', { '/apis/': roots['/apis/'] as JsonObject });
    const ctx = { defs: this.defs };
    for (const g of this.catalog.groups()) {
      if (g.name !== '') add(`apis/${g.name}`, groupRootPath(g.name));
      for (const v of g.versions) {
        const key = g.name === '' ? `api/${v.version}` : `apis/${g.name}/${v.version}`;
        const prefix = `/${key}`;
        const paths: Record<string, JsonObject> = { ...groupVersionRootPath(g.name, v.version) };
        for (const r of v.resources) Object.assign(paths, resourcePaths(ctx, prefix, r));
        add(key, paths);
      }
    }
    for (const [path, item] of Object.entries(this.defs.nonResourcePaths)) {
      add(v3KeyOfNonResourcePath(path), { [path]: this.inlineParameters(item) });
    }
    this.built = { generation: this.catalog.generation, inlinePaths, v3Keys };
    return this.built;
  }

  private inlineParameters(item: JsonObject): JsonObject {
    const resolve = (list: Json | undefined): Json | undefined =>
      Array.isArray(list)
        ? list.map((p) => {
            if (!isJsonObject(p) || typeof p['$ref'] !== 'string') return p;
            return this.defs.sharedParameters[p['$ref'].replace('#/parameters/', '')] ?? p;
          })
        : list;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(item)) {
      if (k === 'parameters') out[k] = resolve(v) as Json;
      else if (isJsonObject(v) && Array.isArray(v['parameters'])) out[k] = { ...v, parameters: resolve(v['parameters']) as Json };
      else out[k] = v;
    }
    return out;
  }

  /** Replaces parameters equal to one of kube's shared parameters with a `#/parameters/` reference. */
  private shareParameters(paths: Record<string, JsonObject>, used: Set<string>): Record<string, JsonObject> {
    if (!this.sharedByJson) {
      this.sharedByJson = new Map(Object.entries(this.defs.sharedParameters).map(([name, p]) => [canonicalJson(p), name]));
    }
    const byJson = this.sharedByJson;
    const share = (list: Json | undefined): Json | undefined => {
      if (!Array.isArray(list)) return list;
      return list.map((p) => {
        if (!isJsonObject(p) || p['$ref'] !== undefined) return p;
        const name = byJson.get(canonicalJson(p));
        if (name === undefined) return p;
        used.add(name);
        return { $ref: `#/parameters/${name}` };
      });
    };
    const out: Record<string, JsonObject> = {};
    for (const [path, item] of Object.entries(paths)) {
      const copy: JsonObject = {};
      for (const [k, v] of Object.entries(item)) {
        if (k === 'parameters') copy[k] = share(v) as Json;
        else if (isJsonObject(v) && Array.isArray(v['parameters'])) copy[k] = { ...v, parameters: share(v['parameters']) as Json };
        else copy[k] = v;
      }
      out[path] = copy;
    }
    return out;
  }

  /** The Swagger 2.0 document as a JSON tree (keys sorted like Go's encoder). */
  buildV2Document(): JsonObject {
    const { inlinePaths } = this.build();
    const used = new Set<string>();
    const paths = this.shareParameters(inlinePaths, used);
    const parameters: JsonObject = {};
    for (const name of [...used].sort()) parameters[name] = this.defs.sharedParameters[name] as JsonObject;
    const names = referencedDefinitions([paths, parameters], this.defs.definitions);
    const definitions: JsonObject = {};
    for (const name of [...names].sort()) {
      const def = this.defs.definitions[name];
      if (def) definitions[name] = def;
    }
    // Definitions and shared parameters are stored with sorted keys; only the generated paths need sorting.
    return {
      definitions,
      info: { title: 'Kubernetes', version: this.gitVersion },
      parameters,
      paths: sortKeysDeep(paths),
      security: this.defs.security,
      securityDefinitions: sortKeysDeep(this.defs.securityDefinitions),
      swagger: '2.0',
    };
  }

  /**
   * The v2 document, rebuilt only when the catalog or the extension servers'
   * documents changed: with none of the latter, exactly this server's own.
   */
  private v2Cache(): { json: EncodedDocument; proto?: EncodedDocument } {
    const aggregated = this.aggregated?.generation ?? 0;
    if (this.v2?.generation === this.catalog.generation && this.v2.aggregated === aggregated) return this.v2;
    const extensions = this.aggregated?.v2Documents() ?? [];
    const doc = extensions.length === 0 ? this.buildV2Document() : mergeOpenApiV2(this.buildV2Document(), extensions);
    const body = Buffer.from(JSON.stringify(doc));
    this.v2 = {
      generation: this.catalog.generation,
      aggregated,
      json: { body, etag: sha512Hex(body), contentType: 'application/json', lastModified: new Date() },
    };
    return this.v2;
  }

  /** /openapi/v2 as JSON. */
  v2Json(): EncodedDocument {
    return this.v2Cache().json;
  }

  /** /openapi/v2 as gnostic protobuf; same ETag as the JSON form (kube does the same, with Vary: Accept). */
  v2Proto(): EncodedDocument {
    const cache = this.v2Cache();
    if (!cache.proto) {
      const doc = JSON.parse(cache.json.body.toString('utf8')) as JsonObject;
      cache.proto = { body: encodeOpenApiV2Proto(doc), etag: cache.json.etag, contentType: OPENAPI_V2_PROTO_TYPE, lastModified: cache.json.lastModified };
    }
    return cache.proto;
  }

  private v3Schema(name: string): Json {
    let s = this.v3Schemas.get(name);
    if (s === undefined) {
      const def = this.defs.definitions[name];
      s = def ? sortKeysDeep(convertDefinition({ definitions: this.defs.definitions }, name, def)) : {};
      this.v3Schemas.set(name, s);
    }
    return s;
  }

  /** The OpenAPI 3.0 document of one key (`api/v1`, `apis/apps/v1`, `apis/apps`, `version`, ...) as a JSON tree. */
  buildV3Document(key: string): JsonObject | undefined {
    const built = this.build();
    const pathList = built.v3Keys.get(key);
    if (!pathList) return undefined;
    const paths: JsonObject = {};
    for (const p of [...pathList].sort()) paths[p] = sortKeysDeep(convertPathItem(built.inlinePaths[p] as JsonObject));
    const v2Paths = pathList.map((p) => built.inlinePaths[p] as JsonObject);
    const schemas: JsonObject = {};
    for (const name of [...referencedDefinitions(v2Paths, this.defs.definitions)].sort()) schemas[name] = this.v3Schema(name);
    const securitySchemes: JsonObject = {};
    for (const [name, def] of Object.entries(this.defs.securityDefinitions)) if (isJsonObject(def)) securitySchemes[name] = def;
    // Cached schemas are already sorted; keys here are written in sorted order.
    return {
      components: { schemas, securitySchemes: sortKeysDeep(securitySchemes) },
      info: { title: 'Kubernetes', version: this.gitVersion },
      openapi: '3.0.0',
      paths,
      security: this.defs.security,
    };
  }

  private v3Cache(): { docs: Map<string, EncodedDocument> } {
    if (this.v3?.generation === this.catalog.generation) return this.v3;
    const built = this.build();
    const docs = new Map<string, EncodedDocument>();
    const now = new Date();
    for (const key of [...built.v3Keys.keys()].sort()) docs.set(key, encodeDocument(this.buildV3Document(key)!, now));
    this.v3 = { generation: this.catalog.generation, docs };
    return this.v3;
  }

  /**
   * The v3 root: this server's documents, then what extension servers add
   * (kube-aggregator's merged discovery; a key this server serves stays its own).
   */
  private v3RootCache(): { root: EncodedDocument; converted: Map<string, EncodedDocument> } {
    const aggregated = this.aggregated?.generation ?? 0;
    if (this.v3Discovery?.generation === this.catalog.generation && this.v3Discovery.aggregated === aggregated) return this.v3Discovery;
    const { docs } = this.v3Cache();
    const now = new Date();
    const urls = new Map<string, string>();
    for (const [key, doc] of docs) urls.set(key, `/openapi/v3/${key}?hash=${doc.etag}`);
    const converted = new Map<string, EncodedDocument>();
    for (const [key, doc] of this.aggregated?.v3Documents() ?? []) {
      if (urls.has(key)) continue;
      const encoded = encodeDocument(doc, now);
      converted.set(key, encoded);
      urls.set(key, `/openapi/v3/${key}?hash=${encoded.etag}`);
    }
    for (const [key, url] of this.aggregated?.v3Entries() ?? []) if (!urls.has(key)) urls.set(key, url);
    const rootPaths: JsonObject = {};
    for (const key of [...urls.keys()].sort()) rootPaths[key] = { serverRelativeURL: urls.get(key)! };
    this.v3Discovery = { generation: this.catalog.generation, aggregated, root: encodeDocument({ paths: rootPaths }, now), converted };
    return this.v3Discovery;
  }

  /** /openapi/v3 discovery document. */
  v3Root(): EncodedDocument {
    return this.v3RootCache().root;
  }

  /** One /openapi/v3/<key> document this server serves itself, or undefined (an extension server's, or none). */
  v3Document(key: string): EncodedDocument | undefined {
    return this.v3Cache().docs.get(key) ?? (this.aggregated ? this.v3RootCache().converted.get(key) : undefined);
  }

  // ---------------------------------------------------------------------------
  // HTTP.

  private serve(doc: EncodedDocument, req: OpenApiRequest, extra: Record<string, string> = {}): OpenApiHttpResponse {
    const headers: Record<string, string> = {
      'Content-Type': doc.contentType,
      ETag: JSON.stringify(doc.etag),
      'Last-Modified': doc.lastModified.toUTCString(),
      ...extra,
    };
    if (etagMatches(req.ifNoneMatch, doc.etag) || (req.ifNoneMatch === undefined && notModifiedSince(req.ifModifiedSince, doc.lastModified))) {
      delete headers['Content-Type'];
      return { status: 304, headers };
    }
    return { status: 200, headers, body: doc.body };
  }

  /**
   * GET /openapi/v2. JSON or gnostic protobuf by Accept; 406 (no body) when
   * neither is acceptable, like kube-openapi.
   */
  respondV2(req: OpenApiRequest = {}): OpenApiHttpResponse {
    for (const clause of parseAccept(req.accept)) {
      if (matches(clause, 'json')) return this.serve(this.v2Json(), req, { Vary: 'Accept' });
      if (V2_PROTO_SUBTYPES.some((s) => matches(clause, s))) return this.serve(this.v2Proto(), req, { Vary: 'Accept' });
    }
    return { status: 406, headers: { Vary: 'Accept' } };
  }

  /**
   * GET /openapi/v3 and /openapi/v3/<key>. With `hash` equal to the current
   * one the response is cacheable forever; with a stale hash it is a 301 to
   * the current URL. Only JSON is offered (kube also offers a protobuf form;
   * clients use JSON), so a protobuf-only Accept gets 406.
   */
  respondV3(req: OpenApiRequest): OpenApiHttpResponse {
    const path = (req.path ?? '/openapi/v3').replace(/\/+$/, '');
    if (path === '/openapi/v3') return this.serve(this.v3Root(), req);
    if (!path.startsWith('/openapi/v3/')) return { status: 404, headers: {} };
    const key = path.slice('/openapi/v3/'.length);
    const doc = this.v3Document(key);
    if (!doc) return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: Buffer.from('404 page not found\n') };
    if (!parseAccept(req.accept).some((c) => matches(c, 'json'))) return { status: 406, headers: { Vary: 'Accept' } };
    if (req.hash !== undefined && req.hash !== '') {
      if (req.hash !== doc.etag) {
        const location = `/openapi/v3/${key}?hash=${doc.etag}`;
        return {
          status: 301,
          headers: { Vary: 'Accept', Location: location, 'Content-Type': 'text/html; charset=utf-8' },
          body: Buffer.from(`<a href="${location}">Moved Permanently</a>.\n\n`),
        };
      }
      const expires = new Date(Date.now());
      expires.setUTCFullYear(expires.getUTCFullYear() + 1);
      return this.serve(doc, req, { Vary: 'Accept', 'Cache-Control': 'public, immutable', Expires: expires.toUTCString() });
    }
    return this.serve(doc, req, { Vary: 'Accept' });
  }
}
