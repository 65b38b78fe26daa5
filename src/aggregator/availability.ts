import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { cloneObject, type KubeObject } from '../machinery/object.js';
import { Informer, WorkQueue } from '../registry/informer.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { ServiceWatch } from '../registry/service-watch.js';
import type { ServiceResolver } from '../registry/service-routing.js';
import { getFromExtensionServer, remoteApiService, serviceAddress, tlsOptions, type ProxyClientCertificate, type RemoteApiService, type ServiceAddress } from './extension-server.js';
import { joinHostPort } from '../machinery/host-port.js';
import { goTransportErrorText, type TransportError } from './go-net-errors.js';
import type { AggregatorMetrics } from './metrics.js';

/**
 * kube-aggregator's LocalAvailability and RemoteAvailability controllers, on
 * the leader: every APIService's `Available` condition. A local one is always
 * available; a remote one when its Service exists and listens on the port,
 * has a ready endpoint, and one of five GETs of its discovery path answers
 * 2xx/3xx within 5 s. Remote ones are checked again every 30 s and whenever
 * their Service or EndpointSlices change.
 */

interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

const RESYNC_MS = 30_000;
const PROBE_TIMEOUT_MS = 5_000;
const PROBE_ATTEMPTS = 5;
const APISERVICES = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices' } as const;

const LOCAL_AVAILABLE: Condition = { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' };

function nowTimestamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

export class ApiServiceAvailability {
  readonly name = 'apiservice-availability';
  private readonly informer: Informer;
  private readonly queue: WorkQueue;
  private resync: NodeJS.Timeout | undefined;

  constructor(
    apiServices: ResourceStore,
    /** The Services and EndpointSlices the checks read. */
    private readonly services: ServiceWatch,
    /** Where a probe goes (--enable-aggregator-routing). */
    private readonly routing: ServiceResolver,
    private readonly client: ApiClient,
    private readonly proxyClient: ProxyClientCertificate | undefined,
    /** Counts the writes that take an APIService's availability away. */
    private readonly metrics: AggregatorMetrics,
  ) {
    this.queue = new WorkQueue((name) => this.sync(name));
    this.informer = new Informer(apiServices, (_type, apiService) => this.queue.add(apiService.metadata?.name ?? ''));
  }

  async start(): Promise<void> {
    await this.services.start();
    await this.informer.start();
    this.resync = setInterval(() => {
      for (const apiService of this.informer.list()) if (remoteApiService(apiService)) this.queue.add(apiService.metadata?.name ?? '');
    }, RESYNC_MS);
    this.resync.unref();
  }

  stop(): void {
    if (this.resync) clearInterval(this.resync);
    this.informer.stop();
    this.services.stop();
    this.queue.stop();
  }

  /** A Service or its EndpointSlices changed: the APIServices behind it are checked again. */
  serviceChanged(namespace: string, name: string): void {
    for (const apiService of this.informer.list()) {
      const remote = remoteApiService(apiService);
      if (remote && remote.service.namespace === namespace && remote.service.name === name) this.queue.add(remote.name);
    }
  }

  private async sync(name: string): Promise<void> {
    const current = this.informer.get(name);
    if (!current) return;
    const remote = remoteApiService(current);
    const condition = remote ? await this.remoteCondition(remote) : LOCAL_AVAILABLE;
    await this.writeCondition(current, condition);
  }

  /** kube's checks, in its order, with its reasons and messages. */
  private async remoteCondition(api: RemoteApiService): Promise<Condition> {
    const { namespace, name, port } = api.service;
    const unavailable = (reason: string, message: string): Condition => ({ type: 'Available', status: 'False', reason, message });
    const service = this.services.service(namespace, name);
    if (!service) return unavailable('ServiceNotFound', `service/${name} in "${namespace}" is not present`);
    const type = ((service.spec ?? {}) as { type?: string }).type ?? 'ClusterIP';
    if (type === 'ClusterIP') {
      const portName = this.services.servicePortName(service, port);
      if (portName === undefined) return unavailable('ServicePortError', `service/${name} in "${namespace}" is not listening on port ${port}`);
      if (this.services.endpointSlices(namespace, name).length === 0) return unavailable('EndpointsNotFound', `cannot find endpointslices for service/${name} in "${namespace}"`);
      if (!this.services.hasReadyEndpoint(namespace, name, portName)) return unavailable('MissingEndpoints', `endpointslices for service/${name} in "${namespace}" have no addresses with port name "${portName}"`);
    }
    const failure = await this.probe(api);
    if (failure) return unavailable('FailedDiscoveryCheck', failure);
    return { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' };
  }

  /** Five GETs of the discovery path at once, TLS unverified as kube's check is; undefined when one succeeds, else the last error. */
  private async probe(api: RemoteApiService): Promise<string | undefined> {
    const path = api.name === 'v1.' ? `/api/${api.version}` : `/apis/${api.group}/${api.version}`;
    const attempt = async (): Promise<string | undefined> => {
      let endpoint: ServiceAddress;
      try {
        endpoint = serviceAddress(await this.routing.resolve(api.service.namespace, api.service.name, api.service.port));
      } catch (err) {
        return (err as Error).message;
      }
      const url = `https://${joinHostPort(endpoint.host, endpoint.port)}${path}`;
      try {
        const res = await getFromExtensionServer(tlsOptions(api, endpoint, this.proxyClient, false), path, { username: 'system:kube-aggregator', groups: ['system:masters'] }, PROBE_TIMEOUT_MS);
        if (res.status < 200 || res.status >= 300) return `failing or missing response from ${url}: bad status from ${url}: ${res.status}`;
        return undefined;
      } catch (err) {
        // http.Client.Do's url.Error around the transport's error, wrapped by the check's own words.
        return `failing or missing response from ${url}: Get "${url}": ${goTransportErrorText(err as TransportError, endpoint)}`;
      }
    };
    const results = await Promise.all(Array.from({ length: PROBE_ATTEMPTS }, attempt));
    return results.includes(undefined) ? undefined : results[results.length - 1];
  }

  /** kube's SetAPIServiceCondition (the transition time moves only with the status), written only when it changes. */
  private async writeCondition(current: KubeObject, condition: Condition): Promise<void> {
    const status = (current.status ?? {}) as { conditions?: Condition[] };
    const conditions = [...(status.conditions ?? [])];
    const i = conditions.findIndex((c) => c.type === condition.type);
    const existing = conditions[i];
    if (existing && existing.status === condition.status && existing.reason === condition.reason && existing.message === condition.message) return;
    const next: Condition = { ...condition, lastTransitionTime: existing && existing.status === condition.status ? existing.lastTransitionTime ?? nowTimestamp() : nowTimestamp() };
    if (existing) conditions[i] = { type: next.type, status: next.status, lastTransitionTime: next.lastTransitionTime!, reason: next.reason, message: next.message };
    else conditions.push({ type: next.type, status: next.status, lastTransitionTime: next.lastTransitionTime!, reason: next.reason, message: next.message });
    const updated = cloneObject(current);
    updated.status = { ...status, conditions };
    try {
      await this.client.update({ ...APISERVICES, name: current.metadata!.name!, subresource: 'status' }, updated);
      this.metrics.statusWritten(current.metadata!.name!, existing?.status === 'True', next.status === 'True', next.reason);
    } catch (err) {
      // A newer version is on its way through the informer (it is synced again then), or the APIService is gone.
      if (!isApiError(err, 'Conflict') && !isApiError(err, 'NotFound')) throw err;
    }
  }
}
