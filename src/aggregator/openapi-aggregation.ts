import { createHash } from 'node:crypto';
import type { AggregatedOpenApiSource } from '../api/openapi.js';
import { filterSpecByPaths, normalizeOpenApiV2 } from '../api/openapi-merge.js';
import { convertV2Document } from '../api/openapi-v3.js';
import { jsonEqual } from '../machinery/deep-json.js';
import { isJsonObject, type JsonObject } from '../machinery/json.js';
import type { Logger } from '../machinery/logger.js';
import type { ServiceResolver } from '../registry/service-routing.js';
import { getFromExtensionServer, serverName, serviceAddress, tlsOptions, type ExtensionServerResponse, type ProxyClientCertificate, type RemoteApiService } from './extension-server.js';
import { goTransportErrorText, type TransportError } from './go-net-errors.js';

/**
 * kube-aggregator's OpenAPI controllers (pkg/controllers/openapi and
 * openapiv3), on every process: for each APIService with a service, its
 * extension server's /openapi/v2 is downloaded (with its ETag, as
 * system:aggregator) and filtered to `/apis/<group>/<version>/`, for the
 * merged /openapi/v2 (api/openapi-merge.ts); its /openapi/v3 root lists the
 * documents it serves itself, which this server's root lists too and
 * requests for which are proxied to it; one without /openapi/v3 (404) has
 * its v2 document converted and served here as `apis/<group>/<version>`.
 *
 * Each is downloaded a second after its APIService appears, at once when it
 * changes, then every minute; a failure is retried after 1, 2, 4 … minutes
 * (at most an hour) and keeps what was downloaded last.
 */

const SPEC_DOWNLOAD_TIMEOUT_MS = 60_000;
const FIRST_SYNC_DELAY_MS = 1_000;
const SUCCESSFUL_UPDATE_DELAY_MS = 60_000;
const FAILED_UPDATE_MAX_DELAY_MS = 3_600_000;
/** Extension servers' documents are larger than discovery's; this much and no more is held per download. */
const MAX_SPEC_BYTES = 64 * 1024 * 1024;
/** The identity the documents are read as (no groups, as kube's downloader sets it). */
const AGGREGATOR_USER = { username: 'system:aggregator', groups: [] };
/** Marks an ETag made here for a server that sends none (kube's locallyGeneratedEtagPrefix): never sent back. */
const LOCALLY_GENERATED_ETAG_PREFIX = '"6E8F849B434D4B98A569B9D7718876E9-';

type V3State = { kind: 'served'; entries: Map<string, string> } | { kind: 'converted'; from: JsonObject; doc: JsonObject };

interface Entry {
  api: RemoteApiService;
  timer: NodeJS.Timeout | undefined;
  failures: number;
  syncing: boolean;
  again: boolean;
  /** The last good v2 document, filtered to the APIService's group-version. */
  v2: { etag: string; doc: JsonObject } | undefined;
  v3: V3State | undefined;
}

export class OpenApiAggregation implements AggregatedOpenApiSource {
  readonly name = 'openapi-aggregation';
  private readonly entries = new Map<string, Entry>();
  private version = 0;
  private stopped = false;
  /** Moves when an APIService comes, goes or changes priority: the merge order is computed again. */
  private membership = 0;
  private ordered: { membership: number; entries: Entry[] } | undefined;

  constructor(
    private readonly resolver: ServiceResolver,
    private readonly proxyClient: ProxyClientCertificate | undefined,
    private readonly logger: Logger,
  ) {}

  get generation(): number {
    return this.version;
  }

  /** Work starts as APIServices arrive (AggregatedApis tells of each). */
  async start(): Promise<void> {}

  stop(): void {
    this.stopped = true;
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
  }

  /** An APIService with a service appeared or changed (`remote`), or went or lost its service (undefined). */
  apiServiceChanged(name: string, remote: RemoteApiService | undefined): void {
    const entry = this.entries.get(name);
    if (!remote) {
      if (!entry) return;
      clearTimeout(entry.timer);
      this.entries.delete(name);
      this.membership++;
      if (entry.v2 || entry.v3) this.changed();
      return;
    }
    if (!entry) {
      const created: Entry = { api: remote, timer: undefined, failures: 0, syncing: false, again: false, v2: undefined, v3: undefined };
      this.entries.set(name, created);
      this.membership++;
      this.schedule(created, FIRST_SYNC_DELAY_MS);
      return;
    }
    if (jsonEqual(entry.api, remote)) return;
    const reordered = entry.api.groupPriority !== remote.groupPriority || entry.api.versionPriority !== remote.versionPriority;
    entry.api = remote;
    if (reordered) {
      this.membership++;
      if (entry.v2 || entry.v3) this.changed();
    }
    // kube downloads again at once when an APIService changes (it may just have become available).
    entry.failures = 0;
    this.schedule(entry, 0);
  }

  /** kube's sortByPriority: higher group priority first; within a group, and on ties, by name. */
  private byPriority(): Entry[] {
    if (this.ordered?.membership === this.membership) return this.ordered.entries;
    const groupPriority = new Map<string, number>();
    for (const { api } of this.entries.values()) groupPriority.set(api.group, Math.max(groupPriority.get(api.group) ?? -Infinity, api.groupPriority));
    const entries = [...this.entries.values()].sort((a, b) => {
      if (a.api.group !== b.api.group) {
        const diff = (groupPriority.get(b.api.group) ?? 0) - (groupPriority.get(a.api.group) ?? 0);
        if (diff !== 0) return diff;
      }
      return a.api.name < b.api.name ? -1 : a.api.name > b.api.name ? 1 : 0;
    });
    this.ordered = { membership: this.membership, entries };
    return entries;
  }

  v2Documents(): readonly JsonObject[] {
    return this.byPriority().flatMap((e) => (e.v2 ? [e.v2.doc] : []));
  }

  v3Entries(): ReadonlyMap<string, string> {
    const out = new Map<string, string>();
    for (const e of this.byPriority()) {
      if (e.v3?.kind !== 'served') continue;
      for (const [key, url] of e.v3.entries) if (!out.has(key)) out.set(key, url);
    }
    return out;
  }

  v3Documents(): ReadonlyMap<string, JsonObject> {
    const out = new Map<string, JsonObject>();
    for (const e of this.byPriority()) if (e.v3?.kind === 'converted') out.set(`apis/${e.api.group}/${e.api.version}`, e.v3.doc);
    return out;
  }

  /** The APIService whose extension server serves the v3 document `key` itself. */
  v3Owner(key: string): RemoteApiService | undefined {
    for (const e of this.byPriority()) if (e.v3?.kind === 'served' && e.v3.entries.has(key)) return e.api;
    return undefined;
  }

  private changed(): void {
    this.version++;
  }

  private schedule(entry: Entry, delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void this.sync(entry), delayMs);
    entry.timer.unref();
  }

  private async sync(entry: Entry): Promise<void> {
    if (entry.syncing) {
      entry.again = true;
      return;
    }
    entry.syncing = true;
    entry.again = false;
    const api = entry.api;
    const errors: string[] = [];
    try {
      // kube's proxy answers 503 for an unavailable APIService, which fails the download.
      if (!api.available) throw new Error('service unavailable');
      const endpoint = serviceAddress(await this.resolver.resolve(api.service.namespace, api.service.name, api.service.port));
      const options = tlsOptions(api, endpoint, this.proxyClient);
      const get = (path: string, headers: Record<string, string> = {}): Promise<ExtensionServerResponse> =>
        getFromExtensionServer(options, path, AGGREGATOR_USER, SPEC_DOWNLOAD_TIMEOUT_MS, { headers, maxBytes: MAX_SPEC_BYTES }).catch((err: unknown) => {
          throw new Error(goTransportErrorText(err as TransportError, endpoint, serverName(api)));
        });
      await this.syncV2(entry, get).catch((err: unknown) => errors.push(`failed to download ${api.name}: ${(err as Error).message}`));
      await this.syncV3(entry, get).catch((err: unknown) => errors.push((err as Error).message));
    } catch (err) {
      errors.push((err as Error).message);
    } finally {
      entry.syncing = false;
    }
    if (this.entries.get(api.name) !== entry) return;
    if (errors.length > 0) {
      this.logger.error(`loading OpenAPI spec for "${api.name}" failed with: ${errors.join('; ')}`);
      entry.failures++;
    } else {
      entry.failures = 0;
    }
    const delay = entry.again ? 0 : errors.length === 0 ? SUCCESSFUL_UPDATE_DELAY_MS : Math.min(SUCCESSFUL_UPDATE_DELAY_MS * 2 ** (entry.failures - 1), FAILED_UPDATE_MAX_DELAY_MS);
    this.schedule(entry, delay);
  }

  /** kube's v2 Downloader: If-None-Match with the last ETag it was given; 304 keeps, 200 replaces. */
  private async syncV2(entry: Entry, get: (path: string, headers?: Record<string, string>) => Promise<ExtensionServerResponse>): Promise<void> {
    const previous = entry.v2?.etag;
    const res = await get('/openapi/v2', previous && !previous.startsWith(LOCALLY_GENERATED_ETAG_PREFIX) ? { 'If-None-Match': previous } : {});
    if (res.status === 304) {
      if (!previous) throw new Error('http.StatusNotModified is not allowed in absence of etag');
      return;
    }
    if (res.status === 404) throw new Error('resource not found');
    if (res.status !== 200) throw new Error(`failed to retrieve openAPI spec, http error: ResponseCode: ${res.status}`);
    const serverEtag = typeof res.headers.etag === 'string' && res.headers.etag !== '' ? res.headers.etag : undefined;
    const etag = serverEtag ?? `${LOCALLY_GENERATED_ETAG_PREFIX}${createHash('sha512').update(res.body).digest('hex').toUpperCase()}"`;
    if (etag === previous) return;
    const parsed: unknown = JSON.parse(res.body.toString('utf8'));
    if (!isJsonObject(parsed as JsonObject)) throw new Error('the OpenAPI document is not a JSON object');
    const { group, version } = entry.api;
    entry.v2 = { etag, doc: normalizeOpenApiV2(filterSpecByPaths(parsed as JsonObject, [`/apis/${group}/${version}/`])) };
    this.changed();
  }

  /** kube's v3 root download: the documents it serves itself, or (404) its v2 document converted here. */
  private async syncV3(entry: Entry, get: (path: string) => Promise<ExtensionServerResponse>): Promise<void> {
    const res = await get('/openapi/v3');
    if (res.status === 404) {
      const from = entry.v2?.doc;
      if (!from || (entry.v3?.kind === 'converted' && entry.v3.from === from)) return;
      entry.v3 = { kind: 'converted', from, doc: convertV2Document(from) };
      this.changed();
      return;
    }
    if (res.status !== 200) throw new Error('Error, could not get list of group versions for APIService');
    const parsed: unknown = JSON.parse(res.body.toString('utf8'));
    const paths = isJsonObject(parsed as JsonObject) ? (parsed as JsonObject)['paths'] : undefined;
    const entries = new Map<string, string>();
    if (isJsonObject(paths)) {
      for (const [key, item] of Object.entries(paths)) {
        if (isJsonObject(item) && typeof item['serverRelativeURL'] === 'string') entries.set(key, item['serverRelativeURL']);
      }
    }
    if (entry.v3?.kind === 'served' && jsonEqual([...entry.v3.entries], [...entries])) return;
    entry.v3 = { kind: 'served', entries };
    this.changed();
  }
}
