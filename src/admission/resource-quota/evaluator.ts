import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes } from '../admission.js';
import { count, intersection, type ResourceList } from './resources.js';
import type { ScopeRequirement } from './scopes.js';

/**
 * kube's quota.Evaluator: how one group-resource uses quota. `now` is the
 * clock pods' end of life is judged by (milliseconds since the epoch).
 */
export interface QuotaEvaluator {
  readonly group: string;
  readonly resource: string;
  /** Whether this request can change usage. */
  handles(attrs: Pick<AdmissionAttributes, 'operation' | 'subresource' | 'object' | 'oldObject'>): boolean;
  /** The names among `names` this evaluator measures. */
  matchingResources(names: readonly string[]): string[];
  /** Whether the object is inside one scope requirement (kube's MatchesScopeFunc; MatchesNoScopeFunc answers false). */
  matchesScope(req: ScopeRequirement, obj: KubeObject): boolean;
  /** Why the object cannot be admitted by a quota that tracks `required`, or undefined. */
  constraints(required: readonly string[], obj: KubeObject): string | undefined;
  usage(obj: KubeObject, now: number): ResourceList;
}

/** generic.ObjectCountQuotaResourceNameFor: `count/<resource>[.<group>]`. */
export function objectCountName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** generic.NewObjectCountEvaluator: counts creates, under `count/...` and a legacy alias when it has one. */
export function objectCountEvaluator(group: string, resource: string, alias?: string): QuotaEvaluator {
  const names = [objectCountName(group, resource), ...(alias ? [alias] : [])];
  return {
    group,
    resource,
    handles: (attrs) => attrs.operation === 'CREATE',
    matchingResources: (input) => intersection(input, names),
    matchesScope: () => false,
    constraints: () => undefined,
    usage: () => new Map(names.map((n) => [n, count(1)])),
  };
}

/** generic.Matches: the quota tracks at least one of the evaluator's resources and every scope holds. */
export function quotaMatches(evaluator: QuotaEvaluator, hardNames: readonly string[], scopes: readonly ScopeRequirement[], obj: KubeObject): boolean {
  if (evaluator.matchingResources(hardNames).length === 0) return false;
  return scopes.every((s) => evaluator.matchesScope(s, obj));
}

/** Evaluator.MatchingScopes: the requirements the object is inside. */
export function matchingScopes(evaluator: QuotaEvaluator, obj: KubeObject, reqs: readonly ScopeRequirement[]): ScopeRequirement[] {
  return reqs.filter((r) => evaluator.matchesScope(r, obj));
}

/** Evaluator.UncoveredQuotaScopes: limited scopes no matched quota scope names. */
export function uncoveredScopes(limited: readonly ScopeRequirement[], matched: readonly ScopeRequirement[]): ScopeRequirement[] {
  return limited.filter((l) => !matched.some((m) => m.scopeName === l.scopeName));
}
