/**
 * The Kubernetes protobuf envelope: the bytes 6b 38 73 00 ("k8s\0"), then a
 * runtime.Unknown message { typeMeta {apiVersion, kind}, raw (the object's own
 * message), contentEncoding, contentType }. Decoding follows
 * apimachinery's protobuf.Serializer: the envelope's type, completed from the
 * caller's defaults, selects the message the raw bytes are read as.
 */
import { messageForKind } from './descriptor.js';
import { decodeObject, setNestedEnvelopeDecoder, type JsonObject } from './decode.js';
import { encodeFields } from './encode.js';
import { ProtobufDecodeError, ProtobufEnvelopeError, ProtobufMissingKindError } from './errors.js';
import { Reader, Writer, WIRE_BYTES } from './wire.js';

export const ENVELOPE_PREFIX: readonly number[] = [0x6b, 0x38, 0x73, 0x00];

export interface TypeInfo {
  apiVersion: string;
  kind: string;
}

export interface DecodedObject extends TypeInfo {
  /** The object as kube-apiserver's JSON encoder would write it (kind and apiVersion first when the type has TypeMeta). */
  object: JsonObject;
  /** Unknown.contentType as sent ('' means protobuf). */
  contentType: string;
}

interface Unknown {
  apiVersion: string;
  kind: string;
  rawStart: number;
  rawEnd: number;
  contentEncoding: string;
  contentType: string;
}

export function hasEnvelopePrefix(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00;
}

function readUnknown(buf: Buffer): Unknown {
  if (buf.length === 0) throw new ProtobufEnvelopeError('empty data');
  if (!hasEnvelopePrefix(buf)) {
    throw new ProtobufEnvelopeError(`provided data does not appear to be a protobuf message, expected prefix [${ENVELOPE_PREFIX.join(' ')}]`);
  }
  if (buf.length === 4) throw new ProtobufEnvelopeError('empty body');
  const u: Unknown = { apiVersion: '', kind: '', rawStart: 0, rawEnd: 0, contentEncoding: '', contentType: '' };
  const r = new Reader(buf, 4, buf.length);
  while (r.pos < r.end) {
    const tag = r.uint32();
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 0) throw new ProtobufDecodeError('proto: illegal tag 0');
    if (number > 4 || wireType !== WIRE_BYTES) {
      r.skip(wireType);
      continue;
    }
    const n = r.length();
    const start = r.pos;
    r.pos += n;
    if (number === 1) {
      const t = new Reader(buf, start, start + n);
      while (t.pos < t.end) {
        const ttag = t.uint32();
        if (ttag === ((1 << 3) | WIRE_BYTES)) u.apiVersion = t.string();
        else if (ttag === ((2 << 3) | WIRE_BYTES)) u.kind = t.string();
        else t.skip(ttag & 7);
      }
    } else if (number === 2) {
      u.rawStart = start;
      u.rawEnd = start + n;
    } else if (number === 3) u.contentEncoding = buf.toString('utf8', start, start + n);
    else u.contentType = buf.toString('utf8', start, start + n);
  }
  return u;
}

function goTypeMeta(u: Unknown): string {
  return `runtime.TypeMeta{APIVersion:${JSON.stringify(u.apiVersion)}, Kind:${JSON.stringify(u.kind)}}`;
}

/**
 * Decodes an enveloped object. `defaults` fill in an envelope that leaves kind
 * or apiVersion empty (the type the endpoint expects), as kube's decoder does
 * with the request's group version kind.
 */
export function decodeEnveloped(bytes: Uint8Array, defaults?: Partial<TypeInfo>): DecodedObject {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u = readUnknown(buf);
  if (u.contentEncoding !== '') throw new ProtobufDecodeError(`unsupported protobuf content encoding ${JSON.stringify(u.contentEncoding)}`);
  let kind = u.kind;
  let apiVersion = u.apiVersion;
  if (kind === '' && defaults?.kind) kind = defaults.kind;
  if (apiVersion === '' && defaults?.apiVersion) apiVersion = defaults.apiVersion;
  if (kind === '') throw new ProtobufMissingKindError(`Object 'Kind' is missing in '${goTypeMeta(u)}'`);
  if (apiVersion === '') throw new ProtobufMissingKindError(`Object 'apiVersion' is missing in '${goTypeMeta(u)}'`);
  const msg = messageForKind(apiVersion, kind);
  const head: JsonObject = msg.typeMeta ? { kind, apiVersion } : {};
  const object = decodeObject(msg, buf, u.rawStart, u.rawEnd, head);
  return { apiVersion, kind, object, contentType: u.contentType };
}

/** The type an enveloped object names, completed from `defaults` as decodeEnveloped completes it (kind '' when neither names one). */
export function envelopeType(bytes: Uint8Array, defaults?: Partial<TypeInfo>): TypeInfo {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u = readUnknown(buf);
  return { apiVersion: u.apiVersion || defaults?.apiVersion || '', kind: u.kind || defaults?.kind || '' };
}

setNestedEnvelopeDecoder((bytes) => decodeEnveloped(bytes).object);

/** Resolves the type of an object to encode: its own kind/apiVersion, else the defaults. */
export function typeOf(obj: JsonObject, defaults?: Partial<TypeInfo>): TypeInfo {
  const kind = typeof obj['kind'] === 'string' && obj['kind'] !== '' ? obj['kind'] : (defaults?.kind ?? '');
  const apiVersion = typeof obj['apiVersion'] === 'string' && obj['apiVersion'] !== '' ? obj['apiVersion'] : (defaults?.apiVersion ?? '');
  if (kind === '') throw new ProtobufMissingKindError(`Object 'Kind' is missing in '${JSON.stringify(obj).slice(0, 200)}'`);
  if (apiVersion === '') throw new ProtobufMissingKindError(`Object 'apiVersion' is missing in '${JSON.stringify(obj).slice(0, 200)}'`);
  return { apiVersion, kind };
}

/** Writes the prefix and a runtime.Unknown with this type meta, its raw bytes written by `writeRaw`. */
export function writeUnknown(w: Writer, type: TypeInfo, writeRaw: () => void): void {
  w.raw(ENVELOPE_PREFIX);
  w.uint32((1 << 3) | WIRE_BYTES);
  const tm = w.beginLength();
  w.uint32((1 << 3) | WIRE_BYTES);
  w.string(type.apiVersion);
  w.uint32((2 << 3) | WIRE_BYTES);
  w.string(type.kind);
  w.endLength(tm);
  w.uint32((2 << 3) | WIRE_BYTES);
  const raw = w.beginLength();
  writeRaw();
  w.endLength(raw);
  // contentEncoding and contentType: empty strings, as Go writes every string field.
  w.uint32((3 << 3) | WIRE_BYTES);
  w.uint32(0);
  w.uint32((4 << 3) | WIRE_BYTES);
  w.uint32(0);
}

const NO_TYPE_META: TypeInfo = { apiVersion: '', kind: '' };

/** Writes prefix + Unknown for `obj` into `w`. */
export function writeEnveloped(w: Writer, obj: JsonObject, defaults?: Partial<TypeInfo>): void {
  const type = typeOf(obj, defaults);
  const msg = messageForKind(type.apiVersion, type.kind);
  // typeMeta: a type without TypeMeta (WatchEvent) reports none, as Go's GetObjectKind does.
  writeUnknown(w, msg.typeMeta ? type : NO_TYPE_META, () => encodeFields(w, msg, obj, type.kind));
}
