/**
 * fieldValidation for custom resources: kube decodes their bodies into
 * unstructured objects (so a value of the wrong type is no decode error:
 * schema validation reports it later as a 422), then its schema coercer
 * prunes what the schema does not specify. With Warn or Strict, the strict
 * decoder's duplicate fields come first, then every pruned field as
 * `unknown field "<path>"`: Warning headers (Warn) or one 400 `strict
 * decoding error` (Strict); after a patch, the same errors are a 422 on the
 * patched document, as for built-in types.
 */

import { cannotBeHandledMessage } from '../../codec/decode-error-text.js';
import { badRequest } from '../../machinery/errors.js';
import { goJsonEncode, strconvQuote } from '../../machinery/go-compat.js';
import { type JsonObject, type JsonValue, isJsonObject } from '../../machinery/json-value.js';
import {
  ANY,
  type CheckFieldsResult,
  type EndpointKind,
  type FieldValidation,
  type PatchKind,
  bodyKind,
  mapOf,
  patchInvalid,
  scanJson,
  strictDecodingError,
  strictWarnings,
  yamlDuplicateKeys,
  yamlUnmarshalErrors,
} from '../../validation/fields/index.js';
import type { CustomResourceSchema } from './custom-resource.js';

const UNSTRUCTURED = mapOf(ANY);

export interface CustomBodyInput {
  readonly body: Buffer | string;
  readonly contentType: 'json' | 'yaml';
  readonly decoded: unknown;
  readonly level: FieldValidation;
  readonly endpoint: EndpointKind;
}

function textOf(body: Buffer | string): string {
  return typeof body === 'string' ? body : body.toString('utf8');
}

function unknownErrors(paths: readonly string[]): string[] {
  return paths.map((p) => `unknown field "${p}"`);
}

/** A POST/PUT body of a custom resource: coerced, with kube's strict errors for Warn/Strict. */
export function checkCustomResourceFields(schema: CustomResourceSchema, input: CustomBodyInput): CheckFieldsResult {
  if (!isJsonObject(input.decoded)) return { object: input.decoded, warnings: [] };
  const strict = input.level !== 'Ignore';
  const errs: string[] = [];
  const fail = (err: string): Error => {
    const gvk = bodyKind(input.decoded, input.endpoint);
    return badRequest(cannotBeHandledMessage(gvk.kind, gvk.version, input.endpoint.kind, err));
  };
  if (strict) {
    if (input.contentType === 'yaml') {
      const dups = yamlDuplicateKeys(textOf(input.body));
      if (dups.length > 0) errs.push(yamlUnmarshalErrors(dups));
    } else {
      const scan = scanJson(textOf(input.body), UNSTRUCTURED, { strict: true });
      if (scan.error !== undefined) throw fail(scan.error);
      errs.push(...scan.strictErrors);
    }
  }
  const coerced = schema.coerce(input.decoded, strict);
  if (coerced.error !== undefined) throw fail(coerced.error);
  errs.push(...unknownErrors(coerced.unknown));
  if (errs.length === 0) return { object: coerced.object, warnings: [] };
  if (input.level === 'Strict') throw fail(strictDecodingError(errs));
  return { object: coerced.object, warnings: input.level === 'Warn' ? strictWarnings(errs) : [] };
}

export interface CustomPatchedInput {
  readonly kind: PatchKind;
  readonly level: FieldValidation;
  readonly patched: unknown;
  /** The patched document as kube's patch library serialized it (quoted by the 422). */
  readonly patchedJson?: string;
  /** patchBodyStrictErrors' result. */
  readonly bodyErrors?: readonly string[];
}

/** A patched custom resource decoded as kube's patcher does: the body's strict errors, then the pruned fields; a 422 for Strict. */
export function checkCustomResourcePatched(schema: CustomResourceSchema, input: CustomPatchedInput): CheckFieldsResult {
  if (!isJsonObject(input.patched)) return { object: input.patched, warnings: [] };
  const strict = input.level !== 'Ignore';
  const shown = (): string => input.patchedJson ?? goJsonEncode(input.patched as JsonValue);
  const coerced = schema.coerce(input.patched as JsonObject, strict);
  if (coerced.error !== undefined) throw patchInvalid(shown(), coerced.error);
  const errs = strict ? [...(input.bodyErrors ?? []), ...unknownErrors(coerced.unknown)] : [];
  if (errs.length === 0) return { object: coerced.object, warnings: [] };
  if (input.level === 'Strict') throw patchInvalid(shown(), strictDecodingError(errs));
  return { object: coerced.object, warnings: input.level === 'Warn' ? strictWarnings(errs) : [] };
}
