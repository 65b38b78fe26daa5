import type { AuthorizationAttributes } from '../authorizer.js';

/**
 * RBAC policy rules and how they match a request, as kube's
 * pkg/apis/rbac/v1/evaluation_helpers.go, and how one set of rules covers
 * another (component-helpers/auth/rbac/validation: escalation checks), with
 * the compact rendering of rules kube's escalation errors list.
 */

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** A rule from a stored Role or ClusterRole, whatever the client wrote (only string arrays count). */
export function policyRuleOf(raw: unknown): PolicyRule {
  const r = (raw ?? {}) as Record<string, unknown>;
  const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined);
  const rule: PolicyRule = { verbs: strings(r.verbs) ?? [] };
  const apiGroups = strings(r.apiGroups);
  const resources = strings(r.resources);
  const resourceNames = strings(r.resourceNames);
  const nonResourceURLs = strings(r.nonResourceURLs);
  if (apiGroups) rule.apiGroups = apiGroups;
  if (resources) rule.resources = resources;
  if (resourceNames) rule.resourceNames = resourceNames;
  if (nonResourceURLs) rule.nonResourceURLs = nonResourceURLs;
  return rule;
}

export function policyRulesOf(raw: unknown): PolicyRule[] {
  return Array.isArray(raw) ? raw.map(policyRuleOf) : [];
}

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === '*' || v === verb);
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === '*' || g === group);
}

function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    // `*/subresource` matches that subresource of every resource.
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** kube's RuleAllows. */
export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!attrs.resourceRequest) return nonResourceURLMatches(rule, attrs.path ?? '');
  const subresource = attrs.subresource ?? '';
  const combined = subresource ? `${attrs.resource ?? ''}/${subresource}` : (attrs.resource ?? '');
  return apiGroupMatches(rule, attrs.group ?? '') && resourceMatches(rule, combined, subresource) && resourceNameMatches(rule, attrs.name ?? '');
}

// ---- coverage (escalation checks) ----

/** One verb on one group/resource (and at most one name), or one verb on one URL: kube's BreakdownRule. */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0) for (const name of names) out.push({ apiGroups: [group], resources: [resource], resourceNames: [name], verbs: [verb] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function hasAll(set: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((w) => set.includes(w));
}

function resourceCoversAll(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes('*') || hasAll(owner, wanted)) return true;
  for (const r of wanted) {
    if (owner.includes(r)) continue;
    const slash = r.indexOf('/');
    if (slash < 0) return false;
    if (!owner.includes(`*/${r.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlCoversAll(owner: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((w) => owner.some((o) => o === '*' || o === w || (o.endsWith('*') && w.startsWith(o.replace(/\*+$/, '')))));
}

function ruleCovers(owner: PolicyRule, wanted: PolicyRule): boolean {
  const verbs = owner.verbs.includes('*') || hasAll(owner.verbs, wanted.verbs);
  const groups = (owner.apiGroups ?? []).includes('*') || hasAll(owner.apiGroups ?? [], wanted.apiGroups ?? []);
  const resources = resourceCoversAll(owner.resources ?? [], wanted.resources ?? []);
  const urls = urlCoversAll(owner.nonResourceURLs ?? [], wanted.nonResourceURLs ?? []);
  const ownerNames = owner.resourceNames ?? [];
  const wantedNames = wanted.resourceNames ?? [];
  const names = ownerNames.length === 0 || (wantedNames.length > 0 && hasAll(ownerNames, wantedNames));
  return verbs && groups && resources && urls && names;
}

/** kube's Covers: whether the owner's rules cover every piece of the wanted ones, and the pieces they do not. */
export function covers(owner: readonly PolicyRule[], wanted: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const rule of wanted) {
    for (const piece of breakdown(rule)) {
      if (!owner.some((o) => ruleCovers(o, piece))) missing.push(piece);
    }
  }
  return { covered: missing.length === 0, missing };
}

/** kube's CompactRules: single group/resource(/name) rules that differ only by verb merge into one. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const names = r.resourceNames ?? [];
    const isSimple = (r.nonResourceURLs ?? []).length === 0 && (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1 && names.length <= 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], names.length === 1, names[0] ?? '']);
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...r.verbs);
    else simple.set(key, { ...r, verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
export function goQuotedList(items: readonly string[]): string {
  return `[${items.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** kube's CompactString of a rule, as escalation errors list them. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuotedList(r.apiGroups!)}`);
  if ((r.resources ?? []).length > 0) parts.push(`Resources:${goQuotedList(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuotedList(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuotedList(r.resourceNames!)}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goQuotedList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
