import { isUtf8 } from 'node:buffer';

/**
 * CBOR request bodies to JSON values, with the checks kube-apiserver's CBOR
 * decoder (apimachinery cbor/internal/modes Decode, on fxamacker/cbor) makes,
 * and its error texts. Two passes as there: the whole input is checked for
 * well-formedness first (truncation, syntax, nesting, NaN/infinity, bignum
 * tags, trailing bytes), then values are built (duplicate map keys, keys that
 * are not strings, invalid UTF-8 in text strings, integers beyond int64,
 * simple values other than false/true/null). Byte strings decode to strings,
 * indefinite lengths are accepted, unknown tags give their content, time tags
 * give RFC 3339 strings, expected-later-encoding tags encode their bytes.
 */

export class CborDecodeError extends Error {
  constructor(
    message: string,
    /** Found before any value was built (well-formedness), or in the top-level map's own keys: kube cannot read the body's kind then. */
    readonly typeMetaUnreadable: boolean,
  ) {
    super(message);
    this.name = 'CborDecodeError';
  }
}

const T_UINT = 0;
const T_NINT = 1;
const T_BYTES = 2;
const T_TEXT = 3;
const T_ARRAY = 4;
const T_MAP = 5;
const T_TAG = 6;
const T_PRIM = 7;

/** fxamacker's names of the major types, as its errors print them. */
const TYPE_NAMES = ['positive integer', 'negative integer', 'byte string', 'UTF-8 text string', 'array', 'map', 'tag', 'primitives'];

const INT64_MAX = 2n ** 63n - 1n;

interface Head {
  t: number;
  ai: number;
  /** The argument; a bigint only past 2^53. */
  val: number | bigint;
  indefinite: boolean;
}

const EOF = (): CborDecodeError => new CborDecodeError('unexpected EOF', true);
const syntax = (msg: string): CborDecodeError => new CborDecodeError(msg, true);

/**
 * The one result object of readHead, overwritten by every call (decoding
 * allocates nothing per item for it): callers copy what they keep across
 * another call.
 */
const HEAD_RESULT: { head: Head; off: number } = { head: { t: 0, ai: 0, val: 0, indefinite: false }, off: 0 };

function result(t: number, ai: number, val: number | bigint, indefinite: boolean, off: number): { head: Head; off: number } {
  const h = HEAD_RESULT.head;
  h.t = t;
  h.ai = ai;
  h.val = val;
  h.indefinite = indefinite;
  HEAD_RESULT.off = off;
  return HEAD_RESULT;
}

function readHead(data: Buffer, off: number): { head: Head; off: number } {
  if (off >= data.length) throw EOF();
  const ib = data[off]!;
  const t = ib >> 5;
  const ai = ib & 0x1f;
  off++;
  let val: number | bigint = ai;
  if (ai < 24) return result(t, ai, val, false, off);
  if (ai === 24) {
    if (data.length - off < 1) throw EOF();
    val = data[off]!;
    off += 1;
    if (t === T_PRIM && val < 32) throw syntax(`cbor: invalid simple value ${val} for type primitives`);
  } else if (ai === 25) {
    if (data.length - off < 2) throw EOF();
    val = data.readUInt16BE(off);
    off += 2;
    if (t === T_PRIM) acceptableFloat(halfToNumber(val));
  } else if (ai === 26) {
    if (data.length - off < 4) throw EOF();
    val = data.readUInt32BE(off);
    if (t === T_PRIM) acceptableFloat(data.readFloatBE(off));
    off += 4;
  } else if (ai === 27) {
    if (data.length - off < 8) throw EOF();
    const big = data.readBigUInt64BE(off);
    val = big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    if (t === T_PRIM) acceptableFloat(data.readDoubleBE(off));
    off += 8;
  } else if (ai === 31) {
    if (t === T_UINT || t === T_NINT || t === T_TAG) throw syntax(`cbor: invalid additional information 31 for type ${TYPE_NAMES[t]}`);
    if (t === T_PRIM) throw syntax('cbor: unexpected "break" code');
    return result(t, ai, val, true, off);
  } else {
    throw syntax(`cbor: invalid additional information ${ai} for type ${TYPE_NAMES[t]}`);
  }
  return result(t, ai, val, false, off);
}

function acceptableFloat(f: number): void {
  if (Number.isNaN(f)) throw new CborDecodeError('cbor: data item of cbor type primitives is not accepted by protocol: floating-point NaN', true);
  if (!Number.isFinite(f)) throw new CborDecodeError('cbor: data item of cbor type primitives is not accepted by protocol: floating-point infinity', true);
}

function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

function lengthOf(t: number, val: number | bigint): number {
  if (typeof val === 'bigint') throw syntax(`cbor: ${TYPE_NAMES[t]} length ${val} is too large, causing integer overflow`);
  return val;
}

interface Frame {
  /** Items still to come (a map counts keys and values); -1: indefinite. */
  remaining: number;
  map: boolean;
  seen: number;
}

/**
 * The well-formedness pass (fxamacker's wellformed): iterative, so input of
 * any depth is refused at `maxDepth` without recursing into it.
 */
export function checkWellFormed(data: Buffer, maxDepth: number): void {
  if (data.length === 0) throw new CborDecodeError('EOF', true);
  const off = wellFormedEnd(data, 0, maxDepth);
  if (off !== data.length) throw new CborDecodeError(`cbor: ${data.length - off} bytes of extraneous data starting at index ${off}`, true);
}

/** Where the well-formed data item starting at `start` ends (for splitting a CBOR sequence). */
export function wellFormedEnd(data: Buffer, start: number, maxDepth: number): number {
  let off = start;
  const stack: Frame[] = [];
  for (;;) {
    const top = stack[stack.length - 1];
    if (top && top.remaining === -1 && off < data.length && data[off] === 0xff) {
      off++;
      stack.pop();
      if (top.map && top.seen % 2 === 1) throw syntax('cbor: unexpected "break" code');
    } else {
      const r = readHead(data, off);
      off = r.off;
      // Copied: readHead's result is overwritten by the next call.
      const ht = r.head.t;
      const hval = r.head.val;
      const hindefinite = r.head.indefinite;
      if (ht === T_BYTES || ht === T_TEXT) {
        if (hindefinite) {
          for (;;) {
            if (off >= data.length) throw EOF();
            if (data[off] === 0xff) {
              off++;
              break;
            }
            const nt = data[off]! >> 5;
            if (nt !== ht) throw syntax(`cbor: wrong element type ${TYPE_NAMES[nt]} for indefinite-length ${TYPE_NAMES[ht]}`);
            if ((data[off]! & 0x1f) === 31) throw syntax(`cbor: indefinite-length ${TYPE_NAMES[ht]} chunk is not definite-length`);
            const c = readHead(data, off);
            const n = lengthOf(c.head.t, c.head.val);
            if (data.length - c.off < n) throw EOF();
            off = c.off + n;
          }
        } else {
          const n = lengthOf(ht, hval);
          if (data.length - off < n) throw EOF();
          off += n;
        }
      } else if (ht === T_ARRAY || ht === T_MAP) {
        if (stack.length + 1 > maxDepth) throw new CborDecodeError(`cbor: exceeded max nested level ${maxDepth}`, true);
        const map = ht === T_MAP;
        if (hindefinite) {
          stack.push({ remaining: -1, map, seen: 0 });
          continue;
        }
        const n = lengthOf(ht, hval);
        if (n > 0) {
          // Each entry takes at least one byte: a count past the input is truncation.
          if ((map ? 2 * n : n) > data.length - off) throw EOF();
          stack.push({ remaining: map ? 2 * n : n, map, seen: 0 });
          continue;
        }
      } else if (ht === T_TAG) {
        if (off >= data.length) throw EOF();
        if (hval === 2 || hval === 3) throw new CborDecodeError('cbor: data item of cbor type tag is not accepted by protocol: bignum', true);
        // The tag's content is the next item; it completes the tag.
        continue;
      }
    }
    // One item completed: count it in the enclosing containers.
    for (;;) {
      const f = stack[stack.length - 1];
      if (!f) return off;
      f.seen++;
      if (f.remaining === -1) break;
      f.remaining--;
      if (f.remaining > 0) break;
      stack.pop();
    }
  }
}

/** Builds values from input checkWellFormed accepted. */
class Builder {
  off = 0;
  depth = 0;

  constructor(private readonly data: Buffer) {}

  value(): unknown {
    const r = readHead(this.data, this.off);
    this.off = r.off;
    const h = r.head;
    switch (h.t) {
      case T_UINT:
        if (typeof h.val === 'bigint' && h.val > INT64_MAX) throw this.error(`cbor: cannot unmarshal positive integer into Go value of type int64 (${h.val} overflows Go's int64)`);
        return Number(h.val);
      case T_NINT: {
        if (typeof h.val === 'bigint' && h.val > INT64_MAX) throw this.error(`cbor: cannot unmarshal negative integer into Go value of type int64 (${-1n - h.val} overflows Go's int64)`);
        return -1 - Number(h.val);
      }
      case T_BYTES:
      case T_TEXT: {
        if (h.indefinite) {
          const b = this.bytes(h);
          const joined = b.toString('utf8');
          if (h.t === T_TEXT && joined.includes('\ufffd') && !isUtf8(b)) throw this.error('cbor: invalid UTF-8 string');
          return joined;
        }
        const start = this.off;
        const end = start + Number(h.val);
        this.off = end;
        const ascii = shortAscii(this.data, start, end);
        if (ascii !== undefined) return ascii;
        const text = this.data.toString('utf8', start, end);
        // Invalid UTF-8 decodes to U+FFFD: only then is the (rarer) exact check needed.
        if (h.t === T_TEXT && text.includes('\ufffd') && !isUtf8(this.data.subarray(start, end))) throw this.error('cbor: invalid UTF-8 string');
        return text;
      }
      case T_ARRAY: {
        const out: unknown[] = [];
        this.depth++;
        if (h.indefinite) {
          while (this.data[this.off] !== 0xff) out.push(this.value());
          this.off++;
        } else {
          for (let i = 0, n = Number(h.val); i < n; i++) out.push(this.value());
        }
        this.depth--;
        return out;
      }
      case T_MAP:
        return this.map(h.indefinite, Number(h.val));
      case T_TAG:
        return this.tagged(Number(h.val));
      default:
        return this.primitive(h);
    }
  }

  /** kind and apiVersion of the top-level map; other values are skipped unread. */
  typeMeta(maxDepth: number): { kind?: string; apiVersion?: string } {
    while (this.data[this.off]! >> 5 === T_TAG) this.off = readHead(this.data, this.off).off;
    const r = readHead(this.data, this.off);
    if (r.head.t !== T_MAP) return {};
    this.off = r.off;
    this.depth = 1;
    const out: { kind?: string; apiVersion?: string } = {};
    const n = r.head.indefinite ? Infinity : Number(r.head.val);
    for (let i = 0; i < n && this.data[this.off] !== 0xff; i++) {
      const key = this.key(true);
      if (key === 'kind' || key === 'apiVersion') {
        const v = this.value();
        if (typeof v === 'string') out[key] = v;
      } else this.off = wellFormedEnd(this.data, this.off, maxDepth);
    }
    return out;
  }

  private error(msg: string, topLevelKey = false): CborDecodeError {
    return new CborDecodeError(msg, topLevelKey);
  }

  private bytes(h: Head): Buffer {
    if (!h.indefinite) {
      const n = Number(h.val);
      const b = this.data.subarray(this.off, this.off + n);
      this.off += n;
      return b;
    }
    const chunks: Buffer[] = [];
    while (this.data[this.off] !== 0xff) {
      const c = readHead(this.data, this.off);
      const n = Number(c.head.val);
      chunks.push(this.data.subarray(c.off, c.off + n));
      this.off = c.off + n;
    }
    this.off++;
    return Buffer.concat(chunks);
  }

  private map(indefinite: boolean, count: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const topLevel = this.depth === 0;
    this.depth++;
    const n = indefinite ? Infinity : count;
    for (let i = 0; i < n; i++) {
      if (indefinite && this.data[this.off] === 0xff) break;
      const key = this.key(topLevel);
      if (Object.hasOwn(out, key)) throw this.error(`cbor: found duplicate map key "${key}" at map element index ${i}`, topLevel);
      const value = this.value();
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
    }
    if (indefinite) this.off++;
    this.depth--;
    return out;
  }

  /** A map key decoded into a Go string: text or byte strings (tags unwrapped); null leaves it empty. */
  private key(topLevel: boolean): string {
    const r = readHead(this.data, this.off);
    const h = r.head;
    if (h.t === T_TEXT || h.t === T_BYTES || h.t === T_TAG) {
      const v = this.value();
      if (typeof v === 'string') return v;
      throw this.error('cbor: cannot unmarshal tag into Go value of type string', topLevel);
    }
    if (h.t === T_PRIM && (h.ai === 22 || h.ai === 23)) {
      this.primitive(h);
      this.off = r.off;
      return '';
    }
    throw this.error(`cbor: cannot unmarshal ${TYPE_NAMES[h.t]} into Go value of type string`, topLevel);
  }

  private tagged(num: number): unknown {
    const contentType = this.data[this.off]! >> 5;
    if ((num === 21 || num === 22 || num === 23) && contentType === T_BYTES) {
      const r = readHead(this.data, this.off);
      this.off = r.off;
      const b = this.bytes(r.head);
      return num === 21 ? b.toString('base64url') : num === 22 ? b.toString('base64') : b.toString('hex');
    }
    const content = this.value();
    if (num === 1 && typeof content === 'number') return rfc3339Nano(content);
    return content;
  }

  private primitive(h: Head): unknown {
    switch (h.ai) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
        return null;
      case 25:
        return halfToNumber(Number(h.val));
      case 26: {
        const b = Buffer.alloc(4);
        b.writeUInt32BE(Number(h.val));
        return b.readFloatBE(0);
      }
      case 27: {
        const b = Buffer.alloc(8);
        b.writeBigUInt64BE(BigInt(h.val));
        return b.readDoubleBE(0);
      }
      default:
        throw this.error(`cbor: data item of cbor type primitives is not accepted by protocol: simple value ${Number(h.val)} is not recognized`);
    }
  }
}

/** A short all-ASCII byte run as a string (most keys and values), cheaper than a UTF-8 decoder call; undefined otherwise. */
function shortAscii(data: Buffer, start: number, end: number): string | undefined {
  if (end - start > 32) return undefined;
  let out = '';
  for (let i = start; i < end; i++) {
    const c = data[i]!;
    if (c >= 0x80) return undefined;
    out += String.fromCharCode(c);
  }
  return out;
}

/** Seconds since the epoch as Go's time.RFC3339Nano in UTC (trailing zeros of the fraction dropped). */
function rfc3339Nano(seconds: number): string {
  const whole = Math.floor(seconds);
  const iso = new Date(whole * 1000).toISOString().replace(/\.000Z$/, '');
  const frac = seconds - whole;
  if (frac === 0) return `${iso}Z`;
  const digits = frac.toFixed(9).slice(2).replace(/0+$/, '');
  return `${iso}.${digits}Z`;
}

/**
 * One CBOR data item (optionally tagged self-described) to a JSON value;
 * throws CborDecodeError with kube's text. `maxDepth` bounds the nesting of
 * maps and arrays (see machinery/nesting.ts).
 */
/**
 * The Builder recurses once per level, so CBOR bodies stop at this depth even
 * where JSON's limit (machinery/nesting.ts) is deeper; kube's CBOR decoder
 * allows 65,535 levels.
 */
export const CBOR_MAX_DEPTH = 1000;

export function decodeCbor(data: Buffer, maxDepth: number): unknown {
  checkWellFormed(data, Math.min(maxDepth, CBOR_MAX_DEPTH));
  return new Builder(data).value();
}

/** Every data item of a CBOR sequence (RFC 8742), e.g. a cbor-seq watch stream. */
export function decodeCborSequence(data: Buffer, maxDepth: number): unknown[] {
  const out: unknown[] = [];
  let off = 0;
  while (off < data.length) {
    const end = wellFormedEnd(data, off, maxDepth);
    out.push(decodeCbor(data.subarray(off, end), maxDepth));
    off = end;
  }
  return out;
}


/**
 * The top-level map's kind and apiVersion read leniently (kube's
 * metaFactory.Interpret with DecodeLax), for the text of a body that then
 * failed to decode; undefined when even that fails.
 */
export function readTypeMeta(data: Buffer, maxDepth: number): { kind?: string; apiVersion?: string } | undefined {
  try {
    const b = new Builder(data);
    return b.typeMeta(maxDepth);
  } catch {
    return undefined;
  }
}

/** The major type of the data item after any tags, as fxamacker names it. */
export function topLevelTypeName(data: Buffer): string {
  let off = 0;
  while (off < data.length && data[off]! >> 5 === T_TAG) off = readHead(data, off).off;
  return off < data.length ? TYPE_NAMES[data[off]! >> 5]! : 'primitives';
}
