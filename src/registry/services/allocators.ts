import { isApiError } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/object.js';
import type { ResourceStore } from '../resource-store.js';
import type { Store } from '../../storage/store.js';
import { isStoreError } from '../../storage/store.js';
import { contains, formatIpv4, parseCidr, parseIpv4, staticBandSize, usableOffsets, type Ipv4Range } from './cidr.js';

/**
 * Allocators of Service cluster IPs and node ports, with kube-apiserver's
 * bookkeeping: every cluster IP is an `networking.k8s.io/v1` IPAddress object
 * named by the IP and pointing at its Service (MultiCIDRServiceAllocator,
 * GA in 1.33), so creating it is the atomic reservation; node ports live in
 * the RangeAllocation bitmap at `/registry/ranges/servicenodeports`, updated
 * by compare-and-swap. Random choice prefers the range above the static band.
 */

export class AllocationError extends Error {
  constructor(
    message: string,
    /** True when the range is exhausted (kube: "range is full"). */
    readonly full = false,
  ) {
    super(message);
  }
}

export interface ServiceRef {
  namespace: string;
  name: string;
}

const MANAGED_BY = 'ipallocator.k8s.io';

function randomInt(n: number): number {
  return Math.floor(Math.random() * n);
}

/** Offsets to try: a random walk over the dynamic band, then the static band. */
function* candidates(first: number, last: number, band: number): Generator<number> {
  const split = Math.min(last + 1, first + band);
  const ranges: Array<[number, number]> = [
    [split, last],
    [first, split - 1],
  ];
  for (const [lo, hi] of ranges) {
    const n = hi - lo + 1;
    if (n <= 0) continue;
    const start = randomInt(n);
    for (let i = 0; i < n; i++) yield lo + ((start + i) % n);
  }
}

export class ClusterIpAllocator {
  readonly range: Ipv4Range;

  constructor(
    cidr: string,
    private readonly ipAddresses: ResourceStore,
  ) {
    this.range = parseCidr(cidr);
  }

  private ipAddressObject(ip: string, owner: ServiceRef): KubeObject {
    return {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IPAddress',
      metadata: {
        name: ip,
        labels: { 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': MANAGED_BY },
      },
      spec: { parentRef: { group: '', resource: 'services', namespace: owner.namespace, name: owner.name } },
    };
  }

  /** Reserves `ip` (a user's choice). Fails when outside the range or taken. */
  async allocateSpecific(ip: string, owner: ServiceRef, dryRun = false): Promise<void> {
    const n = parseIpv4(ip);
    if (n === undefined || !contains(this.range, n)) {
      throw new AllocationError(`the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.range.cidr}`);
    }
    const { first, last } = usableOffsets(this.range);
    const offset = n - this.range.base;
    if (offset < first || offset > last) {
      throw new AllocationError(`the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.range.cidr}`);
    }
    if (dryRun) {
      if (await this.isAllocated(ip)) throw new AllocationError('provided IP is already allocated');
      return;
    }
    try {
      await this.ipAddresses.create(this.ipAddressObject(ip, owner), undefined);
    } catch (err) {
      if (isApiError(err, 'AlreadyExists')) throw new AllocationError('provided IP is already allocated');
      throw err;
    }
  }

  /** Picks and reserves a free IP. */
  async allocateNext(owner: ServiceRef, dryRun = false): Promise<string> {
    const { first, last } = usableOffsets(this.range);
    for (const offset of candidates(first, last, staticBandSize(this.range.size))) {
      const ip = formatIpv4(this.range.base + offset);
      if (await this.isAllocated(ip)) continue;
      if (dryRun) return ip;
      try {
        await this.ipAddresses.create(this.ipAddressObject(ip, owner), undefined);
        return ip;
      } catch (err) {
        if (!isApiError(err, 'AlreadyExists')) throw err;
      }
    }
    throw new AllocationError('range is full', true);
  }

  private async isAllocated(ip: string): Promise<boolean> {
    try {
      await this.ipAddresses.get(undefined, ip);
      return true;
    } catch (err) {
      if (isApiError(err, 'NotFound')) return false;
      throw err;
    }
  }

  /** Frees `ip` if it belongs to `owner` (never someone else's reservation). */
  async release(ip: string, owner: ServiceRef): Promise<void> {
    try {
      const obj = await this.ipAddresses.get(undefined, ip);
      const parent = (obj.spec as { parentRef?: { namespace?: string; name?: string } } | undefined)?.parentRef;
      if (parent && (parent.namespace !== owner.namespace || parent.name !== owner.name)) return;
      await this.ipAddresses.delete(undefined, ip);
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
    }
  }
}

interface RangeAllocation {
  kind: 'RangeAllocation';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  range: string;
  /** base64 bitmap, bit i = port first+i in use. */
  data: string;
}

export class NodePortAllocator {
  readonly first: number;
  readonly last: number;
  private readonly key: string;

  constructor(
    range: string,
    private readonly store: Store,
    registryRoot = '/registry',
  ) {
    const m = /^(\d+)-(\d+)$/.exec(range);
    const lo = Number(m?.[1]);
    const hi = Number(m?.[2]);
    if (!m || lo < 1 || hi > 65535 || lo > hi) throw new Error(`invalid port range: ${range}`);
    this.first = lo;
    this.last = hi;
    this.key = `${registryRoot}/ranges/servicenodeports`;
  }

  get rangeText(): string {
    return `${this.first}-${this.last}`;
  }

  private decode(value: string | undefined): Buffer {
    const size = Math.ceil((this.last - this.first + 1) / 8);
    const bits = Buffer.alloc(size);
    if (!value) return bits;
    const parsed = JSON.parse(value) as Partial<RangeAllocation>;
    if (parsed.range === this.rangeText && typeof parsed.data === 'string') Buffer.from(parsed.data, 'base64').copy(bits);
    return bits;
  }

  private encode(bits: Buffer): string {
    const obj: RangeAllocation = { kind: 'RangeAllocation', apiVersion: 'v1', metadata: {}, range: this.rangeText, data: bits.toString('base64') };
    return JSON.stringify(obj);
  }

  /** Read-modify-write of the bitmap with CAS; `change` returns false to leave it. */
  private async mutate<T>(change: (bits: Buffer) => T): Promise<T> {
    for (;;) {
      const kv = await this.store.get(this.key);
      const bits = this.decode(kv?.value);
      const result = change(bits);
      try {
        if (kv) await this.store.update(this.key, this.encode(bits), kv.modRevision);
        else await this.store.create(this.key, this.encode(bits));
        return result;
      } catch (err) {
        if (isStoreError(err, 'Conflict') || isStoreError(err, 'KeyExists') || isStoreError(err, 'NotFound')) continue;
        throw err;
      }
    }
  }

  private static bit(bits: Buffer, i: number): boolean {
    return (bits[i >> 3]! & (1 << (i & 7))) !== 0;
  }

  private static set(bits: Buffer, i: number, on: boolean): void {
    if (on) bits[i >> 3]! |= 1 << (i & 7);
    else bits[i >> 3]! &= ~(1 << (i & 7));
  }

  async allocateSpecific(port: number, dryRun = false): Promise<void> {
    if (port < this.first || port > this.last) {
      throw new AllocationError(`provided port is not in the valid range. The range of valid ports is ${this.rangeText}`);
    }
    const i = port - this.first;
    if (dryRun) {
      const kv = await this.store.get(this.key);
      if (NodePortAllocator.bit(this.decode(kv?.value), i)) throw new AllocationError('provided port is already allocated');
      return;
    }
    await this.mutate((bits) => {
      if (NodePortAllocator.bit(bits, i)) throw new AllocationError('provided port is already allocated');
      NodePortAllocator.set(bits, i, true);
    });
  }

  async allocateNext(dryRun = false): Promise<number> {
    const count = this.last - this.first + 1;
    const pick = (bits: Buffer): number => {
      for (const i of candidates(0, count - 1, staticBandSize(count))) if (!NodePortAllocator.bit(bits, i)) return i;
      throw new AllocationError('range is full', true);
    };
    if (dryRun) {
      const kv = await this.store.get(this.key);
      return this.first + pick(this.decode(kv?.value));
    }
    return this.first + (await this.mutate((bits) => {
      const i = pick(bits);
      NodePortAllocator.set(bits, i, true);
      return i;
    }));
  }

  async release(port: number): Promise<void> {
    if (port < this.first || port > this.last) return;
    await this.mutate((bits) => NodePortAllocator.set(bits, port - this.first, false));
  }
}
