import { checkCustomResourceFields } from '../apiextensions/schema/index.js';
import { CBOR_TYPE, JSON_TYPE, YAML_TYPE } from '../codec/media-type.js';
import { checkFields } from '../validation/fields/index.js';
import { contentTypeOf, decodeObjectBody, readBody, readObjectBody } from '../http/body.js';
import { unsupportedMediaType } from '../machinery/errors.js';
import type { FieldValidation } from './options.js';
import type { ResourceScope } from './scope.js';

/**
 * The body of a POST or PUT, decoded and put through field validation at
 * `level` (kube's strict decoding): unknown fields are pruned, and reported as
 * Warning headers (Warn) or a 400 naming all of them (Strict); values of the
 * wrong type are a 400 at every level. Protobuf bodies are never strict, as
 * in kube. Custom resources decode as kube's unstructured objects do: no
 * type errors at decode, fields their schema does not specify pruned.
 */
export async function readValidatedBody(scope: ResourceScope, level: FieldValidation): Promise<unknown> {
  const { ctx, info } = scope;
  const type = contentTypeOf(ctx) || JSON_TYPE;
  // Custom resources take CBOR too when it is served (kube adds it to their serializers).
  const accepted = scope.descriptor.bodyTypes && ctx.cbor ? [...scope.descriptor.bodyTypes, CBOR_TYPE] : scope.descriptor.bodyTypes;
  if (accepted && !accepted.includes(type)) {
    ctx.req.resume();
    throw unsupportedMediaType(ctx.header('content-type') ?? '', [...accepted]);
  }
  const cbor = type === CBOR_TYPE && ctx.cbor;
  if (type !== JSON_TYPE && type !== YAML_TYPE && !cbor) return readObjectBody(ctx, scope.typeInfo);
  let raw = await readBody(ctx);
  const decoded = decodeObjectBody(raw, cbor ? CBOR_TYPE : type, scope.typeInfo);
  // Field validation reads JSON text; a CBOR body has no duplicate keys left to find (decoding refused them).
  if (cbor) raw = Buffer.from(JSON.stringify(decoded));
  const custom = scope.descriptor.schema.customResource?.(info.definition);
  const endpoint = { group: info.group, version: info.version, kind: info.kind };
  const contentType = type === YAML_TYPE ? 'yaml' : 'json';
  const checked = custom
    ? checkCustomResourceFields(custom, { body: raw, contentType, decoded, level, endpoint })
    : checkFields({
        body: raw,
        contentType,
        decoded,
        definition: info.definition,
        definitions: scope.descriptor.schema.model,
        level,
        endpoint,
      });
  ctx.warnings.push(...checked.warnings);
  return checked.object;
}
