/**
 * kube's CEL limits (k8s.io/apiserver/pkg/apis/cel/config.go,
 * k8s.io/apiserver/pkg/cel/limits.go, apiextensions validation).
 */

/** Runtime cost limit of one expression evaluation. */
export const PER_CALL_LIMIT = 1_000_000;
/** Runtime budget per ValidatingAdmissionPolicyBinding or per custom resource. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** Runtime budget of the matchConditions of one webhook or binding. */
export const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000;
/** Largest static cost estimate of one CRD validation rule. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Largest total static cost of all validation rules of one CRD schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** Largest string a messageExpression may produce. */
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;

/** The estimator's assumptions where a schema sets no bound. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
export const MAX_DURATION_SIZE_JSON = 32;
export const MAX_DATETIME_SIZE_JSON = 32;
export const MIN_DURATION_SIZE_JSON = 3;
export const JSON_DATE_SIZE = 12;
export const MIN_DATETIME_SIZE_JSON = 21;
export const MIN_STRING_SIZE = 2;
export const MIN_BOOL_SIZE = 4;
export const MIN_NUMBER_SIZE = 1;

/** cel-go's saturation value for costs and sizes (math.MaxUint64). */
export const MAX_UINT64 = 18446744073709551615;

/** The runtime error of an expression that went over its per-call limit (cel-go's text). */
export const COST_LIMIT_EXCEEDED_MESSAGE = 'operation cancelled: actual cost limit exceeded';
/** The error when the budget shared by several expressions ran out (kube's text). */
export const OUT_OF_BUDGET_MESSAGE = 'validation failed due to running out of cost budget, no further validation rules will be run';

/**
 * kube's getCostErrorMessage: "<costName> exceeds budget by factor of <f>
 * (try simplifying the rule, ...)", e.g. costName "estimated rule cost" for
 * one rule, "x-kubernetes-validations estimated rule cost total for entire
 * OpenAPIv3 schema" for a CRD's total.
 */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  let text: string;
  if (factor > 100) text = 'more than 100x';
  else if (factor < 1.5) text = `${factor.toFixed(6)}x`;
  else text = `${factor.toFixed(1)}x`;
  return (
    `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, ` +
    'maxProperties, and maxLength where arrays, maps, and strings are declared)'
  );
}

/** The per-rule cost name of CRD validation rules. */
export const RULE_COST_NAME = 'estimated rule cost';
/** The per-messageExpression cost name of CRD validation rules. */
export const MESSAGE_EXPRESSION_COST_NAME = 'estimated messageExpression cost';
/** The CRD-total cost name. */
export const CRD_TOTAL_COST_NAME = 'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema';
/** The message on each rule that contributed to a CRD total over the limit. */
export const CONTRIBUTED_TO_TOTAL_MESSAGE = 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema';

/** a × b saturating at MAX_UINT64 (kube's multiplyWithOverflowGuard). */
export function multiplySaturating(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  const p = a * b;
  return p >= MAX_UINT64 ? MAX_UINT64 : p;
}

/** a + b saturating at MAX_UINT64. */
export function addSaturating(a: number, b: number): number {
  const s = a + b;
  return s >= MAX_UINT64 ? MAX_UINT64 : s;
}
