import { ApiError, forbidden } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes } from '../admission.js';
import type { LimitedResource } from './configuration.js';
import { matchingScopes, quotaMatches, uncoveredScopes, type QuotaEvaluator } from './evaluator.js';
import { add, lessThanOrEqual, mask, negativeNames, prettyPrint, prettyPrintNames, removeZeros, subtractNonNegative, type ResourceList } from './resources.js';
import { formatScopes, type ScopeRequirement } from './scopes.js';

/** One quota as admission weighs it: status.hard and status.used (what the controller last measured, plus charges). */
export interface QuotaState {
  readonly object: KubeObject;
  readonly name: string;
  readonly hard: ResourceList;
  readonly used: ResourceList;
  /** Whether status.used is present at all. */
  readonly hasUsed: boolean;
  readonly scopes: readonly ScopeRequirement[];
}

export type CheckAttributes = Pick<AdmissionAttributes, 'operation' | 'subresource' | 'object' | 'oldObject' | 'resource' | 'namespace'>;

/** admission.NewForbidden: named after the object (or its generateName; "Unknown" without either). */
function refuse(attrs: CheckAttributes, why: string): ApiError {
  const meta = attrs.object?.metadata;
  const name = meta?.name || meta?.generateName || 'Unknown';
  return forbidden({ group: attrs.resource.group, resource: attrs.resource.name }, name, why);
}

/** An error that is no Status in kube reaches the client as a 500 with its text and no reason. */
function unknownError(message: string): ApiError {
  return new ApiError({ message, code: 500 });
}

/** limitedByDefault: names of consumed resources that contain a configured substring. */
function limitedByDefault(usage: ResourceList, limited: readonly LimitedResource[]): string[] {
  const out: string[] = [];
  for (const l of limited) {
    for (const [name, q] of usage) {
      if (q.mantissa > 0n && l.matchContains.some((m) => name.includes(m))) out.push(name);
    }
  }
  return out;
}

/**
 * kube's CheckRequest: whether the request fits every quota that matches
 * it, and the quotas as they would be with it charged (unchanged when it
 * charges nothing). Throws the ApiError the request is refused with.
 */
export function checkRequest(
  quotas: readonly QuotaState[],
  attrs: CheckAttributes,
  evaluator: QuotaEvaluator,
  limited: readonly LimitedResource[],
  now: number,
): QuotaState[] {
  const quotasIn = [...quotas];
  if (!evaluator.handles(attrs)) return quotasIn;
  const input = attrs.object;
  if (!input) return quotasIn;

  const limitedScopes = limited.flatMap((l) => matchingScopes(evaluator, input, l.matchScopes));
  const limitedHere = limited.filter((l) => l.apiGroup === attrs.resource.group && l.resource === attrs.resource.name);
  const limitedNames = new Set(limitedHere.length > 0 ? limitedByDefault(evaluator.usage(input, now), limitedHere) : []);

  const interesting: number[] = [];
  const restrictedNames = new Set<string>();
  const restrictedScopes: ScopeRequirement[] = [];
  quotasIn.forEach((q, i) => {
    restrictedScopes.push(...matchingScopes(evaluator, input, q.scopes));
    const hardNames = [...q.hard.keys()];
    if (!quotaMatches(evaluator, hardNames, q.scopes, input)) return;
    const restricted = evaluator.matchingResources(hardNames);
    const failed = evaluator.constraints(restricted, input);
    if (failed) throw refuse(attrs, `failed quota: ${q.name}: ${failed}`);
    if (!restricted.every((r) => !q.hard.has(r) || q.used.has(r))) {
      throw refuse(attrs, `status unknown for quota: ${q.name}, resources: ${prettyPrintNames(restricted)}`);
    }
    interesting.push(i);
    for (const r of restricted) restrictedNames.add(r);
  });

  const inputUsage = evaluator.usage(input, now);
  const negative = negativeNames(inputUsage);
  if (negative.length > 0) throw refuse(attrs, `quota usage is negative for resource(s): ${prettyPrintNames(negative)}`);

  const deltas = new Map<number, ResourceList>(interesting.map((i) => [i, inputUsage]));
  let deltaWithoutQuota: ResourceList = attrs.operation === 'CREATE' && interesting.length === 0 ? inputUsage : new Map();
  if (attrs.operation === 'UPDATE') {
    const prev = attrs.oldObject;
    if (!prev) throw refuse(attrs, 'unable to get previous usage since prior version of object was not found');
    // Not a create-on-update: charge only what grew.
    if (prev.metadata?.resourceVersion) {
      const delta = subtractNonNegative(inputUsage, evaluator.usage(prev, now));
      if (interesting.length === 0) deltaWithoutQuota = delta;
      for (const i of interesting) if (quotaMatches(evaluator, [...quotasIn[i]!.hard.keys()], quotasIn[i]!.scopes, prev)) deltas.set(i, delta);
    } else if (interesting.length === 0) deltaWithoutQuota = inputUsage;
  }
  for (const [i, d] of [...deltas]) {
    const nonZero = removeZeros(d);
    if (nonZero.size === 0) deltas.delete(i);
    else deltas.set(i, nonZero);
  }
  if (interesting.length > 0 ? deltas.size === 0 : removeZeros(deltaWithoutQuota).size === 0) return quotasIn;

  const uncoveredNames = [...limitedNames].filter((n) => !restrictedNames.has(n));
  if (uncoveredNames.length > 0) throw refuse(attrs, `insufficient quota to consume: ${[...new Set(uncoveredNames)].sort().join(',')}`);
  const uncovered = uncoveredScopes(limitedScopes, restrictedScopes);
  if (uncovered.length > 0) throw unknownError(`insufficient quota to match these scopes: ${formatScopes(uncovered)}`);
  if (interesting.length === 0) return quotasIn;

  const out = [...quotasIn];
  for (const i of interesting) {
    const delta = deltas.get(i);
    if (!delta) continue;
    const q = out[i]!;
    const requested = mask(delta, q.hard.keys());
    const newUsed = add(q.used, requested);
    const { allowed, exceeded } = lessThanOrEqual(mask(newUsed, requested.keys()), q.hard);
    if (!allowed) {
      throw refuse(
        attrs,
        `exceeded quota: ${q.name}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(q.used, exceeded))}, limited: ${prettyPrint(mask(q.hard, exceeded))}`,
      );
    }
    out[i] = { ...q, used: newUsed, hasUsed: true };
  }
  return out;
}
