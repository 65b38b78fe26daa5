import { ApiError, forbidden } from '../machinery/errors.js';
import type { AdmissionAttributes } from './admission.js';

/**
 * kube's admission.NewForbidden: the request's resource and name (the
 * object's name or generateName before a name is generated, else "Unknown")
 * are forbidden for `why`; a Forbidden error is passed on as it is.
 */
export function admissionForbidden(attrs: AdmissionAttributes, why: string | ApiError): ApiError {
  if (typeof why !== 'string' && why.reason === 'Forbidden') return why;
  const meta = attrs.object?.metadata;
  const name = attrs.name || meta?.name || meta?.generateName || 'Unknown';
  return forbidden({ group: attrs.resource.group, resource: attrs.resource.name }, name, typeof why === 'string' ? why : why.message);
}

/** kube's errors.NewTooManyRequestsError: 429 without Retry-After. */
export function tooManyRequestsError(message: string): ApiError {
  return new ApiError({ message: `Too many requests: ${message}`, reason: 'TooManyRequests', code: 429 });
}
