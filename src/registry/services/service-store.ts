import { internalError, invalid, type FieldError } from '../../machinery/errors.js';
import { cloneObject, type KubeObject } from '../../machinery/object.js';
import { generateName, type UpdateFunc } from '../resource-store.js';
import type { StoreHooks } from '../descriptor.js';
import { AllocationError, type ClusterIpAllocator, type NodePortAllocator, type ServiceRef } from './allocators.js';
import { familiesToAllocate, initServiceIPFamilies, normalizeClusterIPs, setAllocatedClusterIPs, type IPFamily } from '../defaults/index.js';

/** The families this cluster serves: single-stack IPv4 (the allocator's range). */
const CLUSTER_FAMILIES: readonly IPFamily[] = ['IPv4'];

/**
 * Services: kube-apiserver's service REST wraps the generic store (here: the
 * Service descriptor's store hooks) to allocate
 * a cluster IP (and node ports for NodePort/LoadBalancer) before the object
 * is stored, keep them across updates that omit them, hand out or take back
 * what a type change needs, and free everything when the Service goes — with
 * no leak when a write fails.
 */

export interface ServiceAllocators {
  clusterIps: ClusterIpAllocator;
  nodePorts: NodePortAllocator;
}

interface ServicePort {
  port?: number;
  nodePort?: number;
  [k: string]: unknown;
}

interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  ports?: ServicePort[];
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  [k: string]: unknown;
}

function specOf(obj: KubeObject | undefined): ServiceSpec {
  return ((obj?.spec as ServiceSpec | undefined) ?? {}) as ServiceSpec;
}

function typeOf(spec: ServiceSpec): string {
  return spec.type ?? 'ClusterIP';
}

function wantsNodePorts(spec: ServiceSpec): boolean {
  return typeOf(spec) === 'NodePort' || typeOf(spec) === 'LoadBalancer';
}

function wantsHealthCheckPort(spec: ServiceSpec): boolean {
  return typeOf(spec) === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

/** What a write reserved, to give back if the write does not happen. */
interface Reserved {
  ips: string[];
  ports: number[];
}

function nodePortsOf(spec: ServiceSpec): number[] {
  const ports = (spec.ports ?? []).map((p) => p.nodePort).filter((p): p is number => typeof p === 'number' && p > 0);
  if (typeof spec.healthCheckNodePort === 'number' && spec.healthCheckNodePort > 0) ports.push(spec.healthCheckNodePort);
  return ports;
}

function clusterIpOf(spec: ServiceSpec): string | undefined {
  const ip = spec.clusterIP || spec.clusterIPs?.[0];
  return ip && ip !== 'None' ? ip : undefined;
}

/**
 * kube's dropTypeDependentFields: fields that only mean something for some
 * Service types are cleared when the type changes away from them, if the
 * request left them as they were (so `kubectl patch -p {"spec":{"type":"ClusterIP"}}` works).
 */
function dropTypeDependentFields(spec: ServiceSpec, prev: ServiceSpec): void {
  const external = wantsNodePorts(spec);
  const unchanged = (f: string): boolean => JSON.stringify(spec[f]) === JSON.stringify(prev[f]);
  if (!external && spec.externalTrafficPolicy !== undefined && unchanged('externalTrafficPolicy')) delete spec.externalTrafficPolicy;
  if (!wantsHealthCheckPort(spec) && spec.healthCheckNodePort !== undefined && unchanged('healthCheckNodePort')) delete spec.healthCheckNodePort;
  if (typeOf(spec) !== 'LoadBalancer') {
    for (const f of ['allocateLoadBalancerNodePorts', 'loadBalancerClass']) if (spec[f] !== undefined && unchanged(f)) delete spec[f];
  }
}

export class ServiceAllocation implements StoreHooks {
  private allocators: ServiceAllocators | undefined;

  /** Wired after construction: the IP allocator writes IPAddress objects through another store. */
  setAllocators(allocators: ServiceAllocators): void {
    this.allocators = allocators;
  }

  private owner(namespace: string | undefined, name: string | undefined): ServiceRef {
    return { namespace: namespace ?? '', name: name ?? '' };
  }

  /**
   * Fills what `next` needs and `prev` did not have (a cluster IP, node
   * ports), recording each reservation in `reserved`.
   */
  private async allocate(next: KubeObject, prev: KubeObject | undefined, owner: ServiceRef, reserved: Reserved, dryRun: boolean): Promise<void> {
    const alloc = this.allocators;
    if (!alloc) return;
    const spec = specOf(next);
    const prevSpec = specOf(prev);
    const errs: FieldError[] = [];
    const type = typeOf(spec);

    if (type !== 'ExternalName') {
      const had = clusterIpOf(prevSpec);
      // An update that leaves the allocated values out keeps them (kube's patchAllocatedValues).
      if (had && !spec.clusterIP && !spec.clusterIPs?.length) {
        spec.clusterIP = prevSpec.clusterIP;
        spec.clusterIPs = prevSpec.clusterIPs ? [...prevSpec.clusterIPs] : [had];
        if (!spec.ipFamilies && prevSpec.ipFamilies) spec.ipFamilies = [...prevSpec.ipFamilies];
      }
      normalizeClusterIPs(next);
      const familyErrs = initServiceIPFamilies(next, prev, CLUSTER_FAMILIES);
      if (familyErrs.length > 0) throw invalid({ group: '', kind: 'Service' }, next.metadata?.name ?? '', familyErrs);
      const requested = spec.clusterIP ?? '';
      const allocated: Partial<Record<IPFamily, string>> = {};
      if (requested && requested !== 'None' && requested !== had) {
        try {
          await alloc.clusterIps.allocateSpecific(requested, owner, dryRun);
          if (!dryRun) reserved.ips.push(requested);
        } catch (err) {
          if (!(err instanceof AllocationError)) throw err;
          errs.push({ type: 'FieldValueInvalid', field: 'spec.clusterIPs', value: [requested], detail: `failed to allocate IP ${requested}: ${err.message}` });
        }
      }
      for (const family of familiesToAllocate(next)) {
        try {
          const ip = await alloc.clusterIps.allocateNext(owner, dryRun);
          if (!dryRun) reserved.ips.push(ip);
          allocated[family] = ip;
        } catch (err) {
          if (!(err instanceof AllocationError)) throw err;
          throw internalError(`failed to allocate a serviceIP: ${err.message}`);
        }
      }
      setAllocatedClusterIPs(next, allocated);
    }

    if (wantsNodePorts(spec)) {
      const prevPorts = new Set(wantsNodePorts(prevSpec) ? nodePortsOf(prevSpec) : []);
      for (const [i, p] of (spec.ports ?? []).entries()) {
        try {
          if (typeof p.nodePort === 'number' && p.nodePort > 0) {
            if (prevPorts.has(p.nodePort)) continue;
            await alloc.nodePorts.allocateSpecific(p.nodePort, dryRun);
            if (!dryRun) reserved.ports.push(p.nodePort);
          } else {
            // A port kept from before keeps its node port (matched by port number).
            const kept = (prevSpec.ports ?? []).find((q) => q.port === p.port && typeof q.nodePort === 'number');
            if (kept && wantsNodePorts(prevSpec)) {
              p.nodePort = kept.nodePort;
              continue;
            }
            p.nodePort = await alloc.nodePorts.allocateNext(dryRun);
            if (!dryRun) reserved.ports.push(p.nodePort);
          }
        } catch (err) {
          if (!(err instanceof AllocationError)) throw err;
          if (err.full) throw internalError(`failed to allocate a nodePort: ${err.message}`);
          errs.push({ type: 'FieldValueInvalid', field: `spec.ports[${i}].nodePort`, value: p.nodePort, detail: err.message });
        }
      }
      if (wantsHealthCheckPort(spec) && !(typeof spec.healthCheckNodePort === 'number' && spec.healthCheckNodePort > 0)) {
        spec.healthCheckNodePort = prevSpec.healthCheckNodePort ?? (await alloc.nodePorts.allocateNext(dryRun));
        if (!dryRun && !prevSpec.healthCheckNodePort) reserved.ports.push(spec.healthCheckNodePort);
      }
    } else {
      for (const p of spec.ports ?? []) delete p.nodePort;
    }
    dropTypeDependentFields(spec, prevSpec);
    next.spec = spec;
    if (errs.length > 0) throw invalid({ group: '', kind: 'Service' }, next.metadata?.name ?? '', errs);
  }

  private async release(reserved: Reserved, owner: ServiceRef): Promise<void> {
    const alloc = this.allocators;
    if (!alloc) return;
    for (const ip of reserved.ips.splice(0)) await alloc.clusterIps.release(ip, owner).catch(() => undefined);
    for (const port of reserved.ports.splice(0)) await alloc.nodePorts.release(port).catch(() => undefined);
  }

  /** Frees what `prev` held and `next` does not (all of it when next is gone). */
  private async releaseDropped(prev: KubeObject, next: KubeObject | undefined, owner: ServiceRef): Promise<void> {
    const before = specOf(prev);
    const after = specOf(next);
    const ips: string[] = [];
    const beforeIp = typeOf(before) !== 'ExternalName' ? clusterIpOf(before) : undefined;
    const afterIp = next && typeOf(after) !== 'ExternalName' ? clusterIpOf(after) : undefined;
    if (beforeIp && beforeIp !== afterIp) ips.push(beforeIp);
    const keep = new Set(next && wantsNodePorts(after) ? nodePortsOf(after) : []);
    const ports = (wantsNodePorts(before) ? nodePortsOf(before) : []).filter((p) => !keep.has(p));
    await this.release({ ips, ports }, owner);
  }

  readonly create: NonNullable<StoreHooks['create']> = async (_store, input, namespace, opts, next) => {
    const obj = cloneObject(input);
    // The name is settled first so the IPAddress objects can point at the Service.
    const meta = obj.metadata ?? (obj.metadata = {});
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
    const owner = this.owner(namespace, meta.name);
    const reserved: Reserved = { ips: [], ports: [] };
    try {
      await this.allocate(obj, undefined, owner, reserved, !!opts.dryRun);
      return await next(obj);
    } catch (err) {
      await this.release(reserved, owner);
      throw err;
    }
  };

  readonly update: NonNullable<StoreHooks['update']> = async (_store, namespace, opts, tryUpdate, next) => {
    const owner = this.owner(namespace, opts.name);
    const reserved: Reserved = { ips: [], ports: [] };
    let before: KubeObject | undefined;
    const wrapped: UpdateFunc = async (current) => {
      // A retry starts over: give back what the previous attempt took.
      await this.release(reserved, owner);
      before = current;
      const desired = cloneObject(await tryUpdate(current));
      if (!current || opts.subresource === 'status' || opts.subresource === 'internal') return desired;
      await this.allocate(desired, current, owner, reserved, !!opts.dryRun);
      return desired;
    };
    try {
      const result = await next(wrapped);
      if (before && !opts.dryRun && !result.created) await this.releaseDropped(before, result.object, owner);
      return result;
    } catch (err) {
      await this.release(reserved, owner);
      throw err;
    }
  };

  readonly delete: NonNullable<StoreHooks['delete']> = async (_store, namespace, name, opts, next) => {
    const result = await next();
    if (result.deleted && !opts.dryRun) await this.releaseDropped(result.object, undefined, this.owner(namespace, name));
    return result;
  };
}
