import { CounterVec } from '../machinery/counter.js';
import { HistogramVec } from '../machinery/histogram.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, RulesResult } from './authorizer.js';
import type { UserInfo } from '../machinery/context.js';

/**
 * kube-apiserver's authorization metrics, one set per server
 * (observability/ renders them on /metrics):
 * apiserver_authorization_decisions_total (authorization/metrics: terminal
 * decisions of each configured authorizer), the matchCondition family
 * (authorization/cel/metrics.go) and the webhook family
 * (plugin/pkg/authorizer/webhook/metrics), with kube's names, labels,
 * stability levels and buckets.
 */

// component-base's DefBuckets (prometheus.DefBuckets)
const DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** How one round trip to an authorization webhook ended (kube's metricsResult). */
export type WebhookCallResult = 'success' | 'timeout' | 'error' | 'canceled';

export class AuthorizationMetrics {
  readonly decisions = new CounterVec(
    'apiserver_authorization_decisions_total',
    '[ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
    ['type', 'name', 'decision'],
  );

  readonly matchConditionEvaluationErrors = new CounterVec(
    'apiserver_authorization_match_condition_evaluation_errors_total',
    '[ALPHA] Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.',
    ['type', 'name'],
  );

  readonly matchConditionExclusions = new CounterVec(
    'apiserver_authorization_match_condition_exclusions_total',
    '[ALPHA] Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.',
    ['type', 'name'],
  );

  readonly matchConditionEvaluationSeconds = new HistogramVec(
    'apiserver_authorization_match_condition_evaluation_seconds',
    '[ALPHA] Authorization match condition evaluation time in seconds, split by authorizer type and name.',
    ['type', 'name'],
    [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25],
  );

  readonly webhookEvaluations = new CounterVec('apiserver_authorization_webhook_evaluations_total', '[BETA] Round-trips to authorization webhooks.', ['name', 'result']);

  readonly webhookDuration = new HistogramVec('apiserver_authorization_webhook_duration_seconds', '[BETA] Request latency in seconds.', ['name', 'result'], DEF_BUCKETS);

  readonly webhookFailOpen = new CounterVec(
    'apiserver_authorization_webhook_evaluations_fail_open_total',
    '[BETA] NoOpinion results due to webhook timeout or error.',
    ['name', 'result'],
  );

  counters(): CounterVec[] {
    return [this.decisions, this.matchConditionEvaluationErrors, this.matchConditionExclusions, this.webhookEvaluations, this.webhookFailOpen];
  }

  histograms(): HistogramVec[] {
    return [this.matchConditionEvaluationSeconds, this.webhookDuration];
  }

  /** One matchCondition evaluation of an authorizer: its time, whether any expression failed, whether one excluded the request. */
  recordMatchConditions(type: string, name: string, seconds: number, failed: boolean, excluded: boolean): void {
    this.matchConditionEvaluationSeconds.observe([type, name], seconds);
    if (failed) this.matchConditionEvaluationErrors.inc([type, name]);
    if (excluded) this.matchConditionExclusions.inc([type, name]);
  }

  recordWebhookCall(name: string, result: WebhookCallResult, seconds: number): void {
    this.webhookEvaluations.inc([name, result]);
    this.webhookDuration.observe([name, result], seconds);
  }
}

/**
 * kube's InstrumentedAuthorizer: counts the terminal decisions (Allow as
 * `allowed`, Deny as `denied`, as SubjectAccessReview's status fields) of
 * one configured authorizer; no opinion is not counted.
 */
export class InstrumentedAuthorizer implements Authorizer {
  readonly rulesFor?: (user: UserInfo, namespace: string) => Promise<RulesResult>;

  constructor(
    private readonly type: string,
    private readonly name: string,
    private readonly delegate: Authorizer,
    private readonly metrics: AuthorizationMetrics,
  ) {
    if (delegate.rulesFor) this.rulesFor = (user, namespace) => delegate.rulesFor!(user, namespace);
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    const d = await this.delegate.authorize(attrs);
    if (d.decision === 'Allow') this.metrics.decisions.inc([this.type, this.name, 'allowed']);
    else if (d.decision === 'Deny') this.metrics.decisions.inc([this.type, this.name, 'denied']);
    return d;
  }
}
