import { randomUUID } from 'node:crypto';
import { forbidden, internalError, isApiError, type ApiError } from '../../machinery/errors.js';
import type { AdmissionAttributes } from '../admission.js';
import { admissionRequest, type MatchedVersion } from '../matching/admission-request.js';
import { kindOf } from '../matching/equivalents.js';
import type { AdmissionMatcher } from '../matching/matcher.js';
import type { VersionedObjects } from '../matching/matcher.js';
import { CallFailure, type WebhookClients } from './client.js';
import type { WebhookMetrics, WebhookStep } from './metrics.js';
import type { WebhookSource } from './source.js';
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

/** What both webhook plugins are made of: their configurations, the matcher and the HTTPS clients. */
export abstract class WebhookPluginBase {
  constructor(
    protected readonly source: WebhookSource,
    protected readonly matcher: AdmissionMatcher,
    protected readonly clients: WebhookClients,
    private readonly shutdown: AbortSignal,
  ) {}

  async start(): Promise<void> {
    this.shutdown.addEventListener('abort', () => this.clients.close(), { once: true });
    await this.source.start(this.shutdown);
  }
}

/**
 * kube's dispatchers on a call that did not succeed: the metrics, and the
 * error the request fails with; undefined when the failure policy lets the
 * request through (the caller records the failed-open annotation).
 */
export function settleFailure(err: unknown, hook: Webhook, step: WebhookStep, operation: string, seconds: number, metrics: WebhookMetrics): Error | undefined {
  const ignore = hook.failurePolicy === 'Ignore';
  if (err instanceof CallingWebhookError) {
    if (!ignore) metrics.rejection(hook.name, step, operation, 'calling_webhook_error', err.statusCode);
    metrics.observe(hook.name, step, operation, seconds, !ignore, err.statusCode);
    if (!ignore) return internalError(err);
    metrics.failOpen(hook.name, step);
    return undefined;
  }
  if (err instanceof WebhookRejection) {
    metrics.rejection(hook.name, step, operation, 'no_error', err.error.code);
    metrics.observe(hook.name, step, operation, seconds, true, err.error.code);
    return err.error;
  }
  metrics.rejection(hook.name, step, operation, 'apiserver_internal_error', 0);
  metrics.observe(hook.name, step, operation, seconds, true, 0);
  return isApiError(err) ? err : internalError(err);
}
