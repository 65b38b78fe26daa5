import { parseJsonAst, JsonSyntaxError } from '../machinery/json-decode.js';
import { typeMetaUnmarshalError } from '../machinery/go-compat.js';
import { ApiError, qualifiedResource, type GroupResource, type StatusCause } from '../machinery/errors.js';
import type { KeyValue } from './store.js';
import { metaOf, type KubeObject } from '../machinery/object.js';

/**
 * Decoding a stored value into an object of the resource's kind. A value
 * that does not decode (bytes written behind the server's back, a wrong kind)
 * is a corrupt object, as kube-apiserver calls it: reads of its key fail with
 * a 500 that names the key, lists that reach it fail, and only a DELETE with
 * ignoreStoreReadErrorWithClusterBreakingPotential removes it.
 */

/** kube's storage.StorageError code for a corrupt object (ErrCodeCorruptObj). */
const CORRUPT_OBJECT_CODE = 7;

/** At most this many corrupt keys are named in one list error (kube's corruptObjErrAggregatorFactory(100)). */
export const MAX_LISTED_CORRUPT_OBJECTS = 100;

/**
 * A stored value that cannot be decoded: a 500 InternalError whose message is
 * kube's StorageError for it (`StorageError: corrupt object, ... Key: <key> ...`).
 */
export class CorruptObjectError extends ApiError {
  constructor(
    readonly key: string,
    /** The revision the value was written at. */
    readonly revision: number,
    /** Why it does not decode. */
    readonly detail: string,
  ) {
    const storageError = corruptStorageMessage(key, revision, detail);
    super({ message: `Internal error occurred: ${storageError}`, reason: 'InternalError', details: { causes: [{ message: storageError }] }, code: 500 });
    this.name = 'CorruptObjectError';
  }

  /** The storage error's own text, without the Status prefix. */
  get storageMessage(): string {
    return corruptStorageMessage(this.key, this.revision, this.detail);
  }
}

function corruptStorageMessage(key: string, revision: number, detail: string): string {
  return `StorageError: corrupt object, Code: ${CORRUPT_OBJECT_CODE}, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${revision}: ${detail}`;
}

/** Go's encoding/json name for a JSON value's kind. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** Go's message for bytes that are not JSON (JSON.parse's own reads differently). */
function syntaxError(bytes: string | Uint8Array): string {
  try {
    parseJsonAst(bytes);
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err.message;
  }
  return 'invalid JSON';
}

/** The Go package a kind decodes into, for kube's conversion error: `core` for the core group, else the group's first label. */
function internalPackage(group: string): string {
  return group === '' ? 'core' : group.split('.')[0]!;
}

/**
 * Why `value` is not an object of `kind` (in `group`), in the words of kube's
 * decoder; undefined when it is one.
 */
function undecodable(value: unknown, group: string, kind: string): string | undefined {
  if (value === null) return "Object 'Kind' is missing in 'null'";
  if (typeof value !== 'object' || Array.isArray(value)) {
    return `couldn't get version/kind; json parse error: ${typeMetaUnmarshalError(value)}`;
  }
  const obj = value as KubeObject;
  // Objects the server wrote always carry their kind; programmatic writes may leave it out.
  if (obj.kind !== undefined && obj.kind !== kind) {
    const version = typeof obj.apiVersion === 'string' ? obj.apiVersion.split('/').pop() : '';
    return `converting (${version}.${String(obj.kind)}) to (${internalPackage(group)}.${kind}): unknown conversion`;
  }
  const meta = obj.metadata;
  if (meta !== undefined && meta !== null && (typeof meta !== 'object' || Array.isArray(meta))) {
    return `json: cannot unmarshal ${jsonKind(meta)} into Go struct field ${kind}.metadata of type v1.ObjectMeta`;
  }
  return undefined;
}

/**
 * The object stored in `kv`, with `revision` stamped as its resourceVersion.
 * Throws CorruptObjectError when the value is not an object of `kind`.
 */
export function decodeStoredObject(kv: KeyValue, group: string, kind: string, revision = kv.modRevision): KubeObject {
  // A value written behind the server's back may not even be text (SQLite hands back a BLOB as bytes).
  const raw: unknown = kv.value;
  const bytes = typeof raw === 'string' || Buffer.isBuffer(raw) ? raw : String(raw);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString());
  } catch {
    throw new CorruptObjectError(kv.key, kv.modRevision, `couldn't get version/kind; json parse error: ${syntaxError(bytes)}`);
  }
  const why = undecodable(value, group, kind);
  if (why !== undefined) throw new CorruptObjectError(kv.key, kv.modRevision, why);
  const obj = value as KubeObject;
  metaOf(obj).resourceVersion = String(revision);
  return obj;
}

/**
 * The error of a list that reached corrupt objects (in key order). With
 * AllowUnsafeMalformedObjectDeletion kube names every one (up to 100) in a
 * StorageReadError; without it the list fails on the first, as a get of it does.
 */
export function corruptListError(gr: GroupResource, corrupt: readonly CorruptObjectError[], aggregate: boolean): ApiError {
  if (!aggregate) return corrupt[0]!;
  const causes: StatusCause[] = corrupt.slice(0, MAX_LISTED_CORRUPT_OBJECTS).map((c) => ({ reason: 'UnexpectedServerResponse', message: c.storageMessage, field: c.key }));
  if (corrupt.length > MAX_LISTED_CORRUPT_OBJECTS) causes.push({ reason: 'FieldValueTooMany', message: 'too many errors, the list is truncated' });
  const details: ApiError['status']['details'] = {};
  if (gr.group) details.group = gr.group;
  details.kind = gr.resource;
  // kube names the "prefix where the reading errors occurred" with the operation: list.
  details.name = 'list';
  details.causes = causes;
  return new ApiError({ message: `failed to read one or more ${qualifiedResource(gr)} from the storage`, reason: 'StorageReadError', details, code: 500 });
}
