import { isApiError } from '../machinery/errors.js';
import { cloneObject, jsonEqual, nowTimestamp, type KubeObject } from '../machinery/object.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { formatIpv4, type Ipv4Range } from '../registry/services/cidr.js';
import type { Controller } from './controller.js';
import { applyDefaults } from '../registry/defaults/index.js';

/**
 * kube-apiserver's bootstrap controller: the `default` ServiceCIDR for
 * --service-cluster-ip-range, and the `kubernetes` Service in `default`
 * (first IP of the range, port 443 → the secure port) with its Endpoints and
 * EndpointSlice pointing at this server. Re-checked every minute.
 */

export interface KubernetesServiceStores {
  services: ResourceStore;
  endpoints: ResourceStore;
  endpointSlices: ResourceStore;
  serviceCidrs: ResourceStore;
}

export interface KubernetesServiceConfig {
  range: Ipv4Range;
  /** The address clients reach this server at. */
  advertiseAddress: string;
  securePort: number;
}

const RECHECK_MS = 60_000;
const NAMESPACE = 'default';
const NAME = 'kubernetes';

export class KubernetesService implements Controller {
  readonly name = 'bootstrap-controller';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stores: KubernetesServiceStores,
    private readonly config: KubernetesServiceConfig,
  ) {}

  async start(): Promise<void> {
    await this.reconcile();
    this.timer = setInterval(() => void this.reconcile().catch(() => undefined), RECHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async reconcile(): Promise<void> {
    await this.ensure(this.stores.serviceCidrs, undefined, this.serviceCidr());
    await this.ensure(this.stores.services, NAMESPACE, this.service(), (current, desired) => {
      // Only the ports are ours to correct; the allocated IP and defaults stay.
      const next = cloneObject(current);
      (next.spec as Record<string, unknown>).ports = (desired.spec as Record<string, unknown>).ports;
      return next;
    });
    await this.ensure(this.stores.endpoints, NAMESPACE, this.endpoints());
    await this.ensure(this.stores.endpointSlices, NAMESPACE, this.endpointSlice());
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
  private async ensure(store: ResourceStore, namespace: string | undefined, desired: KubeObject, merge?: (current: KubeObject, desired: KubeObject) => KubeObject): Promise<void> {
    const name = desired.metadata!.name!;
    let current: KubeObject | undefined;
    try {
      current = await store.get(namespace, name);
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
    }
    if (!current) {
      try {
        // As if it came through the API: the type's defaults first.
        const defaulted = cloneObject(desired);
        const [group, version] = defaulted.apiVersion!.includes('/') ? defaulted.apiVersion!.split('/') : ['', defaulted.apiVersion!];
        applyDefaults(group!, version!, defaulted.kind!, defaulted);
        const created = await store.create(defaulted, namespace);
        if (desired.kind === 'ServiceCIDR') await this.markReady(store, created);
      } catch (err) {
        if (!isApiError(err, 'AlreadyExists')) throw err;
      }
      return;
    }
    const next = merge ? merge(current, desired) : { ...cloneObject(current), ...withoutMeta(desired) };
    if (jsonEqual(withoutMeta(next), withoutMeta(current))) return;
    await store.update(namespace, { name }, () => next);
  }

  private async markReady(store: ResourceStore, cidr: KubeObject): Promise<void> {
    await store.update(undefined, { name: cidr.metadata!.name!, subresource: 'status' }, (cur) => ({
      ...cloneObject(cur!),
      status: { conditions: [{ type: 'Ready', status: 'True', reason: '', message: 'Kubernetes Service CIDR is ready', lastTransitionTime: nowTimestamp() }] },
    }));
  }
}

function withoutMeta(obj: KubeObject): KubeObject {
  const { metadata: _m, status: _s, ...rest } = obj;
  return rest;
}
