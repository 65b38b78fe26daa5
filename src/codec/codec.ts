import { randomBytes } from 'node:crypto';
import { dump } from 'js-yaml';
import { JsonSyntaxError, parseJsonAst } from '../machinery/json-decode.js';
import { stringifyJson } from '../machinery/deep-json.js';
import { firstNestedPast, jsonNestingExceeds, MAX_NESTING_DEPTH } from '../machinery/nesting.js';
import { constructYaml, parseYaml } from './yaml-decode.js';
import { deepToYaml } from './yaml-deep-encode.js';
import { isRecord as isPlainObject } from '../machinery/json.js';
import { CBOR_TYPE, JSON_TYPE, PROTOBUF_TYPE, YAML_TYPE, type Encoding } from './media-type.js';
import { encodeCbor } from './cbor/encode.js';
import { CborBodyError, decodeCborObjectBody } from './cbor/body.js';
import { goJsonText, goShapedObject } from './go-json.js';
import { decodeProtobufObject, encodeProtobufList, encodeProtobufObject, envelopeType, ProtobufCodecError, ProtobufEnvelopeError, type TypeInfo } from './protobuf/index.js';

/**
 * Serialization of JSON values to and from the wire encodings the server
 * speaks. YAML output sorts keys like sigs.k8s.io/yaml (which round-trips
 * through a Go map) so `-o yaml` style responses look as kube-apiserver's do.
 */

export function encode(value: unknown, encoding: Encoding, pretty = false): Buffer {
  if (encoding === YAML_TYPE) return Buffer.from(toYaml(value));
  if (encoding === PROTOBUF_TYPE) return encodeProtobuf(value);
  if (encoding === CBOR_TYPE) return encodeCbor((isPlainObject(value) && goShapedObject(value)) || value);
  // Every JSON body ends with a newline, as Go's json.Encoder writes it.
  return Buffer.from(jsonText(value, pretty) + '\n');
}

/**
 * JSON text of a value: built-in kinds (and Status, lists, discovery
 * documents) as kube's Go structs encode them (go-json.ts), anything else as
 * it is.
 */
export function jsonText(value: unknown, pretty = false): string {
  if (isPlainObject(value)) {
    const go = goJsonText(value, pretty ? { indent: 2 } : {});
    if (go !== undefined) return go;
  }
  return pretty ? stringifyJson(value, 2) : stringifyJson(value);
}

/**
 * Strings at least this long are written double-quoted by us rather than
 * styled by js-yaml: its plain-scalar check is a backtracking regular
 * expression whose stack use grows with the string, so a name of a few MB
 * overflowed the stack and no YAML list holding it could be served.
 */
const LONG_SCALAR_CHARS = 16 * 1024;

export function toYaml(value: unknown): string {
  try {
    return toYamlShallow(value);
  } catch (err) {
    // js-yaml's dumper recurses: past a few thousand levels its RangeError means "too deep for it".
    if (!(err instanceof RangeError)) throw err;
    return deepToYaml(value, { compareKeys: compareUtf16, longScalarChars: LONG_SCALAR_CHARS, doubleQuoted: yamlDoubleQuoted });
  }
}

function toYamlShallow(value: unknown): string {
  const long: string[] = [];
  const token = `capstan-long-scalar-${randomBytes(8).toString('hex')}-`;
  const prepared = withLongStringsReplaced(value, long, token);
  const originalKey = (k: string): string => (k.startsWith(token) ? long[Number(k.slice(token.length))]! : k);
  const text = dump(prepared, {
    // Placeholder keys must sort where their real keys would.
    sortKeys: long.length === 0 ? true : (a: string, b: string) => compareUtf16(originalKey(a), originalKey(b)),
    lineWidth: -1,
    noRefs: true,
  });
  if (long.length === 0) return text;
  return text.replace(new RegExp(`${token}(\\d+)`, 'g'), (_m, i: string) => yamlDoubleQuoted(long[Number(i)]!));
}

function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A copy of `value` whose long strings (keys and values) are placeholders
 * `token<i>` with the string at long[i]; parts without long strings are
 * shared, not copied. Iterative, so any depth the decoders accept is fine.
 */
function withLongStringsReplaced(value: unknown, long: string[], token: string): unknown {
  const placeholder = (s: string): string => {
    long.push(s);
    return `${token}${long.length - 1}`;
  };
  if (typeof value === 'string') return value.length >= LONG_SCALAR_CHARS ? placeholder(value) : value;
  if (typeof value !== 'object' || value === null) return value;
  if (!containsLongString(value)) return value;
  const root: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
  const work: Array<{ from: object; to: Record<string, unknown> | unknown[] }> = [{ from: value, to: root }];
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    for (const [k, v] of Object.entries(w.from)) {
      let out: unknown = v;
      if (typeof v === 'string' && v.length >= LONG_SCALAR_CHARS) out = placeholder(v);
      else if (typeof v === 'object' && v !== null && containsLongString(v)) {
        const copy: Record<string, unknown> | unknown[] = Array.isArray(v) ? [] : {};
        work.push({ from: v, to: copy });
        out = copy;
      }
      if (Array.isArray(w.to)) w.to.push(out);
      else {
        const key = k.length >= LONG_SCALAR_CHARS ? placeholder(k) : k;
        Object.defineProperty(w.to, key, { value: out, enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return root;
}

function containsLongString(value: object): boolean {
  const work: object[] = [value];
  for (let o = work.pop(); o !== undefined; o = work.pop()) {
    for (const [k, v] of Object.entries(o)) {
      if (k.length >= LONG_SCALAR_CHARS) return true;
      if (typeof v === 'string') {
        if (v.length >= LONG_SCALAR_CHARS) return true;
      } else if (typeof v === 'object' && v !== null) work.push(v);
    }
  }
  return false;
}

/**
 * A YAML double-quoted scalar: JSON's escapes are YAML's, and the characters
 * YAML does not allow raw in a document (DEL, C1 controls, BOM, non-characters)
 * are escaped too.
 */
function yamlDoubleQuoted(s: string): string {
  // eslint-disable-next-line no-control-regex
  return JSON.stringify(s).replace(/[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

/**
 * A JSON or YAML body whose apiVersion and kind could not be read: it is not
 * JSON (or not an object), or not YAML that converts to JSON. kube's JSON and
 * YAML serializers return no group/version/kind then, so its create and
 * update handlers call the body unrecognized (decode-error-text.ts).
 */
export class KindUnreadableError extends DecodeError {
  constructor(message: string) {
    super(message);
    this.name = 'KindUnreadableError';
  }
}

/** A body whose kind and version were read, but not the rest: kube's "<kind> in version <v> cannot be handled as a <endpoint kind>". */
export class TypedDecodeError extends DecodeError {
  constructor(
    readonly bodyKind: string,
    readonly bodyVersion: string,
    message: string,
  ) {
    super(message);
    this.name = 'TypedDecodeError';
  }
}

/**
 * YAML whose JSON conversion nests past encoding/json's limit; `jsonError` is
 * that decoder's error, which callers wrap as kube's decoders do.
 */
export class JsonDepthError extends KindUnreadableError {
  readonly jsonError: string;
  constructor(char: '{' | '[') {
    const cause = `invalid character '${char}' exceeded max depth`;
    super(`couldn't get version/kind; json parse error: ${cause}`);
    this.jsonError = cause;
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
      if (err instanceof ProtobufCodecError) throw protobufBodyError(err, body, expected);
      throw err;
    }
  }
  if (encoding === CBOR_TYPE) {
    try {
      return decodeCborObjectBody(body, expected ?? {}, MAX_NESTING_DEPTH);
    } catch (err) {
      if (err instanceof CborBodyError) throw new DecodeError(err.message);
      throw err;
    }
  }
  const text = body.toString('utf8');
  if (encoding === JSON_TYPE) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new KindUnreadableError(describeJsonError(text));
    }
    // JSON.parse takes any depth; every walk after it relies on this bound (nesting.ts).
    if (jsonNestingExceeds(text, MAX_NESTING_DEPTH)) throw new KindUnreadableError(describeJsonError(text));
    return value;
  }
  try {
    // The core schema keeps timestamps as strings, as sigs.k8s.io/yaml's YAML→JSON
    // conversion does; YAML 1.1 `yes`/`on` booleans are read as strings.
    // Repeated keys are allowed here (the last wins); field validation reports them.
    const docs = constructYaml(parseYaml(text));
    const nonEmpty = docs.filter((d) => d !== null && d !== undefined);
    if (nonEmpty.length > 1) throw new DecodeError('yaml: the request body contains more than one document');
    const value = nonEmpty[0] ?? null;
    // go-yaml bounds flow and block nesting apart; the JSON it converts to is then bounded as a whole.
    const tooDeep = text.length > MAX_NESTING_DEPTH ? firstNestedPast(value, MAX_NESTING_DEPTH) : undefined;
    if (tooDeep !== undefined) throw new JsonDepthError(tooDeep);
    return value;
  } catch (err) {
    if (err instanceof DecodeError) throw err;
    throw new KindUnreadableError(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
}

/**
 * kube's protobuf serializer returns no kind for a body whose envelope it
 * cannot read (or that names no kind), and the envelope's kind when the
 * message inside fails (runtime/serializer/protobuf/protobuf.go Decode).
 */
function protobufBodyError(err: ProtobufCodecError, body: Buffer, expected: Partial<TypeInfo> | undefined): DecodeError {
  if (err instanceof ProtobufEnvelopeError) return new KindUnreadableError(err.message);
  let type: TypeInfo;
  try {
    type = envelopeType(body, expected);
  } catch {
    return new KindUnreadableError(err.message);
  }
  if (type.kind === '') return new KindUnreadableError(err.message);
  const slash = type.apiVersion.indexOf('/');
  return new TypedDecodeError(type.kind, slash < 0 ? type.apiVersion : type.apiVersion.slice(slash + 1), err.message);
}

/** The 400 message for a body JSON.parse (or the depth limit) refused, with Go's wording of the fault. */
function describeJsonError(text: string): string {
  let msg = 'unexpected end of JSON input';
  try {
    parseJsonAst(text, MAX_NESTING_DEPTH);
  } catch (err) {
    if (err instanceof JsonSyntaxError) msg = err.message;
  }
  return `couldn't get version/kind; json parse error: ${msg}`;
}

export { isRecord as isPlainObject } from '../machinery/json.js';
