import { ApiError, badRequest, type Status } from '../../machinery/errors.js';
import type { AdmissionRequestJson } from '../matching/admission-request.js';

/**
 * AdmissionReview out and back (kube's webhook/request and webhook/errors):
 * the first version of admissionReviewVersions Capstan speaks, the answer
 * checked as kube checks it, and a denial turned into the Status the client
 * gets.
 */

export const UNSUPPORTED_REVIEW_VERSIONS = 'webhook does not accept known AdmissionReview versions (v1, v1beta1)';

export function reviewVersion(versions: readonly string[]): 'v1' | 'v1beta1' | undefined {
  for (const v of versions) if (v === 'v1' || v === 'v1beta1') return v;
  return undefined;
}

export function admissionReview(version: 'v1' | 'v1beta1', request: AdmissionRequestJson): Record<string, unknown> {
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
}

/** What a valid answer says. */
export interface ReviewResponse {
  allowed: boolean;
  auditAnnotations: Record<string, string>;
  warnings: string[];
  patch?: string;
  patchType?: string;
  result?: Partial<Status>;
}

interface RawResponse {
  uid?: unknown;
  allowed?: unknown;
  auditAnnotations?: unknown;
  warnings?: unknown;
  patch?: unknown;
  patchType?: unknown;
  status?: unknown;
}

/** kube's VerifyAdmissionResponse; throws an Error with kube's text. */
export function verifyResponse(version: 'v1' | 'v1beta1', uid: string, mutating: boolean, body: unknown): ReviewResponse {
  const review = (body ?? {}) as { kind?: unknown; apiVersion?: unknown; response?: RawResponse | null };
  const r = review.response;
  if (!r || typeof r !== 'object') throw new Error('webhook response was absent');
  const out: ReviewResponse = {
    allowed: r.allowed === true,
    auditAnnotations: stringMap(r.auditAnnotations),
    warnings: Array.isArray(r.warnings) ? r.warnings.filter((w): w is string => typeof w === 'string') : [],
    ...(r.status && typeof r.status === 'object' ? { result: r.status as Partial<Status> } : {}),
  };
  const patch = typeof r.patch === 'string' && r.patch !== '' ? r.patch : undefined;
  if (version === 'v1') {
    if (r.uid !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(typeof r.uid === 'string' ? r.uid : '')}`);
    if (review.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview') {
      throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gvkString(review.apiVersion, review.kind)}`);
    }
    if (mutating) {
      const hasType = r.patchType !== undefined && r.patchType !== null;
      if (patch && !hasType) throw new Error('webhook returned response.patch but not response.patchType');
      if (!patch && hasType) throw new Error('webhook returned response.patchType but not response.patch');
      if (hasType) {
        if (typeof r.patchType !== 'string' || r.patchType === '') throw new Error(`webhook returned invalid response.patchType of ${JSON.stringify(typeof r.patchType === 'string' ? r.patchType : '')}`);
        out.patchType = r.patchType;
        out.patch = patch!;
      }
    } else {
      if (patch) throw new Error('validating webhook may not return response.patch');
      if (r.patchType !== undefined && r.patchType !== null) throw new Error('validating webhook may not return response.patchType');
    }
  } else if (mutating && patch) {
    // v1beta1 never checked the type: a patch is a JSONPatch
    out.patch = patch;
    out.patchType = 'JSONPatch';
  }
  return out;
}

/** Go's GroupVersionKind.String(): `group/version, Kind=kind`. */
function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = av.indexOf('/');
  const [group, version] = slash < 0 ? ['', av] : [av.slice(0, slash), av.slice(slash + 1)];
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, s] of Object.entries(v)) if (typeof s === 'string') out[k] = s;
  return out;
}

/** kube's ToStatusErr: the webhook's Status, named and made a failure of at least 400. */
export function deniedError(webhookName: string, result: Partial<Status> | undefined): ApiError {
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const r = result ?? {};
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  const message = typeof r.message === 'string' && r.message
    ? `${deniedBy}: ${r.message}`
    : typeof r.reason === 'string' && r.reason ? `${deniedBy}: ${r.reason}` : `${deniedBy} without explanation`;
  const status = typeof r.status === 'string' && r.status && r.status !== 'Success' ? r.status : 'Failure';
  const err = new ApiError({
    code,
    message,
    ...(typeof r.reason === 'string' && r.reason ? { reason: r.reason } : {}),
    ...(r.details && typeof r.details === 'object' ? { details: r.details } : {}),
  });
  (err.status as { status: string }).status = status;
  return err;
}

/** kube's NewDryRunUnsupportedErr. */
export function dryRunUnsupported(webhookName: string): ApiError {
  return badRequest(`admission webhook ${JSON.stringify(webhookName)} does not support dry run`);
}
