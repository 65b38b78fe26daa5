import { isRecord } from '../../machinery/json.js';
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

/** kube's summarizeData(body, 30) for bodies that do not start with '{'. */
function summarize(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  if (body[0] === 0x7b) return body.length > 30 ? `${body.subarray(0, 30).toString('latin1')} ...` : body.toString('latin1');
  return body.length > 30 ? `${body.subarray(0, 30).toString('hex')} ...` : body.toString('hex');
}

function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

export function decodeCborObjectBody(body: Buffer, endpoint: { kind?: string | undefined; apiVersion?: string | undefined }, maxDepth: number): unknown {
  const kind = endpoint.kind ?? '';
  const unrecognized = (msg: string): CborBodyError =>
    new CborBodyError(`the object provided is unrecognized (must be of type ${kind}): unable to determine group/version/kind: ${msg} (${summarize(body)})`);
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
    throw new CborBodyError(`${bodyKind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${err.message}`);
  }
  if (value !== null && !isRecord(value)) throw unrecognized(`cbor: cannot unmarshal ${topLevelTypeName(body)} into Go value of type v1.TypeMeta`);
  return value;
}
