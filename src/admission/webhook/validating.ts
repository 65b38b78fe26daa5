import { internalError, isApiError } from '../../machinery/errors.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission.js';
import type { MatchedVersion } from '../matching/admission-request.js';
import { VersionedObjects, type AdmissionMatcher } from '../matching/matcher.js';
import { isExemptAdmissionConfigurationResource } from '../matching/rules.js';
import { callHook, CallingWebhookError, shouldCallHook, WebhookRejection } from './call.js';
import type { WebhookClients } from './client.js';
import type { Webhook } from './configuration.js';
import { webhookMetrics } from './metrics.js';
import type { WebhookSource } from './source.js';

/**
 * ValidatingAdmissionWebhook (kube's validating dispatcher): the webhooks
 * that apply are all called at once; the first failure to come back fails
 * the request.
 */

export const VALIDATING_PLUGIN_NAME = 'ValidatingAdmissionWebhook';

const FAILED_OPEN_ANNOTATION_PREFIX = 'failed-open.validating.webhook.admission.k8s.io/';

export class ValidatingWebhookPlugin implements AdmissionPlugin {
  readonly name = VALIDATING_PLUGIN_NAME;

  constructor(
    private readonly source: WebhookSource,
    private readonly matcher: AdmissionMatcher,
    private readonly clients: WebhookClients,
    private readonly shutdown: AbortSignal,
  ) {}

  async start(): Promise<void> {
    this.shutdown.addEventListener('abort', () => this.clients.close(), { once: true });
    await this.source.start(this.shutdown);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfigurationResource(attrs)) return;
    const hooks = this.source.webhooks();
    if (hooks.length === 0) return;
    const versioned = new VersionedObjects(attrs);
    const relevant: { hook: Webhook; version: MatchedVersion }[] = [];
    for (const hook of hooks) {
      const version = await shouldCallHook(hook, attrs, this.matcher, versioned);
      if (version) relevant.push({ hook, version });
    }
    if (relevant.length === 0) return;
    // the first error to come back wins, as kube reads its error channel
    let first: Error | undefined;
    await Promise.all(relevant.map(async ({ hook, version }, index) => {
      const err = await this.call(hook, attrs, version, index);
      if (err && !first) first = err;
    }));
    if (first) throw first;
  }

  /** Calls one webhook; the error that fails the request, if any. */
  private async call(hook: Webhook, attrs: AdmissionAttributes, version: MatchedVersion, index: number): Promise<Error | undefined> {
    const started = performance.now();
    const seconds = (): number => (performance.now() - started) / 1000;
    const ignore = hook.failurePolicy === 'Ignore';
    try {
      await callHook(hook, attrs, version, this.clients, false);
      webhookMetrics.observe(hook.name, 'validating', attrs.operation, seconds(), false, 200);
      return undefined;
    } catch (err) {
      if (err instanceof CallingWebhookError) {
        if (!ignore) webhookMetrics.rejection(hook.name, 'validating', attrs.operation, 'calling_webhook_error', err.statusCode);
        webhookMetrics.observe(hook.name, 'validating', attrs.operation, seconds(), !ignore, err.statusCode);
        if (ignore) {
          webhookMetrics.failOpen(hook.name, 'validating');
          attrs.addAuditAnnotation?.(`${FAILED_OPEN_ANNOTATION_PREFIX}round_0_index_${index}`, hook.name);
          return undefined;
        }
        return internalError(err);
      }
      if (err instanceof WebhookRejection) {
        webhookMetrics.rejection(hook.name, 'validating', attrs.operation, 'no_error', err.error.code);
        webhookMetrics.observe(hook.name, 'validating', attrs.operation, seconds(), true, err.error.code);
        return err.error;
      }
      webhookMetrics.rejection(hook.name, 'validating', attrs.operation, 'apiserver_internal_error', 0);
      webhookMetrics.observe(hook.name, 'validating', attrs.operation, seconds(), true, 0);
      return isApiError(err) ? err : internalError(err);
    }
  }
}
