import type { Environment } from '@marcbachmann/cel-js';

import { libraryError } from './errors.js';
import {
  type Addr,
  addrEqual,
  addrString,
  is4In6,
  maskedPrefix,
  parseAddr,
  parsePrefix,
  type Prefix,
  prefixContains,
} from './netip.js';

/** A `net.IP` value. */
export class CelIP {
  readonly celTypeName = 'net.IP';
  constructor(readonly addr: Addr) {}
  equals(other: CelIP): boolean {
    return addrEqual(this.addr, other.addr);
  }
  toString(): string {
    return addrString(this.addr);
  }
}

/** A `net.CIDR` value. */
export class CelCIDR {
  readonly celTypeName = 'net.CIDR';
  constructor(readonly prefix: Prefix) {}
  equals(other: CelCIDR): boolean {
    return addrEqual(this.prefix.addr, other.prefix.addr) && this.prefix.bits === other.prefix.bits;
  }
  toString(): string {
    return `${addrString(this.prefix.addr)}/${this.prefix.bits}`;
  }
}

/** The constant `ip.isCanonical(...)` is a method of (the function `ip(...)` is separate). */
export class IPNamespace {}

/** kube's parseIPAddr: netip.ParseAddr without zones or IPv4-mapped IPv6 addresses. */
function parseIP(raw: string): Addr {
  let addr: Addr;
  try {
    addr = parseAddr(raw);
  } catch (e) {
    throw libraryError(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ${(e as Error).message}`);
  }
  if (addr.zone !== '') throw libraryError(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (is4In6(addr)) throw libraryError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return addr;
}

/** kube's parseCIDR (its caller adds the same prefix again, as kube's stringToCIDR does). */
function parseCIDR(raw: string): Prefix {
  let p: Prefix;
  try {
    p = parsePrefix(raw);
  } catch (e) {
    throw libraryError(`network address parse error during conversion from string: ${(e as Error).message}`);
  }
  if (is4In6(p.addr)) throw libraryError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return p;
}

function succeeds(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

function stringToCIDR(raw: string): CelCIDR {
  try {
    return new CelCIDR(parseCIDR(raw));
  } catch (e) {
    const summary = (e as { summary?: string }).summary ?? (e as Error).message;
    throw libraryError(`network address parse error during conversion from string: ${summary}`);
  }
}

function isLoopback(a: Addr): boolean {
  const b = a.bytes;
  return b.length === 4 ? b[0] === 127 : b.every((x, i) => x === (i === 15 ? 1 : 0));
}

function isUnspecified(a: Addr): boolean {
  return a.bytes.every((x) => x === 0);
}

function isMulticast(a: Addr): boolean {
  return a.bytes.length === 4 ? (a.bytes[0]! & 0xf0) === 0xe0 : a.bytes[0] === 0xff;
}

function isLinkLocalMulticast(a: Addr): boolean {
  const b = a.bytes;
  return b.length === 4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
}

function isLinkLocalUnicast(a: Addr): boolean {
  const b = a.bytes;
  return b.length === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
}

/** netip's IsGlobalUnicast: not unspecified, loopback, multicast, link-local, or the IPv4 broadcast address. */
function isGlobalUnicast(a: Addr): boolean {
  if (a.bytes.length === 4 && a.bytes.every((x) => x === 255)) return false;
  return !isUnspecified(a) && !isLoopback(a) && !isMulticast(a) && !isLinkLocalUnicast(a);
}

/** kube's library.IP (from 1.30). */
export function registerIP(env: Environment): void {
  env.registerType('net.IP', CelIP);
  env.registerType('kubernetes.IPNamespace', IPNamespace);
  env.registerConstant('ip', 'kubernetes.IPNamespace', new IPNamespace());
  env.registerFunction('ip(string): net.IP', (s: string) => new CelIP(parseIP(s)));
  env.registerFunction('isIP(string): bool', (s: string) => succeeds(() => parseIP(s)));
  env.registerFunction('kubernetes.IPNamespace.isCanonical(string): bool', (_: unknown, s: string) => {
    return addrString(parseIP(s)) === s;
  });
  env.registerFunction('net.IP.family(): int', (ip: CelIP) => (ip.addr.bytes.length === 4 ? 4n : 6n));
  env.registerFunction('net.IP.isUnspecified(): bool', (ip: CelIP) => isUnspecified(ip.addr));
  env.registerFunction('net.IP.isLoopback(): bool', (ip: CelIP) => isLoopback(ip.addr));
  env.registerFunction('net.IP.isLinkLocalMulticast(): bool', (ip: CelIP) => isLinkLocalMulticast(ip.addr));
  env.registerFunction('net.IP.isLinkLocalUnicast(): bool', (ip: CelIP) => isLinkLocalUnicast(ip.addr));
  env.registerFunction('net.IP.isGlobalUnicast(): bool', (ip: CelIP) => isGlobalUnicast(ip.addr));
  env.registerFunction('string(net.IP): string', (ip: CelIP) => ip.toString());
  env.registerOperator('net.IP == net.IP', (a: CelIP, b: CelIP) => a.equals(b));
}

/** The constant `net`: `net.IP` and `net.CIDR` name the types, as `type(ip('::1')) == net.IP`. */
export class NetNamespace {
  constructor(
    readonly IP: unknown,
    readonly CIDR: unknown,
  ) {}
}

/** Declares `net.IP` and `net.CIDR` as type values (once both types are registered). */
function registerNetTypeNames(env: Environment): void {
  const ipType: unknown = env.evaluate("type(ip('0.0.0.0'))");
  const cidrType: unknown = env.evaluate("type(cidr('0.0.0.0/0'))");
  env.registerType('kubernetes.NetNamespace', { ctor: NetNamespace, fields: { IP: 'type', CIDR: 'type' } });
  env.registerConstant('net', 'kubernetes.NetNamespace', new NetNamespace(ipType, cidrType));
}

/** kube's library.CIDR (from 1.30). */
export function registerCIDR(env: Environment): void {
  env.registerType('net.CIDR', CelCIDR);
  env.registerFunction('cidr(string): net.CIDR', stringToCIDR);
  env.registerFunction('isCIDR(string): bool', (s: string) => succeeds(() => parseCIDR(s)));
  env.registerFunction('net.CIDR.containsIP(string): bool', (c: CelCIDR, s: string) =>
    prefixContains(c.prefix, parseIP(s)),
  );
  env.registerFunction('net.CIDR.containsIP(net.IP): bool', (c: CelCIDR, ip: CelIP) => prefixContains(c.prefix, ip.addr));
  env.registerFunction('net.CIDR.containsCIDR(string): bool', (c: CelCIDR, s: string) =>
    containsCIDR(c, stringToCIDR(s)),
  );
  env.registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', containsCIDR);
  env.registerFunction('net.CIDR.ip(): net.IP', (c: CelCIDR) => new CelIP(c.prefix.addr));
  env.registerFunction('net.CIDR.masked(): net.CIDR', (c: CelCIDR) => new CelCIDR(maskedPrefix(c.prefix)));
  env.registerFunction('net.CIDR.prefixLength(): int', (c: CelCIDR) => BigInt(c.prefix.bits));
  env.registerFunction('string(net.CIDR): string', (c: CelCIDR) => c.toString());
  env.registerOperator('net.CIDR == net.CIDR', (a: CelCIDR, b: CelCIDR) => a.equals(b));
  registerNetTypeNames(env);
}

/** The other prefix lies within this one: same masked network at this length, and at least as long. */
function containsCIDR(c: CelCIDR, other: CelCIDR): boolean {
  const mine = maskedPrefix(c.prefix);
  const theirs = maskedPrefix({ addr: other.prefix.addr, bits: c.prefix.bits });
  return (
    other.prefix.addr.bytes.length === c.prefix.addr.bytes.length &&
    addrEqual(mine.addr, theirs.addr) &&
    c.prefix.bits <= other.prefix.bits
  );
}
