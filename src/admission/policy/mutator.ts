import type { Authorizer } from '../../authz/authorizer.js';
import { formatValidationErrors, mergeApplied, type ApplySchema } from '../../apply/index.js';
import { celToJson, compileConstruction, CostBudget, mutatingAdmissionPolicyEnvironment, PolicyExpressions, RUNTIME_CEL_COST_BUDGET, type Compiled } from '../../cel/index.js';
import type { JsonValue } from '../../machinery/json-value.js';
import type { KubeObject } from '../../machinery/object.js';
import { applyJsonPatch } from '../../patch/json-patch.js';
import type { MatchConditions } from '../matching/match-conditions.js';
import { PolicyActivation, type PolicyInputs } from './activation.js';
import type { FailurePolicy, MutatingAdmissionPolicySpec } from './types.js';
import { checkMatchConditions, compileMatchConditions } from './validator.js';

/**
 * One MutatingAdmissionPolicy compiled (kube's policy/mutating patchers):
 * its mutations run in order on the object, each seeing the result of the
 * one before; an ApplyConfiguration result is merged as server-side apply
 * merges (by the kind's schema: list-map keys, atomic lists), a JSONPatch
 * result applied as RFC 6902.
 */

export type MutateResult =
  | { readonly kind: 'skipped' }
  | { readonly kind: 'mutated'; readonly object: KubeObject; readonly changed: boolean }
  | { readonly kind: 'error'; readonly message: string };

interface CompiledMutation {
  readonly patchType: 'ApplyConfiguration' | 'JSONPatch' | string;
  readonly compiled: Compiled;
}

export class MutatingPolicyEvaluator {
  readonly expressions: PolicyExpressions;
  readonly failurePolicy: FailurePolicy;
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
  private readonly matchConditions: MatchConditions | string;
  private readonly mutations: readonly CompiledMutation[];

  constructor(spec: MutatingAdmissionPolicySpec, authorizer?: Authorizer) {
    const params = spec.paramKind !== undefined && spec.paramKind !== null;
    this.expressions = new PolicyExpressions(spec.variables, (variables) => mutatingAdmissionPolicyEnvironment({ ...(variables ? { variables } : {}), params }));
    this.failurePolicy = spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
    this.reinvocationPolicy = spec.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never';
    this.matchConditions = compileMatchConditions(this.expressions, spec.matchConditions, this.failurePolicy, authorizer);
    this.mutations = (spec.mutations ?? []).map((m) => {
      const expression = m.patchType === 'JSONPatch' ? m.jsonPatch?.expression : m.applyConfiguration?.expression;
      return { patchType: m.patchType ?? '', compiled: compileConstruction(this.expressions, expression ?? '') };
    });
  }

  /**
   * The object after every mutation, for one binding and param.
   * `schema` is the matched kind's (ApplyConfiguration merges by it).
   */
  async mutate(inputs: PolicyInputs, schema: ApplySchema): Promise<MutateResult> {
    const first = new PolicyActivation(this.expressions, inputs);
    const m = await checkMatchConditions(this.matchConditions, inputs, first);
    if (m && 'error' in m) return { kind: 'error', message: m.error };
    if (m) return { kind: 'skipped' };
    let object = inputs.matched.object;
    if (!object) return { kind: 'skipped' };
    const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET);
    let changed = false;
    for (const mutation of this.mutations) {
      const activation = object === inputs.matched.object ? first : new PolicyActivation(this.expressions, { ...inputs, matched: { ...inputs.matched, object } });
      const r = await activation.run(mutation.compiled, budget, true);
      if (!r.ok) return { kind: 'error', message: r.error };
      const value = celToJson(r.value) as JsonValue;
      let next: KubeObject;
      try {
        next = mutation.patchType === 'JSONPatch' ? applyPatchList(object, value) : applyConfiguration(object, value, schema);
      } catch (err) {
        return { kind: 'error', message: err instanceof Error ? err.message : String(err) };
      }
      if (JSON.stringify(next) !== JSON.stringify(object)) changed = true;
      object = next;
    }
    return { kind: 'mutated', object, changed };
  }
}

function applyPatchList(object: KubeObject, value: JsonValue): KubeObject {
  if (!Array.isArray(value)) throw new Error('JSONPatch expression must evaluate to a list of JSONPatch');
  return applyJsonPatch(object, JSON.stringify(value)) as KubeObject;
}

function applyConfiguration(object: KubeObject, value: JsonValue, schema: ApplySchema): KubeObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('ApplyConfiguration expression must evaluate to an Object');
  const r = mergeApplied(object as JsonValue, value, schema.root);
  if (r.errors.length > 0) throw new Error(formatValidationErrors(r.errors));
  return r.value as KubeObject;
}
