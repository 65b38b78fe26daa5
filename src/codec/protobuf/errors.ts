/**
 * Errors of the protobuf codec. The HTTP layer answers a ProtobufDecodeError on
 * a request body with 400 and the error's message, as kube-apiserver does for a
 * body its serializer rejects; a ProtobufUnsupportedKindError on a response
 * means the client must be offered another encoding (kube answers 406 when the
 * client accepts only protobuf).
 */

/** Base class: every error this codec throws is one of these. */
export class ProtobufCodecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The bytes are not a well-formed message (truncated, bad wire type, bad varint, bad embedded JSON). */
export class ProtobufDecodeError extends ProtobufCodecError {}

/** The bytes do not start with the k8s\0 envelope prefix, or the envelope is empty. */
export class ProtobufEnvelopeError extends ProtobufDecodeError {}

/** The envelope (or the caller's defaults) leave kind or apiVersion unset. */
export class ProtobufMissingKindError extends ProtobufDecodeError {}

/**
 * No protobuf message exists for this group/version/kind: custom resources,
 * aggregated APIs and the apiextensions/apiregistration types, whose .proto
 * files are not part of the generated descriptors.
 */
export class ProtobufUnsupportedKindError extends ProtobufCodecError {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(`no protobuf message is known for kind "${kind}" in version "${apiVersion}"`);
  }
}

/** A JSON value cannot be written as the field's proto type (e.g. a string where an integer belongs). */
export class ProtobufEncodeError extends ProtobufCodecError {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}
