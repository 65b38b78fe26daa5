/**
 * Minimal protobuf wire-format writer: enough for encoding messages whose
 * fields are strings, bools, int64s, doubles and nested messages. Nested
 * messages are written into their own writer and appended by reference, so
 * a large document is assembled without copying subtrees repeatedly.
 */

// Most messages are a few bytes; scratch space starts small and doubles.
const INITIAL_SCRATCH = 64;
const MAX_SCRATCH = 65536;

export class ProtoWriter {
  private readonly parts: Buffer[] = [];
  private scratch = Buffer.allocUnsafe(INITIAL_SCRATCH);
  private pos = 0;
  private flushedLength = 0;

  get length(): number {
    return this.flushedLength + this.pos;
  }

  private flush(): void {
    if (this.pos === 0) return;
    this.parts.push(this.scratch.subarray(0, this.pos));
    this.flushedLength += this.pos;
    this.scratch = this.scratch.subarray(this.pos);
    this.pos = 0;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.scratch.length) return;
    const size = Math.max(n, Math.min(this.scratch.length * 2, MAX_SCRATCH), INITIAL_SCRATCH);
    if (this.pos > 0) {
      this.parts.push(this.scratch.subarray(0, this.pos));
      this.flushedLength += this.pos;
      this.pos = 0;
    }
    this.scratch = Buffer.allocUnsafe(size);
  }

  private rawVarint(value: number): void {
    this.ensure(10);
    let v = value;
    // Values here are non-negative and below 2^53; use arithmetic beyond 32 bits.
    while (v >= 0x80) {
      this.scratch[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.scratch[this.pos++] = v;
  }

  private key(field: number, wireType: number): void {
    this.rawVarint(field * 8 + wireType);
  }

  /** A string field; proto3 omits empty strings. */
  string(field: number, value: string | undefined): void {
    if (value === undefined || value === '') return;
    this.stringAlways(field, value);
  }

  /** A string element of a repeated field (written even when empty). */
  stringAlways(field: number, value: string): void {
    const len = Buffer.byteLength(value, 'utf8');
    this.key(field, 2);
    this.rawVarint(len);
    if (len <= 1024) {
      this.ensure(len);
      this.scratch.write(value, this.pos, 'utf8');
      this.pos += len;
    } else {
      this.flush();
      this.parts.push(Buffer.from(value, 'utf8'));
      this.flushedLength += len;
    }
  }

  bool(field: number, value: boolean | undefined): void {
    if (!value) return;
    this.key(field, 0);
    this.rawVarint(1);
  }

  /** A bool that is written even when false (a set oneof member). */
  boolAlways(field: number, value: boolean): void {
    this.key(field, 0);
    this.rawVarint(value ? 1 : 0);
  }

  /** A non-negative int64 field. */
  int64(field: number, value: number | undefined): void {
    if (value === undefined || value === 0) return;
    if (value < 0) throw new Error('negative int64 not supported');
    this.key(field, 0);
    this.rawVarint(value);
  }

  double(field: number, value: number | undefined): void {
    if (value === undefined || value === 0) return;
    this.key(field, 1);
    this.ensure(8);
    this.scratch.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** A nested message; written even when empty (a set message field in proto3). */
  message(field: number, nested: ProtoWriter): void {
    this.key(field, 2);
    this.rawVarint(nested.length);
    this.flush();
    nested.flush();
    for (const p of nested.parts) this.parts.push(p);
    this.flushedLength += nested.length;
  }

  finish(): Buffer {
    this.flush();
    return Buffer.concat(this.parts, this.flushedLength);
  }
}
