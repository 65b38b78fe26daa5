import type { ApiClient, GroupVersionResource } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { cloneObject, jsonEqual, nowTimestamp, type KubeObject } from '../machinery/object.js';
import { WorkQueue, type ResourceFollower } from '../registry/informer.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { formatIpv4, type Ipv4Range } from '../registry/services/cidr.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';
import { createIfMissing, readModifyWrite } from './writes.js';

/**
 * kube-apiserver's bootstrap controller: the `default` ServiceCIDR for
 * --service-cluster-ip-range, and the `kubernetes` Service in `default`
 * (first IP of the range, port 443 → the secure port) with its Endpoints and
 * EndpointSlice pointing at this server.
 *
 * It writes through the API as kube-apiserver's loopback client (so the
 * objects are defaulted, admitted and show the client's manager), and the
 * ServiceCIDR's Ready condition as kube's kubernetes-service-cidr-controller
 * applies it.
 *
 * One queue key, reconciled every minute (kube's bootstrap controller loops
 * on a timer too), a second after a failure, and at once when informers see
 * any of these objects change (a deleted `kubernetes` Service comes back
 * without waiting for the minute).
 */

export interface KubernetesServiceConfig {
  range: Ipv4Range;
  /** The address clients reach this server at. */
  advertiseAddress: string;
  securePort: number;
  /** Whether the ServiceCIDR and EndpointSlice APIs are served (--runtime-config may turn them off). */
  serviceCidrs: boolean;
  endpointSlices: boolean;
}

const SERVICES: GroupVersionResource = { group: '', version: 'v1', resource: 'services' };
const ENDPOINTS: GroupVersionResource = { group: '', version: 'v1', resource: 'endpoints' };
const ENDPOINT_SLICES: GroupVersionResource = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };
const SERVICE_CIDRS: GroupVersionResource = { group: 'networking.k8s.io', version: 'v1', resource: 'servicecidrs' };
/** kube's default ServiceCIDR controller applies the Ready condition under this manager. */
const SERVICE_CIDR_MANAGER = 'kubernetes-service-cidr-controller';

const RECHECK_MS = 60_000;
const RETRY_MS = 1000;
const NAMESPACE = 'default';
const NAME = 'kubernetes';

export class KubernetesService implements Controller {
  readonly name = 'bootstrap-controller';
  private readonly queue: WorkQueue;
  private readonly followers: ResourceFollower[] = [];

  constructor(
    private readonly client: ApiClient,
    private readonly config: KubernetesServiceConfig,
    /** The stores of the objects kept (Services, Endpoints, EndpointSlices, ServiceCIDRs), followed to notice changes at once. */
    watched: ResourceStore[] = [],
    shared: ControllerShared = {},
  ) {
    this.queue = new WorkQueue(() => this.sync(), { name: 'kubernetes_service', backoff: { baseMs: RETRY_MS, maxMs: RETRY_MS }, ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    const follow = followerFactory(shared);
    for (const store of watched) {
      this.followers.push(
        follow(store, (_type, obj) => {
          if (obj.metadata?.name === NAME && (obj.metadata.namespace ?? NAMESPACE) === NAMESPACE) this.queue.add(NAME);
        }),
      );
    }
  }

  /**
   * Reconciles in the background, as kube's bootstrap controller does after
   * its post-start hook returned: readiness does not wait for these writes.
   */
  async start(): Promise<void> {
    await Promise.all(this.followers.map((f) => f.start()));
    this.queue.add(NAME);
  }

  stop(): void {
    for (const f of this.followers) f.stop();
    this.queue.stop();
  }

  private async sync(): Promise<void> {
    await this.reconcile();
    this.queue.addAfter(NAME, RECHECK_MS);
  }

  async reconcile(): Promise<void> {
    if (this.config.serviceCidrs) await this.ensureServiceCidr();
    await this.ensure(SERVICES, this.service(), (current, desired) => {
      // Only the ports are ours to correct; the allocated IP and defaults stay.
      const next = cloneObject(current);
      (next.spec as Record<string, unknown>).ports = (desired.spec as Record<string, unknown>).ports;
      return next;
    });
    await this.ensure(ENDPOINTS, this.endpoints());
    if (this.config.endpointSlices) await this.ensure(ENDPOINT_SLICES, this.endpointSlice());
  }

  /** As kube's default ServiceCIDR controller: created when missing (never changed), then marked Ready unless a Ready condition is there. */
  private async ensureServiceCidr(): Promise<void> {
    const desired = this.serviceCidr();
    const ref = { ...SERVICE_CIDRS, name: NAME };
    let cidr: KubeObject | undefined;
    try {
      cidr = await this.client.get(ref);
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
      await createIfMissing(this.client, SERVICE_CIDRS, desired);
      cidr = await this.client.get(ref);
    }
    if (cidr.metadata?.deletionTimestamp || !jsonEqual(cidr.spec, desired.spec)) return;
    const conditions = (cidr.status as { conditions?: Array<{ type: string }> } | undefined)?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Ready')) return;
    const status = { conditions: [{ type: 'Ready', status: 'True', reason: '', message: 'Kubernetes default Service CIDR is ready', lastTransitionTime: nowTimestamp() }] };
    await this.client.patch({ ...ref, subresource: 'status' }, 'apply', { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: NAME }, status }, { fieldManager: SERVICE_CIDR_MANAGER, force: true });
  }

  private serviceCidr(): KubeObject {
    return {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'ServiceCIDR',
      metadata: { name: NAME },
      spec: { cidrs: [this.config.range.cidr] },
    };
  }

  private service(): KubeObject {
    return {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: NAME, namespace: NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: {
        type: 'ClusterIP',
        clusterIP: formatIpv4(this.config.range.base + 1),
        sessionAffinity: 'None',
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: this.config.securePort }],
      },
    };
  }

  private endpoints(): KubeObject {
    return {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: NAME, namespace: NAMESPACE, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: [{ addresses: [{ ip: this.config.advertiseAddress }], ports: [{ name: 'https', port: this.config.securePort, protocol: 'TCP' }] }],
    };
  }

  private endpointSlice(): KubeObject {
    return {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: NAME, namespace: NAMESPACE, labels: { 'kubernetes.io/service-name': NAME } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [this.config.advertiseAddress], conditions: { ready: true } }],
      ports: [{ name: 'https', port: this.config.securePort, protocol: 'TCP' }],
    };
  }

  /** Creates `desired` if missing; otherwise brings the fields we own back to it. */
  private async ensure(resource: GroupVersionResource, desired: KubeObject, merge?: (current: KubeObject, desired: KubeObject) => KubeObject): Promise<void> {
    await readModifyWrite(this.client, { ...resource, namespace: NAMESPACE, name: desired.metadata!.name! }, (current) => {
      if (!current) return desired;
      const next = merge ? merge(current, desired) : { ...cloneObject(current), ...withoutMeta(desired) };
      return jsonEqual(withoutMeta(next), withoutMeta(current)) ? undefined : next;
    });
  }
}

function withoutMeta(obj: KubeObject): KubeObject {
  const { metadata: _m, status: _s, ...rest } = obj;
  return rest;
}
