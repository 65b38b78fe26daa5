import {
  authorizationMatchConditionEnvironment, compile, evaluate, SubjectAccessReviewSpecType, toCel, type Program,
} from '../cel/index.js';
import type { FieldError } from '../machinery/errors.js';

/**
 * A Webhook authorizer's matchConditions (kube's authorization/cel): CEL
 * over `request`, the v1 SubjectAccessReviewSpec, compiled when the
 * configuration loads and evaluated before the webhook is asked (and
 * before its cache): all true calls the webhook, any false is no opinion,
 * an evaluation error (with none false) is the failure policy's decision.
 */

export const MAX_MATCH_CONDITIONS = 64;

/** kube's compileMatchConditions: errors under `<path>.matchConditions[i].expression`. */
export function validateMatchConditions(expressions: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (expressions.length > MAX_MATCH_CONDITIONS) {
    errs.push({ type: 'FieldValueTooMany', field: `${path}.matchConditions`, value: expressions.length, detail: `must have at most ${MAX_MATCH_CONDITIONS} items` });
    return errs;
  }
  const seen = new Set<string>();
  expressions.forEach((expression, i) => {
    const field = `${path}.matchConditions[${i}].expression`;
    if (expression.trim() === '') return void errs.push({ type: 'FieldValueRequired', field });
    if (seen.has(expression)) return void errs.push({ type: 'FieldValueDuplicate', field, value: expression });
    seen.add(expression);
    const compiled = compileCondition(expression);
    if (typeof compiled === 'string') errs.push({ type: 'FieldValueInvalid', field, value: expression, detail: compiled });
  });
  return errs;
}

/** The program, or kube's error detail. */
function compileCondition(expression: string): Program | string {
  const result = compile(expression, authorizationMatchConditionEnvironment());
  if (!result.ok) return result.error.detail;
  // kube's authorization compiler names the type it got, unlike the other CEL uses
  if (result.program.outputType !== 'bool') return `must evaluate to bool but got ${result.program.outputType}`;
  return result.program;
}

/** All true: matches; any false: no match (`failed` when another expression errored first, which kube still counts); else the errors. */
export type MatchResult = { readonly matches: boolean; readonly failed?: boolean } | { readonly error: string };

/** The compiled conditions of one webhook. */
export class MatchConditions {
  private readonly programs: Program[];
  private readonly usesFieldSelector: boolean;
  private readonly usesLabelSelector: boolean;

  /** Expressions that validateMatchConditions accepted. */
  constructor(expressions: readonly string[]) {
    this.programs = expressions.map((e) => {
      const p = compileCondition(e);
      if (typeof p === 'string') throw new Error(`matchCondition ${JSON.stringify(e)} does not compile: ${p}`);
      return p;
    });
    // kube hands the selectors to CEL only when an expression reads them
    const reads = (name: string): boolean => this.programs.some((p) => p.selects(undefined, name));
    this.usesFieldSelector = reads('fieldSelector');
    this.usesLabelSelector = reads('labelSelector');
  }

  /** kube's CELMatcher.Eval over a v1 SubjectAccessReviewSpec (as JSON). */
  evaluate(spec: Record<string, unknown>): MatchResult {
    const request = toCel(authorizationMatchConditionEnvironment(), this.celSpec(spec), SubjectAccessReviewSpecType);
    const errors: string[] = [];
    for (const program of this.programs) {
      const r = evaluate(program, { request });
      if (!r.ok) {
        errors.push(`cel evaluation error: expression '${program.expression}' resulted in error: ${r.message}`);
        continue;
      }
      if (typeof r.value !== 'boolean') {
        errors.push(`cel evaluation error: expression '${program.expression}' eval result type should be bool`);
        continue;
      }
      if (!r.value) return errors.length > 0 ? { matches: false, failed: true } : { matches: false };
    }
    if (errors.length > 0) return { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
    return { matches: true };
  }

  /** kube's convertObjectToUnstructured: every user field present; selectors only when read. */
  private celSpec(spec: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = { user: spec.user ?? '', groups: spec.groups ?? [], uid: spec.uid ?? '', extra: spec.extra ?? {} };
    const ra = spec.resourceAttributes as Record<string, unknown> | undefined;
    if (ra) {
      const attrs: Record<string, unknown> = {};
      for (const k of ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name']) attrs[k] = ra[k] ?? '';
      if (this.usesFieldSelector && ra.fieldSelector) attrs.fieldSelector = ra.fieldSelector;
      if (this.usesLabelSelector && ra.labelSelector) attrs.labelSelector = ra.labelSelector;
      out.resourceAttributes = attrs;
    }
    if (spec.nonResourceAttributes) out.nonResourceAttributes = spec.nonResourceAttributes;
    return out;
  }
}
