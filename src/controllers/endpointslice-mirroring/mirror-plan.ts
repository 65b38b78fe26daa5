import { isIP } from 'node:net';

import { cloneObject, jsonEqual, type KubeObject } from '../../machinery/object.js';

/**
 * What kube's endpointslice-mirroring-controller makes of an Endpoints
 * (pkg/controller/endpointslicemirroring: reconciler.go,
 * reconciler_helpers.go, utils.go, and pkg/api/v1/endpoints RepackSubsets):
 * the subsets in canonical form; per set of ports and address family one
 * EndpointSlice with at most `maxEndpointsPerSubset` endpoints (ready
 * addresses first); the Endpoints' labels and annotations copied; and which
 * existing mirrored slices to create, rewrite or delete to get there.
 * Pure: the controller does the writes.
 */

export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
export const MIRRORING_CONTROLLER = 'endpointslicemirroring-controller.k8s.io';
/** resourcelock.LeaderElectionRecordAnnotationKey: Endpoints used as a lock are not mirrored. */
export const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
/** --mirroring-max-endpoints-per-subset's default. */
export const DEFAULT_MAX_ENDPOINTS_PER_SUBSET = 1000;

/** Annotations of the Endpoints not copied to its slices. */
const NOT_MIRRORED_ANNOTATIONS = ['endpoints.kubernetes.io/last-change-trigger-time', 'kubectl.kubernetes.io/last-applied-configuration'];

interface EndpointAddress {
  ip?: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: Record<string, unknown>;
}

interface EndpointPort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

/** Whether the controller mirrors this Endpoints at all (shouldMirror). */
export function shouldMirror(endpoints: KubeObject): boolean {
  const m = endpoints.metadata ?? {};
  return m.labels?.[SKIP_MIRROR_LABEL] !== 'true' && !(m.annotations && LEADER_ANNOTATION in m.annotations);
}

/** Whether the slice is one this controller keeps (managedByController). */
export function mirroredSlice(slice: KubeObject): boolean {
  return slice.metadata?.labels?.[MANAGED_BY_LABEL] === MIRRORING_CONTROLLER;
}

/**
 * RepackSubsets: every address (by IP and targetRef uid) with the ports it
 * serves, ready only where every subset naming it for a port says so; ports
 * served by the same addresses in one subset; addresses sorted by IP and
 * uid. A subset without ports keeps its addresses under no port.
 */
export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const allAddrs = new Map<string, EndpointAddress>();
  const byPort = new Map<string, { port: EndpointPort | undefined; ready: Map<EndpointAddress, boolean> }>();
  const add = (addr: EndpointAddress, port: EndpointPort | undefined, ready: boolean): void => {
    const addrKey = `${addr.ip ?? ''}\u0000${uidOf(addr)}`;
    let shared = allAddrs.get(addrKey);
    if (!shared) {
      shared = cloneObject(addr);
      allAddrs.set(addrKey, shared);
    }
    const portKey = port ? JSON.stringify([port.name ?? '', port.port ?? 0, port.protocol ?? '', port.appProtocol ?? null]) : '';
    let entry = byPort.get(portKey);
    if (!entry) {
      entry = { port, ready: new Map() };
      byPort.set(portKey, entry);
    }
    // Not ready wins over ready.
    const was = entry.ready.get(shared);
    if (was === undefined || was) entry.ready.set(shared, ready);
  };
  for (const subset of subsets) {
    const ports = subset.ports && subset.ports.length > 0 ? subset.ports : [undefined];
    for (const port of ports) {
      for (const a of subset.addresses ?? []) add(a, port, true);
      for (const a of subset.notReadyAddresses ?? []) add(a, port, false);
    }
  }
  const groups = new Map<string, { ready: Map<EndpointAddress, boolean>; ports: EndpointPort[] }>();
  for (const { port, ready } of byPort.values()) {
    const key = JSON.stringify([...ready].map(([a, r]) => [a.ip ?? '', uidOf(a), r]).sort());
    let group = groups.get(key);
    if (!group) {
      group = { ready, ports: [] };
      groups.set(key, group);
    }
    if (port) group.ports.push(port);
  }
  const out: EndpointSubset[] = [];
  for (const { ready, ports } of groups.values()) {
    const addrs = [...ready].sort(([a], [b]) => compareAddresses(a, b));
    const subset: EndpointSubset = {};
    const readyAddrs = addrs.filter(([, r]) => r).map(([a]) => a);
    const notReady = addrs.filter(([, r]) => !r).map(([a]) => a);
    if (readyAddrs.length > 0) subset.addresses = readyAddrs;
    if (notReady.length > 0) subset.notReadyAddresses = notReady;
    if (ports.length > 0) subset.ports = [...ports].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    out.push(subset);
  }
  return out.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

function uidOf(addr: EndpointAddress): string {
  const uid = addr.targetRef?.uid;
  return typeof uid === 'string' ? uid : '';
}

/** LessEndpointAddress: by IP bytes, then targetRef uid (no targetRef first). */
function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  const ip = Buffer.compare(Buffer.from(a.ip ?? ''), Buffer.from(b.ip ?? ''));
  if (ip !== 0) return ip;
  return uidOf(a) < uidOf(b) ? -1 : uidOf(a) > uidOf(b) ? 1 : 0;
}

type AddressType = 'IPv4' | 'IPv6';

interface SlicePort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean };
  hostname?: string;
  targetRef?: Record<string, unknown>;
  nodeName?: string;
}

interface Desired {
  addressType: AddressType;
  ports: SlicePort[];
  endpoints: Map<string, SliceEndpoint>;
}

export interface MirrorPlan {
  create: KubeObject[];
  /** Whole slices to PUT (by name, without resourceVersion, as kube writes them). */
  update: KubeObject[];
  delete: KubeObject[];
  /** Addresses that are not IPs (event InvalidIPAddress). */
  invalidAddresses: number;
  /** Addresses not mirrored, the invalid ones included (event TooManyAddressesToMirror when more than those). */
  skippedAddresses: number;
}

/** reconcile: the writes that make `existing` (this Endpoints' mirrored slices) mirror `endpoints`. */
export function mirrorPlan(endpoints: KubeObject, existing: readonly KubeObject[], maxEndpointsPerSubset: number = DEFAULT_MAX_ENDPOINTS_PER_SUBSET): MirrorPlan {
  const desired = new Map<string, Desired>();
  let invalidAddresses = 0;
  let skippedAddresses = 0;
  for (const subset of repackSubsets((endpoints.subsets as EndpointSubset[] | undefined) ?? [])) {
    const ports = (subset.ports ?? []).map(slicePort);
    const keys = { IPv4: portMapKey(ports, 'IPv4'), IPv6: portMapKey(ports, 'IPv6') };
    for (const type of ['IPv4', 'IPv6'] as const) if (!desired.has(keys[type])) desired.set(keys[type], { addressType: type, ports, endpoints: new Map() });
    const total = (subset.addresses?.length ?? 0) + (subset.notReadyAddresses?.length ?? 0);
    let added = 0;
    for (const [addresses, ready] of [[subset.addresses ?? [], true], [subset.notReadyAddresses ?? [], false]] as const) {
      for (const address of addresses) {
        if (added >= maxEndpointsPerSubset) break;
        const family = isIP(address.ip ?? '');
        if (family === 0) {
          invalidAddresses++;
          continue;
        }
        const endpoint = sliceEndpoint(address, ready);
        desired.get(keys[family === 4 ? 'IPv4' : 'IPv6'])!.endpoints.set(endpointHash(endpoint), endpoint);
        added++;
      }
    }
    skippedAddresses += total - added;
  }

  const existingByKey = new Map<string, KubeObject[]>();
  for (const slice of [...existing].sort((a, b) => String(a.metadata?.name).localeCompare(String(b.metadata?.name)))) {
    const key = portMapKey(((slice.ports as Array<Partial<SlicePort>> | undefined) ?? []).map(slicePort), slice.addressType === 'IPv6' ? 'IPv6' : 'IPv4');
    existingByKey.set(key, [...(existingByKey.get(key) ?? []), slice]);
  }
  const plan: MirrorPlan = { create: [], update: [], delete: [], invalidAddresses, skippedAddresses };
  for (const [key, want] of desired) {
    const have = existingByKey.get(key) ?? [];
    if (want.endpoints.size === 0) {
      plan.delete.push(...have);
      continue;
    }
    if (have.length > 0) {
      plan.delete.push(...have.slice(1));
      if (!endpointsChanged(have[0]!, want.endpoints) && sameMetadata(endpoints, have[0]!)) continue;
    }
    const slice = newSlice(endpoints, want, maxEndpointsPerSubset, have[0]?.metadata?.name);
    (have.length > 0 ? plan.update : plan.create).push(slice);
  }
  for (const [key, have] of existingByKey) if (!desired.has(key)) plan.delete.push(...have);
  recycle(plan);
  return plan;
}

/** recycleSlices: a slice to create takes the name of one of its address family that was to be deleted. */
function recycle(plan: MirrorPlan): void {
  for (const slice of [...plan.create]) {
    const reuse = plan.delete.find((d) => d.addressType === slice.addressType);
    if (!reuse) continue;
    plan.delete.splice(plan.delete.indexOf(reuse), 1);
    plan.create.splice(plan.create.indexOf(slice), 1);
    const meta = slice.metadata!;
    delete meta.generateName;
    meta.name = reuse.metadata?.name;
    plan.update.push(slice);
  }
}

function slicePort(p: EndpointPort | Partial<SlicePort>): SlicePort {
  return { name: p.name ?? '', port: p.port ?? 0, protocol: p.protocol ?? 'TCP', ...(p.appProtocol !== undefined ? { appProtocol: p.appProtocol } : {}) };
}

/** newAddrTypePortMapKey: the address family and the set of ports. */
function portMapKey(ports: readonly SlicePort[], type: AddressType): string {
  return `${type}/${JSON.stringify(ports.map((p) => [p.name, p.port, p.protocol, p.appProtocol ?? null]).sort())}`;
}

function sliceEndpoint(address: EndpointAddress, ready: boolean): SliceEndpoint {
  const e: SliceEndpoint = { addresses: [address.ip!], conditions: { ready } };
  if (address.hostname) e.hostname = address.hostname;
  if (address.targetRef) e.targetRef = address.targetRef;
  if (address.nodeName !== undefined) e.nodeName = address.nodeName;
  return e;
}

/** hashEndpoint: what makes two endpoints the same one (addresses and hostname; the rest may change in place). */
function endpointHash(e: { addresses?: unknown; hostname?: unknown }): string {
  const addresses = Array.isArray(e.addresses) ? [...(e.addresses as string[])].sort() : [];
  return JSON.stringify([addresses, typeof e.hostname === 'string' ? e.hostname : '']);
}

/** totalChanges ≠ 0: an endpoint to add or remove, or one whose other fields differ (EndpointsEqualBeyondHash). */
function endpointsChanged(slice: KubeObject, desired: Map<string, SliceEndpoint>): boolean {
  const have = (slice.endpoints as Array<Record<string, unknown>> | undefined) ?? [];
  let matches = 0;
  for (const e of have) {
    const want = desired.get(endpointHash(e));
    if (!want) return true;
    matches++;
    if (!jsonEqual(beyondHash(want as unknown as Record<string, unknown>), beyondHash(e))) return true;
  }
  return matches !== desired.size;
}

function beyondHash(e: Record<string, unknown>): unknown[] {
  const c = (e.conditions ?? {}) as Record<string, unknown>;
  return [e.nodeName ?? null, e.zone ?? null, c.ready ?? null, c.serving ?? null, c.terminating ?? null, e.hints ?? null, e.targetRef ?? null];
}

/** The slice's labels (but the two the controller sets) and annotations are the Endpoints' (Semantic.DeepEqual: empty is absent). */
function sameMetadata(endpoints: KubeObject, slice: KubeObject): boolean {
  const labels = without(slice.metadata?.labels, [MANAGED_BY_LABEL, SERVICE_NAME_LABEL]);
  return jsonEqual(endpoints.metadata?.labels ?? {}, labels) && jsonEqual(mirroredAnnotations(endpoints), slice.metadata?.annotations ?? {});
}

function mirroredAnnotations(endpoints: KubeObject): Record<string, string> {
  return without(endpoints.metadata?.annotations, NOT_MIRRORED_ANNOTATIONS);
}

function without(map: Record<string, string> | undefined, keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = { ...(map ?? {}) };
  for (const k of keys) delete out[k];
  return out;
}

/** newEndpointSlice: owned by the Endpoints, its labels and annotations, at most `max` endpoints. */
function newSlice(endpoints: KubeObject, want: Desired, max: number, name: string | undefined): KubeObject {
  const m = endpoints.metadata ?? {};
  const epName = m.name ?? '';
  const meta: Record<string, unknown> = {
    namespace: m.namespace,
    labels: { ...(m.labels ?? {}), [SERVICE_NAME_LABEL]: epName, [MANAGED_BY_LABEL]: MIRRORING_CONTROLLER },
    annotations: mirroredAnnotations(endpoints),
    ownerReferences: [{ apiVersion: 'v1', kind: 'Endpoints', name: epName, uid: m.uid, controller: true, blockOwnerDeletion: true }],
  };
  // getEndpointSlicePrefix: `<name>-` when that is still a valid name prefix.
  if (name) meta.name = name;
  else meta.generateName = epName.length + 1 <= 253 ? `${epName}-` : epName;
  const endpointList = [...want.endpoints.values()].sort((a, b) => compareAddresses({ ip: a.addresses[0] }, { ip: b.addresses[0] })).slice(0, max);
  return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: meta, addressType: want.addressType, endpoints: endpointList, ports: want.ports };
}
