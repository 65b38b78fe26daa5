import { isPlainObject, decode, DecodeError } from '../codec/codec.js';
import { JSON_TYPE, PROTOBUF_TYPE, YAML_TYPE } from '../codec/media-type.js';
import type { AdmissionChain } from '../admission/admission.js';
import { apiVersionOf } from '../registry/object.js';
import type { DeleteOptions } from '../registry/resource-store.js';
import { badRequest, invalid, successStatus, type FieldError } from '../server/errors.js';
import { contentTypeOf, readBody } from '../server/body.js';
import { writeEncoded } from '../server/respond.js';
import { renderObject } from './get.js';
import { listRequestFor } from './list.js';
import { parseDryRun, parseListParams, parseNonNegativeInt } from './options.js';
import type { ResourceScope } from './scope.js';

interface RequestDeleteOptions extends DeleteOptions {
  orphanDependents?: boolean;
}

const PROPAGATION_POLICIES = ['Orphan', 'Background', 'Foreground'];

/** DeleteOptions from the body when there is one, else from the query (as kube-apiserver reads them). */
async function readDeleteOptions(scope: ResourceScope): Promise<RequestDeleteOptions> {
  const { ctx } = scope;
  const body = await readBody(ctx);
  const opts: RequestDeleteOptions = {};
  const errs: FieldError[] = [];
  if (body.length > 0) {
    const ct = contentTypeOf(ctx);
    const type = ct === YAML_TYPE || ct === PROTOBUF_TYPE ? ct : JSON_TYPE;
    let raw: unknown;
    try {
      raw = decode(body, type, { apiVersion: 'v1', kind: 'DeleteOptions' });
    } catch (err) {
      throw badRequest(err instanceof DecodeError ? err.message : String(err));
    }
    if (raw !== null && !isPlainObject(raw)) throw badRequest('decoded object cannot be converted to DeleteOptions');
    const o = (raw ?? {}) as Record<string, unknown>;
    if (o.kind !== undefined && o.kind !== 'DeleteOptions') throw badRequest(`the kind in the data (${String(o.kind)}) does not match the expected kind (DeleteOptions)`);
    opts.dryRun = parseDryRun(new URLSearchParams(), 'DeleteOptions', o.dryRun);
    if (o.gracePeriodSeconds !== undefined && o.gracePeriodSeconds !== null) opts.gracePeriodSeconds = Number(o.gracePeriodSeconds);
    if (typeof o.propagationPolicy === 'string') opts.propagationPolicy = o.propagationPolicy;
    if (typeof o.orphanDependents === 'boolean') opts.orphanDependents = o.orphanDependents;
    if (isPlainObject(o.preconditions)) {
      const p = o.preconditions as Record<string, unknown>;
      opts.preconditions = {};
      if (typeof p.uid === 'string' && p.uid) opts.preconditions.uid = p.uid;
      if (typeof p.resourceVersion === 'string' && p.resourceVersion) opts.preconditions.resourceVersion = p.resourceVersion;
    }
  } else {
    const q = ctx.query;
    opts.dryRun = parseDryRun(q, 'DeleteOptions');
    const grace = parseNonNegativeInt(q, 'gracePeriodSeconds');
    if (grace !== undefined) opts.gracePeriodSeconds = grace;
    const policy = q.get('propagationPolicy');
    if (policy) opts.propagationPolicy = policy;
    const orphan = q.get('orphanDependents');
    if (orphan !== null) opts.orphanDependents = orphan === 'true';
  }
  if (opts.propagationPolicy !== undefined && !PROPAGATION_POLICIES.includes(opts.propagationPolicy)) {
    errs.push({ type: 'FieldValueNotSupported', field: 'propagationPolicy', value: opts.propagationPolicy, supported: PROPAGATION_POLICIES });
  }
  if (opts.propagationPolicy !== undefined && opts.orphanDependents !== undefined) {
    errs.push({ type: 'FieldValueInvalid', field: 'propagationPolicy', value: opts.propagationPolicy, detail: 'orphanDependents and deletionPropagation cannot be both set' });
  }
  if (opts.gracePeriodSeconds !== undefined && !Number.isInteger(opts.gracePeriodSeconds)) {
    errs.push({ type: 'FieldValueInvalid', field: 'gracePeriodSeconds', value: opts.gracePeriodSeconds, detail: 'must be an integer' });
  }
  if (errs.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
  return opts;
}

export async function handleDelete(scope: ResourceScope, admission: AdmissionChain): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate({ table: false });
  const opts = await readDeleteOptions(scope);
  const ns = info.namespaced ? scope.namespace : undefined;
  const current = await scope.store.get(ns, scope.name);
  await scope.admit(admission, { operation: 'DELETE', subresource: '', oldObject: scope.toServed(current), dryRun: !!opts.dryRun });
  const result = await scope.store.delete(ns, scope.name, opts);
  let code = 200;
  if (!result.deleted && opts.orphanDependents === false) code = 202;
  if (result.deleted && !scope.store.strategy.returnDeletedObject) {
    const details: Record<string, string> = { name: scope.name };
    if (info.group) details.group = info.group;
    details.kind = info.name;
    if (result.object.metadata?.uid) details.uid = result.object.metadata.uid;
    const status = successStatus(details);
    delete (status as { code?: number }).code;
    writeEncoded(ctx, code, status, neg.encoding);
    return;
  }
  writeEncoded(ctx, code, renderObject(scope, scope.toServed(result.object), neg.view), neg.encoding, neg.contentType);
}

/** DELETE on a collection: deletes every matching object and returns them as a list. */
export async function handleDeleteCollection(scope: ResourceScope, admission: AdmissionChain): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate({ table: false });
  const opts = await readDeleteOptions(scope);
  const params = parseListParams(ctx.query, false);
  const list = await scope.store.list(listRequestFor(scope, { ...params, limit: 0, continueToken: undefined }));
  const items = [];
  for (const { object: obj } of list.items) {
    const ns = info.namespaced ? obj.metadata?.namespace : undefined;
    const name = obj.metadata!.name!;
    try {
      await scope.admit(admission, { operation: 'DELETE', subresource: '', namespace: ns ?? '', name, oldObject: scope.toServed(obj), dryRun: !!opts.dryRun });
      const result = await scope.store.delete(ns, name, { ...opts, preconditions: {} });
      const { apiVersion: _a, kind: _k, ...item } = scope.toServed(result.object);
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
