import { joinHostPort } from '../machinery/host-port.js';
import { serviceUnavailable } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/object.js';
import { parseLabelSelector } from '../machinery/selectors.js';
import type { ObjectLookup } from './object-lookup.js';
import type { ResourceStore } from './resource-store.js';

/**
 * Where a webhook's `service` reference sends its calls (kube-apiserver's
 * buildServiceResolver): by default the Service's cluster IP and port
 * (NewClusterIPServiceResolver); with --enable-aggregator-routing one ready
 * endpoint of its EndpointSlices (NewEndpointServiceResolver), which is what
 * a server without kube-proxy in front of it needs. Errors carry kube's texts.
 */

export interface ServiceResolver {
  /** host:port to dial for the service's port. */
  resolve(namespace: string, name: string, port: number): Promise<string>;
}

interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  externalName?: string;
  ipFamilies?: string[];
  ports?: { name?: string; port?: number }[];
}

interface EndpointSlice {
  addressType?: string;
  ports?: { name?: string; port?: number }[] | null;
  endpoints?: { addresses?: string[]; conditions?: { ready?: boolean } }[] | null;
}

async function getService(services: ObjectLookup, namespace: string, name: string): Promise<{ name: string; spec: ServiceSpec }> {
  const svc = await services(namespace, name);
  // a lister's NotFound error (resource "service", singular)
  if (!svc) throw new Error(`service "${name}" not found`);
  return { name: svc.metadata?.name ?? name, spec: (svc.spec ?? {}) as ServiceSpec };
}

function findServicePort(svc: { name: string; spec: ServiceSpec }, port: number): { name?: string; port?: number } {
  const found = (svc.spec.ports ?? []).find((p) => p.port === port);
  if (!found) throw serviceUnavailable(`no service port ${port} found for service "${svc.name}"`);
  return found;
}

const ROUTABLE_TYPES = new Set(['ClusterIP', 'LoadBalancer', 'NodePort']);

export class ClusterIpServiceResolver implements ServiceResolver {
  constructor(private readonly services: ObjectLookup) {}

  async resolve(namespace: string, name: string, port: number): Promise<string> {
    const svc = await getService(this.services, namespace, name);
    const type = svc.spec.type ?? 'ClusterIP';
    if (type === 'ClusterIP' && svc.spec.clusterIP === 'None') throw new Error('cannot route to service with ClusterIP "None"');
    if (ROUTABLE_TYPES.has(type)) return joinHostPort(svc.spec.clusterIP ?? '', findServicePort(svc, port).port ?? port);
    if (type === 'ExternalName') return joinHostPort(svc.spec.externalName ?? '', port);
    throw new Error(`unsupported service type "${type}"`);
  }
}

export class EndpointServiceResolver implements ServiceResolver {
  constructor(private readonly services: ObjectLookup, private readonly endpointSlices: () => ResourceStore) {}

  async resolve(namespace: string, name: string, port: number): Promise<string> {
    const svc = await getService(this.services, namespace, name);
    const type = svc.spec.type ?? 'ClusterIP';
    if (!ROUTABLE_TYPES.has(type)) throw new Error(`unsupported service type "${type}"`);
    const svcPort = findServicePort(svc, port);
    const listed = await this.endpointSlices().list({
      namespace,
      labelSelector: parseLabelSelector(`kubernetes.io/service-name=${svc.name}`),
      readAt: { kind: 'any' },
    });
    let slices = listed.items.map((i) => i.object as KubeObject as EndpointSlice);
    if (slices.length === 0) throw serviceUnavailable(`no endpoints available for service "${svc.name}"`);
    const preferred = svc.spec.ipFamilies?.[0];
    if (slices.length > 1 && preferred) slices = shuffled(slices).sort((a, b) => Number(b.addressType === preferred) - Number(a.addressType === preferred));
    for (const slice of slices) {
      for (const p of slice.ports ?? []) {
        // a port without a name (nil in Go) never matches, not even an unnamed service port
        if (p.name === undefined || p.name === null || p.name !== (svcPort.name ?? '')) continue;
        if (p.port === undefined || p.port === null) continue;
        const endpoints = slice.endpoints ?? [];
        if (endpoints.length === 0) continue;
        const offset = Math.floor(Math.random() * endpoints.length);
        for (let i = 0; i < endpoints.length; i++) {
          const ep = endpoints[(i + offset) % endpoints.length]!;
          if (ep.conditions?.ready === undefined || ep.conditions.ready) return joinHostPort(ep.addresses?.[0] ?? '', p.port);
        }
      }
    }
    throw serviceUnavailable(`no endpoints available for service "${name}"`);
  }
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
