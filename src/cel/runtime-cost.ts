import { MACRO_OVERRIDDEN_FUNCTIONS } from './libraries/builtins.js';
import { libraryCallCost } from './libraries/cost.js';
import { COST_LIMIT_EXCEEDED_MESSAGE, MAX_UINT64 } from './limits.js';

/**
 * Runtime cost tracking (cel-go's CostTracker) over cel-js, which has none:
 * each AST node's evaluate is wrapped once, at compile, to charge its cost
 * to the tracker of the evaluation in progress (evaluation is synchronous,
 * so one module-level tracker at a time is enough).
 */

/** Thrown through cel-js when an evaluation goes over its limit. */
export class CostLimitExceeded extends Error {
  constructor() {
    super(COST_LIMIT_EXCEEDED_MESSAGE);
  }
}

interface Tracker {
  cost: number;
  limit: number;
}

let current: Tracker | undefined;

/** Runs fn with a fresh tracker; returns its result and the cost charged. */
export function tracked<T>(limit: number, fn: () => T): { value: T; cost: number } {
  const outer = current;
  const t: Tracker = { cost: 0, limit };
  current = t;
  try {
    return { value: fn(), cost: t.cost };
  } finally {
    if (outer) outer.cost += t.cost;
    current = outer;
  }
}

function charge(n: number): void {
  const t = current;
  if (!t) return;
  t.cost += n;
  if (t.cost > t.limit) throw new CostLimitExceeded();
}

type EvalFn = (ev: unknown, ast: unknown, ctx: unknown) => unknown;

interface Node {
  op: string;
  args: unknown;
  evaluate: EvalFn;
  meta: { evaluate?: EvalFn; alternate?: Node; macro?: { evaluate: EvalFn } & Record<string, unknown> };
  [LAST]?: unknown;
}

const LAST = Symbol('celLastValue');

function sizeOf(v: unknown): number {
  if (typeof v === 'string') return [...v].length;
  if (v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  return 1;
}

const ceil = (x: number): number => Math.min(Math.ceil(x), MAX_UINT64);

function lastOf(n: unknown): unknown {
  const node = n as Node | undefined;
  // literals are not wrapped: their value is their argument
  return node?.op === 'value' ? node.args : node?.[LAST];
}

/** Per-iteration charges of cel-go's macro expansions, added on the predicate's evaluation. */
const MACRO_STEP: Record<string, number> = { all: 3, exists: 4, exists_one: 1, map: 12, filter: 1 };
const MACRO_FIXED: Record<string, number> = { all: 1, exists: 1, exists_one: 2, map: 11, filter: 11 };

function callCost(node: Node, result: unknown): number {
  const [fn, targetNode, argNodes] =
    node.op === 'rcall' ? (node.args as [string, Node, Node[]]) : [(node.args as [string, Node[]])[0], undefined, (node.args as [string, Node[]])[1]];
  const target = targetNode ? lastOf(targetNode) : undefined;
  const args = argNodes.map(lastOf);
  const lib = libraryCallCost(fn, target, args, result);
  if (lib !== undefined) return lib;
  switch (fn) {
    case 'matches': {
      const str = targetNode ? target : args[0];
      const re = targetNode ? args[0] : args[1];
      return ceil((1 + sizeOf(str)) * 0.1) * ceil(sizeOf(re) * 0.25);
    }
    case 'contains':
      return ceil(sizeOf(target) * 0.1) * ceil(sizeOf(args[0]) * 0.1);
    case 'startsWith':
    case 'endsWith':
      return ceil(sizeOf(args[0]) * 0.1);
    case 'format':
      return targetNode ? ceil(sizeOf(target) * 0.1) : 1;
    case 'string':
    case 'bytes':
      return typeof args[0] === 'string' || args[0] instanceof Uint8Array ? ceil(sizeOf(args[0]) * 0.1) : 1;
    default:
      return 1;
  }
}

function binaryCost(node: Node, result: unknown): number {
  const [l, r] = (node.args as [Node, Node]).map(lastOf);
  switch (node.op) {
    case '==': case '!=': case '<': case '<=': case '>': case '>=':
      if (typeof l === 'string' || l instanceof Uint8Array || typeof r === 'string' || r instanceof Uint8Array) {
        return ceil(Math.min(sizeOf(l), sizeOf(r)) * 0.1);
      }
      return 1;
    case '+':
      return typeof result === 'string' || result instanceof Uint8Array ? ceil(sizeOf(result) * 0.1) : 1;
    case 'in':
      return Array.isArray(r) ? r.length : 1;
    default:
      return 1;
  }
}

const FIXED_SIZE_TYPES = new Set(['bool', 'int', 'uint', 'double', 'null', 'google.protobuf.Timestamp', 'google.protobuf.Duration']);

/** The node's cost when it does not depend on the values it sees; undefined when it does. */
function constantCost(node: Node): number | undefined {
  switch (node.op) {
    case 'value': case '&&': case '||': case '?:': return 0;
    case 'id': case '.': case '.?': case '[]': case '[?]': case '!_': case '-_': return 1;
    case 'list': return 10;
    case 'map': return 30;
    case 'call': case 'rcall': return undefined;
  }
  if (Array.isArray(node.args) && node.args.length === 2) {
    const types = (node.args as { checkedType?: { name?: string } }[]).map((a) => a.checkedType?.name);
    return types.every((t) => t !== undefined && FIXED_SIZE_TYPES.has(t)) ? 1 : undefined;
  }
  return 0;
}

/** Children whose values their parent's cost reads (calls, comparisons of strings, lists). */
const valueNeeded = new WeakSet<object>();

function nodeCost(node: Node, result: unknown): number {
  switch (node.op) {
    case 'value': case '&&': case '||': case '?:':
      return 0;
    case 'id': case '.': case '.?': case '[]': case '[?]':
      return 1;
    case 'list': return 10;
    case 'map': return 30;
    case 'call': case 'rcall': return callCost(node, result);
    case '!_': case '-_': return 1;
    default:
      return Array.isArray(node.args) && node.args.length === 2 ? binaryCost(node, result) : 0;
  }
}

function isNode(v: unknown, ctor: unknown): v is Node {
  return typeof v === 'object' && v !== null && (v as object).constructor === ctor;
}

/** Wraps every node of a checked AST (macro expansions included) to charge its cost. */
export function instrument(root: unknown): void {
  const ctor = (root as object).constructor;
  const seen = new Set<unknown>();
  const visit = (v: unknown, depth: number): void => {
    if (depth > 200 || v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (isNode(v, ctor)) {
      wrap(v, ctor);
      visit(v.args, depth + 1);
      visit(v.meta.alternate, depth + 1);
      if (v.meta.macro) for (const x of Object.values(v.meta.macro)) visit(x, depth + 1);
      return;
    }
    if (Array.isArray(v)) for (const x of v) visit(x, depth + 1);
    else if ((v as object).constructor === Object) for (const x of Object.values(v)) visit(x, depth + 1);
  };
  visit(root, 0);
}

function wrap(node: Node, ctor: unknown): void {
  const meta = node.meta;
  let inner: EvalFn;
  let macroCall = false;
  if (meta.alternate) {
    const alt = meta.alternate;
    inner = (ev, _a, ctx) => alt.evaluate(ev, alt, ctx);
    macroCall = true;
  } else if (meta.macro) {
    const macro = meta.macro;
    inner = (ev, _a, ctx) => macro.evaluate(ev, macro, ctx);
    macroCall = true;
  } else if (meta.evaluate) {
    inner = meta.evaluate;
  } else return;
  // indexOf, lastIndexOf, substring and split are macros here only to get cel-go's semantics: charged as calls
  if (macroCall && node.op === 'rcall' && MACRO_OVERRIDDEN_FUNCTIONS.has((node.args as [string])[0])) macroCall = false;
  if (macroCall && node.op === 'rcall') {
    const [fn, , argNodes] = node.args as [string, Node, Node[]];
    const fixedCost = MACRO_FIXED[fn] ?? 0;
    const stepCost = MACRO_STEP[fn];
    const predicate = argNodes[argNodes.length - 1];
    if (stepCost !== undefined && isNode(predicate, ctor)) stepCharge(predicate, fn, stepCost);
    node.evaluate = (ev, a, ctx) => {
      charge(fixedCost);
      return inner.call(node, ev, a, ctx);
    };
    return;
  }
  // has(): kube keeps presence tests free (PresenceTestHasCost(false)); its operand charges itself
  if (macroCall) return;
  const step = stepChargeOf(node);
  const fixedCost = constantCost(node);
  if (fixedCost === undefined) {
    const children = node.op === 'rcall' ? [(node.args as unknown[])[1], ...((node.args as unknown[])[2] as unknown[])]
      : node.op === 'call' ? ((node.args as unknown[])[1] as unknown[]) : (node.args as unknown[]);
    for (const c of children) if (c !== null && typeof c === 'object') valueNeeded.add(c);
  }
  const keep = valueNeeded.has(node);
  if (node.op === 'value' && !step) return;
  if (fixedCost !== undefined && !step && !keep) {
    if (fixedCost === 0) return;
    node.evaluate = (ev, a, ctx) => {
      const v = inner.call(node, ev, a, ctx);
      const t = current;
      if (t !== undefined && (t.cost += fixedCost) > t.limit) throw new CostLimitExceeded();
      return v;
    };
    return;
  }
  node.evaluate = (ev, a, ctx) => {
    const v = inner.call(node, ev, a, ctx);
    if (keep) node[LAST] = v;
    let c = fixedCost ?? nodeCost(node, v);
    if (step) c += step.fn === 'filter' && v === true ? step.stepCost + 12 : step.stepCost;
    if (c !== 0) charge(c);
    return v;
  };
}

/** Charges a macro's per-iteration cost (cel-go's accumulator reads and appends) when its predicate runs. */
function stepCharge(predicate: Node, fn: string, stepCost: number): void {
  const STEP = Symbol.for('celStepCharge');
  (predicate as unknown as Record<symbol, unknown>)[STEP] = { fn, stepCost };
}

/** @internal the per-iteration charge registered on a predicate node, if any. */
export function stepChargeOf(node: unknown): { fn: string; stepCost: number } | undefined {
  return (node as Record<symbol, { fn: string; stepCost: number } | undefined>)[Symbol.for('celStepCharge')];
}
