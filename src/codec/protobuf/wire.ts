/**
 * The protobuf wire format: a reader over a byte range and a growable writer.
 * Only what the Kubernetes messages use: varints (int32, int64, bool), and
 * length-delimited values (string, bytes, messages); other wire types are
 * skipped when reading unknown fields.
 */
import { ProtobufDecodeError } from './errors.js';

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4294967296;

export class Reader {
  pos: number;

  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  /** An unsigned varint that fits in 32 bits (tags, lengths); larger values are rejected. */
  uint32(): number {
    const buf = this.buf;
    let pos = this.pos;
    let b = buf[pos++]!;
    let value = b & 0x7f;
    if (b >= 0x80) {
      b = buf[pos++]!;
      value |= (b & 0x7f) << 7;
      if (b >= 0x80) {
        b = buf[pos++]!;
        value |= (b & 0x7f) << 14;
        if (b >= 0x80) {
          b = buf[pos++]!;
          value |= (b & 0x7f) << 21;
          if (b >= 0x80) {
            b = buf[pos++]!;
            value = (value >>> 0) + (b & 0x0f) * 0x10000000;
            if (b >= 0x80) return this.uint32Overflow(pos);
          }
        }
      }
    }
    if (pos > this.end) throw truncated();
    this.pos = pos;
    return value >>> 0;
  }

  private uint32Overflow(pos: number): number {
    // A negative int32 length or tag is sign-extended to 10 bytes: never valid here.
    for (let i = 0; i < 5; i++) if (pos >= this.end || this.buf[pos++]! < 0x80) break;
    throw new ProtobufDecodeError('proto: integer overflow');
  }

  /** A varint read as a two's complement 64-bit integer, returned as a JS number (exact up to 2^53). */
  int64(): number {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    let pos = this.pos;
    let b: number;
    for (let shift = 0; shift < 28; shift += 7) {
      b = buf[pos++]!;
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) return this.done(pos, lo >>> 0);
    }
    b = buf[pos++]!;
    lo |= (b & 0x0f) << 28;
    hi = (b & 0x7f) >> 4;
    if (b < 0x80) return this.done(pos, (lo >>> 0) + hi * TWO_32);
    for (let shift = 3; shift < 32; shift += 7) {
      b = buf[pos++]!;
      if (b === undefined) throw truncated();
      hi |= (b & 0x7f) << shift;
      if (b < 0x80) {
        if (pos > this.end) throw truncated();
        this.pos = pos;
        return combine64(lo >>> 0, hi >>> 0);
      }
    }
    throw new ProtobufDecodeError('proto: integer overflow');
  }

  /** int32 values are sign-extended varints: the low 32 bits, as signed. */
  int32(): number {
    const v = this.int64();
    return v | 0;
  }

  bool(): boolean {
    return this.int64() !== 0;
  }

  /** Length of a length-delimited value, checked against the end of the range. */
  length(): number {
    const n = this.uint32();
    if (n > this.end - this.pos) throw truncated();
    return n;
  }

  string(): string {
    const n = this.length();
    const start = this.pos;
    this.pos += n;
    return utf8(this.buf, start, start + n);
  }

  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        while (true) {
          if (this.pos >= this.end) throw truncated();
          if (this.buf[this.pos++]! < 0x80) break;
        }
        return;
      case WIRE_FIXED64:
        this.advance(8);
        return;
      case WIRE_BYTES:
        this.advance(this.length());
        return;
      case WIRE_FIXED32:
        this.advance(4);
        return;
      case WIRE_START_GROUP: {
        while (true) {
          if (this.pos >= this.end) throw truncated();
          const tag = this.uint32();
          if ((tag & 7) === WIRE_END_GROUP) return;
          this.skip(tag & 7);
        }
      }
      default:
        throw new ProtobufDecodeError(`proto: illegal wireType ${wireType}`);
    }
  }

  private advance(n: number): void {
    if (n > this.end - this.pos) throw truncated();
    this.pos += n;
  }

  private done(pos: number, value: number): number {
    if (pos > this.end) throw truncated();
    this.pos = pos;
    return value;
  }
}

function combine64(lo: number, hi: number): number {
  if (hi < 0x200000) return hi * TWO_32 + lo;
  if (hi >= 0x80000000) {
    // negative: -(~x + 1)
    const nlo = (~lo + 1) >>> 0;
    const nhi = (~hi + (nlo === 0 ? 1 : 0)) >>> 0;
    return -(nhi * TWO_32 + nlo);
  }
  return hi * TWO_32 + lo; // beyond 2^53: rounded, as JSON.parse rounds it
}

function truncated(): ProtobufDecodeError {
  return new ProtobufDecodeError('unexpected EOF');
}

/** UTF-8 slice. The native slice beats a JS loop even for short ASCII strings (measured). */
export function utf8(buf: Buffer, start: number, end: number): string {
  return start === end ? '' : buf.toString('utf8', start, end);
}

// ---------------------------------------------------------------------------

/**
 * Writes forward into one growing buffer. A nested message reserves one byte
 * for its length and shifts its content if the length needs more: that keeps
 * the output identical to a size-first marshaller without a sizing pass.
 */
export class Writer {
  buf: Buffer;
  pos = 0;

  constructor(initial = 1024) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Tag of a field: (number << 3) | wireType. */
  tag(fieldNumber: number, wireType: number): void {
    this.uint32((fieldNumber << 3) | wireType);
  }

  uint32(v: number): void {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    while (v > 0x7f) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[pos++] = v;
    this.pos = pos;
  }

  /** A signed integer as a varint; negatives take ten bytes (two's complement), as Go writes them. */
  int64(v: number): void {
    if (v >= 0 && v <= 0xffffffff) {
      this.uint32(v);
      return;
    }
    this.ensure(10);
    if (v > 0 && Number.isSafeInteger(v)) {
      const buf = this.buf;
      while (v > 0x7f) {
        buf[this.pos++] = (v % 128) | 0x80;
        v = Math.floor(v / 128);
      }
      buf[this.pos++] = v;
      return;
    }
    let big = BigInt.asUintN(64, BigInt(v));
    const buf = this.buf;
    while (big > 0x7fn) {
      buf[this.pos++] = Number(big & 0x7fn) | 0x80;
      big >>= 7n;
    }
    buf[this.pos++] = Number(big);
  }

  bool(v: boolean): void {
    this.ensure(1);
    this.buf[this.pos++] = v ? 1 : 0;
  }

  string(s: string): void {
    const n = s.length;
    // ASCII fast path: one byte per UTF-16 unit.
    if (n < 128) {
      this.ensure(n + 1);
      const buf = this.buf;
      const start = this.pos;
      buf[start] = n;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + 1 + i] = c;
      }
      if (i === n) {
        this.pos = start + 1 + n;
        return;
      }
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.uint32(len);
    this.ensure(len);
    this.buf.write(s, this.pos, len, 'utf8');
    this.pos += len;
  }

  bytes(b: Uint8Array): void {
    this.uint32(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Starts a length-delimited value; pass the result to endLength. */
  beginLength(): number {
    this.ensure(1);
    return this.pos++;
  }

  endLength(mark: number): void {
    const len = this.pos - mark - 1;
    if (len < 0x80) {
      this.buf[mark] = len;
      return;
    }
    const extra = varintSize(len) - 1;
    this.ensure(extra);
    this.buf.copyWithin(mark + 1 + extra, mark + 1, this.pos);
    this.pos += extra;
    let v = len;
    let p = mark;
    while (v > 0x7f) {
      this.buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[p] = v;
  }

  /** Starts a 4-byte big-endian length prefix (watch framing); pass the result to endFrame. */
  beginFrame(): number {
    this.ensure(4);
    const mark = this.pos;
    this.pos += 4;
    return mark;
  }

  endFrame(mark: number): void {
    this.buf.writeUInt32BE(this.pos - mark - 4, mark);
  }

  raw(b: Uint8Array | readonly number[]): void {
    this.ensure(b.length);
    this.buf.set(b as ArrayLike<number>, this.pos);
    this.pos += b.length;
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

export function varintSize(v: number): number {
  let n = 1;
  while (v > 0x7f) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}
