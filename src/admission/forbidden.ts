import { forbidden, type ApiError } from '../machinery/errors.js';
import type { AdmissionAttributes } from './admission.js';

/**
 * kube's admission.NewForbidden: a 403 on the request's group and resource
 * (never its subresource), named by the request's name, else the object's
 * name or generateName, else "Unknown".
 */
export function admissionForbidden(attrs: AdmissionAttributes, why: string): ApiError {
  const meta = attrs.object?.metadata;
  const name = attrs.name || meta?.name || meta?.generateName || 'Unknown';
  return forbidden({ group: attrs.resource.group, resource: attrs.resource.name }, name, why);
}

/** Go's `%v` of an authorizer's error: `<nil>` when there was none. */
export function goError(error: string | undefined): string {
  return error ?? '<nil>';
}
