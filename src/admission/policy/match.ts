import { labelSelectorMatches } from '../../machinery/selectors.js';
import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes } from '../admission.js';
import type { MatchResources, RuleWithOperations } from './types.js';

/**
 * Interim matchConstraints / matchResources matching (kube's
 * policy/matching): rules with operations, scope and resourceNames,
 * excludeResourceRules, namespaceSelector and objectSelector, matchPolicy
 * Exact. To be replaced by src/admission/matching/ (the webhook helper's),
 * which policies and webhooks will share.
 */

export interface MatchInput {
  readonly attrs: AdmissionAttributes;
  /** The labels of the request's namespace (undefined when it has none or it does not exist). */
  namespaceLabels(): Promise<Record<string, string> | undefined>;
}

function anyOf(list: readonly string[] | undefined, value: string): boolean {
  return (list ?? []).some((x) => x === '*' || x === value);
}

function resourceMatches(patterns: readonly string[] | undefined, resource: string, subresource: string): boolean {
  for (const p of patterns ?? []) {
    const [res, sub] = p.split('/', 2) as [string, string | undefined];
    if (p === '*/*') return true;
    if (sub === undefined) {
      if (subresource === '' && (res === '*' || res === resource)) return true;
      continue;
    }
    if ((res === '*' || res === resource) && (sub === '*' || sub === subresource)) return true;
  }
  return false;
}

/** kube's rules.Matcher plus NamedRuleWithOperations' resourceNames. */
export function ruleMatches(rule: RuleWithOperations, attrs: AdmissionAttributes): boolean {
  const scope = rule.scope ?? '*';
  if (scope === 'Cluster' && attrs.namespace !== '') return false;
  if (scope === 'Namespaced' && attrs.namespace === '') return false;
  if (!anyOf(rule.operations, attrs.operation)) return false;
  if (!anyOf(rule.apiGroups, attrs.resource.group)) return false;
  if (!anyOf(rule.apiVersions, attrs.resource.version)) return false;
  if (!resourceMatches(rule.resources, attrs.resource.name, attrs.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(attrs.name || (attrs.object?.metadata?.name ?? ''));
}

function isEmptySelector(s: MatchResources['namespaceSelector']): boolean {
  return !s || (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0);
}

function labelsOf(obj: KubeObject | undefined): Record<string, string> {
  return (obj?.metadata?.labels ?? {}) as Record<string, string>;
}

async function namespaceSelectorMatches(m: MatchResources, input: MatchInput): Promise<boolean> {
  const { attrs } = input;
  const isNamespace = attrs.resource.group === '' && attrs.resource.name === 'namespaces';
  if (attrs.namespace === '' && !isNamespace) return true;
  if (isEmptySelector(m.namespaceSelector)) return true;
  const labels = isNamespace ? labelsOf(attrs.object ?? attrs.oldObject) : await input.namespaceLabels();
  return labelSelectorMatches(m.namespaceSelector ?? {}, labels ?? {});
}

function objectSelectorMatches(m: MatchResources, attrs: AdmissionAttributes): boolean {
  if (isEmptySelector(m.objectSelector)) return true;
  const sel = m.objectSelector ?? {};
  return (attrs.object !== undefined && labelSelectorMatches(sel, labelsOf(attrs.object))) ||
    (attrs.oldObject !== undefined && labelSelectorMatches(sel, labelsOf(attrs.oldObject)));
}

/** kube's Matcher.MatchesRequest for a policy's matchConstraints or a binding's matchResources. */
export async function matchesRequest(m: MatchResources | undefined, input: MatchInput): Promise<boolean> {
  if (!m) return true;
  if (!(await namespaceSelectorMatches(m, input))) return false;
  if (!objectSelectorMatches(m, input.attrs)) return false;
  if ((m.excludeResourceRules ?? []).some((r) => ruleMatches(r, input.attrs))) return false;
  const rules = m.resourceRules ?? [];
  if (rules.length === 0) return true;
  return rules.some((r) => ruleMatches(r, input.attrs));
}
