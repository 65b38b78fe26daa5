import { clientConfigOf, type ClientConfig } from '../../registry/webhook-client.js';
import type { Authorizer } from '../../authz/authorizer.js';
import type { KubeObject } from '../../machinery/object.js';
import { MatchConditions, type MatchConditionSpec } from '../matching/match-conditions.js';
import type { MatchPolicy, WebhookCriteria } from '../matching/matcher.js';
import type { RuleWithOperations } from '../matching/rules.js';
import type { LabelSelectorSpec } from '../matching/selectors.js';

/**
 * One webhook of a Mutating/ValidatingWebhookConfiguration (kube's
 * WebhookAccessor), read from the stored v1 object with the API's defaults
 * filled in for fields a stored object may lack, and its matchConditions
 * compiled once per configuration change.
 */

export type { ClientConfig, ServiceReference } from '../../registry/webhook-client.js';

export interface Webhook extends WebhookCriteria {
  /** kube's accessor UID: `<configuration>/<webhook>/<index>`. */
  uid: string;
  configurationName: string;
  name: string;
  clientConfig: ClientConfig;
  failurePolicy: 'Fail' | 'Ignore';
  matchPolicy: MatchPolicy;
  sideEffects?: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: 'Never' | 'IfNeeded';
  matchConditions: MatchConditions;
}

interface StoredWebhook {
  name?: string;
  clientConfig?: { url?: string; service?: { namespace?: string; name?: string; path?: string; port?: number }; caBundle?: string };
  rules?: RuleWithOperations[];
  failurePolicy?: string;
  matchPolicy?: string;
  namespaceSelector?: LabelSelectorSpec;
  objectSelector?: LabelSelectorSpec;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  reinvocationPolicy?: string;
  matchConditions?: MatchConditionSpec[];
}

/** The webhooks of one configuration object, in their order. */
export function webhooksOf(config: KubeObject, authorizer: Authorizer | undefined): Webhook[] {
  const configurationName = config.metadata?.name ?? '';
  const hooks = Array.isArray(config.webhooks) ? (config.webhooks as StoredWebhook[]) : [];
  return hooks.map((h, i) => {
    const failurePolicy = h.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
    const clientConfig = clientConfigOf(h.clientConfig ?? {});
    const conditions = new MatchConditions(h.matchConditions ?? [], failurePolicy, authorizer);
    return {
      uid: `${configurationName}/${h.name ?? ''}/${i}`,
      configurationName,
      name: h.name ?? '',
      clientConfig,
      rules: h.rules ?? [],
      failurePolicy,
      matchPolicy: h.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
      namespaceSelector: h.namespaceSelector ?? {},
      objectSelector: h.objectSelector ?? {},
      ...(h.sideEffects !== undefined ? { sideEffects: h.sideEffects } : {}),
      timeoutSeconds: h.timeoutSeconds ?? 10,
      admissionReviewVersions: h.admissionReviewVersions ?? [],
      reinvocationPolicy: h.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
      matchConditions: conditions,
    };
  });
}
