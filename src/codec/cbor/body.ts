import { isRecord } from '../../machinery/json.js';
import { cannotBeHandledMessage, unrecognizedObjectMessage } from '../decode-error-text.js';
import { CborDecodeError, decodeCbor, readTypeMeta, topLevelTypeName } from './decode.js';

/**
 * A CBOR object body (create, update) decoded as kube's CBOR serializer and
 * create/update handlers do, failures worded as their transformDecodeError:
 * a body whose kind cannot be read is "unrecognized" with a hex summary of
 * its first 30 bytes; otherwise the body's kind and version say what could
 * not be handled.
 */
export class CborBodyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CborBodyError';
  }
}

function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

export function decodeCborObjectBody(body: Buffer, endpoint: { kind?: string | undefined; apiVersion?: string | undefined }, maxDepth: number): unknown {
  const kind = endpoint.kind ?? '';
  const unrecognized = (msg: string): CborBodyError => new CborBodyError(unrecognizedObjectMessage(kind, `unable to determine group/version/kind: ${msg}`, body));
  let value: unknown;
  try {
    value = decodeCbor(body, maxDepth);
  } catch (err) {
    if (!(err instanceof CborDecodeError)) throw err;
    if (err.typeMetaUnreadable) throw unrecognized(err.message);
    const meta = readTypeMeta(body, maxDepth);
    if (!meta) throw unrecognized(err.message);
    const bodyKind = meta.kind || kind;
    const version = meta.apiVersion ? versionOf(meta.apiVersion) : versionOf(endpoint.apiVersion ?? '');
    throw new CborBodyError(cannotBeHandledMessage(bodyKind, version, kind, err.message));
  }
  if (value !== null && !isRecord(value)) throw unrecognized(`cbor: cannot unmarshal ${topLevelTypeName(body)} into Go value of type v1.TypeMeta`);
  return value;
}
