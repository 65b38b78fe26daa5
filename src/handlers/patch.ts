import { decode, DecodeError, isPlainObject, JsonDepthError } from '../codec/codec.js';
import { YAML_TYPE } from '../codec/media-type.js';
import { CborDecodeError, decodeCbor, topLevelTypeName } from '../codec/cbor/decode.js';
import type { AdmissionChain } from '../admission/admission.js';
import { cloneObject, metaOf, type KubeObject } from '../machinery/object.js';
import { ApiError, badRequest, invalid, notFound, unsupportedMediaType } from '../machinery/errors.js';
import { contentTypeOf, readBody } from '../http/body.js';
import { writeEncoded } from '../http/respond.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyStrategicMergePatch } from '../patch/strategic-merge-patch.js';
import type { SchemaModel } from '../api/schema-model.js';
import { patchSchemaFor } from '../patch/schema.js';
import { MergePatchError, PatchDecodeError, toApiError } from '../patch/errors.js';
import { jsonNestingExceeds, MAX_NESTING_DEPTH, valueNestingExceeds } from '../machinery/nesting.js';
import { createOptions, parseWriteOptions } from './create.js';
import { renderObject } from './get.js';
import { applyConfiguration, recordUpdate, updateManager } from './field-manager.js';
import { checkCustomResourcePatched } from '../apiextensions/schema/index.js';
import { checkApplyPatch, checkPatchedObject, patchBodyStrictErrors, patchInvalid, type PatchKind } from '../validation/fields/index.js';
import { OutOfRangeNumbers } from '../patch/out-of-range-numbers.js';
import { goJsonEncode } from '../machinery/go-compat.js';
import { JsonSyntaxError, JsonTypeError, parseJsonAst } from '../machinery/json-decode.js';
import type { JsonValue } from '../machinery/json-value.js';
import type { FieldValidation } from './options.js';
import type { ResourceScope } from './scope.js';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';
/** Server-side apply in CBOR: only with the CBORServingAndStorage gate, and no CBOR form of the other patch types. */
export const APPLY_CBOR_PATCH = 'application/apply-patch+cbor';

/** Patch types kube-apiserver accepts for built-in types, in its order. */
const BUILTIN_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, APPLY_PATCH, STRATEGIC_MERGE_PATCH];

/** Custom resources take no strategic merge patch (their schemas carry no patch strategies). */
const CUSTOM_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];

/** Applies a request's patch to an object (a copy the caller owns); throws kube's patch errors as ApiErrors. */
export type PatchFn = (current: KubeObject) => KubeObject;

function patcherFor(model: SchemaModel, definition: string, type: string, body: Buffer, numbers: OutOfRangeNumbers): PatchFn {
  // The patch functions decode the raw body themselves, with kube's error texts.
  const apply = (): ((cur: KubeObject) => unknown) => {
    if (type === JSON_PATCH) return (cur) => applyJsonPatch(cur, body, { numbers });
    if (type === MERGE_PATCH) return (cur) => applyMergePatch(cur, body, numbers);
    const schema = patchSchemaFor(model, definition);
    return (cur) => applyStrategicMergePatch(cur, body, schema);
  };
  const fn = apply();
  return (cur) => {
    let patched: unknown;
    try {
      patched = fn(cur);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw toApiError(err);
    }
    if (!isPlainObject(patched)) throw badRequest('the patched document is not an object');
    // Every later walk (field validation, encoding, storage) relies on the body limit. Merge patches
    // nest no deeper than the object or the patch (both checked); JSON patch copies and moves can.
    if (type === JSON_PATCH && valueNestingExceeds(patched, MAX_NESTING_DEPTH)) throw patchInvalid('', `exceeded max depth of ${MAX_NESTING_DEPTH}`);
    return patched as KubeObject;
  };
}

/**
 * A patch body nested deeper than request bodies may be is refused as each
 * patch type refuses JSON it cannot decode (Go's decoders stop at 10,000
 * levels; this server's bodies at MAX_NESTING_DEPTH, see machinery/nesting.ts).
 */
function checkPatchNesting(type: string, body: Buffer): void {
  const text = body.toString('utf8');
  if (!jsonNestingExceeds(text, MAX_NESTING_DEPTH)) return;
  let message = 'exceeded max depth';
  try {
    parseJsonAst(text, MAX_NESTING_DEPTH);
  } catch (err) {
    if (err instanceof JsonSyntaxError) message = err.message;
  }
  throw toApiError(type === MERGE_PATCH ? new MergePatchError('Invalid JSON Patch') : new PatchDecodeError(message));
}

/** kube appends the CBOR apply type to an endpoint's patch types when the gate is on. */
function withApplyCbor(scope: ResourceScope, types: string[]): string[] {
  return scope.ctx.cbor ? [...types, APPLY_CBOR_PATCH] : types;
}

/** An application/apply-patch+cbor body, as kube's validateAndTranscodePatch reads it. */
function decodeApplyCborPatch(body: Buffer): KubeObject {
  let applied: unknown;
  try {
    applied = decodeCbor(body, MAX_NESTING_DEPTH);
  } catch (err) {
    if (err instanceof CborDecodeError) throw badRequest(`error decoding patch: ${err.message}`);
    throw err;
  }
  if (applied === null) return {} as KubeObject;
  if (!isPlainObject(applied)) throw badRequest(`error decoding patch: cbor: cannot unmarshal ${topLevelTypeName(body)} into Go value of type map[string]interface {}`);
  return applied as KubeObject;
}

function patchKindOf(type: string): PatchKind {
  return type === JSON_PATCH ? 'json' : type === MERGE_PATCH ? 'merge' : 'strategic';
}

/**
 * Reads a non-apply PATCH body for objects of `definition` (the OpenAPI
 * schema strategic merge patch follows); 415 for other content types. With a
 * field validation level, the patch body and the patched object go through
 * kube's strict decoding checks too (unknown fields pruned, warnings added).
 */
export async function readPatch(scope: ResourceScope, definition: string, level: FieldValidation = 'Ignore'): Promise<PatchFn> {
  const { ctx } = scope;
  const type = contentTypeOf(ctx);
  const accepted = withApplyCbor(scope, scope.descriptor.schema.strategicMergePatch ? BUILTIN_PATCH_TYPES : CUSTOM_PATCH_TYPES);
  if (!accepted.includes(type)) {
    ctx.req.resume();
    throw unsupportedMediaType(ctx.header('content-type') ?? '', accepted);
  }
  if (type === APPLY_PATCH || type === APPLY_CBOR_PATCH) {
    // Only the main resource's patch handler takes apply patches (handleApply).
    ctx.req.resume();
    throw unsupportedMediaType(ctx.header('content-type') ?? '', accepted.filter((t) => t !== APPLY_PATCH && t !== APPLY_CBOR_PATCH));
  }
  const body = await readBody(ctx);
  checkPatchNesting(type, body);
  const kind = patchKindOf(type);
  const bodyErrors = patchBodyStrictErrors(kind, body, level);
  const model = scope.descriptor.schema.model;
  const custom = scope.descriptor.schema.customResource?.(definition);
  const numbers = new OutOfRangeNumbers();
  const apply = patcherFor(model, definition, type, body, numbers);
  return (cur) => {
    const patched = apply(cur);
    // The typed decode reads the literals kube's patch libraries keep (1e400), not our placeholders.
    const patchedJson = numbers.empty ? undefined : numbers.restore(goJsonEncode(patched as JsonValue));
    const checked = custom
      ? checkCustomResourcePatched(custom, { kind, level, patched, ...(patchedJson !== undefined ? { patchedJson } : {}), bodyErrors })
      : checkPatchedObject({
          kind,
          level,
          definition,
          definitions: model,
          patched,
          ...(patchedJson !== undefined ? { patchedJson } : {}),
          ...(kind === 'strategic' ? { patch: JSON.parse(body.toString('utf8')) as unknown } : {}),
          bodyErrors,
        });
    const left = numbers.leftIn(checked.object as JsonValue);
    // Only a field kept as raw JSON could hold such a number; we cannot store it.
    if (left !== undefined) throw patchInvalid(patchedJson ?? '', new JsonTypeError(`number ${left}`, 'float64').message);
    ctx.warnings.push(...checked.warnings);
    return checked.object as KubeObject;
  };
}

/**
 * The apply patch as kube's applyPatcher reads it (sigs.k8s.io/yaml into a
 * map): failures are 400 "error decoding YAML: …"; null or an empty body is
 * an empty object (the field manager then refuses its missing kind).
 */
function decodeApplyPatch(body: Buffer): KubeObject {
  let applied: unknown;
  try {
    applied = decode(body, YAML_TYPE);
  } catch (err) {
    // sigs.k8s.io/yaml.Unmarshal: YAML to JSON, then encoding/json's decoder (its depth limit too).
    if (err instanceof JsonDepthError) throw badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: ${err.jsonError}`);
    if (err instanceof DecodeError) throw badRequest(`error decoding YAML: ${err.message}`);
    throw err;
  }
  if (applied === null || applied === undefined) return {} as KubeObject;
  if (!isPlainObject(applied)) {
    const kind = Array.isArray(applied) ? 'array' : typeof applied === 'boolean' ? 'bool' : typeof applied;
    const cause = new JsonTypeError(kind, 'map[string]interface {}').message;
    throw badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: ${cause}`);
  }
  return applied as KubeObject;
}

/** `force` is for apply patches only; kube rejects it elsewhere. */
function parseForce(scope: ResourceScope, apply: boolean): boolean {
  const raw = scope.ctx.query.get('force');
  if (raw === null) return false;
  const force = raw === '' || raw === 'true' || raw === '1';
  if (force && !apply) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [{ type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch' }]);
  }
  return force;
}

/**
 * Server-side apply (application/apply-patch+yaml): the applied configuration
 * is merged into the live object (or creates it) by the field manager, which
 * records ownership and answers 409 on conflicts unless forced.
 */
async function handleApply(scope: ResourceScope, admission: AdmissionChain): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate();
  const opts = parseWriteOptions(scope, 'PatchOptions');
  const force = parseForce(scope, true);
  if (!opts.fieldManager) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [{ type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' }]);
  }
  const manager = opts.fieldManager;
  const body = await readBody(ctx);
  const cbor = contentTypeOf(ctx) === APPLY_CBOR_PATCH;
  const applied = cbor ? decodeApplyCborPatch(body) : decodeApplyPatch(body);
  // Compared with the live object's canonical quantities, "1000m" must read as the "1" it is.
  scope.canonicalize(applied);
  const subresource = scope.writeMode;
  const options = createOptions(opts, 'PatchOptions');
  const result = await scope.landed(() => scope.store.update(
    info.namespaced ? scope.namespace : undefined,
    {
      name: scope.name, dryRun: opts.dryRun, subresource, forceAllowCreate: subresource === '', ...scope.writeContext,
      validate: scope.validatingAdmission(admission, { subresource, options, dryRun: opts.dryRun }), warn: (t) => ctx.warnings.push(t),
    },
    async (current) => {
      const live = current ? await scope.servedOne(current) : undefined;
      const merged = applyConfiguration(scope, live, applied, manager, force);
      // CBOR refuses duplicate keys while decoding; YAML's are field validation's.
      if (!cbor) ctx.warnings.push(...checkApplyPatch(body, opts.fieldValidation));
      scope.applyDefaults(merged);
      if (!live) {
        const meta = metaOf(merged);
        meta.name = scope.name;
        if (info.namespaced) meta.namespace = scope.namespace;
      }
      await scope.admitMutating(admission, { operation: live ? 'UPDATE' : 'CREATE', subresource, object: merged, ...(live ? { oldObject: live } : {}), options, dryRun: opts.dryRun });
      return scope.storageOf(merged);
    },
  ));
  writeEncoded(ctx, result.created ? 201 : 200, renderObject(scope, await scope.servedOne(result.object), neg.view), neg.encoding, neg.contentType);
}

/**
 * PATCH: the patch is applied to the current object (in the served version)
 * inside the registry's read-modify-write loop, so a concurrent write makes it
 * apply again to the newer object rather than fail.
 */
export async function handlePatch(scope: ResourceScope, admission: AdmissionChain): Promise<void> {
  const { ctx, info } = scope;
  const type = contentTypeOf(ctx);
  if (type === APPLY_PATCH || (type === APPLY_CBOR_PATCH && ctx.cbor)) return handleApply(scope, admission);
  const neg = scope.negotiate();
  const opts = parseWriteOptions(scope, 'PatchOptions');
  parseForce(scope, false);
  const patcher = await readPatch(scope, info.definition, opts.fieldValidation);
  const manager = updateManager(scope, opts.fieldManager);
  const subresource = scope.writeMode;
  const options = createOptions(opts, 'PatchOptions');
  const result = await scope.landed(() => scope.store.update(
    info.namespaced ? scope.namespace : undefined,
    {
      name: scope.name, dryRun: opts.dryRun, subresource, ...scope.writeContext,
      validate: scope.validatingAdmission(admission, { subresource, options, dryRun: opts.dryRun }), warn: (t) => ctx.warnings.push(t),
    },
    async (current) => {
      if (!current) throw notFound(scope.groupResource, scope.name);
      const served = await scope.servedOne(current);
      const result = patcher(cloneObject(served));
      scope.applyDefaults(result);
      const patched = recordUpdate(scope, served, result, manager);
      await scope.admitMutating(admission, { operation: 'UPDATE', subresource, object: patched, oldObject: served, options, dryRun: opts.dryRun });
      return scope.storageOf(patched);
    },
  ));
  writeEncoded(ctx, 200, renderObject(scope, await scope.servedOne(result.object), neg.view), neg.encoding, neg.contentType);
}
