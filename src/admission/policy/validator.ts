import type { Authorizer } from '../../authz/authorizer.js';
import { admissionPolicyEnvironment, CostBudget, MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES, PolicyExpressions, RUNTIME_CEL_COST_BUDGET, type Compiled } from '../../cel/index.js';
import { admissionRequest } from '../matching/admission-request.js';
import { kindOf } from '../matching/equivalents.js';
import { MatchConditions } from '../matching/match-conditions.js';
import { PolicyActivation, type PolicyInputs } from './activation.js';
import type { FailurePolicy, NamedExpression, ValidatingAdmissionPolicySpec } from './types.js';

/**
 * One ValidatingAdmissionPolicy compiled (kube's validating.validator):
 * matchConditions, validations with their messageExpressions, and
 * auditAnnotations, evaluated for one binding and one param into decisions
 * with kube's messages.
 */

export interface PolicyDecision {
  readonly action: 'admit' | 'deny';
  readonly evaluation: 'admit' | 'deny' | 'error';
  readonly message: string;
  /** The status reason of a denial (kube's StatusReason; Invalid unless the validation names one). */
  readonly reason: string;
}

export type AuditAnnotationResult =
  | { readonly action: 'publish'; readonly key: string; readonly value: string }
  | { readonly action: 'error'; readonly key: string; readonly error: string }
  | { readonly action: 'exclude'; readonly key: string };

export interface ValidateResult {
  readonly decisions: readonly PolicyDecision[];
  readonly auditAnnotations: readonly AuditAnnotationResult[];
}

interface CompiledValidation {
  readonly expression: Compiled;
  readonly messageExpression: Compiled | undefined;
  readonly message: string;
  readonly reason: string | undefined;
}

/**
 * A policy's matchConditions (src/admission/matching/'s, in the policy's
 * environment with params, namespaceObject and variables), or why they do
 * not compile.
 */
export function compileMatchConditions(
  expressions: PolicyExpressions, conditions: readonly NamedExpression[] | undefined, failurePolicy: FailurePolicy, authorizer: Authorizer | undefined,
): MatchConditions | string {
  try {
    return new MatchConditions((conditions ?? []).map((c) => ({ name: c.name ?? '', expression: c.expression ?? '' })), failurePolicy, authorizer, expressions.environment);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** kube's matchconditions.Matcher.Match for one binding and param: undefined to go on, or the result to return. */
export async function checkMatchConditions(
  conditions: MatchConditions | string, inputs: PolicyInputs, activation: PolicyActivation,
): Promise<{ error: string } | { matches: false } | undefined> {
  if (typeof conditions === 'string') return { error: conditions };
  if (conditions.empty) return undefined;
  const request = admissionRequest(inputs.attrs, inputs.matched, kindOf(inputs.attrs.resource, inputs.attrs.subresource), '');
  const r = await conditions.evaluate({ attrs: inputs.attrs, request, extra: activation.extraVariables });
  if ('error' in r && r.error) return { error: r.error.message };
  return r.matches ? undefined : { matches: false };
}

export class ValidatingPolicyEvaluator {
  readonly expressions: PolicyExpressions;
  readonly failurePolicy: FailurePolicy;
  readonly matchConditions: MatchConditions | string;
  private readonly validations: readonly CompiledValidation[];
  private readonly auditAnnotations: readonly { key: string; valueExpression: string; compiled: Compiled }[];

  /** `authorizer` answers the matchConditions' authorizer checks. */
  constructor(spec: ValidatingAdmissionPolicySpec, authorizer?: Authorizer) {
    const params = spec.paramKind !== undefined && spec.paramKind !== null;
    this.expressions = new PolicyExpressions(spec.variables, (variables) => admissionPolicyEnvironment({ ...(variables ? { variables } : {}), params }));
    this.failurePolicy = spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
    this.matchConditions = compileMatchConditions(this.expressions, spec.matchConditions, this.failurePolicy, authorizer);
    this.validations = (spec.validations ?? []).map((v) => ({
      expression: this.expressions.compile(v.expression ?? '', ['bool']),
      messageExpression: v.messageExpression ? this.expressions.compile(v.messageExpression, ['string']) : undefined,
      message: v.message ?? '',
      reason: v.reason,
    }));
    this.auditAnnotations = (spec.auditAnnotations ?? []).map((a) => ({
      key: a.key ?? '',
      valueExpression: a.valueExpression ?? '',
      compiled: this.expressions.compile(a.valueExpression ?? '', ['string', 'null']),
    }));
  }

  activation(inputs: PolicyInputs): PolicyActivation {
    return new PolicyActivation(this.expressions, inputs);
  }

  private errorDecision(message: string): PolicyDecision {
    return { action: this.failurePolicy === 'Ignore' ? 'admit' : 'deny', evaluation: 'error', message, reason: '' };
  }

  /** kube's validator.Validate for one binding and one param. */
  async validate(inputs: PolicyInputs): Promise<ValidateResult> {
    const activation = this.activation(inputs);
    const m = await checkMatchConditions(this.matchConditions, inputs, activation);
    if (m && 'error' in m) return { decisions: [this.errorDecision(m.error)], auditAnnotations: [] };
    if (m) return { decisions: [], auditAnnotations: [] };
    const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET);
    const results = [];
    for (const v of this.validations) {
      const r = await activation.run(v.expression, budget, true);
      if (!r.ok && r.outOfBudget) return { decisions: [this.errorDecision(r.error)], auditAnnotations: [] };
      results.push(r);
    }
    const decisions: PolicyDecision[] = [];
    let messageBudgetError: string | undefined;
    for (let i = 0; i < this.validations.length; i++) {
      const v = this.validations[i]!;
      const r = results[i]!;
      if (!r.ok) {
        decisions.push(this.errorDecision(r.error));
        continue;
      }
      if (r.value === true) {
        decisions.push({ action: 'admit', evaluation: 'admit', message: '', reason: '' });
        continue;
      }
      let message = '';
      if (v.messageExpression && messageBudgetError === undefined) {
        const m = await activation.run(v.messageExpression, budget, false);
        if (!m.ok && m.outOfBudget) messageBudgetError = m.error;
        else if (m.ok && typeof m.value === 'string') {
          message = m.value.trim();
          if (Buffer.byteLength(message) > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || message.includes('\n')) message = '';
        }
      }
      if (messageBudgetError !== undefined) {
        decisions.push(this.errorDecision(`failed messageExpression: ${messageBudgetError}`));
        continue;
      }
      if (message === '' && v.message !== '') message = v.message.trim();
      if (message === '') message = `failed expression: ${v.expression.expression.trim()}`;
      decisions.push({ action: 'deny', evaluation: 'deny', message, reason: v.reason || 'Invalid' });
    }
    return { decisions, auditAnnotations: await this.evaluateAuditAnnotations(activation) };
  }

  private async evaluateAuditAnnotations(activation: PolicyActivation): Promise<AuditAnnotationResult[]> {
    const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET);
    const failed = this.failurePolicy === 'Ignore' ? 'exclude' : 'error';
    const out: AuditAnnotationResult[] = [];
    for (const a of this.auditAnnotations) {
      const r = await activation.run(a.compiled, budget, false);
      if (!r.ok) {
        out.push(failed === 'exclude' ? { action: 'exclude', key: a.key } : { action: 'error', key: a.key, error: r.error });
        continue;
      }
      if (r.value === null) out.push({ action: 'exclude', key: a.key });
      else if (typeof r.value === 'string') {
        const value = r.value.trim();
        out.push(value === '' ? { action: 'exclude', key: a.key } : { action: 'publish', key: a.key, value });
      } else {
        out.push({
          action: 'error', key: a.key,
          error: `valueExpression '${a.valueExpression}' resulted in unsupported return type: ${typeof r.value}. Return type must be either string or null.`,
        });
      }
    }
    return out;
  }
}
