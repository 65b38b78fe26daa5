import { ApiError, forbidden } from '../machinery/errors.js';
import type { AdmissionAttributes } from './admission.js';

/**
 * The errors built-in plugins return, as kube's apiserver turns them into
 * responses.
 */

/**
 * admission.NewForbidden: 403 on the request's resource, named by the
 * request's name, else the object's name or generateName (a create has no
 * name yet), else "Unknown".
 */
export function admissionForbidden(attrs: AdmissionAttributes, why: string): ApiError {
  const meta = attrs.object?.metadata;
  const name = attrs.name || meta?.name || meta?.generateName || 'Unknown';
  return forbidden({ group: attrs.resource.group, resource: attrs.resource.name }, name, why);
}

/**
 * A plain Go error a plugin returns (fmt.Errorf, an aggregate): the handler's
 * ErrorToAPIStatus makes it a 500 whose message is the error's text and whose
 * reason is empty (StatusReasonUnknown).
 */
export function plainAdmissionError(message: string): ApiError {
  return new ApiError({ message, code: 500 });
}

/** utilerrors.NewAggregate(errs).Error(): one message as itself, several as "[a, b]". */
export function aggregateMessage(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}
