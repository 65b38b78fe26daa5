import type { AdmissionAttributes } from '../admission.js';

/**
 * kube's admissionregistration RuleWithOperations and its matcher
 * (admission/plugin/webhook/predicates/rules): which requests a webhook's
 * `rules` or a policy's `resourceRules` / `excludeResourceRules` select.
 */

export interface RuleWithOperations {
  operations?: readonly string[];
  apiGroups?: readonly string[];
  apiVersions?: readonly string[];
  /** `pods`, `pods/status`, `pods/*`, `*` (no subresource), `*\/*` (everything), `*\/status`. */
  resources?: readonly string[];
  /** `Cluster`, `Namespaced` or `*` (the default). */
  scope?: string;
}

/** A policy's rule, which may also name the objects it selects. */
export interface NamedRuleWithOperations extends RuleWithOperations {
  resourceNames?: readonly string[];
}

/** What a rule looks at: the request's resource may be replaced by an equivalent one (matchPolicy Equivalent). */
export interface RuleTarget {
  operation: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
}

/**
 * The request's namespace as kube's admission attributes carry it: a request
 * on one namespace object (`/api/v1/namespaces/x`) has that namespace's name,
 * a create of a namespace none.
 */
export function requestNamespace(attrs: Pick<AdmissionAttributes, 'resource' | 'namespace' | 'name' | 'operation'>): string {
  if (isNamespaceResource(attrs.resource.group, attrs.resource.name) && !attrs.namespace && attrs.operation !== 'CREATE') return attrs.name;
  return attrs.namespace;
}

export function isNamespaceResource(group: string, resource: string): boolean {
  return group === '' && resource === 'namespaces';
}

export function ruleTarget(attrs: AdmissionAttributes): RuleTarget {
  return {
    operation: attrs.operation,
    group: attrs.resource.group,
    version: attrs.resource.version,
    resource: attrs.resource.name,
    subresource: attrs.subresource,
    namespace: requestNamespace(attrs),
  };
}

export function ruleMatches(rule: RuleWithOperations, target: RuleTarget): boolean {
  return matchesScope(rule.scope, target)
    && matchesAny(rule.operations, target.operation)
    && matchesAny(rule.apiGroups, target.group)
    && matchesAny(rule.apiVersions, target.version)
    && matchesResource(rule.resources ?? [], target);
}

function matchesAny(values: readonly string[] | undefined, value: string): boolean {
  return (values ?? []).some((v) => v === '*' || v === value);
}

function matchesScope(scope: string | undefined, target: RuleTarget): boolean {
  // The namespace object is cluster-scoped although its requests carry its name as namespace.
  const isNamespace = target.group === '' && target.version === 'v1' && target.resource === 'namespaces';
  switch (scope ?? '*') {
    case '*':
      return true;
    case 'Namespaced':
      return !isNamespace && target.namespace !== '';
    case 'Cluster':
      return isNamespace || target.namespace === '';
    default:
      return false;
  }
}

function matchesResource(resources: readonly string[], target: RuleTarget): boolean {
  return resources.some((entry) => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === target.resource) && (sub === '*' || sub === target.subresource);
  });
}

/**
 * Admission configuration objects that webhooks never see (kube's
 * IsExemptAdmissionConfigurationResource), so that a broken webhook cannot
 * lock the cluster out of fixing it.
 */
const EXEMPT_CONFIGURATION_RESOURCES = new Set([
  'validatingwebhookconfigurations', 'mutatingwebhookconfigurations',
  'validatingadmissionpolicies', 'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings',
]);

export function isExemptAdmissionConfigurationResource(attrs: Pick<AdmissionAttributes, 'resource'>): boolean {
  return attrs.resource.group === 'admissionregistration.k8s.io' && EXEMPT_CONFIGURATION_RESOURCES.has(attrs.resource.name);
}
