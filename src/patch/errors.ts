/**
 * Errors raised by the patch engines, each carrying the Status that
 * kube-apiserver 1.36 answers with for that failure
 * (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go):
 *
 * - undecodable JSON patch / SMP body → errors.NewBadRequest(decode error): 400 BadRequest
 * - JSON patch with > 10000 operations → NewRequestEntityTooLargeError: 413
 * - JSON patch that fails to apply → NewGenericServerResponse(422, …): the
 *   apply error text is dropped; message is the generic 422 text, details {}
 * - merge patch that is not JSON (or null, or a scalar) → BadRequest "Invalid JSON Patch"
 * - SMP: interpretStrategicMergePatchError maps a handful of sentinel errors
 *   to 400 or 422; every other error reaches responsewriters.ErrorToAPIStatus
 *   untyped and becomes a 500 with no reason and the raw error text.
 *
 * `status` is shaped like server/errors.ts's ApiError constructor argument.
 */

import { ApiError } from '../machinery/errors.js';

export interface PatchStatus {
  code: number;
  reason?: string;
  message: string;
  details?: Record<string, never>;
}

/** Message NewGenericServerResponse puts on every 422. */
export const GENERIC_422_MESSAGE = 'the server rejected our request due to an error in our request';

/** Body http.Error writes when a handler panics (genericfilters.WithPanicRecovery). */
export const PANIC_MESSAGE = 'This request caused apiserver to panic. Look in the logs for details.';

export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** kube-apiserver's default JSONPatchMaxCopyBytes (3 MiB). */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

export abstract class PatchError extends Error {
  abstract readonly status: PatchStatus;
  /** True when kube would have panicked: it answers text/plain PANIC_MESSAGE, not a Status. */
  readonly panic: boolean = false;
}

function badRequest(message: string): PatchStatus {
  return { code: 400, reason: 'BadRequest', message };
}

function generic422(): PatchStatus {
  return { code: 422, reason: 'Invalid', message: GENERIC_422_MESSAGE, details: {} };
}

/** The patch body could not be decoded (message is Go's decoder error). */
export class PatchDecodeError extends PatchError {
  readonly status: PatchStatus;
  constructor(message: string) {
    super(message);
    this.name = 'PatchDecodeError';
    this.status = badRequest(message);
  }
}

export class JsonPatchTooLargeError extends PatchError {
  readonly status: PatchStatus;
  constructor(readonly operations: number) {
    super(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations}`);
    this.name = 'JsonPatchTooLargeError';
    this.status = { code: 413, reason: 'RequestEntityTooLarge', message: `Request entity too large: ${this.message}` };
  }
}

/** A JSON patch operation failed; the message is evanphx/json-patch's (kube does not send it). */
export class JsonPatchApplyError extends PatchError {
  readonly status: PatchStatus = generic422();
  constructor(message: string) {
    super(message);
    this.name = 'JsonPatchApplyError';
  }
}

export class MergePatchError extends PatchError {
  readonly status: PatchStatus;
  constructor(message: 'Invalid JSON Patch' | 'Invalid JSON Document') {
    super(message);
    this.name = 'MergePatchError';
    // Only ErrBadJSONPatch is mapped to 400; anything else is a bare error.
    this.status = message === 'Invalid JSON Patch' ? badRequest(message) : { code: 500, message };
  }
}

/** How interpretStrategicMergePatchError classifies an SMP failure. */
export type SmpErrorClass = 'bad-request' | 'invalid' | 'internal';

export class StrategicMergePatchError extends PatchError {
  readonly status: PatchStatus;
  constructor(
    message: string,
    readonly errorClass: SmpErrorClass,
  ) {
    super(message);
    this.name = 'StrategicMergePatchError';
    switch (errorClass) {
      case 'bad-request':
        this.status = badRequest(message);
        break;
      case 'invalid':
        this.status = generic422();
        break;
      case 'internal':
        this.status = { code: 500, message };
        break;
    }
  }
}

/**
 * The upstream code would have panicked (e.g. comparing two maps with ==).
 * kube-apiserver then answers 500 with a text/plain PANIC_MESSAGE body rather
 * than a Status; `message` keeps the Go runtime error for logs.
 */
export class PatchPanicError extends PatchError {
  readonly status: PatchStatus = { code: 500, message: PANIC_MESSAGE };
  override readonly panic = true;
  constructor(message: string) {
    super(message);
    this.name = 'PatchPanicError';
  }
}

export function isPatchError(err: unknown): err is PatchError {
  return err instanceof PatchError;
}

/**
 * The ApiError kube-apiserver would answer with for a failure of the patch
 * engines; anything that is not a PatchError becomes a bare 500, as
 * responsewriters.ErrorToAPIStatus does for untyped errors.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof PatchError) return new ApiError(err.status);
  return new ApiError({ code: 500, message: err instanceof Error ? err.message : String(err) });
}
