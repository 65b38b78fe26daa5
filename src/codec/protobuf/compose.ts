/**
 * Protobuf bodies assembled from parts encoded once: an object's message bytes
 * (no envelope) are cached per object version, and lists, enveloped objects and
 * watch frames are built around them, so a list or a watch fan-out encodes each
 * object once, as the JSON path does.
 */
import { messageForKind } from './descriptor.js';
import { typeOf, type TypeInfo, writeUnknown } from './envelope.js';
import { encodeFields } from './encode.js';
import { varintSize, Writer, WIRE_BYTES, WIRE_VARINT } from './wire.js';

/** The object's own message (what Unknown.raw holds), without the envelope. */
export function encodeProtobufMessage(obj: Record<string, unknown>, defaults?: Partial<TypeInfo>): Buffer {
  const { apiVersion, kind } = typeOf(obj, defaults);
  const w = new Writer(2048);
  encodeFields(w, messageForKind(apiVersion, kind), obj, kind);
  return w.finish();
}

/** An enveloped object from its cached message bytes (type meta: the kind's, for types that carry it). */
export function envelopeMessage(type: TypeInfo, message: Buffer): Buffer {
  const w = new Writer(message.length + 64);
  writeUnknown(w, type, () => w.raw(message));
  return w.finish();
}

export interface ProtobufListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/**
 * `<Kind>List` from cached item messages: every built-in list message is
 * `{ListMeta metadata = 1; repeated <Kind> items = 2}`.
 */
export function composeProtobufList(listType: TypeInfo, meta: ProtobufListMeta, items: Buffer[]): Buffer {
  const size = items.reduce((n, b) => n + b.length + 6, 128);
  const w = new Writer(size);
  writeUnknown(w, listType, () => {
    w.uint32((1 << 3) | WIRE_BYTES);
    const lm = w.beginLength();
    // ListMeta: selfLink 1, resourceVersion 2, continue 3, remainingItemCount 4 (Go writes the strings even when empty).
    w.uint32((1 << 3) | WIRE_BYTES);
    w.string('');
    w.uint32((2 << 3) | WIRE_BYTES);
    w.string(meta.resourceVersion ?? '');
    w.uint32((3 << 3) | WIRE_BYTES);
    w.string(meta.continue ?? '');
    if (meta.remainingItemCount !== undefined) {
      w.uint32((4 << 3) | WIRE_VARINT);
      w.int64(meta.remainingItemCount);
    }
    w.endLength(lm);
    for (const item of items) {
      w.uint32((2 << 3) | WIRE_BYTES);
      w.uint32(item.length);
      w.raw(item);
    }
  });
  return w.finish();
}

/**
 * The bytes of a watch frame before its enveloped object (see watch.ts for the
 * framing): the frame is this header followed by the object unchanged, so a
 * shared encoding of the object can be written after it without a copy.
 */
export function watchEventFrameHeader(type: string, envelopedLength: number): Buffer {
  const typeLength = Buffer.byteLength(type);
  const extLength = 1 + varintSize(envelopedLength) + envelopedLength;
  const w = new Writer(32 + typeLength);
  w.raw(FRAME_PLACEHOLDER);
  w.uint32((1 << 3) | WIRE_BYTES);
  w.string(type);
  w.uint32((2 << 3) | WIRE_BYTES);
  w.uint32(extLength);
  w.uint32((1 << 3) | WIRE_BYTES);
  w.uint32(envelopedLength);
  const header = w.finish();
  header.writeUInt32BE(header.length - 4 + envelopedLength, 0);
  return header;
}

const FRAME_PLACEHOLDER = [0, 0, 0, 0];

/** One watch frame around an enveloped object. */
export function frameWatchEvent(type: string, enveloped: Buffer): Buffer {
  return Buffer.concat([watchEventFrameHeader(type, enveloped.length), enveloped]);
}
