/**
 * Field validation of request bodies for built-in types, as kube-apiserver's
 * handlers apply it (staging/src/k8s.io/apiserver/pkg/endpoints/handlers:
 * create.go, update.go, patch.go, helpers.go):
 *
 * - Ignore: the plain decoder; unknown fields are dropped silently (and a
 *   repeated struct field still merges into the first, as in Go).
 * - Warn / Strict: the strict decoder; its unknown and duplicate fields
 *   become one `Warning` each, or one 400 naming all of them.
 * - At every level a value Go cannot decode (a string for an int32, a bad
 *   quantity, bad base64, ...) is a 400 (create/update) or a 422 (patch).
 *
 * Everything here is synchronous and allocation-light in the common case (a
 * clean body): the JSON text is scanned once and the decoded value is
 * returned as is when nothing is unknown.
 *
 * Wiring, in kube's order:
 * - POST/PUT (JSON or YAML bodies; kube's protobuf decoding is never strict):
 *   checkFields right after decoding, before the apiVersion/kind/namespace
 *   checks (kube reports decode errors first); store `object`, add
 *   `warnings` to the response. YAML bodies must be decoded with repeated
 *   keys allowed (decodeYamlWithDuplicates does that and saves a parse).
 * - PATCH: patchBodyStrictErrors before applying the patch, then
 *   checkPatchedObject on the result.
 * - Server-side apply: checkApplyPatch once the apply succeeded.
 */

import { loadDefinitions } from '../../api/definitions.js';
import type { DefinitionsSource, SchemaModel } from '../../api/schema-model.js';
import { goJsonEncode, goSprint } from '../../machinery/go-compat.js';
import { type JsonAst, JsonSyntaxError, parseJsonAst } from '../../machinery/json-decode.js';
import { firstOutOfRange } from '../../patch/out-of-range-numbers.js';
import type { JsonValue } from '../../machinery/json-value.js';
import { ApiError, badRequest } from '../../machinery/errors.js';
import { cannotBeHandledMessage } from '../../codec/decode-error-text.js';
import { convertUnstructured } from './converter.js';
import { strconvQuote } from '../../machinery/go-compat.js';
import { scanJson } from './json-scan.js';
import { decodeLikeGo, pruneUnknownFields, zeroNullElements } from './prune.js';
import { ANY, type FieldType, fieldTypeFor, listOf, mapOf, STRING, syntheticStruct } from './schema.js';
import { yamlDuplicateKeys, yamlUnmarshalErrors } from './yaml-dups.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The group, version and kind an endpoint serves (what kube defaults a body's own to). */
export interface EndpointKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface CheckFieldsInput {
  /** The raw request body. */
  readonly body: Buffer | string;
  readonly contentType: 'json' | 'yaml';
  /** What the body decoded to (JSON.parse / the YAML decoder). */
  readonly decoded: unknown;
  /** OpenAPI definition of the endpoint's kind (ResourceInfo.definition). */
  readonly definition: string;
  readonly level: FieldValidation;
  /** The endpoint's group/version/kind, for kube's "<Kind> in version ... cannot be handled as a <Kind>" text. */
  readonly endpoint: EndpointKind;
  /**
   * YAML only: the body's duplicate keys when the caller decoded it with
   * decodeYamlWithDuplicates (saves parsing the text a second time).
   */
  readonly yamlDuplicateKeys?: readonly string[];
  /** The descriptor's schema model; defaults to a model over loadDefinitions(). */
  readonly definitions?: SchemaModel | DefinitionsSource;
}

export interface CheckFieldsResult {
  /** The body as kube stores it: unknown fields removed at every depth. */
  readonly object: unknown;
  /** Warn only: one text per unknown/duplicate field; the handler sends each as `Warning: 299 - "<text>"`. */
  readonly warnings: string[];
}

function rootType(definition: string, definitions: SchemaModel | DefinitionsSource | undefined): FieldType | undefined {
  return fieldTypeFor(definitions ?? loadDefinitions(), definition);
}

function textOf(body: Buffer | string): string {
  return typeof body === 'string' ? body : body.toString('utf8');
}

/**
 * The group/version/kind kube's decoder reports for a body: its own
 * apiVersion and kind, defaulted from the endpoint (gvkWithDefaults).
 */
export function bodyKind(decoded: unknown, endpoint: EndpointKind): { version: string; kind: string } {
  const obj = typeof decoded === 'object' && decoded !== null && !Array.isArray(decoded) ? (decoded as Record<string, unknown>) : {};
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' && obj.kind !== '' ? obj.kind : endpoint.kind;
  let group = '';
  let version = '';
  const parts = apiVersion.split('/');
  if (apiVersion === '') {
    // empty: nothing
  } else if (parts.length === 1) version = apiVersion;
  else if (parts.length === 2) [group, version] = parts as [string, string];
  if (version === '' && (group === '' || group === endpoint.group)) version = endpoint.version;
  return { version, kind };
}

/**
 * The error Go's JSON decoder gives for `json` decoded into `definition`
 * (the first wrongly typed value, in document order), or undefined; for
 * bodies decoded without kube's transformDecodeError wrapping, such as DeleteOptions.
 */
export function goDecodeError(json: string, definition: string, definitions?: SchemaModel | DefinitionsSource): string | undefined {
  const t = rootType(definition, definitions);
  return t === undefined ? undefined : scanJson(json, t, { strict: false }).error;
}

/** transformDecodeError: the 400 for a body the decoder rejected. */
function decodeError(decoded: unknown, endpoint: EndpointKind, err: string): ApiError {
  const gvk = bodyKind(decoded, endpoint);
  return badRequest(cannotBeHandledMessage(gvk.kind, gvk.version, endpoint.kind, err));
}

/** runtime.NewStrictDecodingError(errs).Error() */
export function strictDecodingError(errs: readonly string[]): string {
  return `strict decoding error: ${errs.join(', ')}`;
}

/** handlers.addStrictDecodingWarnings: a yaml.v2 error becomes one warning per line. */
export function strictWarnings(errs: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of errs) {
    let rest: string | undefined;
    if (e.startsWith(YAML_SHORT_PREFIX)) rest = e.slice(YAML_SHORT_PREFIX.length);
    else if (e.startsWith(YAML_LONG_PREFIX)) rest = e.slice(YAML_LONG_PREFIX.length);
    if (rest === undefined) out.push(e);
    else for (const line of rest.split('\n')) out.push(line.trim());
  }
  return out;
}

const YAML_SHORT_PREFIX = 'yaml: unmarshal errors:\n';
const YAML_LONG_PREFIX = 'error converting YAML to JSON: yaml: unmarshal errors:\n';

/**
 * Checks a POST/PUT body against its kind. Returns the object with unknown
 * fields removed and, for Warn, the warnings; throws kube's 400 for Strict
 * violations and for values that do not decode.
 */
export function checkFields(input: CheckFieldsInput): CheckFieldsResult {
  const t = rootType(input.definition, input.definitions);
  if (t === undefined) return { object: input.decoded, warnings: [] };
  const strict = input.level !== 'Ignore';
  const errs: string[] = [];
  let object: unknown;
  if (input.contentType === 'yaml') {
    // YAMLToJSONStrict's duplicate keys first, then the JSON decoder's view of the
    // converted document, whose keys Go's map encoding sorted.
    if (strict) {
      const dups = input.yamlDuplicateKeys ?? yamlDuplicateKeys(textOf(input.body));
      if (dups.length > 0) errs.push(yamlUnmarshalErrors(dups));
    }
    const scan = scanJson(goJsonEncode(input.decoded as JsonValue), t, { strict });
    if (scan.error !== undefined) throw decodeError(input.decoded, input.endpoint, scan.error);
    errs.push(...scan.strictErrors);
    object = scan.unknownFields ? pruneUnknownFields(input.decoded, t) : input.decoded;
    if (scan.nullElements) object = zeroNullElements(object, t);
  } else {
    const text = textOf(input.body);
    const scan = scanJson(text, t, { strict });
    if (scan.error !== undefined) throw decodeError(input.decoded, input.endpoint, scan.error);
    errs.push(...scan.strictErrors);
    object = scan.mergedDuplicates ? decodeLikeGo(text, t) : scan.unknownFields ? pruneUnknownFields(input.decoded, t) : input.decoded;
    if (scan.nullElements) object = zeroNullElements(object, t);
  }
  if (errs.length === 0) return { object, warnings: [] };
  if (input.level === 'Strict') throw decodeError(input.decoded, input.endpoint, strictDecodingError(errs));
  return { object, warnings: input.level === 'Warn' ? strictWarnings(errs) : [] };
}

// ---- patches ----

export type PatchKind = 'json' | 'merge' | 'strategic';

/** handlers.jsonPatchOp, which kube strictly decodes JSON patch bodies into. */
const JSON_PATCH_OPS = listOf(
  syntheticStruct(
    'handlers.jsonPatchOp',
    new Map([
      ['op', STRING],
      ['path', STRING],
      ['from', STRING],
      ['value', ANY],
    ]),
  ),
);
const PATCH_MAP = mapOf(ANY);

/**
 * The strict errors of a patch body itself, which kube decodes before
 * applying it when the level is Warn or Strict (Ignore: nothing, []):
 * - json: into []handlers.jsonPatchOp: `json patch unknown field "[0].foo"`,
 *   `json patch duplicate field "[1].path"`;
 * - merge, strategic: into map[string]interface{}: `duplicate field "spec.paused"`.
 * Throws kube's 400 when the body does not decode that way
 * (json/merge: `error decoding patch: <err>`; strategic: `<err>`).
 */
export function patchBodyStrictErrors(kind: PatchKind, body: Buffer | string, level: FieldValidation): string[] {
  if (level === 'Ignore') return [];
  const text = textOf(body);
  const fail = (err: string): ApiError => badRequest(kind === 'strategic' ? err : `error decoding patch: ${err}`);
  let ast: JsonAst;
  try {
    // encoding/json checks the whole text before decoding anything.
    ast = parseJsonAst(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw fail(err.message);
    throw err;
  }
  const scan = scanJson(text, kind === 'json' ? JSON_PATCH_OPS : PATCH_MAP, { strict: true, strictPrefix: kind === 'json' ? 'json patch ' : '' });
  if (scan.error !== undefined) throw fail(scan.error);
  // Into interface{} (a merge patch's map, an operation's value) a number float64 cannot hold fails.
  const outOfRange = kind === 'json' ? firstOutOfRangeValue(ast) : firstOutOfRange(ast);
  if (outOfRange !== undefined) {
    throw fail(`json: cannot unmarshal number ${outOfRange} into Go ${kind === 'json' ? 'struct field jsonPatchOp.value' : 'value'} of type float64`);
  }
  return scan.strictErrors;
}

/** The first out-of-range number inside an operation's "value" (the only member decoded into interface{}). */
function firstOutOfRangeValue(ast: JsonAst): string | undefined {
  if (ast.kind !== 'array') return undefined;
  for (const op of ast.items) {
    if (op.kind !== 'object') continue;
    for (const [k, v] of op.members) {
      if (k !== 'value') continue;
      const found = firstOutOfRange(v);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export interface PatchedObjectInput {
  readonly kind: PatchKind;
  readonly level: FieldValidation;
  readonly definition: string;
  /** The patched object. */
  readonly patched: unknown;
  /**
   * json and merge patches: the patched document as kube's patch library
   * serialized it (the decoder reads it, and a 422 quotes it). Defaults to
   * Go's encoding with sorted keys.
   */
  readonly patchedJson?: string;
  /** strategic: the decoded patch body, which kube's 422 prints with %+v. */
  readonly patch?: unknown;
  /** patchBodyStrictErrors' result. */
  readonly bodyErrors?: readonly string[];
  readonly definitions?: SchemaModel | DefinitionsSource;
}

/**
 * 422 `errors.NewInvalid(schema.GroupKind{}, "", field.Invalid(field.NewPath("patch"), value, detail))`:
 * no kind and no name, hence the message's leading space.
 */
export function patchInvalid(value: string, detail: string): ApiError {
  const body = `Invalid value: ${strconvQuote(value)}: ${detail}`;
  return new ApiError({
    message: ` "" is invalid: patch: ${body}`,
    reason: 'Invalid',
    details: { causes: [{ reason: 'FieldValueInvalid', message: body, field: 'patch' }] },
    code: 422,
  });
}

/**
 * Checks a patched object the way kube decodes it after applying a patch:
 * json/merge patches through the JSON decoder (unknown fields in document
 * order), strategic merge patches through the unstructured converter
 * (unknown fields sorted). Body and object strict errors are combined, body
 * first. Throws kube's 422 for Strict violations and undecodable values.
 */
export function checkPatchedObject(input: PatchedObjectInput): CheckFieldsResult {
  const t = rootType(input.definition, input.definitions);
  const bodyErrors = input.level === 'Ignore' ? [] : (input.bodyErrors ?? []);
  if (t === undefined) return finishPatch(input, input.patched, [...bodyErrors], () => '');
  const strict = input.level !== 'Ignore';
  if (input.kind === 'strategic') {
    const shown = (): string => goSprint(input.patch as JsonValue);
    const conv = convertUnstructured(input.patched, t, strict);
    if (conv.error !== undefined) throw patchInvalid(shown(), conv.error);
    return finishPatch(input, pruneUnknownFields(input.patched, t), [...bodyErrors, ...conv.unknown], shown);
  }
  const json = input.patchedJson ?? goJsonEncode(input.patched as JsonValue);
  const scan = scanJson(json, t, { strict });
  if (scan.error !== undefined) throw patchInvalid(json, scan.error);
  const pruned = scan.unknownFields ? pruneUnknownFields(input.patched, t) : input.patched;
  const object = scan.nullElements ? zeroNullElements(pruned, t) : pruned;
  return finishPatch(input, object, [...bodyErrors, ...scan.strictErrors], () => json);
}

function finishPatch(input: PatchedObjectInput, object: unknown, errs: string[], shown: () => string): CheckFieldsResult {
  if (errs.length === 0) return { object, warnings: [] };
  if (input.level === 'Warn') return { object, warnings: strictWarnings(errs) };
  if (input.level === 'Strict') throw patchInvalid(shown(), strictDecodingError(errs));
  return { object, warnings: [] };
}

// ---- server-side apply ----

/**
 * The strict check kube runs on an apply patch (applyPatcher, Warn/Strict
 * only, after the apply itself succeeded): sigs.k8s.io/yaml.UnmarshalStrict
 * into a map, i.e. duplicate keys of the YAML (or JSON, read as YAML) text.
 * Returns the warnings for Warn; throws the 400 for Strict.
 */
export function checkApplyPatch(body: Buffer | string, level: FieldValidation): string[] {
  if (level === 'Ignore') return [];
  const dups = yamlDuplicateKeys(textOf(body));
  if (dups.length === 0) return [];
  const err = `error converting YAML to JSON: ${yamlUnmarshalErrors(dups)}`;
  if (level === 'Strict') throw badRequest(`error strict decoding YAML: ${err}`);
  return strictWarnings([err]);
}
