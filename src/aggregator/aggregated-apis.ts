import type { ApiCatalog } from '../api/catalog.js';
import type { JsonObject } from '../machinery/json.js';
import type { Logger } from '../machinery/logger.js';
import type { KubeObject } from '../machinery/object.js';
import { Informer } from '../registry/informer.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { ServiceResolver } from '../registry/service-routing.js';
import { apiServiceAvailable, getFromExtensionServer, remoteApiService, serviceAddress, tlsOptions, type ProxyClientCertificate, type RemoteApiService } from './extension-server.js';
import type { AggregatorMetrics } from './metrics.js';

/**
 * kube-aggregator's view of the APIServices, on every process: which
 * group-versions an extension API server serves (the proxy's routing table)
 * and what they serve (their APIResourceList, read again every 30 s and on
 * every change, merged into discovery through the catalog). The status
 * (Available) is the availability controller's, on the leader.
 */

/** kube-aggregator's discovery manager reads each extension server's discovery this often. */
const DISCOVERY_REFRESH_MS = 30_000;
const DISCOVERY_TIMEOUT_MS = 5_000;

/** The identity kube-aggregator reads discovery documents as. */
const AGGREGATOR_USER = { username: 'system:kube-aggregator', groups: ['system:masters'] };

export class AggregatedApis {
  readonly name = 'aggregated-apis';
  private readonly informer: Informer;
  /** group/version → the remote APIService serving it. */
  private readonly remotes = new Map<string, RemoteApiService>();
  private refreshTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    apiServices: ResourceStore,
    readonly resolver: ServiceResolver,
    private readonly catalog: ApiCatalog,
    private readonly proxyClient: ProxyClientCertificate | undefined,
    private readonly logger: Logger,
    /** The availability gauge, read from every APIService's condition as stored. */
    private readonly metrics: AggregatorMetrics,
    /** Told of every remote APIService as it comes, changes and goes (the OpenAPI downloads). */
    private readonly onRemoteChange: (name: string, remote: RemoteApiService | undefined) => void = () => undefined,
  ) {
    this.informer = new Informer(apiServices, (type, apiService) => this.onApiService(type, apiService));
  }

  async start(): Promise<void> {
    await this.informer.start();
    this.refreshTimer = setInterval(() => {
      for (const api of this.remotes.values()) void this.refreshDiscovery(api);
    }, DISCOVERY_REFRESH_MS);
    this.refreshTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.informer.stop();
  }

  /** The remote APIService serving a group-version, if one does. */
  route(group: string, version: string): RemoteApiService | undefined {
    return this.remotes.get(`${group}/${version}`);
  }

  /** The remote APIService a path under /apis/<group>/<version> belongs to. */
  routeForPath(pathname: string): RemoteApiService | undefined {
    if (this.remotes.size === 0 || !pathname.startsWith('/apis/')) return undefined;
    const [group, version] = pathname.slice('/apis/'.length).split('/', 2);
    return group && version ? this.route(decodeURIComponent(group), decodeURIComponent(version)) : undefined;
  }

  private onApiService(type: 'ADDED' | 'MODIFIED' | 'DELETED', apiService: KubeObject): void {
    const name = apiService.metadata?.name ?? '';
    this.metrics.setAvailability(name, type === 'DELETED' ? undefined : apiServiceAvailable(apiService));
    const remote = type === 'DELETED' ? undefined : remoteApiService(apiService);
    this.onRemoteChange(name, remote);
    const spec = (apiService.spec ?? {}) as { group?: string; version?: string };
    const key = `${spec.group ?? ''}/${spec.version ?? ''}`;
    const before = this.remotes.get(key);
    // Several APIServices cannot name one group-version (their name is <version>.<group>): the key is theirs alone.
    if (!remote) {
      if (before && before.name === apiService.metadata?.name) {
        this.remotes.delete(key);
        this.catalog.removeAggregatedGroupVersion(before.group, before.version);
      }
      return;
    }
    this.remotes.set(key, remote);
    const known = this.catalog.aggregatedGroupVersion(remote.group, remote.version);
    this.catalog.setAggregatedGroupVersion({
      group: remote.group,
      version: remote.version,
      groupPriority: remote.groupPriority,
      versionPriority: remote.versionPriority,
      ...(known?.resources ? { resources: known.resources } : {}),
      stale: !remote.available,
    });
    if (remote.available) void this.refreshDiscovery(remote);
  }

  /** Reads the extension server's APIResourceList for discovery; a failure keeps what was known, marked stale. */
  private async refreshDiscovery(api: RemoteApiService): Promise<void> {
    if (this.stopped || !api.available) return;
    let resources: JsonObject[] | undefined;
    try {
      const endpoint = serviceAddress(await this.resolver.resolve(api.service.namespace, api.service.name, api.service.port));
      const res = await getFromExtensionServer(tlsOptions(api, endpoint, this.proxyClient), `/apis/${api.group}/${api.version}`, AGGREGATOR_USER, DISCOVERY_TIMEOUT_MS);
      if (res.status !== 200) throw new Error(`bad status ${res.status}`);
      const list = JSON.parse(res.body.toString('utf8')) as { resources?: unknown };
      resources = Array.isArray(list.resources) ? list.resources.filter((r): r is JsonObject => !!r && typeof r === 'object' && !Array.isArray(r)) : [];
    } catch (err) {
      if (this.logger.v(2)) this.logger.info(`failed to read discovery of APIService ${api.name}: ${(err as Error).message}`);
    }
    // The APIService may have changed or gone while the request was out.
    if (this.remotes.get(`${api.group}/${api.version}`) !== api) return;
    const known = this.catalog.aggregatedGroupVersion(api.group, api.version);
    const next = resources ?? known?.resources;
    this.catalog.setAggregatedGroupVersion({
      group: api.group,
      version: api.version,
      groupPriority: api.groupPriority,
      versionPriority: api.versionPriority,
      ...(next ? { resources: next } : {}),
      stale: resources === undefined,
    });
  }
}
