/**
 * Go's net/netip parsing and printing of addresses and prefixes, with its
 * error texts (kube's IP and CIDR libraries pass them through to users).
 */

function quote(s: string): string {
  return JSON.stringify(s);
}

/** An IPv4 (4 bytes) or IPv6 (16 bytes) address, with an IPv6 zone when written with one. */
export interface Addr {
  readonly bytes: Uint8Array;
  readonly zone: string;
}

class ParseAddrError extends Error {
  constructor(input: string, msg: string, at?: string) {
    super(`ParseAddr(${quote(input)}): ${msg}${at ? ` (at ${quote(at)})` : ''}`);
  }
}

function ipv4Fields(input: string, start: number, end: number, out: Uint8Array, offset: number): void {
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = start; i < end; i++) {
    const c = input.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && val === 0) throw new ParseAddrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c - 48);
      digits++;
      if (val > 255) throw new ParseAddrError(input, 'IPv4 field has value >255');
    } else if (c === 46) {
      if (i === start || i === end - 1 || input[i - 1] === '.') {
        throw new ParseAddrError(input, 'IPv4 field must have at least one digit', input.slice(i));
      }
      if (pos === 3) throw new ParseAddrError(input, 'IPv4 address too long');
      out[offset + pos++] = val;
      val = 0;
      digits = 0;
    } else {
      throw new ParseAddrError(input, 'unexpected character', input.slice(i));
    }
  }
  if (pos < 3) throw new ParseAddrError(input, 'IPv4 address too short');
  out[offset + 3] = val;
}

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw new ParseAddrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const d = parseInt(s[off]!, 16);
      if (Number.isNaN(d)) break;
      acc = acc * 16 + d;
      if (off > 3) throw new ParseAddrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw new ParseAddrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw new ParseAddrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) {
        throw new ParseAddrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      }
      if (i + 4 > 16) {
        throw new ParseAddrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      }
      const end = input.length - (zone ? zone.length + 1 : 0);
      ipv4Fields(input, end - s.length, end, ip, i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') throw new ParseAddrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw new ParseAddrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw new ParseAddrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') throw new ParseAddrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw new ParseAddrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw new ParseAddrError(input, 'the :: must expand to at least one field of zeros', s);
  }
  return { bytes: ip, zone };
}

/** netip.ParseAddr. Throws Error with Go's message. */
export function parseAddr(s: string): Addr {
  for (let i = 0; i < s.length; i++) {
    switch (s[i]) {
      case '.': {
        const out = new Uint8Array(4);
        ipv4Fields(s, 0, s.length, out, 0);
        return { bytes: out, zone: '' };
      }
      case ':':
        return parseIPv6(s);
      case '%':
        throw new ParseAddrError(s, 'missing IPv6 address');
    }
  }
  throw new ParseAddrError(s, 'unable to parse IP');
}

export function is4In6(a: Addr): boolean {
  const b = a.bytes;
  return b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
}

/** Addr.String(): dotted quad, or RFC 5952 (longest run of two or more zero groups as "::"), zone after "%". */
export function addrString(a: Addr): string {
  const b = a.bytes;
  if (b.length === 4) return b.join('.');
  const zone = a.zone ? `%${a.zone}` : '';
  if (is4In6(a)) return `::ffff:${b.slice(12).join('.')}${zone}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':') + zone;
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}${zone}`;
}

export interface Prefix {
  readonly addr: Addr;
  readonly bits: number;
}

/** netip.ParsePrefix. Throws Error with Go's message. */
export function parsePrefix(s: string): Prefix {
  const fail = (msg: string): never => {
    throw new Error(`netip.ParsePrefix(${quote(s)}): ${msg}`);
  };
  const i = s.lastIndexOf('/');
  if (i < 0) fail("no '/'");
  let addr: Addr;
  try {
    addr = parseAddr(s.slice(0, i));
  } catch (e) {
    return fail((e as Error).message);
  }
  if (addr.bytes.length === 16 && addr.zone !== '') fail('IPv6 zones cannot be present in a prefix');
  const bitsText = s.slice(i + 1);
  if ((bitsText.length > 1 && (bitsText[0]! < '1' || bitsText[0]! > '9')) || !/^[+-]?[0-9]+$/.test(bitsText)) {
    fail(`bad bits after slash: ${quote(bitsText)}`);
  }
  const bits = Number(bitsText);
  if (bits < 0 || bits > addr.bytes.length * 8) fail('prefix length out of range');
  return { addr, bits };
}

/** Prefix.Masked(): the address with the host bits cleared. */
export function maskedPrefix(p: Prefix): Prefix {
  const out = new Uint8Array(p.addr.bytes);
  for (let bit = p.bits; bit < out.length * 8; bit++) out[bit >> 3]! &= ~(0x80 >> (bit & 7));
  return { addr: { bytes: out, zone: '' }, bits: p.bits };
}

export function addrEqual(a: Addr, b: Addr): boolean {
  return a.bytes.length === b.bytes.length && a.bytes.every((x, i) => x === b.bytes[i]) && a.zone === b.zone;
}

/** Prefix.Contains: same family, and equal under the prefix's mask. */
export function prefixContains(p: Prefix, a: Addr): boolean {
  if (a.bytes.length !== p.addr.bytes.length || a.zone !== '') return false;
  return addrEqual(maskedPrefix(p).addr, maskedPrefix({ addr: a, bits: p.bits }).addr);
}
