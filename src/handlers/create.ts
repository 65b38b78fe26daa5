import { isPlainObject } from '../codec/codec.js';
import type { AdmissionChain } from '../admission/admission.js';
import { apiVersionOf, cloneObject, metaOf, type KubeObject } from '../machinery/object.js';
import { badRequest } from '../machinery/errors.js';
import { writeEncoded } from '../http/respond.js';
import { renderObject } from './get.js';
import { recordUpdate, updateManager } from './field-manager.js';
import { parseDryRun, parseFieldManager, parseFieldValidation, type FieldValidation, type OptionsKind } from './options.js';
import { readValidatedBody } from './validated-body.js';
import type { ResourceScope } from './scope.js';

/**
 * Checks a decoded body against the endpoint: an object of the endpoint's
 * kind and version (both may be omitted and are then defaulted), in the
 * namespace of the path.
 */
export function checkBodyObject(scope: ResourceScope, body: unknown, expectKind = scope.info.kind, expectGroup = scope.info.group, expectVersion = scope.info.version): KubeObject {
  if (!isPlainObject(body)) throw badRequest(`the body of the request is not a ${expectKind} object`);
  const obj = body as KubeObject;
  const expectedApiVersion = apiVersionOf(expectGroup, expectVersion);
  if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== expectedApiVersion) {
    throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expectedApiVersion})`);
  }
  if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== expectKind) {
    throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${expectKind})`);
  }
  if (obj.metadata !== undefined && !isPlainObject(obj.metadata)) throw badRequest('metadata must be an object');
  const ns = obj.metadata?.namespace;
  if (scope.info.namespaced && ns && scope.namespace && ns !== scope.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const out = cloneObject(obj);
  out.apiVersion = expectedApiVersion;
  out.kind = expectKind;
  return out;
}

export interface WriteOptions {
  dryRun: boolean;
  fieldManager: string | undefined;
  fieldValidation: FieldValidation;
}

/** The request's options as admission sees them (metav1.CreateOptions, UpdateOptions and PatchOptions share these fields). */
export function createOptions(opts: WriteOptions, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' = 'CreateOptions'): Record<string, unknown> {
  return {
    kind,
    apiVersion: 'meta.k8s.io/v1',
    ...(opts.dryRun ? { dryRun: ['All'] } : {}),
    ...(opts.fieldManager ? { fieldManager: opts.fieldManager } : {}),
    fieldValidation: opts.fieldValidation,
  };
}

export function parseWriteOptions(scope: ResourceScope, kind: OptionsKind): WriteOptions {
  const q = scope.ctx.query;
  const fieldValidation = parseFieldValidation(q);
  return { dryRun: parseDryRun(q, kind), fieldManager: parseFieldManager(q, kind), fieldValidation };
}

export async function handleCreate(scope: ResourceScope, admission: AdmissionChain): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate();
  const opts = parseWriteOptions(scope, 'CreateOptions');
  const decoded = checkBodyObject(scope, await readValidatedBody(scope, opts.fieldValidation));
  scope.applyDefaults(decoded);
  const obj = recordUpdate(scope, undefined, decoded, updateManager(scope, opts.fieldManager));
  const meta = metaOf(obj);
  if (info.namespaced) meta.namespace = scope.namespace;
  const options = createOptions(opts);
  await scope.admitMutating(admission, { operation: 'CREATE', name: meta.name ?? '', object: obj, options, dryRun: opts.dryRun });
  const stored = await scope.storageOf(obj);
  const created = await scope.landed(() =>
    scope.store.create(stored, info.namespaced ? scope.namespace : undefined, {
      dryRun: opts.dryRun,
      validate: scope.validatingAdmission(admission, { options, dryRun: opts.dryRun }),
      ...scope.writeContext,
    }),
  );
  writeEncoded(ctx, 201, renderObject(scope, await scope.servedOne(created), neg.view), neg.encoding, neg.contentType);
}
