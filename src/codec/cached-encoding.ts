import type { CachedObject } from './cached-object.js';
import type { KubeObject } from '../machinery/object.js';
import { encodeProtobufMessage, envelopeMessage, watchEventFrameHeader } from './protobuf/index.js';
import { stringifyJson } from '../machinery/deep-json.js';
import { goJsonText } from './go-json.js';

/**
 * Bytes of cached objects (JSON, and protobuf for clients that prefer it),
 * made once per object version and served version and shared by every list
 * response and watcher: a list of 10,000 objects is a concatenation of cached
 * item bytes, a watch event to 1,000 watchers one encoding.
 */

export interface ServedType {
  apiVersion: string;
  kind: string;
  /** The stored object as the served version (without mutating it). */
  toServed(obj: KubeObject): KubeObject;
}

/**
 * A list item: the served object without apiVersion/kind, as kube encodes
 * typed list items; a built-in kind as its Go struct writes it (go-json.ts),
 * made here once per object version.
 */
export function jsonItemBytes(cached: CachedObject, served: ServedType): Buffer {
  return cached.encoded(`json-item:${served.apiVersion}`, () => makeJsonItem(cached, served));
}

function makeJsonItem(cached: CachedObject, served: ServedType): Buffer {
  const object = served.toServed(cached.object);
  const go = goJsonText(object, { item: true, apiVersion: served.apiVersion, kind: served.kind });
  if (go !== undefined) return Buffer.from(go);
  const { apiVersion: _a, kind: _k, ...rest } = object;
  return Buffer.from(stringifyJson(rest));
}

/** A whole object: kind and apiVersion first, then the item's fields (no newline: watch events embed it). */
export function jsonObjectBytes(cached: CachedObject, served: ServedType): Buffer {
  return cached.encoded(`json-object:${served.apiVersion}`, () => Buffer.concat(jsonObjectParts(cached, served)));
}

/** The object's bytes as parts, from the list item's bytes (made for this if no list has made them). */
function jsonObjectParts(cached: CachedObject, served: ServedType): Buffer[] {
  const item = cached.encodedIfMade(`json-item:${served.apiVersion}`) ?? makeJsonItem(cached, served);
  const head = `{"kind":${JSON.stringify(served.kind)},"apiVersion":${JSON.stringify(served.apiVersion)}`;
  return item.length > 2 ? [Buffer.from(head + ','), item.subarray(1)] : [Buffer.from(head + '}')];
}

const COMMA = Buffer.from(',');
/** json.Encoder ends every value with a newline. */
export const JSON_NEWLINE = Buffer.from('\n');
const LIST_END = Buffer.from(']}\n');

/**
 * `{"kind":"<Kind>List","apiVersion":…,"metadata":…,"items":[…]}` from cached
 * items, as the parts to write (joining them would copy the whole list).
 */
export function jsonListParts(listKind: string, apiVersion: string, listMeta: Record<string, unknown>, items: Buffer[]): Buffer[] {
  const head = Buffer.from(`{"kind":${JSON.stringify(listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(listMeta)},"items":[`);
  const parts: Buffer[] = [head];
  items.forEach((b, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(b);
  });
  parts.push(LIST_END);
  return parts;
}

const JSON_EVENT_SUFFIX = Buffer.from('}\n');
const jsonEventPrefixes = new Map<string, Buffer>();

function jsonEventPrefix(type: string): Buffer {
  let prefix = jsonEventPrefixes.get(type);
  if (!prefix) jsonEventPrefixes.set(type, (prefix = Buffer.from(`{"type":${JSON.stringify(type)},"object":`)));
  return prefix;
}

/**
 * One watch event line, `{"type":"…","object":…}\n`, as parts: a shared prefix
 * per type, the object's bytes as given, a shared suffix (events encoded
 * when written: initial state, replayed history).
 */
export function jsonWatchEventParts(type: string, object: Buffer): Buffer[] {
  return [jsonEventPrefix(type), object, JSON_EVENT_SUFFIX];
}

/** Frames from this size are strings (sharedEventFrame); node's Buffer pool serves smaller ones. */
const STRING_FRAME_BYTES = 4096;

/**
 * A live watch event's whole frame, made once per object version, event type
 * and variant and written as it is by every watcher. From 4 KiB it is kept as
 * a one-byte string of its bytes (write it with the 'latin1' encoding), not a
 * Buffer: such Buffers are each their own allocation on the C heap, where
 * these long-lived frames, made among the many short-lived per-socket TLS
 * buffers of a burst (a thousand stalled connections), kept glibc from giving
 * the burst's freed pages back; V8's heap compacts. Smaller frames stay
 * Buffers (slices of node's pooled slabs), which sockets take without the
 * copy a string costs per write. Joining parts per watcher instead made one
 * copy per watcher and event (~200 MB/s at 1,000 watchers × 50 events/s).
 */
export function sharedEventFrame(cached: CachedObject, variant: string, parts: () => Buffer[]): string | Buffer {
  return cached.frame(variant, () => {
    const frame = Buffer.concat(parts());
    return frame.length < STRING_FRAME_BYTES ? frame : frame.toString('latin1');
  });
}

/** A live JSON watch event's frame, shared by every watcher (sharedEventFrame). */
export function jsonWatchEventFrame(type: string, cached: CachedObject, served: ServedType): string | Buffer {
  return sharedEventFrame(cached, `json-event:${type}:${served.apiVersion}`, () => {
    const object = cached.encodedIfMade(`json-object:${served.apiVersion}`);
    return [jsonEventPrefix(type), ...(object ? [object] : jsonObjectParts(cached, served)), JSON_EVENT_SUFFIX];
  });
}

/** A protobuf watch frame as parts: its header (kept with the object version) and the shared envelope. */
export function protobufWatchEventParts(type: string, cached: CachedObject, served: ServedType): Buffer[] {
  const enveloped = protobufObjectBytes(cached, served);
  const header = cached.encoded(`pb-event-header:${type}:${served.apiVersion}`, () => watchEventFrameHeader(type, enveloped.length));
  return [header, enveloped];
}

/** A live protobuf watch event's frame (its length and header, then the envelope), shared by every watcher (sharedEventFrame). */
export function protobufWatchEventFrame(type: string, cached: CachedObject, served: ServedType): string | Buffer {
  return sharedEventFrame(cached, `pb-event:${type}:${served.apiVersion}`, () => {
    const enveloped = cached.encodedIfMade(`pb-object:${served.apiVersion}`) ?? makeProtobufObject(cached, served);
    return [watchEventFrameHeader(type, enveloped.length), enveloped];
  });
}

/** The served object's protobuf message (a list item, or Unknown.raw). */
export function protobufMessageBytes(cached: CachedObject, served: ServedType): Buffer {
  return cached.encoded(`pb-message:${served.apiVersion}`, (obj) => encodeProtobufMessage(served.toServed(obj)));
}

/** The served object in the protobuf envelope. */
export function protobufObjectBytes(cached: CachedObject, served: ServedType): Buffer {
  return cached.encoded(`pb-object:${served.apiVersion}`, () => makeProtobufObject(cached, served));
}

function makeProtobufObject(cached: CachedObject, served: ServedType): Buffer {
  return envelopeMessage(served, cached.encodedIfMade(`pb-message:${served.apiVersion}`) ?? encodeProtobufMessage(served.toServed(cached.object)));
}
