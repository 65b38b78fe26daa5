import type { Program } from './compile.js';
import { goEvaluationMessage } from './errors.js';
import { COST_LIMIT_EXCEEDED_MESSAGE, OUT_OF_BUDGET_MESSAGE, PER_CALL_LIMIT } from './limits.js';
import { CostLimitExceeded, tracked } from './runtime-cost.js';
import type { CelValue } from './values.js';

/**
 * A runtime cost budget shared by several evaluations (kube's remaining
 * budget per custom resource, per policy binding, per webhook's match
 * conditions).
 */
export class CostBudget {
  #remaining: number;

  constructor(total: number) {
    this.#remaining = total;
  }

  /** Cost left; negative once an evaluation ran out of it. */
  get remaining(): number {
    return this.#remaining;
  }

  /** @internal */
  spend(cost: number): boolean {
    if (cost > this.#remaining) {
      this.#remaining = -1;
      return false;
    }
    this.#remaining -= cost;
    return true;
  }
}

/** Why an evaluation failed. */
export type EvaluationErrorKind =
  /** the expression went over its per-call limit (kube: "operation cancelled: actual cost limit exceeded") */
  | 'costLimit'
  /** the shared budget ran out (kube: "validation failed due to running out of cost budget, ...") */
  | 'outOfBudget'
  /** a runtime error of the expression (no such key, division by zero, no such overload, ...) */
  | 'evaluation';

export type EvaluationResult =
  | { readonly ok: true; readonly value: CelValue; readonly cost: number }
  | { readonly ok: false; readonly kind: EvaluationErrorKind; readonly message: string; readonly cost: number };

/** Options of evaluate(). */
export interface EvaluateOptions {
  /** Shared budget to charge; evaluation is refused once it is spent. */
  readonly budget?: CostBudget;
  /** Per-call limit (default kube's PerCallLimit, 1,000,000). */
  readonly perCallLimit?: number;
}

/**
 * Evaluates a program against an activation (variable name → CEL value, see
 * jsonToCel and the environment's value helpers), charging its actual cost.
 * Never throws for the expression's own faults.
 */
export function evaluate(program: Program, activation: Record<string, CelValue>, options: EvaluateOptions = {}): EvaluationResult {
  const budget = options.budget;
  if (budget && budget.remaining <= 0) return { ok: false, kind: 'outOfBudget', message: OUT_OF_BUDGET_MESSAGE, cost: 0 };
  const limit = options.perCallLimit ?? PER_CALL_LIMIT;
  let spent = 0;
  try {
    const { value, cost } = tracked(limit, () => program.run(activation));
    spent = cost;
    if (budget && !budget.spend(cost)) return { ok: false, kind: 'outOfBudget', message: OUT_OF_BUDGET_MESSAGE, cost };
    return { ok: true, value, cost };
  } catch (e) {
    if (e instanceof CostLimitExceeded || (e as { cause?: unknown }).cause instanceof CostLimitExceeded) {
      budget?.spend(Number.MAX_VALUE);
      return { ok: false, kind: 'costLimit', message: COST_LIMIT_EXCEEDED_MESSAGE, cost: limit };
    }
    return { ok: false, kind: 'evaluation', message: goEvaluationMessage(e), cost: spent };
  }
}

/**
 * evaluate() for expressions that may call an asynchronous function (the
 * `authorizer` of admission policies asks the server's authorizer chain): the
 * result is awaited, and a failure while it settles is the expression's
 * runtime error. Cost charged after the first await is not counted.
 */
export async function evaluateAsync(program: Program, activation: Record<string, CelValue>, options: EvaluateOptions = {}): Promise<EvaluationResult> {
  const r = evaluate(program, activation, options);
  if (!r.ok || !isThenable(r.value)) return r;
  try {
    return { ok: true, value: (await r.value) as CelValue, cost: r.cost };
  } catch (e) {
    return { ok: false, kind: 'evaluation', message: goEvaluationMessage(e), cost: r.cost };
  }
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}
