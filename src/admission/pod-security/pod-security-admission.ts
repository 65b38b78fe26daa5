import type { ResourceInfo } from '../../api/types.js';
import { ApiError, badRequest, fieldErrorString, forbidden, internalError, invalid, type FieldError } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/object.js';
import {
  AUDIT_LEVEL_LABEL, AUDIT_VERSION_LABEL, AUDIT_VIOLATIONS_ANNOTATION, ENFORCE_LEVEL_LABEL, ENFORCE_VERSION_LABEL, ENFORCED_POLICY_ANNOTATION,
  EXEMPTION_REASON_ANNOTATION, WARN_LEVEL_LABEL, WARN_VERSION_LABEL, compareLevels, equivalentPolicies, fullyPrivileged, levelVersionString,
  policyToEvaluate, sameLevelVersion, type LevelVersion, type Policy,
} from './api.js';
import type { PodSecurityConfiguration } from './configuration.js';
import { aggregateResults, forbiddenDetail, forbiddenReason, type AggregateResult, type PodSecurityEvaluator } from './evaluator.js';
import type { PodSecurityMetrics } from './metrics.js';
import { compareBytes, type Container, type PodMetadata, type PodSpec } from './pod-spec.js';

/**
 * kube's pod-security-admission core (admission/admission.go): namespaces
 * (label validation; warnings about existing pods when enforce tightens),
 * pods (enforce, audit and warn) and pod controllers (audit and warn only).
 */

export interface PodSecurityAttributes {
  operation: 'CREATE' | 'UPDATE';
  resource: Pick<ResourceInfo, 'group' | 'name'>;
  subresource: string;
  namespace: string;
  name: string;
  username: string;
  object?: KubeObject;
  oldObject?: KubeObject;
}

export interface PodSecurityResponse {
  allowed: boolean;
  error?: ApiError;
  warnings: string[];
  /** Keys without the pod-security.kubernetes.io/ prefix. */
  auditAnnotations: Record<string, string>;
}

export interface PodSecuritySources {
  /** The namespace (through the watch cache); undefined when it does not exist. */
  getNamespace(name: string): Promise<KubeObject | undefined>;
  listPods(namespace: string): Promise<KubeObject[]>;
}

/** kube's limits on checking a namespace's pods when its enforce level tightens. */
export const NAMESPACE_MAX_PODS_TO_CHECK = 3000;
export const NAMESPACE_POD_CHECK_TIMEOUT_MS = 1000;

/** Pod subresources that cannot change what the checks read. */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

/** The pod template inside each pod controller kind, by group/resource. */
const POD_TEMPLATE_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  ['/podtemplates', ['template']],
  ['/replicationcontrollers', ['spec', 'template']],
  ['apps/replicasets', ['spec', 'template']],
  ['apps/deployments', ['spec', 'template']],
  ['apps/statefulsets', ['spec', 'template']],
  ['apps/daemonsets', ['spec', 'template']],
  ['batch/jobs', ['spec', 'template']],
  ['batch/cronjobs', ['spec', 'jobTemplate', 'spec', 'template']],
]);

export function hasPodSpec(resource: Pick<ResourceInfo, 'group' | 'name'>): boolean {
  return (resource.group === '' && resource.name === 'pods') || POD_TEMPLATE_PATHS.has(`${resource.group}/${resource.name}`);
}

const allowed = (auditAnnotations: Record<string, string> = {}): PodSecurityResponse => ({ allowed: true, warnings: [], auditAnnotations });
const exempt = (reason: 'user' | 'namespace' | 'runtimeClass'): PodSecurityResponse => allowed({ [EXEMPTION_REASON_ANNOTATION]: reason });
const failure = (error: ApiError, detail?: string): PodSecurityResponse => ({
  allowed: false,
  error,
  warnings: [],
  auditAnnotations: { error: detail ? `${error.status.message}: ${detail}` : (error.status.message ?? '') },
});

export class PodSecurityAdmission {
  private readonly defaults: Policy;
  /** Tests lower these to exercise the limits. */
  maxPodsToCheck = NAMESPACE_MAX_PODS_TO_CHECK;
  podCheckTimeoutMs = NAMESPACE_POD_CHECK_TIMEOUT_MS;

  constructor(
    private readonly config: PodSecurityConfiguration,
    private readonly evaluator: PodSecurityEvaluator,
    private readonly sources: PodSecuritySources,
    private readonly metrics: PodSecurityMetrics,
    private readonly now: () => number = Date.now,
  ) {
    this.defaults = config.defaults;
  }

  async validate(attrs: PodSecurityAttributes): Promise<PodSecurityResponse> {
    const { group, name } = attrs.resource;
    if (group === '' && name === 'namespaces') return this.validateNamespace(attrs);
    if (group === '' && name === 'pods') return this.validatePod(attrs);
    return this.validatePodController(attrs);
  }

  private policyFor(labels: Record<string, string> | undefined): ReturnType<typeof policyToEvaluate> {
    return policyToEvaluate(labels, this.defaults);
  }

  async validateNamespace(attrs: PodSecurityAttributes): Promise<PodSecurityResponse> {
    if (attrs.subresource) return allowed();
    const ns = attrs.object;
    if (!ns) return failure(badRequest('failed to decode object'));
    const labels = ns.metadata?.labels;
    const { policy: newPolicy, errors: newErrors } = this.policyFor(labels);
    const invalidLabels = (): PodSecurityResponse => ({ allowed: false, error: invalid({ group: '', kind: 'Namespace' }, attrs.name, newErrors), warnings: [], auditAnnotations: {} });
    const exemptWarning = (): PodSecurityResponse => {
      const warning = this.exemptNamespaceWarning(ns.metadata?.name ?? attrs.name, newPolicy, labels ?? {});
      return warning ? { ...allowed(), warnings: [warning] } : allowed();
    };
    if (attrs.operation === 'CREATE') {
      if (newErrors.length > 0) return invalidLabels();
      return this.exemptNamespace(attrs.namespace) ? exemptWarning() : allowed();
    }
    const old = attrs.oldObject;
    if (!old) return failure(badRequest('failed to decode  old object'));
    const { policy: oldPolicy, errors: oldErrors } = this.policyFor(old.metadata?.labels);
    // Labels that were already wrong the same way do not block other changes to the namespace.
    if (newErrors.length > 0 && (oldErrors.length === 0 || JSON.stringify(newErrors) !== JSON.stringify(oldErrors))) return invalidLabels();
    // Existing pods are checked only when enforce gets stricter (or changes version) on a namespace that is not exempt.
    if (sameLevelVersion(newPolicy.enforce, oldPolicy.enforce)) return allowed();
    if (newPolicy.enforce.level === 'privileged') return allowed();
    if (newPolicy.enforce.version.equals(oldPolicy.enforce.version) && compareLevels(newPolicy.enforce.level, oldPolicy.enforce.level) < 1) return allowed();
    if (this.exemptNamespace(attrs.namespace || attrs.name)) return exemptWarning();
    return { ...allowed(), warnings: await this.evaluatePodsInNamespace(ns.metadata?.name ?? attrs.name, newPolicy.enforce) };
  }

  async validatePod(attrs: PodSecurityAttributes): Promise<PodSecurityResponse> {
    if (IGNORED_POD_SUBRESOURCES.has(attrs.subresource)) return allowed();
    if (this.exemptNamespace(attrs.namespace)) {
      this.metrics.recordExemption(attrs);
      return exempt('namespace');
    }
    if (this.exemptUser(attrs.username)) {
      this.metrics.recordExemption(attrs);
      return exempt('user');
    }
    const ns = await this.getNamespace(attrs.namespace);
    if (!ns.found) {
      this.metrics.recordError(true, attrs);
      return failure(internalError(new Error(`failed to lookup namespace "${attrs.namespace}"`)), ns.error);
    }
    const { policy, errors } = this.policyFor(ns.found.metadata?.labels);
    if (errors.length === 0 && fullyPrivileged(policy)) {
      this.metrics.recordEvaluation('allow', policy.enforce, 'enforce', attrs);
      return allowed({ [ENFORCED_POLICY_ANNOTATION]: 'privileged:latest' });
    }
    const pod = attrs.object;
    if (!pod) {
      this.metrics.recordError(true, attrs);
      return failure(badRequest('failed to decode object'));
    }
    if (attrs.operation === 'UPDATE') {
      if (!attrs.oldObject) {
        this.metrics.recordError(true, attrs);
        return failure(badRequest('failed to decode old object'));
      }
      if (!isSignificantPodUpdate(pod, attrs.oldObject)) return allowed();
    }
    return this.evaluatePod(policy, errors.length > 0 ? aggregateErrorText(errors) : undefined, podMeta(pod), podSpec(pod), attrs, true);
  }

  async validatePodController(attrs: PodSecurityAttributes): Promise<PodSecurityResponse> {
    if (attrs.subresource) return allowed();
    if (this.exemptNamespace(attrs.namespace)) {
      this.metrics.recordExemption(attrs);
      return exempt('namespace');
    }
    if (this.exemptUser(attrs.username)) {
      this.metrics.recordExemption(attrs);
      return exempt('user');
    }
    // A controller is never refused: problems only end up in the audit log.
    const ns = await this.getNamespace(attrs.namespace);
    if (!ns.found) {
      this.metrics.recordError(true, attrs);
      return allowed({ error: `failed to lookup namespace "${attrs.namespace}": ${ns.error}` });
    }
    const { policy, errors } = this.policyFor(ns.found.metadata?.labels);
    if (errors.length === 0 && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return allowed();
    const template = podTemplate(attrs);
    if (!template) return allowed();
    return this.evaluatePod(policy, errors.length > 0 ? aggregateErrorText(errors) : undefined, template.meta, template.spec, attrs, false);
  }

  /** Enforce (for pods), audit and warn, sharing one evaluation per distinct level and version. */
  evaluatePod(policy: Policy, policyError: string | undefined, meta: PodMetadata, spec: PodSpec, attrs: PodSecurityAttributes, enforce: boolean): PodSecurityResponse {
    if (this.exemptRuntimeClass(spec.runtimeClassName)) {
      this.metrics.recordExemption(attrs);
      return exempt('runtimeClass');
    }
    const auditAnnotations: Record<string, string> = {};
    if (policyError !== undefined) {
      auditAnnotations.error = `Failed to parse policy: ${policyError}`;
      this.metrics.recordError(false, attrs);
    }
    const cache: Array<[LevelVersion, AggregateResult]> = [];
    const evaluate = (lv: LevelVersion): AggregateResult => {
      const hit = cache.find(([k]) => sameLevelVersion(k, lv));
      if (hit) return hit[1];
      const result = aggregateResults(this.evaluator.evaluatePod(lv, meta, spec));
      cache.push([lv, result]);
      return result;
    };
    const response: PodSecurityResponse = { allowed: true, warnings: [], auditAnnotations };
    if (enforce) {
      auditAnnotations[ENFORCED_POLICY_ANNOTATION] = levelVersionString(policy.enforce);
      const result = evaluate(policy.enforce);
      if (!result.allowed) {
        response.allowed = false;
        response.error = forbidden(
          { group: attrs.resource.group, resource: attrs.resource.name },
          attrs.name,
          `violates PodSecurity "${levelVersionString(policy.enforce)}": ${forbiddenDetail(result)}`,
        );
      }
      this.metrics.recordEvaluation(result.allowed ? 'allow' : 'deny', policy.enforce, 'enforce', attrs);
    }
    const audit = evaluate(policy.audit);
    if (!audit.allowed) {
      auditAnnotations[AUDIT_VIOLATIONS_ANNOTATION] = `would violate PodSecurity "${levelVersionString(policy.audit)}": ${forbiddenDetail(audit)}`;
      this.metrics.recordEvaluation('deny', policy.audit, 'audit', attrs);
    }
    // A refused request gets no warnings on top of its error.
    if (response.allowed) {
      const warn = evaluate(policy.warn);
      if (!warn.allowed) {
        response.warnings.push(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${forbiddenDetail(warn)}`);
        this.metrics.recordEvaluation('deny', policy.warn, 'warn', attrs);
      }
    }
    return response;
  }

  /**
   * Dry-runs a new enforce level against the namespace's pods, one pod per
   * controller first, within kube's pod count and time budget; pods with the
   * same reasons share one warning.
   */
  async evaluatePodsInNamespace(namespace: string, enforce: LevelVersion): Promise<string[]> {
    const deadline = this.now() + this.podCheckTimeoutMs;
    let pods: KubeObject[];
    try {
      pods = await this.sources.listPods(namespace);
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    let prioritized = this.prioritizePods(pods);
    const total = prioritized.length;
    if (prioritized.length > this.maxPodsToCheck) prioritized = prioritized.slice(0, this.maxPodsToCheck);
    let checked = prioritized.length;
    const reasons: string[] = [];
    const byReason = new Map<string, { podName: string; count: number }>();
    for (let i = 0; i < prioritized.length; i++) {
      const pod = prioritized[i]!;
      const r = aggregateResults(this.evaluator.evaluatePod(enforce, podMeta(pod), podSpec(pod)));
      if (!r.allowed) {
        const reason = forbiddenReason(r);
        const podName = pod.metadata?.name ?? '';
        const seen = byReason.get(reason);
        if (!seen) {
          reasons.push(reason);
          byReason.set(reason, { podName, count: 1 });
        } else {
          if (compareBytes(podName, seen.podName) < 0) seen.podName = podName;
          seen.count++;
        }
      }
      if (this.now() > deadline) {
        checked = i + 1;
        break;
      }
    }
    const warnings: string[] = [];
    if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
    if (reasons.length > 0) warnings.push(`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(enforce)}"`);
    const decorated = reasons.map((reason) => {
      const { podName, count } = byReason.get(reason)!;
      if (count === 1) return `${podName}: ${reason}`;
      if (count === 2) return `${podName} (and 1 other pod): ${reason}`;
      return `${podName} (and ${count - 1} other pods): ${reason}`;
    });
    return [...warnings, ...decorated.sort(compareBytes)];
  }

  /** Skips exempt runtime classes; puts the first pod of each controller before its siblings. */
  private prioritizePods(pods: readonly KubeObject[]): KubeObject[] {
    const first: KubeObject[] = [];
    const duplicates: KubeObject[] = [];
    const controllers = new Set<string>();
    for (const pod of pods) {
      if (this.exemptRuntimeClass(podSpec(pod).runtimeClassName)) continue;
      const owner = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
      if (!owner) first.push(pod);
      else if (controllers.has(owner.uid)) duplicates.push(pod);
      else {
        first.push(pod);
        controllers.add(owner.uid);
      }
    }
    return [...first, ...duplicates];
  }

  private async getNamespace(name: string): Promise<{ found?: KubeObject; error: string }> {
    try {
      const ns = await this.sources.getNamespace(name);
      return ns ? { found: ns, error: '' } : { error: `namespaces "${name}" not found` };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }

  private exemptNamespace(namespace: string): boolean {
    return namespace !== '' && this.config.exemptions.namespaces.includes(namespace);
  }

  private exemptUser(username: string): boolean {
    return username !== '' && this.config.exemptions.usernames.includes(username);
  }

  private exemptRuntimeClass(runtimeClass: string | undefined): boolean {
    return !!runtimeClass && this.config.exemptions.runtimeClasses.includes(runtimeClass);
  }

  /** Labelling an exempt namespace with a policy that will never apply deserves a word. */
  private exemptNamespaceWarning(namespace: string, policy: Policy, labels: Record<string, string>): string {
    if (fullyPrivileged(policy) || equivalentPolicies(policy, this.defaults)) return '';
    const parts: string[] = [];
    const modes: Array<[keyof Policy, string, string]> = [
      ['enforce', ENFORCE_LEVEL_LABEL, ENFORCE_VERSION_LABEL],
      ['audit', AUDIT_LEVEL_LABEL, AUDIT_VERSION_LABEL],
      ['warn', WARN_LEVEL_LABEL, WARN_VERSION_LABEL],
    ];
    for (const [mode, levelLabel, versionLabel] of modes) {
      if (policy[mode].level !== 'privileged' && (levelLabel in labels || versionLabel in labels)) parts.push(`${mode}=${levelVersionString(policy[mode])}`);
    }
    return `namespace "${namespace}" is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`;
  }
}

/** field.ErrorList.ToAggregate().Error() of the label errors. */
function aggregateErrorText(errors: readonly FieldError[]): string {
  const parts = [...new Set(errors.map(fieldErrorString))];
  return parts.length === 1 ? parts[0]! : `[${parts.join(', ')}]`;
}

function podMeta(pod: KubeObject): PodMetadata {
  return (pod.metadata ?? {}) as PodMetadata;
}

function podSpec(pod: KubeObject): PodSpec {
  return (pod.spec ?? {}) as PodSpec;
}

/** The pod template a controller carries; undefined when it has none (a ReplicationController may not). */
function podTemplate(attrs: PodSecurityAttributes): { meta: PodMetadata; spec: PodSpec } | undefined {
  const path = POD_TEMPLATE_PATHS.get(`${attrs.resource.group}/${attrs.resource.name}`);
  if (!path || !attrs.object) return undefined;
  let node: unknown = attrs.object;
  for (const key of path) node = (node as Record<string, unknown> | undefined)?.[key];
  if (!node || typeof node !== 'object') return undefined;
  const template = node as { metadata?: PodMetadata; spec?: PodSpec };
  return { meta: template.metadata ?? {}, spec: template.spec ?? {} };
}

/**
 * Whether an update can change the verdict: kube looks only at the number
 * of containers and init containers, their images, the seccomp container
 * annotations, and ephemeral containers added or changed that way.
 */
export function isSignificantPodUpdate(pod: KubeObject, oldPod: KubeObject): boolean {
  const spec = podSpec(pod);
  const oldSpec = podSpec(oldPod);
  const annotations = podMeta(pod).annotations ?? {};
  const oldAnnotations = podMeta(oldPod).annotations ?? {};
  const significant = (c: Container, old: Container): boolean => {
    if ((c.image ?? '') !== (old.image ?? '')) return true;
    const key = `container.seccomp.security.alpha.kubernetes.io/${c.name}`;
    return (annotations[key] ?? '') !== (oldAnnotations[key] ?? '');
  };
  const containers = spec.containers ?? [];
  const oldContainers = oldSpec.containers ?? [];
  const inits = spec.initContainers ?? [];
  const oldInits = oldSpec.initContainers ?? [];
  if (containers.length !== oldContainers.length || inits.length !== oldInits.length) return true;
  if (containers.some((c, i) => significant(c, oldContainers[i]!))) return true;
  if (inits.some((c, i) => significant(c, oldInits[i]!))) return true;
  for (const c of spec.ephemeralContainers ?? []) {
    const old = (oldSpec.ephemeralContainers ?? []).find((o) => o.name === c.name);
    if (!old || significant(c, old)) return true;
  }
  return false;
}
