import { CounterVec } from '../../machinery/counter.js';
import { Version, type LevelVersion } from './api.js';

/**
 * kube's PodSecurity metrics (pod-security-admission/metrics): counters by
 * label set, read as Prometheus samples by whoever serves /metrics.
 */

export interface PodSecurityMetricAttributes {
  operation: string;
  resource: { group: string; name: string };
  subresource: string;
}

export interface CounterFamily {
  name: string;
  help: string;
  labelNames: readonly string[];
  /** Label values (in labelNames order) → count. */
  samples(): Array<{ labels: Record<string, string>; value: number }>;
}

function resourceLabel(r: PodSecurityMetricAttributes['resource']): string {
  if (r.group === '' && r.name === 'pods') return 'pod';
  if (r.group === '' && r.name === 'namespaces') return 'namespace';
  return 'controller';
}

export class PodSecurityMetrics {
  readonly evaluations = new CounterVec(
    'pod_security_evaluations_total',
    'Number of policy evaluations that occurred, not counting ignored or exempt requests.',
    ['decision', 'policy_level', 'policy_version', 'mode', 'request_operation', 'resource', 'subresource'],
  );
  readonly exemptions = new CounterVec(
    'pod_security_exemptions_total',
    'Number of exempt requests, not counting ignored or out of scope requests.',
    ['request_operation', 'resource', 'subresource'],
  );
  readonly errors = new CounterVec(
    'pod_security_errors_total',
    'Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.',
    ['fatal', 'request_operation', 'resource', 'subresource'],
  );

  /** @param serverVersion the server's minor version: newer policy versions are counted as "future". */
  constructor(private readonly serverVersion: Version = Version.of(1, 36)) {}

  get families(): readonly CounterFamily[] {
    return [this.evaluations, this.exemptions, this.errors];
  }

  recordEvaluation(decision: 'allow' | 'deny', policy: LevelVersion, mode: 'enforce' | 'audit' | 'warn', attrs: PodSecurityMetricAttributes): void {
    let version: string;
    if (policy.version.latest || policy.level === 'privileged') version = 'latest';
    else version = this.serverVersion.older(policy.version) ? 'future' : policy.version.toString();
    this.evaluations.inc([decision, policy.level, version, mode, attrs.operation.toLowerCase(), resourceLabel(attrs.resource), attrs.subresource]);
  }

  recordExemption(attrs: PodSecurityMetricAttributes): void {
    this.exemptions.inc([attrs.operation.toLowerCase(), resourceLabel(attrs.resource), attrs.subresource]);
  }

  recordError(fatal: boolean, attrs: PodSecurityMetricAttributes): void {
    this.errors.inc([String(fatal), attrs.operation.toLowerCase(), resourceLabel(attrs.resource), attrs.subresource]);
  }
}
