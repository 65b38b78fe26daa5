import type { KubeObject } from '../../machinery/object.js';

/**
 * Quota scopes (corev1.ScopedResourceSelectorRequirement): what a quota's
 * spec.scopes and spec.scopeSelector say, and how a scope value is matched
 * the way kube turns one requirement into a label selector over
 * {scopeName: value}.
 */
export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

/** getScopeSelectorsFromQuota: spec.scopes as Exists requirements, then spec.scopeSelector's expressions. */
export function scopeSelectorsOf(quota: KubeObject): ScopeRequirement[] {
  const spec = (quota.spec ?? {}) as { scopes?: unknown; scopeSelector?: { matchExpressions?: unknown } };
  const out: ScopeRequirement[] = [];
  if (Array.isArray(spec.scopes)) for (const s of spec.scopes) if (typeof s === 'string') out.push({ scopeName: s, operator: 'Exists' });
  const exprs = spec.scopeSelector?.matchExpressions;
  if (Array.isArray(exprs)) {
    for (const e of exprs as Array<Record<string, unknown>>) {
      if (!e || typeof e !== 'object') continue;
      const values = Array.isArray(e.values) ? e.values.filter((v): v is string => typeof v === 'string') : undefined;
      out.push({ scopeName: String(e.scopeName ?? ''), operator: String(e.operator ?? ''), ...(values ? { values } : {}) });
    }
  }
  return out;
}

/**
 * The requirement as a label selector matched against `values` (each one is
 * {scopeName: value}; none: the empty label set): true when any matches.
 */
export function requirementMatchesValues(req: ScopeRequirement, values: readonly string[]): boolean {
  const sets = values.length === 0 ? [undefined] : values;
  return sets.some((value) => {
    switch (req.operator) {
      case 'In':
        return value !== undefined && (req.values ?? []).includes(value);
      case 'NotIn':
        return value === undefined || !(req.values ?? []).includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      default:
        return false;
    }
  });
}

/** Go's %v of a []ScopedResourceSelectorRequirement: `[{PriorityClass In [a b]}]`. */
export function formatScopes(reqs: readonly ScopeRequirement[]): string {
  return `[${reqs.map((r) => `{${r.scopeName} ${r.operator} [${(r.values ?? []).join(' ')}]}`).join(' ')}]`;
}
