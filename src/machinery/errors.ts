import { renderFieldValue } from './field-value.js';

/**
 * kube-apiserver's error vocabulary: every failure leaves the server as a
 * `Status` object with the same reason, code, message and details kube-apiserver
 * would send (k8s.io/apimachinery/pkg/api/errors), so clients that branch on
 * them (kubectl, client-go's IsNotFound/IsConflict, retries) behave the same.
 */

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A group-qualified resource, e.g. {group: 'apps', resource: 'deployments'}. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** A group-qualified kind, e.g. {group: 'apps', kind: 'Deployment'}. */
export interface GroupKind {
  group: string;
  kind: string;
}

/** `deployments.apps`, or `pods` for the core group (GroupResource.String()). */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** `Deployment.apps`, or `Pod` for the core group (GroupKind.String()). */
export function qualifiedKind(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

export class ApiError extends Error {
  readonly status: Status;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(status: Omit<Status, 'kind' | 'apiVersion' | 'metadata' | 'status'>, headers: Record<string, string> = {}) {
    super(status.message ?? status.reason ?? 'error');
    this.name = 'ApiError';
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...status };
    this.headers = headers;
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): string | undefined {
    return this.status.reason;
  }
}

export function isApiError(err: unknown, reason?: string): err is ApiError {
  return err instanceof ApiError && (reason === undefined || err.reason === reason);
}

function resourceDetails(gr: GroupResource, name?: string): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (gr.group) d.group = gr.group;
  if (gr.resource) d.kind = gr.resource;
  return d;
}

export function notFound(gr: GroupResource, name: string): ApiError {
  return new ApiError({
    message: `${qualifiedResource(gr)} "${name}" not found`,
    reason: 'NotFound',
    details: resourceDetails(gr, name),
    code: 404,
  });
}

export function alreadyExists(gr: GroupResource, name: string): ApiError {
  return new ApiError({
    message: `${qualifiedResource(gr)} "${name}" already exists`,
    reason: 'AlreadyExists',
    details: resourceDetails(gr, name),
    code: 409,
  });
}

export const OBJECT_MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

export function conflict(gr: GroupResource, name: string, why: string = OBJECT_MODIFIED): ApiError {
  return new ApiError({
    message: `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`,
    reason: 'Conflict',
    details: resourceDetails(gr, name),
    code: 409,
  });
}

export function forbidden(gr: GroupResource, name: string, why: string, causes?: StatusCause[]): ApiError {
  const resource = qualifiedResource(gr);
  // errors.NewForbidden: "forbidden: why" when there is no resource.
  const message = !resource ? `forbidden: ${why}` : name ? `${resource} "${name}" is forbidden: ${why}` : `${resource} is forbidden: ${why}`;
  const details = resourceDetails(gr, name);
  if (causes) details.causes = causes;
  return new ApiError({ message, reason: 'Forbidden', details, code: 403 });
}

export function badRequest(message: string): ApiError {
  return new ApiError({ message, reason: 'BadRequest', code: 400 });
}

export function methodNotSupported(gr: GroupResource, action: string): ApiError {
  const details: StatusDetails = {};
  if (gr.group) details.group = gr.group;
  details.kind = gr.resource;
  return new ApiError({
    message: `${action} is not supported on resources of kind "${qualifiedResource(gr)}"`,
    reason: 'MethodNotAllowed',
    details,
    code: 405,
  });
}

export function notAcceptable(accepted: string[]): ApiError {
  return new ApiError({
    message: `only the following media types are accepted: ${accepted.join(', ')}`,
    reason: 'NotAcceptable',
    code: 406,
  });
}

export function unsupportedMediaType(contentType: string, accepted: string[]): ApiError {
  return new ApiError({
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    reason: 'UnsupportedMediaType',
    details: { causes: [{ reason: 'UnexpectedHeader', message: `unsupported media type "${contentType}"`, field: 'Content-Type' }] },
    code: 415,
  });
}

export function requestEntityTooLarge(limit: number): ApiError {
  return new ApiError({
    message: `Request entity too large: limit is ${limit}`,
    reason: 'RequestEntityTooLarge',
    code: 413,
  });
}

export function internalError(err: unknown): ApiError {
  const text = err instanceof Error ? err.message : String(err);
  return new ApiError({
    message: `Internal error occurred: ${text}`,
    reason: 'InternalError',
    details: { causes: [{ message: text }] },
    code: 500,
  });
}

export function serviceUnavailable(message: string): ApiError {
  return new ApiError({ message, reason: 'ServiceUnavailable', code: 503 });
}

/** 504 Timeout, as errors.NewTimeoutError: the message is prefixed `Timeout: `. */
export function timeout(message: string, retryAfterSeconds?: number): ApiError {
  const details: StatusDetails = retryAfterSeconds ? { retryAfterSeconds } : {};
  return new ApiError(
    { message: `Timeout: ${message}`, reason: 'Timeout', details, code: 504 },
    retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {},
  );
}

export function gone(message: string, reason: 'Expired' | 'Gone' = 'Gone'): ApiError {
  return new ApiError({ message, reason, code: 410 });
}

export function unauthorized(message = 'Unauthorized'): ApiError {
  return new ApiError({ message, reason: 'Unauthorized', code: 401 });
}

export function tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(
    { message, reason: 'TooManyRequests', details: { retryAfterSeconds }, code: 429 },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

/** One field error, as k8s.io/apimachinery/pkg/util/validation/field.Error. */
export interface FieldError {
  type:
    | 'FieldValueRequired'
    | 'FieldValueInvalid'
    | 'FieldValueNotSupported'
    | 'FieldValueForbidden'
    | 'FieldValueTooLong'
    | 'FieldValueTooMany'
    | 'FieldValueDuplicate'
    | 'FieldValueTypeInvalid'
    | 'FieldValueNotFound'
    | 'InternalError';
  field: string;
  /** The offending value, rendered into the message (omitted for Required/Forbidden). */
  value?: unknown;
  detail?: string;
  /** For NotSupported: the supported values. */
  supported?: string[];
}

const FIELD_ERROR_LABEL: Record<FieldError['type'], string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueNotFound: 'Not found',
  InternalError: 'Internal error',
};


/** The error body after the field path, e.g. `Invalid value: "x": must be ...` (field.Error.ErrorBody). */
export function fieldErrorBody(e: FieldError): string {
  let s = FIELD_ERROR_LABEL[e.type];
  // field.Error.ErrorBody: Required, Forbidden, TooLong and Internal never show the value.
  const withValue = e.type !== 'FieldValueRequired' && e.type !== 'FieldValueForbidden' && e.type !== 'InternalError' && e.type !== 'FieldValueTooLong';
  if (withValue && 'value' in e) s += `: ${renderFieldValue(e.value)}`;
  if (e.type === 'FieldValueNotSupported' && e.supported) {
    s += `: supported values: ${e.supported.map((v) => JSON.stringify(v)).join(', ')}`;
  } else if (e.detail) {
    s += `: ${e.detail}`;
  }
  return s;
}

export function fieldErrorString(e: FieldError): string {
  return e.field ? `${e.field}: ${fieldErrorBody(e)}` : fieldErrorBody(e);
}

/** kube's field.ErrorList.ToAggregate().Error(): identical messages once; one error alone, several in brackets. */
export function aggregateMessage(errs: FieldError[]): string {
  const texts = [...new Set(errs.map(fieldErrorString))];
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}

/** 422 Invalid, as errors.NewInvalid(qualifiedKind, name, errs). */
export function invalid(gk: GroupKind, name: string, errs: FieldError[]): ApiError {
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const parts = [...new Set(errs.map(fieldErrorString))];
  const aggregate = aggregateMessage(errs);
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (gk.group) details.group = gk.group;
  details.kind = gk.kind;
  details.causes = causes;
  return new ApiError({
    message: parts.length === 0 ? `${qualifiedKind(gk)} "${name}" is invalid` : `${qualifiedKind(gk)} "${name}" is invalid: ${aggregate}`,
    reason: 'Invalid',
    details,
    code: 422,
  });
}

/** A successful Status, as returned by some deletes. */
export function successStatus(details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (details) s.details = details;
  return s;
}

/** 404 for paths that name no served group, version, resource or subresource. */
export function resourceNotFound(): ApiError {
  return new ApiError({ message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 });
}

/** A clear answer for API surface that exists in Kubernetes but is not built yet. */
export function notImplemented(what: string): ApiError {
  return new ApiError({ message: `${what} is not implemented by this server yet`, reason: 'NotImplemented', details: {}, code: 501 });
}
