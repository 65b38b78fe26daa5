import { isPlainObject } from '../codec/codec.js';
import type { AdmissionChain } from '../admission/admission.js';
import { loadDefinitions } from '../api/definitions.js';
import { cloneObject, type KubeObject } from '../registry/object.js';
import { ApiError, badRequest, notFound, unsupportedMediaType } from '../server/errors.js';
import { contentTypeOf, readBody } from '../server/body.js';
import { writeEncoded } from '../server/respond.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyStrategicMergePatch } from '../patch/strategic-merge-patch.js';
import { patchSchemaFor } from '../patch/schema.js';
import { toApiError } from '../patch/errors.js';
import { parseWriteOptions } from './create.js';
import { renderObject } from './get.js';
import { recordUpdate, updateManager } from './field-manager.js';
import { notImplemented } from './dispatch.js';
import type { ResourceScope } from './scope.js';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

/** Patch types kube-apiserver accepts for built-in types, in its order. */
const BUILTIN_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, APPLY_PATCH, STRATEGIC_MERGE_PATCH];

/** Applies a request's patch to an object (a copy the caller owns); throws kube's patch errors as ApiErrors. */
export type PatchFn = (current: KubeObject) => KubeObject;

function patcherFor(definition: string, type: string, body: Buffer): PatchFn {
  // The patch functions decode the raw body themselves, with kube's error texts.
  const apply = (): ((cur: KubeObject) => unknown) => {
    if (type === JSON_PATCH) return (cur) => applyJsonPatch(cur, body);
    if (type === MERGE_PATCH) return (cur) => applyMergePatch(cur, body);
    const schema = patchSchemaFor(loadDefinitions().definitions, definition);
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
    return patched as KubeObject;
  };
}

/**
 * Reads a non-apply PATCH body for objects of `definition` (the OpenAPI
 * schema strategic merge patch follows); 415 for other content types.
 */
export async function readPatch(scope: ResourceScope, definition: string): Promise<PatchFn> {
  const { ctx } = scope;
  const type = contentTypeOf(ctx);
  if (!BUILTIN_PATCH_TYPES.includes(type)) {
    ctx.req.resume();
    throw unsupportedMediaType(ctx.header('content-type') ?? '', BUILTIN_PATCH_TYPES);
  }
  if (type === APPLY_PATCH) {
    ctx.req.resume();
    throw notImplemented('server-side apply (application/apply-patch+yaml)');
  }
  return patcherFor(definition, type, await readBody(ctx));
}

/**
 * PATCH: the patch is applied to the current object (in the served version)
 * inside the registry's read-modify-write loop, so a concurrent write makes it
 * apply again to the newer object rather than fail.
 */
export async function handlePatch(scope: ResourceScope, admission: AdmissionChain): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate();
  const opts = parseWriteOptions(scope, 'PatchOptions');
  const patcher = await readPatch(scope, info.definition);
  const manager = updateManager(scope, opts.fieldManager);
  const subresource = scope.subresource === 'status' ? 'status' : '';
  const result = await scope.store.update(
    info.namespaced ? scope.namespace : undefined,
    { name: scope.name, dryRun: opts.dryRun, subresource },
    async (current) => {
      if (!current) throw notFound(scope.groupResource, scope.name);
      const served = scope.toServed(current);
      const result = patcher(cloneObject(served));
      scope.applyDefaults(result);
      const patched = recordUpdate(scope, served, result, manager);
      await admission.run({
        operation: 'UPDATE',
        resource: info,
        subresource,
        namespace: scope.namespace,
        name: scope.name,
        object: patched,
        oldObject: served,
        dryRun: opts.dryRun,
        ...(ctx.user ? { user: ctx.user } : {}),
      });
      return scope.toStorage(patched);
    },
  );
  writeEncoded(ctx, 200, renderObject(scope, scope.toServed(result.object), neg.view), neg.encoding, neg.contentType);
}
