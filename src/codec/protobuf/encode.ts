/**
 * JSON object → protobuf message bytes, field by field in ascending field
 * number as Go's generated marshallers write them. A field absent (or null)
 * in JSON is not written: a Go client decodes that to the same zero value
 * kube-apiserver would have sent explicitly.
 */
import { quantityString } from '../../api/quantity.js';
import { extractorOf, fieldMessage, type Field, type Message } from './descriptor.js';
import { ProtobufEncodeError } from './errors.js';
import { parseGoDuration, parseRfc3339 } from './wellknown.js';
import { Writer, WIRE_BYTES, WIRE_VARINT } from './wire.js';
import { stringifyJson } from '../../machinery/deep-json.js';

type JsonObject = Record<string, unknown>;

/** Writes the fields of `obj` as `msg` (no tag or length: the caller frames it). */
export function encodeFields(w: Writer, msg: Message, obj: unknown, path: string): void {
  if (msg.special !== undefined) {
    encodeSpecial(w, msg, obj, path);
    return;
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new ProtobufEncodeError(path, `expected an object for ${shortName(msg)}, got ${describe(obj)}`);
  }
  const o = obj as JsonObject;
  const order = msg.encodeOrder;
  const values = extractorOf(msg)(o);
  for (let i = 0; i < order.length; i++) {
    const f = order[i]!;
    if (f.inline) {
      // An embedded Go struct is a value, never nil: always written, even when empty.
      w.uint32(f.tag);
      const mark = w.beginLength();
      encodeFields(w, fieldMessage(f), o, path);
      w.endLength(mark);
      continue;
    }
    const v = values[i];
    if (v === undefined || v === null) {
      if (!f.pointer && !f.repeated && !f.map) encodeZero(w, f);
      continue;
    }
    if (f.map) encodeMap(w, f, v, path);
    else if (f.repeated) {
      if (!Array.isArray(v)) throw new ProtobufEncodeError(`${path}.${f.name}`, `expected an array, got ${describe(v)}`);
      for (let j = 0; j < v.length; j++) encodeValue(w, f, v[j], `${path}.${f.name}[${j}]`);
    } else encodeValue(w, f, v, `${path}.${f.name}`);
  }
}

/**
 * An unset field Go's generated marshaller writes all the same: every
 * non-pointer scalar ("" / 0 / false) and every value struct (its zero: an
 * empty message, a zero Quantity "0", a zero IntOrString's three fields).
 * Pointers, slices, maps and []byte are nil-able and not written.
 */
function encodeZero(w: Writer, f: Field): void {
  if (f.scalar !== undefined) {
    if (f.scalar === 'bytes') return;
    w.uint32(f.tag);
    if (f.scalar === 'string') w.uint32(0);
    else if (f.scalar === 'bool') w.bool(false);
    else w.int64(0);
    return;
  }
  const m = fieldMessage(f);
  if (m.special === 'array') return;
  w.uint32(f.tag);
  const mark = w.beginLength();
  encodeZeroFields(w, m);
  w.endLength(mark);
}

function encodeZeroFields(w: Writer, m: Message): void {
  switch (m.special) {
    case undefined:
      encodeFields(w, m, {}, '');
      return;
    case 'quantity':
    case 'intorstring':
      encodeSpecial(w, m, m.special === 'quantity' ? '0' : 0, '');
      return;
    case 'duration':
      encodeSpecial(w, m, '0s', '');
      return;
    default:
      // A zero metav1.Time / MicroTime marshals to no bytes; RawExtension and FieldsV1 with nil Raw too.
      return;
  }
}

/** One value of a field, with its tag. */
function encodeValue(w: Writer, f: Field, v: unknown, path: string): void {
  w.uint32(f.tag);
  if (f.scalar !== undefined) {
    writeScalar(w, f, v, path);
    return;
  }
  const mark = w.beginLength();
  if (v !== null) encodeFields(w, fieldMessage(f), v, path);
  w.endLength(mark);
}

function writeScalar(w: Writer, f: Field, v: unknown, path: string): void {
  switch (f.scalar) {
    case 'string':
      if (typeof v === 'string') w.string(v);
      else if (v === null) w.uint32(0);
      else throw new ProtobufEncodeError(path, `expected a string, got ${describe(v)}`);
      return;
    case 'int32':
    case 'int64':
      if (typeof v === 'number' && Number.isInteger(v)) w.int64(f.scalar === 'int32' ? v | 0 : v);
      else if (v === null) w.uint32(0);
      else throw new ProtobufEncodeError(path, `expected an integer, got ${describe(v)}`);
      return;
    case 'bool':
      if (typeof v === 'boolean') w.bool(v);
      else if (v === null) w.bool(false);
      else throw new ProtobufEncodeError(path, `expected a boolean, got ${describe(v)}`);
      return;
    case 'bytes':
      if (typeof v === 'string') w.bytes(Buffer.from(v, 'base64'));
      else if (v === null) w.uint32(0);
      else throw new ProtobufEncodeError(path, `expected a base64 string, got ${describe(v)}`);
      return;
    default:
      throw new Error(`unreachable scalar ${String(f.scalar)}`);
  }
}

/** Go's generated marshallers sort map keys (byte order of the UTF-8 keys). */
function encodeMap(w: Writer, f: Field, v: unknown, path: string): void {
  if (typeof v !== 'object' || Array.isArray(v)) throw new ProtobufEncodeError(`${path}.${f.name}`, `expected an object, got ${describe(v)}`);
  const m = v as JsonObject;
  const keys = Object.keys(m);
  if (keys.length > 1) keys.sort(compareUtf8);
  for (const key of keys) {
    const value = m[key];
    const entryPath = `${path}.${f.name}[${JSON.stringify(key)}]`;
    w.uint32((f.number << 3) | WIRE_BYTES);
    const mark = w.beginLength();
    w.uint32((1 << 3) | WIRE_BYTES);
    w.string(key);
    if (f.scalar === 'bytes') {
      // A nil []byte value is not written; an empty one is.
      if (value !== null && value !== undefined) {
        w.uint32((2 << 3) | WIRE_BYTES);
        writeScalar(w, f, value, entryPath);
      }
    } else if (f.scalar !== undefined) {
      w.uint32((2 << 3) | (f.wireType === WIRE_VARINT ? WIRE_VARINT : WIRE_BYTES));
      writeScalar(w, f, value ?? null, entryPath);
    } else {
      w.uint32((2 << 3) | WIRE_BYTES);
      const inner = w.beginLength();
      if (value !== null && value !== undefined) encodeFields(w, fieldMessage(f), value, entryPath);
      w.endLength(inner);
    }
    w.endLength(mark);
  }
}

/**
 * UTF-8 byte order is code point order. UTF-16 unit order agrees except that a
 * surrogate (a code point above U+FFFF) must sort after every BMP character.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs === ys) return x - y;
    return xs ? 1 : -1;
  }
  return a.length - b.length;
}

function encodeSpecial(w: Writer, msg: Message, v: unknown, path: string): void {
  switch (msg.special) {
    case 'time':
    case 'microtime': {
      if (typeof v !== 'string') throw new ProtobufEncodeError(path, `expected an RFC 3339 time string, got ${describe(v)}`);
      const t = parseRfc3339(v);
      if (t === undefined) throw new ProtobufEncodeError(path, `cannot parse time ${JSON.stringify(v)}`);
      w.uint32((1 << 3) | WIRE_VARINT);
      w.int64(t.seconds);
      w.uint32((2 << 3) | WIRE_VARINT);
      // metav1.Time marshals seconds only; MicroTime keeps the nanoseconds.
      w.int64(msg.special === 'microtime' ? t.nanos : 0);
      return;
    }
    case 'duration': {
      const d = typeof v === 'string' ? parseGoDuration(v) : undefined;
      if (d === undefined) throw new ProtobufEncodeError(path, `expected a duration such as "1m30s", got ${describe(v)}`);
      w.uint32((1 << 3) | WIRE_VARINT);
      w.int64(Number(d));
      return;
    }
    case 'quantity': {
      // Quantities may arrive as JSON numbers; Go's UnmarshalJSON accepts both. Marshal writes String(), the canonical form.
      if (typeof v !== 'string' && typeof v !== 'number') throw new ProtobufEncodeError(path, `expected a quantity, got ${describe(v)}`);
      w.uint32((1 << 3) | WIRE_BYTES);
      w.string(quantityString(v));
      return;
    }
    case 'intorstring': {
      // IntOrString's three fields are values: all always written.
      const isString = typeof v === 'string';
      if (!isString && !(typeof v === 'number' && Number.isInteger(v))) throw new ProtobufEncodeError(path, `expected an integer or a string, got ${describe(v)}`);
      w.uint32((1 << 3) | WIRE_VARINT);
      w.int64(isString ? 1 : 0);
      w.uint32((2 << 3) | WIRE_VARINT);
      w.int64(isString ? 0 : (v as number) | 0);
      w.uint32((3 << 3) | WIRE_BYTES);
      w.string(isString ? v : '');
      return;
    }
    case 'array': {
      if (!Array.isArray(v)) throw new ProtobufEncodeError(path, `expected an array, got ${describe(v)}`);
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (typeof item !== 'string') throw new ProtobufEncodeError(`${path}[${i}]`, `expected a string, got ${describe(item)}`);
        w.uint32((1 << 3) | WIRE_BYTES);
        w.string(item);
      }
      return;
    }
    case 'fieldsv1':
    case 'rawextension': {
      w.uint32((1 << 3) | WIRE_BYTES);
      w.string(stringifyJson(v));
      return;
    }
    default:
      throw new Error(`unreachable special ${String(msg.special)}`);
  }
}

function shortName(msg: Message): string {
  return msg.name.slice(msg.name.lastIndexOf('.') + 1);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${JSON.stringify(v)}`;
}
