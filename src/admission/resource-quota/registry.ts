import type { KubeObject } from '../../machinery/object.js';
import { objectCountEvaluator, type QuotaEvaluator } from './evaluator.js';
import { POD_EVALUATOR } from './pods.js';
import { PVC_EVALUATOR } from './pvcs.js';
import { add, mask, ZERO, type ResourceList } from './resources.js';
import type { ScopeRequirement } from './scopes.js';
import { SERVICE_EVALUATOR } from './services.js';

/**
 * The evaluators kube registers (pkg/quota/v1/evaluator/core/registry.go):
 * pods, services and claims have their own; configmaps, secrets,
 * replicationcontrollers and resourcequotas count under their legacy names
 * too; every other resource (custom ones included) gets an object count
 * evaluator on first use, as the admission plugin adds one.
 */
const LEGACY_ALIASES: ReadonlyMap<string, string> = new Map([
  ['configmaps', 'configmaps'],
  ['resourcequotas', 'resourcequotas'],
  ['replicationcontrollers', 'replicationcontrollers'],
  ['secrets', 'secrets'],
]);

const SPECIAL: ReadonlyMap<string, QuotaEvaluator> = new Map([POD_EVALUATOR, SERVICE_EVALUATOR, PVC_EVALUATOR].map((e) => [`/${e.resource}`, e]));

/** pkg/quota/v1/install's ignored resources: virtual ones never stored, and events. */
const IGNORED: ReadonlySet<string> = new Set([
  '/bindings',
  '/componentstatuses',
  'authentication.k8s.io/tokenreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  '/events',
  'events.k8s.io/events',
]);

/** Whether quota leaves a group-resource alone (neither admission nor the controller count it). */
export function quotaIgnores(group: string, resource: string): boolean {
  return IGNORED.has(`${group}/${resource}`);
}

export class QuotaEvaluators {
  private readonly counts = new Map<string, QuotaEvaluator>();

  /** The evaluator of a group-resource. */
  get(group: string, resource: string): QuotaEvaluator {
    const key = `${group}/${resource}`;
    const special = SPECIAL.get(key);
    if (special) return special;
    let e = this.counts.get(key);
    if (!e) {
      e = objectCountEvaluator(group, resource, group === '' ? LEGACY_ALIASES.get(resource) : undefined);
      this.counts.set(key, e);
    }
    return e;
  }

  /**
   * The evaluators a quota with these hard names needs to measure usage:
   * kube's built-in ones, and one per `count/<resource>[.<group>]` it names.
   */
  forHard(hardNames: readonly string[]): QuotaEvaluator[] {
    const out = new Map<string, QuotaEvaluator>();
    const consider = (e: QuotaEvaluator): void => {
      if (e.matchingResources(hardNames).length > 0) out.set(`${e.group}/${e.resource}`, e);
    };
    for (const e of SPECIAL.values()) consider(e);
    for (const r of LEGACY_ALIASES.keys()) consider(this.get('', r));
    for (const name of hardNames) {
      const gr = groupResourceOfCount(name);
      if (gr && !quotaIgnores(gr.group, gr.resource)) consider(this.get(gr.group, gr.resource));
    }
    return [...out.values()];
  }
}

/** The group-resource a `count/<resource>[.<group>]` name counts. */
export function groupResourceOfCount(name: string): { group: string; resource: string } | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  if (dot < 0) return rest ? { group: '', resource: rest } : undefined;
  return { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/**
 * quota.CalculateUsage: per evaluator the usage of the namespace's objects
 * inside every scope of the quota (each tracked resource starting at zero),
 * summed, masked to the hard names.
 */
export function calculateUsage(
  evaluators: readonly QuotaEvaluator[],
  hardNames: readonly string[],
  scopes: readonly ScopeRequirement[],
  objectsOf: (evaluator: QuotaEvaluator) => readonly KubeObject[],
  now: number,
): ResourceList {
  let result: ResourceList = new Map();
  for (const e of evaluators) {
    const matched = e.matchingResources(hardNames);
    if (matched.length === 0) continue;
    let used: ResourceList = new Map(matched.map((n) => [n, ZERO]));
    for (const obj of objectsOf(e)) {
      if (!scopes.every((s) => e.matchesScope(s, obj))) continue;
      used = add(used, e.usage(obj, now));
    }
    result = add(result, used);
  }
  return mask(result, hardNames);
}
