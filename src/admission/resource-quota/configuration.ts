import { scopeSelectorsOf, type ScopeRequirement } from './scopes.js';

/**
 * The ResourceQuota plugin's configuration (kind Configuration of
 * apiserver.config.k8s.io/v1, or the older resourcequota.admission.k8s.io
 * versions): resources and scopes that may only be used in a namespace with
 * a quota covering them.
 */
export interface LimitedResource {
  apiGroup: string;
  resource: string;
  /** Usage names containing any of these must be covered by a quota. */
  matchContains: string[];
  /** Objects in these scopes must be covered by a quota naming the scope. */
  matchScopes: ScopeRequirement[];
}

export interface ResourceQuotaConfiguration {
  limitedResources: LimitedResource[];
}

const API_VERSIONS = new Set(['apiserver.config.k8s.io/v1', 'resourcequota.admission.k8s.io/v1beta1', 'resourcequota.admission.k8s.io/v1alpha1']);

/** Decodes and validates the configuration (kube's ValidateConfiguration); throws an Error saying what is wrong. */
export function parseResourceQuotaConfiguration(raw: unknown): ResourceQuotaConfiguration {
  if (raw === undefined || raw === null) return { limitedResources: [] };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error('ResourceQuota configuration: expected an object');
  const obj = raw as Record<string, unknown>;
  if (obj.apiVersion !== undefined && !API_VERSIONS.has(String(obj.apiVersion))) throw new Error(`ResourceQuota configuration: unsupported apiVersion "${String(obj.apiVersion)}"`);
  if (obj.kind !== undefined && obj.kind !== 'Configuration') throw new Error(`ResourceQuota configuration: unsupported kind "${String(obj.kind)}"`);
  const list = obj.limitedResources ?? [];
  if (!Array.isArray(list)) throw new Error('ResourceQuota configuration: limitedResources must be a list');
  const errors: string[] = [];
  const limitedResources = list.map((entry: unknown, i): LimitedResource => {
    const e = (entry && typeof entry === 'object' ? entry : {}) as Record<string, unknown>;
    const resource = typeof e.resource === 'string' ? e.resource : '';
    if (!resource) errors.push(`limitedResources[${i}].resource: Required value`);
    return {
      apiGroup: typeof e.apiGroup === 'string' ? e.apiGroup : '',
      resource,
      matchContains: Array.isArray(e.matchContains) ? e.matchContains.filter((s): s is string => typeof s === 'string') : [],
      matchScopes: scopeSelectorsOf({ spec: { scopeSelector: { matchExpressions: e.matchScopes } } }),
    };
  });
  if (errors.length > 0) throw new Error(`ResourceQuota configuration is invalid: ${errors.join(', ')}`);
  return { limitedResources };
}
