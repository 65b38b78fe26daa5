import type { CelEnvironment } from './environment.js';
import {
  costErrorMessage, CRD_TOTAL_COST_NAME, MAX_REQUEST_SIZE_BYTES, multiplySaturating, RULE_COST_NAME, STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from './limits.js';
import type { DeclType, ObjectType } from './types.js';
import { objectOf } from './types.js';
import { jsonToCel, type CelValue } from './values.js';

/**
 * JSON → the CEL value of a declared type in an environment (object types
 * become the environment's typed objects). Convert each object once per
 * request and reuse the value across expressions.
 */
export function toCel(environment: CelEnvironment, json: unknown, type: DeclType): CelValue {
  return jsonToCel(json, type, (t, fields) => environment.makeObject(t, fields));
}

/**
 * A value of an object type whose fields are computed on first access and
 * then kept (kube's lazily evaluated policy `variables`); a thunk's cost is
 * charged to the evaluation that first reads it.
 */
export function lazyObject(environment: CelEnvironment, type: ObjectType, thunks: ReadonlyMap<string, () => CelValue>): CelValue {
  return environment.makeLazyObject(type, thunks);
}

/** The `variables` type of a policy from its variables' names and compiled output types. */
export function compositionType(variables: readonly { name: string; type: DeclType }[]): ObjectType {
  return objectOf('kubernetes.variables', Object.fromEntries(variables.map((v) => [v.name, v.type])));
}

/**
 * kube's maxCardinality: how many times data of the given minimum
 * serialized size can occur in one request (rules under unbounded lists).
 */
export function maxCardinality(minSerializedSize: number): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSerializedSize + 1));
}

/** A rule's cost over all the places it runs (kube's getExpressionCost). */
export function expressionCost(maxCost: number, cardinality: number): number {
  return multiplySaturating(maxCost, cardinality);
}

/**
 * kube's CELSchemaContext.MaxCardinality of a schema node: the product of
 * the maxItems / maxProperties of every array and map crossed from the
 * root (pass undefined for one without a bound); undefined when unbounded.
 */
export function pathCardinality(bounds: readonly (number | undefined)[]): number | undefined {
  let n = 1;
  for (const b of bounds) {
    if (b === undefined) return undefined;
    n = multiplySaturating(n, b);
  }
  return n;
}

/**
 * The cost kube compares with StaticEstimatedCostLimit for a CRD rule: its
 * max cost × its path cardinality, or × maxCardinality(self's minimum
 * serialized size) when the path is unbounded.
 */
export function crdRuleCost(maxCost: number, cardinality: number | undefined, selfType: DeclType): number {
  return expressionCost(maxCost, cardinality ?? maxCardinality(selfType.minSerializedSize));
}

/**
 * kube's refusal of one CRD rule whose estimated cost (max cost × the times
 * it runs) is over StaticEstimatedCostLimit, or undefined when it fits:
 * "estimated rule cost exceeds budget by factor of ...".
 */
export function ruleCostError(maxCost: number, cardinality = 1, costName = RULE_COST_NAME): string | undefined {
  const cost = expressionCost(maxCost, cardinality);
  return cost > STATIC_ESTIMATED_COST_LIMIT ? costErrorMessage(costName, cost, STATIC_ESTIMATED_COST_LIMIT) : undefined;
}

/** kube's refusal of a CRD schema whose rules' total estimated cost is over StaticEstimatedCRDCostLimit. */
export function crdTotalCostError(total: number): string | undefined {
  return total > STATIC_ESTIMATED_CRD_COST_LIMIT ? costErrorMessage(CRD_TOTAL_COST_NAME, total, STATIC_ESTIMATED_CRD_COST_LIMIT) : undefined;
}
