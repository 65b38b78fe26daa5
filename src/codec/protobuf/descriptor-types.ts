/**
 * Shape of src/codec/protobuf/generated/k8s-proto.json, written by
 * scripts/generate-proto.ts and read lazily by the runtime codec.
 *
 * The file is compact on purpose (it is parsed on the first protobuf request,
 * not at start-up): a field is a tuple rather than an object.
 */

/** Scalar proto types used by the Kubernetes .proto files (no floats, no enums). */
export type ScalarType = 'string' | 'int32' | 'int64' | 'bool' | 'bytes';

/**
 * Messages whose JSON form is not an object of their proto fields. Each one has
 * a hand-written MarshalJSON/UnmarshalJSON upstream.
 */
export type SpecialKind =
  | 'time' // metav1.Time: RFC 3339 seconds, {seconds,nanos} in proto, null when zero
  | 'microtime' // metav1.MicroTime: RFC 3339 with 6 fractional digits
  | 'duration' // metav1.Duration: Go duration string ("1h2m3s"), int64 nanoseconds in proto
  | 'quantity' // resource.Quantity: string, {string} in proto
  | 'intorstring' // intstr.IntOrString: number or string, {type,intVal,strVal} in proto
  | 'fieldsv1' // metav1.FieldsV1: embedded JSON, {Raw bytes} in proto
  | 'rawextension' // runtime.RawExtension: embedded JSON, {raw bytes} in proto
  | 'array'; // a named []string (e.g. ExtraValue, Verbs): JSON array, {items} in proto

/** Bits of FieldDesc[3]. */
export const FIELD_REPEATED = 1;
export const FIELD_MAP = 2;
/** Go `json:",inline"`: the sub-message's fields sit directly in the parent JSON object. */
export const FIELD_INLINE = 4;
/** Listed in the OpenAPI `required` set: the Go field has no omitempty, so zero values show in JSON. */
export const FIELD_REQUIRED = 8;
/**
 * A Go pointer (scalar or message): a present zero value is meaningful and
 * must survive decoding; nil is not written. A singular message field without
 * it is a Go value struct, always written by encoding/json and go-to-protobuf.
 */
export const FIELD_POINTER = 16;
/** The Go json tag has omitempty (a zero scalar, nil pointer, empty slice or map is not written). */
export const FIELD_OMITEMPTY = 32;
/** The Go json tag has omitzero: a zero struct is not written either. */
export const FIELD_OMITZERO = 64;

/**
 * [jsonName, fieldNumber, type, flags]. `type` is a ScalarType or the full name
 * of a message (no leading dot). For maps the key is always a string and `type`
 * is the value type.
 */
export type FieldDesc = [name: string, number: number, type: string, flags: number];

export interface MessageDesc {
  /** Declaration order, which is the Go struct order and therefore the JSON key order. */
  fields: FieldDesc[];
  special?: SpecialKind;
  /** The Go type embeds TypeMeta, so its JSON carries kind and apiVersion. */
  typeMeta?: boolean;
}

export interface ProtoDescriptorFile {
  source: string;
  generator: string;
  /** "group/version" (core: "v1") → proto package holding that version's kinds. */
  groupVersions: Record<string, string>;
  /**
   * Kinds that metav1.AddToGroupVersion registers in every group version;
   * their messages live in the meta/v1 package.
   */
  metaKinds: Record<string, string>;
  messages: Record<string, MessageDesc>;
}
