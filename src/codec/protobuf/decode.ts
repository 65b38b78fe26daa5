/**
 * Protobuf message → the JSON object kube-apiserver would write for the same
 * Go value. The wire is read straight into JSON values (no intermediate
 * message object); the object is then assembled in declaration order, which
 * is the Go struct order encoding/json follows.
 *
 * Go-isms reproduced here:
 *  - go-to-protobuf writes every non-pointer scalar, so a zero scalar on the
 *    wire means "unset" unless the field is a pointer; JSON drops it when the
 *    Go field has omitempty and keeps it otherwise (OpenAPI `required`);
 *  - a nil slice or map without omitempty is `null` in JSON;
 *  - inline embedded structs spread their fields into the parent object.
 */
import { canonicalQuantityJson } from '../../api/quantity.js';
import { assemblerOf, fieldMessage, type Field, type Message } from './descriptor.js';
import { ProtobufDecodeError } from './errors.js';
import { formatGoDuration, formatRfc3339, GO_ZERO_TIME_SECONDS } from './wellknown.js';
import { Reader, utf8, WIRE_BYTES, WIRE_VARINT } from './wire.js';
import { jsonNestingExceeds, MAX_NESTING_DEPTH } from '../../machinery/nesting.js';

export type JsonObject = Record<string, unknown>;

/** Decodes a RawExtension payload that is itself a k8s\0 envelope (watch events). Set by envelope.ts. */
let nestedEnvelopeDecoder: ((bytes: Buffer) => JsonObject) | undefined;

export function setNestedEnvelopeDecoder(fn: (bytes: Buffer) => JsonObject): void {
  nestedEnvelopeDecoder = fn;
}

/** Decodes bytes [start, end) of `buf` as `msg` and returns its JSON value. */
export function decodeValue(msg: Message, buf: Buffer, start: number, end: number): unknown {
  if (msg.special !== undefined) return decodeSpecial(msg, buf, start, end);
  return decodeObject(msg, buf, start, end);
}

/**
 * Decodes a message that is a JSON object. `head` holds keys that go first
 * (kind and apiVersion of a top-level object, which live in the envelope).
 */
export function decodeObject(msg: Message, buf: Buffer, start: number, end: number, head?: JsonObject): JsonObject {
  if (messageDepth >= MAX_MESSAGE_DEPTH) throw new ProtobufDecodeError(RECURSION_DEPTH_MESSAGE);
  messageDepth++;
  try {
    return decodeFields(msg, buf, start, end, head);
  } finally {
    messageDepth--;
  }
}

/**
 * Messages nested in messages, here or through RawExtensions holding
 * envelopes (each one more level of this decoder's recursion): no built-in
 * type nests more than a few dozen deep, so a body nesting deeper is refused
 * (400) before the stack runs out. kube's generated unmarshalers set no bound
 * and never decode a RawExtension's envelope (they keep its bytes); the
 * message is the Go protobuf runtime's for its own recursion limit.
 */
const MAX_MESSAGE_DEPTH = 100;
const RECURSION_DEPTH_MESSAGE = 'exceeded maximum recursion depth';
let messageDepth = 0;

function decodeFields(msg: Message, buf: Buffer, start: number, end: number, head: JsonObject | undefined): JsonObject {
  const fields = msg.fields;
  const index = msg.indexByNumber;
  const values: unknown[] = new Array(fields.length);
  const r = new Reader(buf, start, end);
  while (r.pos < end) {
    const tag = r.uint32();
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 0) throw new ProtobufDecodeError('proto: illegal tag 0');
    const i = number < index.length ? index[number] : undefined;
    if (i === undefined) {
      r.skip(wireType);
      continue;
    }
    const f = fields[i]!;
    if (f.map) {
      if (wireType !== WIRE_BYTES) throw wrongWireType(msg, f, wireType);
      const n = r.length();
      const target = (values[i] as JsonObject | undefined) ?? (values[i] = {});
      readMapEntry(f, buf, r.pos, r.pos + n, target as JsonObject);
      r.pos += n;
    } else if (f.repeated) {
      const list = (values[i] as unknown[] | undefined) ?? (values[i] = []);
      if (f.scalar !== undefined && f.wireType === WIRE_VARINT && wireType === WIRE_BYTES) {
        // packed encoding: accepted on read, as every proto decoder must
        const n = r.length();
        const packed = new Reader(buf, r.pos, r.pos + n);
        while (packed.pos < packed.end) (list as unknown[]).push(readScalar(f, packed));
        r.pos += n;
      } else {
        if (wireType !== f.wireType) throw wrongWireType(msg, f, wireType);
        (list as unknown[]).push(readOne(f, r));
      }
    } else {
      if (wireType !== f.wireType) throw wrongWireType(msg, f, wireType);
      values[i] = readOne(f, r);
    }
  }
  return assemble(msg, values, buf, head ?? {});
}

function readOne(f: Field, r: Reader): unknown {
  if (f.scalar !== undefined) return readScalar(f, r);
  const n = r.length();
  const start = r.pos;
  r.pos += n;
  return decodeValue(fieldMessage(f), r.buf, start, start + n);
}

function readScalar(f: Field, r: Reader): unknown {
  switch (f.scalar) {
    case 'string':
      return r.string();
    case 'int32':
      return r.int32();
    case 'int64':
      return r.int64();
    case 'bool':
      return r.bool();
    case 'bytes': {
      const n = r.length();
      const s = r.buf.toString('base64', r.pos, r.pos + n);
      r.pos += n;
      return s;
    }
    default:
      throw new Error(`unreachable scalar ${String(f.scalar)}`);
  }
}

/** Go decodes an absent map value as its zero value. */
function readMapEntry(f: Field, buf: Buffer, start: number, end: number, target: JsonObject): void {
  const r = new Reader(buf, start, end);
  let key = '';
  let value: unknown;
  while (r.pos < end) {
    const tag = r.uint32();
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 1 && wireType === WIRE_BYTES) key = r.string();
    else if (number === 2 && wireType === f.wireType) value = readOne(f, r);
    else r.skip(wireType);
  }
  if (value === undefined) {
    if (f.scalar === 'string') value = '';
    else if (f.scalar === 'bytes') value = null;
    else if (f.scalar !== undefined) value = f.scalar === 'bool' ? false : 0;
    else value = decodeValue(fieldMessage(f), buf, 0, 0);
  }
  target[key] = value;
}

function assemble(msg: Message, values: unknown[], buf: Buffer, out: JsonObject): JsonObject {
  return assemblerOf(msg)(values, out, (i) => decodeValue(fieldMessage(msg.fields[i]!), buf, 0, 0));
}

function wrongWireType(msg: Message, f: Field, wireType: number): ProtobufDecodeError {
  return new ProtobufDecodeError(`proto: wrong wireType = ${wireType} for field ${f.name} of ${msg.name}`);
}

// ---------------------------------------------------------------------------

interface Scalars {
  f1: number | string | undefined;
  f2: number | string | undefined;
  f3: number | string | undefined;
  /** Byte ranges of repeated field 1 (ExtraValue items) or of bytes field 1. */
  f1Ranges: number[];
}

/** The few special messages have up to three scalar fields; read them positionally. */
function readSmall(buf: Buffer, start: number, end: number, stringFields: number): Scalars {
  const out: Scalars = { f1: undefined, f2: undefined, f3: undefined, f1Ranges: [] };
  const r = new Reader(buf, start, end);
  while (r.pos < end) {
    const tag = r.uint32();
    const number = tag >>> 3;
    const wireType = tag & 7;
    const isString = (stringFields & (1 << number)) !== 0;
    if (number >= 1 && number <= 3 && wireType === (isString ? WIRE_BYTES : WIRE_VARINT)) {
      let v: number | string;
      if (isString) {
        const n = r.length();
        if (number === 1) out.f1Ranges.push(r.pos, r.pos + n);
        v = utf8(buf, r.pos, r.pos + n);
        r.pos += n;
      } else v = r.int64();
      if (number === 1) out.f1 = v;
      else if (number === 2) out.f2 = v;
      else out.f3 = v;
    } else if (number === 0) throw new ProtobufDecodeError('proto: illegal tag 0');
    else r.skip(wireType);
  }
  return out;
}

function decodeSpecial(msg: Message, buf: Buffer, start: number, end: number): unknown {
  switch (msg.special) {
    case 'time':
    case 'microtime': {
      if (start === end) return null;
      const s = readSmall(buf, start, end, 0);
      const seconds = (s.f1 as number | undefined) ?? 0;
      const nanos = msg.special === 'microtime' ? ((s.f2 as number | undefined) ?? 0) | 0 : 0;
      // metav1.Time keeps seconds only: its Unmarshal drops nanos.
      const secs = seconds + Math.floor(nanos / 1e9);
      const ns = ((nanos % 1e9) + 1e9) % 1e9;
      if (secs === GO_ZERO_TIME_SECONDS && ns === 0) return null;
      return formatRfc3339(secs, ns, msg.special === 'microtime');
    }
    case 'duration': {
      const s = readSmall(buf, start, end, 0);
      return formatGoDuration((s.f1 as number | undefined) ?? 0);
    }
    case 'quantity': {
      const s = readSmall(buf, start, end, 1 << 1);
      const q = (s.f1 as string | undefined) ?? '';
      // Unmarshal parses the text; JSON then carries its String(), the canonical form.
      return q === '' ? '0' : canonicalQuantityJson(q);
    }
    case 'intorstring': {
      const s = readSmall(buf, start, end, 1 << 3);
      return ((s.f1 as number | undefined) ?? 0) === 1 ? ((s.f3 as string | undefined) ?? '') : ((s.f2 as number | undefined) ?? 0) | 0;
    }
    case 'array': {
      const s = readSmall(buf, start, end, 1 << 1);
      const items: string[] = [];
      for (let i = 0; i < s.f1Ranges.length; i += 2) items.push(utf8(buf, s.f1Ranges[i]!, s.f1Ranges[i + 1]!));
      return items;
    }
    case 'fieldsv1':
    case 'rawextension': {
      const s = readSmall(buf, start, end, 1 << 1);
      const n = s.f1Ranges.length;
      if (n === 0) return null;
      const from = s.f1Ranges[n - 2]!;
      const to = s.f1Ranges[n - 1]!;
      if (from === to) return null;
      return embedded(buf.subarray(from, to), msg.special);
    }
    default:
      throw new Error(`unreachable special ${String(msg.special)}`);
  }
}

const ENVELOPE = [0x6b, 0x38, 0x73, 0x00];

/** RawExtension/FieldsV1 bytes: JSON text, or (in watch events) an enveloped protobuf object. */
function embedded(bytes: Buffer, what: string): unknown {
  if (bytes.length >= 4 && bytes[0] === ENVELOPE[0] && bytes[1] === ENVELOPE[1] && bytes[2] === ENVELOPE[2] && bytes[3] === ENVELOPE[3]) {
    if (nestedEnvelopeDecoder === undefined) throw new Error('protobuf: nested envelope decoder not registered');
    return nestedEnvelopeDecoder(bytes);
  }
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ProtobufDecodeError(`${what === 'fieldsv1' ? 'FieldsV1' : 'RawExtension'} does not hold JSON: ${(err as Error).message}`);
  }
  // The same bound as JSON bodies: every walk after decoding relies on it.
  if (jsonNestingExceeds(text, MAX_NESTING_DEPTH)) throw new ProtobufDecodeError(`${what === 'fieldsv1' ? 'FieldsV1' : 'RawExtension'} does not hold JSON: exceeded max depth`);
  return value;
}
