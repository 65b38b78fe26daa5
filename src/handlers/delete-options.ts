import type { SchemaModel } from '../api/schema-model.js';
import { isPlainObject, decode, DecodeError } from '../codec/codec.js';
import { CBOR_TYPE, JSON_TYPE, PROTOBUF_TYPE, YAML_TYPE } from '../codec/media-type.js';
import type { DeleteOptions } from '../registry/resource-store.js';
import { badRequest, invalid, type FieldError } from '../machinery/errors.js';
import type { FeatureGates } from '../machinery/feature-gates.js';
import { contentTypeOf, readBody } from '../http/body.js';
import { goJsonEncode } from '../machinery/go-compat.js';
import type { JsonValue } from '../machinery/json-value.js';
import { goDecodeError } from '../validation/fields/index.js';
import { parseDryRun, parseNonNegativeInt, queryPointerBool } from './options.js';
import type { ResourceScope } from './scope.js';

/**
 * DeleteOptions of a DELETE request, from the body when there is one, else
 * from the query (as kube-apiserver reads them), with kube's validation.
 */

export interface RequestDeleteOptions extends DeleteOptions {
  orphanDependents?: boolean;
  /**
   * Remove an object that cannot be decoded from storage, skipping
   * finalizers, preconditions and admission (KEP-3926). Only with the
   * AllowUnsafeMalformedObjectDeletion gate; without it the option is ignored.
   */
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

export const UNSAFE_DELETE_OPTION = 'ignoreStoreReadErrorWithClusterBreakingPotential';

const PROPAGATION_POLICIES = ['Orphan', 'Background', 'Foreground'];
const DELETE_OPTIONS_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';

export async function readDeleteOptions(scope: ResourceScope, gates: FeatureGates): Promise<RequestDeleteOptions> {
  const body = await readBody(scope.ctx);
  return parseDeleteOptions(body, contentTypeOf(scope.ctx), scope.ctx.query, gates, scope.descriptor.schema.model);
}

/**
 * The options in `body` (of media type `contentType`), or in `query` when the
 * body is empty. `model`: the descriptor's schema model, which holds the
 * DeleteOptions definition with the built-in ones.
 */
export function parseDeleteOptions(body: Buffer, contentType: string, query: URLSearchParams, gates: FeatureGates, model?: SchemaModel): RequestDeleteOptions {
  const opts: RequestDeleteOptions = {};
  const errs: FieldError[] = [];
  if (body.length > 0) {
    const ct = contentType;
    const cbor = ct === CBOR_TYPE && gates.enabled('CBORServingAndStorage');
    const type = ct === YAML_TYPE || ct === PROTOBUF_TYPE ? ct : cbor ? CBOR_TYPE : JSON_TYPE;
    let raw: unknown;
    try {
      raw = decode(body, type, { apiVersion: 'v1', kind: 'DeleteOptions' });
    } catch (err) {
      throw badRequest(err instanceof DecodeError ? err.message : String(err));
    }
    if (type !== PROTOBUF_TYPE) {
      // Go's decoder refuses a wrongly typed option (the delete must not go ahead without it).
      const typeError = goDecodeError(type === JSON_TYPE ? body.toString('utf8') : goJsonEncode(raw as JsonValue), DELETE_OPTIONS_DEFINITION, model);
      if (typeError !== undefined) throw badRequest(typeError);
    }
    if (raw !== null && !isPlainObject(raw)) throw badRequest('decoded object cannot be converted to DeleteOptions');
    const o = (raw ?? {}) as Record<string, unknown>;
    if (o.kind !== undefined && o.kind !== 'DeleteOptions') throw badRequest(`the kind in the data (${String(o.kind)}) does not match the expected kind (DeleteOptions)`);
    opts.dryRun = parseDryRun(new URLSearchParams(), 'DeleteOptions', o.dryRun);
    if (o.gracePeriodSeconds !== undefined && o.gracePeriodSeconds !== null) opts.gracePeriodSeconds = Number(o.gracePeriodSeconds);
    if (typeof o.propagationPolicy === 'string') opts.propagationPolicy = o.propagationPolicy;
    if (typeof o.orphanDependents === 'boolean') opts.orphanDependents = o.orphanDependents;
    if (typeof o[UNSAFE_DELETE_OPTION] === 'boolean') opts.ignoreStoreReadErrorWithClusterBreakingPotential = o[UNSAFE_DELETE_OPTION];
    if (isPlainObject(o.preconditions)) {
      const p = o.preconditions as Record<string, unknown>;
      opts.preconditions = {};
      if (typeof p.uid === 'string' && p.uid) opts.preconditions.uid = p.uid;
      if (typeof p.resourceVersion === 'string' && p.resourceVersion) opts.preconditions.resourceVersion = p.resourceVersion;
    }
  } else {
    const q = query;
    opts.dryRun = parseDryRun(q, 'DeleteOptions');
    const grace = parseNonNegativeInt(q, 'gracePeriodSeconds');
    if (grace !== undefined) opts.gracePeriodSeconds = grace;
    const policy = q.get('propagationPolicy');
    if (policy) opts.propagationPolicy = policy;
    const orphan = q.get('orphanDependents');
    if (orphan !== null) opts.orphanDependents = orphan === 'true';
    const unsafe = queryPointerBool(q, UNSAFE_DELETE_OPTION);
    if (unsafe !== undefined) opts.ignoreStoreReadErrorWithClusterBreakingPotential = unsafe;
  }
  // Without the gate kube drops the option before validating, so it neither fails nor acts.
  if (!gates.enabled('AllowUnsafeMalformedObjectDeletion')) delete opts.ignoreStoreReadErrorWithClusterBreakingPotential;
  if (opts.propagationPolicy !== undefined && !PROPAGATION_POLICIES.includes(opts.propagationPolicy)) {
    errs.push({ type: 'FieldValueNotSupported', field: 'propagationPolicy', value: opts.propagationPolicy, supported: PROPAGATION_POLICIES });
  }
  if (opts.propagationPolicy !== undefined && opts.orphanDependents !== undefined) {
    errs.push({ type: 'FieldValueInvalid', field: 'propagationPolicy', value: opts.propagationPolicy, detail: 'orphanDependents and deletionPropagation cannot be both set' });
  }
  if (opts.gracePeriodSeconds !== undefined && !Number.isInteger(opts.gracePeriodSeconds)) {
    errs.push({ type: 'FieldValueInvalid', field: 'gracePeriodSeconds', value: opts.gracePeriodSeconds, detail: 'must be an integer' });
  }
  errs.push(...unsafeDeleteErrors(opts));
  if (errs.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
  return opts;
}

/**
 * ValidateDeleteOptions for the unsafe option: it removes the object at once,
 * so it cannot be combined with options that shape a normal deletion.
 */
export function unsafeDeleteErrors(opts: RequestDeleteOptions): FieldError[] {
  if (!opts.ignoreStoreReadErrorWithClusterBreakingPotential) return [];
  const excluded: Array<[string, boolean]> = [
    ['dryRun', !!opts.dryRun],
    ['propagationPolicy', opts.propagationPolicy !== undefined],
    ['orphanDependents', opts.orphanDependents !== undefined],
    ['gracePeriodSeconds', opts.gracePeriodSeconds !== undefined],
    ['preconditions', opts.preconditions !== undefined],
  ];
  return excluded
    .filter(([, set]) => set)
    .map(([name]) => ({ type: 'FieldValueInvalid', field: UNSAFE_DELETE_OPTION, value: true, detail: `cannot be set together with .${name}` }));
}

/** DELETECOLLECTION refuses the unsafe option (it deletes one named object only). */
export function rejectUnsafeDeleteCollection(opts: RequestDeleteOptions): void {
  if (!opts.ignoreStoreReadErrorWithClusterBreakingPotential) return;
  throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
    { type: 'FieldValueInvalid', field: UNSAFE_DELETE_OPTION, value: true, detail: 'is not allowed with DELETECOLLECTION, try again after removing the option' },
  ]);
}
