import { randomUUID } from 'node:crypto';
import { forbidden, type ApiError } from '../../machinery/errors.js';
import type { AdmissionAttributes } from '../admission.js';
import { admissionRequest, type MatchedVersion } from '../matching/admission-request.js';
import { kindOf } from '../matching/equivalents.js';
import type { AdmissionMatcher } from '../matching/matcher.js';
import type { VersionedObjects } from '../matching/matcher.js';
import { CallFailure, type WebhookClients } from './client.js';
import type { Webhook } from './configuration.js';
import { admissionReview, deniedError, dryRunUnsupported, reviewVersion, UNSUPPORTED_REVIEW_VERSIONS, verifyResponse, type ReviewResponse } from './review.js';

/**
 * What both webhook plugins do per webhook (kube's ShouldCallHook and
 * callHook): decide whether the webhook applies, then call it and read its
 * answer. A failure to get a usable answer is a CallingWebhookError (the
 * failure policy decides), a denial a WebhookRejection.
 */

/** kube's ErrCallingWebhook: `statusCode` is what kube's metrics record for it. */
export class CallingWebhookError extends Error {
  constructor(readonly webhookName: string, readonly reason: string, readonly statusCode: number) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`);
  }
}

/** kube's ErrWebhookRejection. */
export class WebhookRejection extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
  }
}

/** The version the webhook is called with, or undefined when it does not apply (matchConditions included). */
export async function shouldCallHook(hook: Webhook, attrs: AdmissionAttributes, matcher: AdmissionMatcher, versioned: VersionedObjects): Promise<MatchedVersion | undefined> {
  const match = await matcher.matchWebhook(hook, attrs);
  if (!match) return undefined;
  const version = versioned.of(match);
  if (hook.matchConditions.empty) return version;
  const request = admissionRequest(attrs, version, kindOf(attrs.resource, attrs.subresource), '');
  const result = await hook.matchConditions.evaluate({ attrs, request });
  if ('error' in result) throw forbidden({ group: attrs.resource.group, resource: attrs.resource.name }, attrs.name, result.error.message);
  return result.matches ? version : undefined;
}

export async function callHook(hook: Webhook, attrs: AdmissionAttributes, version: MatchedVersion, clients: WebhookClients, mutating: boolean): Promise<ReviewResponse> {
  if (attrs.dryRun) {
    if (hook.sideEffects === undefined) throw new CallingWebhookError(hook.name, 'Webhook SideEffects is nil', 400);
    if (hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(hook.name);
  }
  const reviewV = reviewVersion(hook.admissionReviewVersions);
  if (!reviewV) throw new CallingWebhookError(hook.name, `could not create admission objects: ${UNSUPPORTED_REVIEW_VERSIONS}`, 400);
  const uid = randomUUID();
  const request = admissionRequest(attrs, version, kindOf(attrs.resource, attrs.subresource), uid);
  let answer;
  try {
    answer = await clients.post(hook, admissionReview(reviewV, request));
  } catch (err) {
    if (!(err instanceof CallFailure)) throw err;
    throw new CallingWebhookError(hook.name, `failed to call webhook: ${err.message}`, err.statusCode ?? (mutating ? 503 : 400));
  }
  let response: ReviewResponse;
  try {
    response = verifyResponse(reviewV, uid, mutating, answer.body);
  } catch (err) {
    throw new CallingWebhookError(hook.name, `received invalid webhook response: ${(err as Error).message}`, 503);
  }
  for (const [k, v] of Object.entries(response.auditAnnotations)) attrs.addAuditAnnotation?.(`${hook.name}/${k}`, v);
  for (const w of response.warnings) attrs.addWarning?.(w);
  if (!response.allowed) throw new WebhookRejection(deniedError(hook.name, response.result));
  return response;
}
