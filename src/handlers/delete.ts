import type { AdmissionChain } from '../admission/admission.js';
import { apiVersionOf, type KubeObject } from '../machinery/object.js';
import { forbidden, successStatus } from '../machinery/errors.js';
import type { Authorizer } from '../authz/authorizer.js';
import type { FeatureGates } from '../machinery/feature-gates.js';
import { writeEncoded } from '../http/respond.js';
import { readDeleteOptions, rejectUnsafeDeleteCollection } from './delete-options.js';
import { renderObject } from './get.js';
import { listRequestFor } from './list.js';
import { parseListParams } from './options.js';
import type { ResourceScope } from './scope.js';

/**
 * A delete's admission, run by the registry on the object about to go, after
 * the preconditions: both phases there, as kube's AdmissionToValidateObjectDeleteFunc.
 */
function deleteAdmission(scope: ResourceScope, admission: AdmissionChain, opts: { dryRun?: boolean }, ns: string | undefined, name: string): (current: KubeObject) => Promise<void> {
  return async (current) =>
    scope.admit(admission, {
      operation: 'DELETE',
      subresource: '',
      namespace: ns ?? '',
      name,
      oldObject: await scope.servedOne(current),
      options: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', ...(opts.dryRun ? { dryRun: ['All'] } : {}) },
      dryRun: !!opts.dryRun,
    });
}

/**
 * kube's authorizeUnsafeDelete: deleting with
 * ignoreStoreReadErrorWithClusterBreakingPotential also needs the verb
 * `unsafe-delete-ignore-read-errors` on the object.
 */
async function authorizeUnsafeDelete(scope: ResourceScope, authorizer: Authorizer): Promise<void> {
  const verb = 'unsafe-delete-ignore-read-errors';
  const { info } = scope;
  const { decision, reason } = await authorizer.authorize({
    user: scope.ctx.user!,
    verb,
    resourceRequest: true,
    namespace: info.namespaced ? scope.namespace : '',
    name: scope.name,
    group: info.group,
    version: info.version,
    resource: info.name,
    subresource: scope.subresource,
  });
  if (decision === 'Allow') return;
  throw forbidden({ group: info.group, resource: info.name }, scope.name, `not permitted to do "${verb}", reason: ${reason}`);
}

export async function handleDelete(scope: ResourceScope, admission: AdmissionChain, gates: FeatureGates, authorizer: Authorizer): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate({ table: false });
  const opts = await readDeleteOptions(scope, gates);
  const ns = info.namespaced ? scope.namespace : undefined;
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
    // The unsafe delete of a corrupt object: there is no object to admit or return.
    await authorizeUnsafeDelete(scope, authorizer);
    await scope.store.deleteCorrupt(ns, scope.name);
    writeEncoded(ctx, 200, successStatus({ name: scope.name, kind: info.kind }), neg.encoding);
    return;
  }
  const result = await scope.store.delete(ns, scope.name, { ...opts, validate: deleteAdmission(scope, admission, opts, ns, scope.name) });
  let code = 200;
  if (!result.deleted && opts.orphanDependents === false) code = 202;
  if (result.deleted && !scope.descriptor.strategy.returnDeletedObject) {
    const details: Record<string, string> = { name: scope.name };
    if (info.group) details.group = info.group;
    details.kind = info.name;
    if (result.object.metadata?.uid) details.uid = result.object.metadata.uid;
    const status = successStatus(details);
    delete (status as { code?: number }).code;
    writeEncoded(ctx, code, status, neg.encoding);
    return;
  }
  writeEncoded(ctx, code, renderObject(scope, await scope.servedOne(result.object), neg.view), neg.encoding, neg.contentType);
}

/** DELETE on a collection: deletes every matching object and returns them as a list. */
export async function handleDeleteCollection(scope: ResourceScope, admission: AdmissionChain, gates: FeatureGates): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate({ table: false });
  const opts = await readDeleteOptions(scope, gates);
  rejectUnsafeDeleteCollection(opts);
  const params = parseListParams(ctx.query, false);
  const list = await scope.store.list(listRequestFor(scope, { ...params, limit: 0, continueToken: undefined }));
  const items = [];
  for (const { object: obj } of list.items) {
    const ns = info.namespaced ? obj.metadata?.namespace : undefined;
    const name = obj.metadata!.name!;
    try {
      const result = await scope.store.delete(ns, name, { ...opts, preconditions: {}, validate: deleteAdmission(scope, admission, opts, ns, name) });
      const { apiVersion: _a, kind: _k, ...item } = await scope.servedOne(result.object);
      items.push(item);
    } catch (err) {
      // Objects deleted meanwhile are simply gone; anything else fails the request.
      if ((err as { reason?: string }).reason !== 'NotFound') throw err;
    }
  }
  writeEncoded(ctx, 200, {
    kind: info.listKind ?? `${info.kind}List`,
    apiVersion: apiVersionOf(info.group, info.version),
    metadata: { resourceVersion: list.resourceVersion },
    items,
  }, neg.encoding);
}
