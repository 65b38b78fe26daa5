/**
 * IPv4 CIDR arithmetic for the service IP range (`--service-cluster-ip-range`).
 */

export interface Ipv4Range {
  cidr: string;
  /** Network address as an unsigned 32-bit number. */
  base: number;
  /** Number of addresses in the range (including network and broadcast). */
  size: number;
}

export function parseIpv4(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255) || m.slice(1).some((p) => p.length > 1 && p.startsWith('0'))) return undefined;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

export function formatIpv4(n: number): string {
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function parseCidr(cidr: string): Ipv4Range {
  const [ip, bitsText] = cidr.split('/');
  const addr = ip === undefined ? undefined : parseIpv4(ip);
  const bits = Number(bitsText);
  if (addr === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32 || String(bits) !== bitsText) {
    throw new Error(`invalid CIDR address: ${cidr}`);
  }
  const size = 2 ** (32 - bits);
  const base = bits === 0 ? 0 : (addr & ((0xffffffff << (32 - bits)) >>> 0)) >>> 0;
  return { cidr: `${formatIpv4(base)}/${bits}`, base, size };
}

export function contains(range: Ipv4Range, ip: number): boolean {
  return ip >= range.base && ip < range.base + range.size;
}

/**
 * The usable offsets of a range: kube's allocator leaves out the network
 * address and, in ranges of more than two addresses, the broadcast address.
 */
export function usableOffsets(range: Ipv4Range): { first: number; last: number } {
  if (range.size <= 2) return { first: 0, last: range.size - 1 };
  return { first: 1, last: range.size - 2 };
}

/**
 * kube's allocators keep the lower band of a range for static (user-chosen)
 * values and allocate dynamically from above it first: min(max(16, size/16), 256).
 */
export function staticBandSize(size: number): number {
  return Math.min(Math.max(16, Math.floor(size / 16)), 256);
}
