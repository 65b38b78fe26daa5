/**
 * JSON values to CBOR as kube-apiserver's CBOR serializer writes them
 * (apimachinery's cbor/internal/modes Encode, nondeterministic variant used
 * for responses): every data item enclosed in the self-described CBOR tag
 * 55799 (0xd9d9f7); strings, map keys included, as byte strings (kube does not
 * validate UTF-8 on the way out and says so with the byte string type);
 * integers as integers, other numbers in the shortest float width that keeps
 * the value (float16 first); definite lengths only; map keys in the object's
 * own order (kube's response encoder does not sort either).
 */

export const SELF_DESCRIBED_CBOR = Buffer.from([0xd9, 0xd9, 0xf7]);

/** CBOR major types, shifted into the initial byte's top three bits. */
const MAJOR_UINT = 0x00;
const MAJOR_NINT = 0x20;
const MAJOR_BYTES = 0x40;
const MAJOR_ARRAY = 0x80;
const MAJOR_MAP = 0xa0;

const INITIAL_CAPACITY = 1024;

/** A growing output buffer; one per encode call. */
class Writer {
  buf = Buffer.allocUnsafe(INITIAL_CAPACITY);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** A head: major type and its argument in the fewest bytes. */
  head(major: number, n: number): void {
    this.ensure(9);
    const b = this.buf;
    if (n < 24) b[this.pos++] = major | n;
    else if (n < 0x100) {
      b[this.pos++] = major | 24;
      b[this.pos++] = n;
    } else if (n < 0x10000) {
      b[this.pos++] = major | 25;
      b.writeUInt16BE(n, this.pos);
      this.pos += 2;
    } else if (n < 0x100000000) {
      b[this.pos++] = major | 26;
      b.writeUInt32BE(n, this.pos);
      this.pos += 4;
    } else {
      b[this.pos++] = major | 27;
      b.writeBigUInt64BE(BigInt(n), this.pos);
      this.pos += 8;
    }
  }

  bytes(s: string): void {
    // Short ASCII strings (most keys and values) are copied byte by byte: no length pass, no encoder call.
    const len = s.length;
    if (len < 24) {
      this.ensure(1 + len);
      const b = this.buf;
      let p = this.pos + 1;
      let ascii = true;
      for (let i = 0; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        b[p++] = c;
      }
      if (ascii) {
        b[this.pos] = MAJOR_BYTES | len;
        this.pos = p;
        return;
      }
    }
    const n = Buffer.byteLength(s);
    this.head(MAJOR_BYTES, n);
    this.ensure(n);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /** The bytes written; copied out when most of the buffer would be kept unused (cached encodings live long). */
  result(): Buffer {
    const out = this.buf.subarray(0, this.pos);
    return this.buf.length - this.pos > this.pos ? Buffer.from(out) : out;
  }
}

/** The float16 bits of `v` when float16 holds it exactly, else -1. */
function float16Bits(v: number): number {
  if (Math.fround(v) !== v) return -1;
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  // Subnormal halves are multiples of 2^-24 below 2^-14.
  if (a < 2 ** -14) {
    const f = a * 2 ** 24;
    return Number.isInteger(f) ? sign | f : -1;
  }
  if (a >= 65520) return -1;
  const e = Math.floor(Math.log2(a));
  const m = a / 2 ** e - 1; // in [0, 1)
  const mant = m * 1024;
  if (!Number.isInteger(mant) || e < -14 || e > 15) return -1;
  return sign | ((e + 15) << 10) | mant;
}

function writeNumber(w: Writer, v: number): void {
  if (!Number.isFinite(v)) throw new Error(`cbor: unsupported value: ${v}`);
  if (Number.isInteger(v) && Math.abs(v) < 2 ** 64) {
    if (v >= 0) w.head(MAJOR_UINT, v);
    else w.head(MAJOR_NINT, -1 - v);
    return;
  }
  const half = float16Bits(v);
  w.ensure(9);
  if (half >= 0) {
    w.buf[w.pos++] = 0xf9;
    w.buf.writeUInt16BE(half, w.pos);
    w.pos += 2;
  } else if (Math.fround(v) === v) {
    w.buf[w.pos++] = 0xfa;
    w.buf.writeFloatBE(v, w.pos);
    w.pos += 4;
  } else {
    w.buf[w.pos++] = 0xfb;
    w.buf.writeDoubleBE(v, w.pos);
    w.pos += 8;
  }
}

function writeValue(w: Writer, v: unknown): void {
  switch (typeof v) {
    case 'string':
      w.bytes(v);
      return;
    case 'number':
      writeNumber(w, v);
      return;
    case 'boolean':
      w.byte(v ? 0xf5 : 0xf4);
      return;
    case 'bigint':
      if (v >= -(2n ** 64n) && v < 2n ** 64n) {
        if (v >= 0n) w.head(MAJOR_UINT, Number(v));
        else w.head(MAJOR_NINT, Number(-1n - v));
        return;
      }
      throw new Error('cbor: big integers are not encoded');
    case 'object':
      break;
    default:
      // undefined and functions: JSON drops them in objects and writes null in arrays.
      w.byte(0xf6);
      return;
  }
  if (v === null) {
    w.byte(0xf6);
    return;
  }
  if (Array.isArray(v)) {
    w.head(MAJOR_ARRAY, v.length);
    for (const item of v) writeValue(w, item);
    return;
  }
  if (v instanceof Date) {
    w.bytes(v.toISOString());
    return;
  }
  const obj = v as Record<string, unknown>;
  let n = 0;
  for (const k in obj) if (Object.hasOwn(obj, k) && obj[k] !== undefined && typeof obj[k] !== 'function') n++;
  w.head(MAJOR_MAP, n);
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const val = obj[k];
    if (val === undefined || typeof val === 'function') continue;
    w.bytes(k);
    writeValue(w, val);
  }
}

/** One data item without the self-described tag (list items, parts of a larger item). */
export function encodeCborItem(value: unknown): Buffer {
  const w = new Writer();
  writeValue(w, value);
  return w.result();
}

/** A whole response body: the self-described tag, then the value. */
export function encodeCbor(value: unknown): Buffer {
  const w = new Writer();
  w.ensure(3);
  SELF_DESCRIBED_CBOR.copy(w.buf, 0);
  w.pos = 3;
  writeValue(w, value);
  return w.result();
}

/** The head of a definite-length map or array of `n` entries (for composing lists from cached items). */
export function cborHead(kind: 'map' | 'array' | 'bytes', n: number): Buffer {
  const w = new Writer();
  w.head(kind === 'map' ? MAJOR_MAP : kind === 'array' ? MAJOR_ARRAY : MAJOR_BYTES, n);
  return Buffer.from(w.result());
}
