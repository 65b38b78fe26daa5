/**
 * Protobuf watch streams (`application/vnd.kubernetes.protobuf;stream=watch`).
 * Each event is a frame: a 4-byte big-endian length, then a metav1.WatchEvent
 * message written without an envelope (apimachinery's RawSerializer with the
 * LengthDelimitedFramer), whose `object` RawExtension holds the object encoded
 * with the envelope, so the client learns its kind from the frame itself.
 */
import { type DecodedObject, decodeEnveloped, type TypeInfo, writeEnveloped } from './envelope.js';
import { ProtobufDecodeError } from './errors.js';
import { Reader, Writer, WIRE_BYTES } from './wire.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One framed event, ready to write to the response. */
export function encodeWatchEvent(type: WatchEventType | string, object: Record<string, unknown>, defaults?: Partial<TypeInfo>): Buffer {
  const w = new Writer(512);
  const frame = w.beginFrame();
  w.uint32((1 << 3) | WIRE_BYTES);
  w.string(type);
  w.uint32((2 << 3) | WIRE_BYTES);
  const ext = w.beginLength();
  w.uint32((1 << 3) | WIRE_BYTES);
  const raw = w.beginLength();
  writeEnveloped(w, object, defaults);
  w.endLength(raw);
  w.endLength(ext);
  w.endFrame(frame);
  return w.finish();
}

export interface DecodedWatchEvent {
  type: string;
  object: DecodedObject;
}

/**
 * Splits a buffer of frames into events; `rest` is the tail of an incomplete
 * frame (feed it back with the next chunk).
 */
export function decodeWatchEvents(bytes: Uint8Array): { events: DecodedWatchEvent[]; rest: Buffer } {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const events: DecodedWatchEvent[] = [];
  let pos = 0;
  while (buf.length - pos >= 4) {
    const n = buf.readUInt32BE(pos);
    if (buf.length - pos - 4 < n) break;
    events.push(decodeWatchEventMessage(buf.subarray(pos + 4, pos + 4 + n)));
    pos += 4 + n;
  }
  return { events, rest: buf.subarray(pos) };
}

/** One WatchEvent message (the frame payload). */
export function decodeWatchEventMessage(buf: Buffer): DecodedWatchEvent {
  let type = '';
  let raw: Buffer | undefined;
  const r = new Reader(buf, 0, buf.length);
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === ((1 << 3) | WIRE_BYTES)) type = r.string();
    else if (tag === ((2 << 3) | WIRE_BYTES)) {
      const n = r.length();
      const ext = new Reader(buf, r.pos, r.pos + n);
      r.pos += n;
      while (ext.pos < ext.end) {
        const etag = ext.uint32();
        if (etag === ((1 << 3) | WIRE_BYTES)) {
          const m = ext.length();
          raw = buf.subarray(ext.pos, ext.pos + m);
          ext.pos += m;
        } else ext.skip(etag & 7);
      }
    } else r.skip(tag & 7);
  }
  if (raw === undefined) throw new ProtobufDecodeError('watch event has no object');
  return { type, object: decodeEnveloped(raw) };
}
