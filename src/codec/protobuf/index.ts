/**
 * Kubernetes protobuf encoding (`application/vnd.kubernetes.protobuf`) for the
 * built-in types: request bodies from typed clients (kubectl create ns/cm/
 * secret ...) decode to the JSON object a JSON client would have sent, and
 * responses encode for clients that accept only protobuf.
 *
 * Descriptors load on first use (see descriptor.ts): importing this module
 * reads no file.
 */
import { findKind } from './descriptor.js';
import { decodeEnveloped, type DecodedObject, type TypeInfo, writeEnveloped } from './envelope.js';
import { ProtobufEncodeError } from './errors.js';
import { Writer } from './wire.js';

export {
  ProtobufCodecError,
  ProtobufDecodeError,
  ProtobufEncodeError,
  ProtobufEnvelopeError,
  ProtobufMissingKindError,
  ProtobufUnsupportedKindError,
} from './errors.js';
export type { DecodedObject, TypeInfo } from './envelope.js';
export { envelopeType, hasEnvelopePrefix } from './envelope.js';
export { decodeWatchEvents, decodeWatchEventMessage, encodeWatchEvent, type DecodedWatchEvent, type WatchEventType } from './watch.js';
export { composeProtobufList, encodeProtobufMessage, envelopeMessage, frameWatchEvent, watchEventFrameHeader, type ProtobufListMeta } from './compose.js';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
export const PROTOBUF_WATCH_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';

/**
 * Decodes an enveloped protobuf object. `defaults` stand in for an envelope
 * whose kind or apiVersion is empty (pass the type the endpoint expects).
 * Throws ProtobufEnvelopeError (no k8s\0 prefix, empty body),
 * ProtobufMissingKindError, ProtobufUnsupportedKindError or
 * ProtobufDecodeError (malformed message); all extend ProtobufCodecError.
 */
export function decodeProtobufObject(bytes: Uint8Array, defaults?: Partial<TypeInfo>): DecodedObject {
  return decodeEnveloped(bytes, defaults);
}

/**
 * Encodes a JSON object (with apiVersion and kind, or given `defaults`) as an
 * enveloped protobuf object. Throws ProtobufUnsupportedKindError for kinds
 * without a proto message (custom resources, apiextensions, apiregistration,
 * Table) and ProtobufEncodeError when a value does not fit its field.
 */
export function encodeProtobufObject(obj: Record<string, unknown>, defaults?: Partial<TypeInfo>): Buffer {
  const w = new Writer(estimate(obj));
  writeEnveloped(w, obj, defaults);
  return w.finish();
}

/**
 * Encodes a list (`<Kind>List`, PartialObjectMetadataList, List) as one
 * enveloped message: lists are plain messages whose items are nested, not
 * enveloped one by one.
 */
export function encodeProtobufList(list: Record<string, unknown>, defaults?: Partial<TypeInfo>): Buffer {
  const items = list['items'];
  if (items !== undefined && items !== null && !Array.isArray(items)) throw new ProtobufEncodeError('items', 'expected an array');
  return encodeProtobufObject(list, defaults);
}

/** Whether the kind has a protobuf message (else answer 406 to a protobuf-only client, or fall back to JSON). */
export function supportsProtobuf(apiVersion: string, kind: string): boolean {
  return findKind(apiVersion, kind) !== undefined;
}

function estimate(obj: Record<string, unknown>): number {
  const items = obj['items'];
  return Array.isArray(items) ? 1024 + items.length * 2048 : 2048;
}
