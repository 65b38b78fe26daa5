import type { AdmissionAttributes, AdmissionPlugin } from '../admission.js';
import type { MatchedVersion } from '../matching/admission-request.js';
import { VersionedObjects } from '../matching/matcher.js';
import { isExemptAdmissionConfigurationResource } from '../matching/rules.js';
import { callHook, settleFailure, shouldCallHook, WebhookPluginBase } from './call.js';
import type { Webhook } from './configuration.js';

/**
 * ValidatingAdmissionWebhook (kube's validating dispatcher): the webhooks
 * that apply are all called at once; the first failure to come back fails
 * the request.
 */

export const VALIDATING_PLUGIN_NAME = 'ValidatingAdmissionWebhook';

const FAILED_OPEN_ANNOTATION_PREFIX = 'failed-open.validating.webhook.admission.k8s.io/';

export class ValidatingWebhookPlugin extends WebhookPluginBase implements AdmissionPlugin {
  readonly name = VALIDATING_PLUGIN_NAME;

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
    try {
      await callHook(hook, attrs, version, this.clients, false);
      this.clients.metrics.observe(hook.name, 'validating', attrs.operation, seconds(), false, 200);
      return undefined;
    } catch (err) {
      const failure = settleFailure(err, hook, 'validating', attrs.operation, seconds(), this.clients.metrics);
      if (!failure) attrs.addAuditAnnotation?.(`${FAILED_OPEN_ANNOTATION_PREFIX}round_0_index_${index}`, hook.name);
      return failure;
    }
  }
}
