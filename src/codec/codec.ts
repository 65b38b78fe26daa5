import { CORE_SCHEMA, dump, loadAll } from 'js-yaml';
import { isRecord as isPlainObject } from '../machinery/json.js';
import { JSON_TYPE, PROTOBUF_TYPE, YAML_TYPE, type Encoding } from './media-type.js';
import { decodeProtobufObject, encodeProtobufList, encodeProtobufObject, ProtobufCodecError, type TypeInfo } from './protobuf/index.js';

/**
 * Serialization of JSON values to and from the wire encodings the server
 * speaks. YAML output sorts keys like sigs.k8s.io/yaml (which round-trips
 * through a Go map) so `-o yaml` style responses look as kube-apiserver's do.
 */

export function encode(value: unknown, encoding: Encoding, pretty = false): Buffer {
  if (encoding === YAML_TYPE) return Buffer.from(toYaml(value));
  if (encoding === PROTOBUF_TYPE) return encodeProtobuf(value);
  return Buffer.from(pretty ? JSON.stringify(value, null, 2) + '\n' : JSON.stringify(value));
}

export function toYaml(value: unknown): string {
  return dump(value, { sortKeys: true, lineWidth: -1, noRefs: true });
}

export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

/** Protobuf for an object or a list (lists nest their items rather than enveloping each). */
export function encodeProtobuf(value: unknown): Buffer {
  if (!isPlainObject(value)) throw new Error('only objects can be encoded as protobuf');
  return Array.isArray(value.items) ? encodeProtobufList(value) : encodeProtobufObject(value);
}

/**
 * Decodes a request body; throws DecodeError with a message fit for a 400
 * Status. `expected` stands in for a protobuf envelope without type meta.
 */
export function decode(body: Buffer, encoding: Encoding, expected?: Partial<TypeInfo>): unknown {
  if (encoding === PROTOBUF_TYPE) {
    try {
      const decoded = decodeProtobufObject(body, expected);
      return { ...decoded.object, apiVersion: decoded.apiVersion, kind: decoded.kind };
    } catch (err) {
      if (err instanceof ProtobufCodecError) throw new DecodeError(err.message);
      throw err;
    }
  }
  const text = body.toString('utf8');
  if (encoding === JSON_TYPE) {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new DecodeError(describeJsonError(text, err));
    }
  }
  try {
    // The core schema keeps timestamps as strings, as sigs.k8s.io/yaml's YAML→JSON
    // conversion does; YAML 1.1 `yes`/`on` booleans are read as strings.
    // Repeated keys are allowed here (the last wins); field validation reports them.
    const docs = loadAll(text, { schema: CORE_SCHEMA, json: true });
    const nonEmpty = docs.filter((d) => d !== null && d !== undefined);
    if (nonEmpty.length > 1) throw new DecodeError('yaml: the request body contains more than one document');
    return nonEmpty[0] ?? null;
  } catch (err) {
    if (err instanceof DecodeError) throw err;
    throw new DecodeError(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
}

function describeJsonError(text: string, err: unknown): string {
  const msg = (err as Error).message;
  if (text.trim() === '') return 'Object \'Kind\' is missing in \'\'';
  return `couldn't get version/kind; json parse error: ${msg}`;
}

export { isRecord as isPlainObject } from '../machinery/json.js';
