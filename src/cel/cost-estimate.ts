import { MACRO_OVERRIDDEN_FUNCTIONS } from './libraries/builtins.js';
import { estimateLibraryCallCost, type CallDetail, type CostEstimate, type SizeEstimate } from './libraries/cost.js';
import { addSaturating, MAX_UINT64, multiplySaturating } from './limits.js';
import type { DeclType } from './types.js';

/**
 * Static worst-case cost of a checked expression, as cel-go's checker
 * (checker/cost.go) with kube's size estimator: sizes come from the declared
 * types' bounds (maxItems, maxProperties, maxLength or kube's assumptions),
 * library calls from libraries/cost.ts.
 */

/** The parts of a cel-js AST node the estimator reads. */
export interface AstNodeLike {
  readonly op: string;
  readonly args: unknown;
  readonly checkedType?: { readonly kind?: string; readonly name?: string };
  readonly meta?: { readonly macro?: unknown; readonly alternate?: unknown };
}

interface Shape {
  readonly size?: SizeEstimate;
  /** The declared type the expression's value has, when it is reached through a variable. */
  readonly decl?: DeclType;
}

interface Estimate {
  readonly cost: CostEstimate;
  readonly shape: Shape;
}

const UNKNOWN: SizeEstimate = { min: 0, max: MAX_UINT64 };
const fixed = (n: number): CostEstimate => ({ min: n, max: n });
const add = (a: CostEstimate, b: CostEstimate): CostEstimate => ({ min: addSaturating(a.min, b.min), max: addSaturating(a.max, b.max) });
const union = (a: CostEstimate, b: CostEstimate): CostEstimate => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });
const mulCost = (a: SizeEstimate, b: CostEstimate): CostEstimate => ({ min: multiplySaturating(a.min, b.min), max: multiplySaturating(a.max, b.max) });

function factor(x: number, f: number): number {
  const y = x * f;
  return y >= MAX_UINT64 ? MAX_UINT64 : Math.ceil(y);
}
const byFactor = (s: SizeEstimate, f: number): CostEstimate => ({ min: factor(s.min, f), max: factor(s.max, f) });

function isNode(v: unknown): v is AstNodeLike {
  return typeof v === 'object' && v !== null && 'op' in v && 'args' in v;
}

/** Size of a value reached through a variable's declared type (kube's sizeEstimator: {0, MaxElements}). */
function declSize(decl: DeclType, pathSizes: boolean): SizeEstimate | undefined {
  if (decl.kind === 'optional') return declSize(decl.value, pathSizes);
  if (decl.maxElements !== undefined) return { min: 0, max: decl.maxElements };
  if (decl.kind === 'scalar' && decl.name === 'dyn') return undefined;
  if (pathSizes) return decl.kind === 'list' || decl.kind === 'map' ? undefined : { min: 0, max: 0 };
  if (decl.kind === 'scalar' && ['bool', 'int', 'uint', 'double', 'timestamp', 'duration'].includes(decl.name)) return { min: 1, max: 1 };
  return undefined;
}

const SCALAR_KINDS = new Set(['bool', 'int', 'uint', 'double', 'google.protobuf.Timestamp', 'google.protobuf.Duration', 'timestamp', 'duration']);

class Estimator {
  readonly #variables: ReadonlyMap<string, DeclType>;
  readonly #pathSizes: boolean;
  readonly #scopes = new Map<string, Shape[]>();

  constructor(variables: ReadonlyMap<string, DeclType>, pathSizes: boolean) {
    this.#variables = variables;
    this.#pathSizes = pathSizes;
  }

  #sizeOf(node: AstNodeLike, shape: Shape): SizeEstimate {
    if (shape.size) return shape.size;
    const t = node.checkedType?.name;
    if (t !== undefined && SCALAR_KINDS.has(t)) return { min: 1, max: 1 };
    return UNKNOWN;
  }

  #withShape(decl: DeclType | undefined): Shape {
    if (!decl) return {};
    const size = declSize(decl, this.#pathSizes);
    return size ? { decl, size } : { decl };
  }

  #push(name: string, shape: Shape): void {
    const s = this.#scopes.get(name) ?? [];
    s.push(shape);
    this.#scopes.set(name, s);
  }

  #pop(name: string): void {
    this.#scopes.get(name)?.pop();
  }

  estimate(node: AstNodeLike): Estimate {
    const args = node.args;
    switch (node.op) {
      case 'value': {
        const v = args;
        let size: SizeEstimate = { min: 1, max: 1 };
        if (typeof v === 'string') size = fixed([...v].length);
        else if (v instanceof Uint8Array) size = fixed(v.length);
        return { cost: fixed(0), shape: { size } };
      }
      case 'id': {
        const name = args as string;
        const scoped = this.#scopes.get(name);
        if (scoped && scoped.length > 0) return { cost: fixed(1), shape: scoped[scoped.length - 1]! };
        return { cost: fixed(1), shape: this.#withShape(this.#variables.get(name)) };
      }
      case '.':
      case '.?': {
        const [operand, field] = args as [AstNodeLike, string];
        const o = this.estimate(operand);
        const kind = operand.checkedType?.kind;
        const selectCost = kind === 'map' || kind === 'message' ? 1 : 0;
        return { cost: add(o.cost, fixed(selectCost)), shape: this.#withShape(fieldDecl(o.shape.decl, field)) };
      }
      case '[]':
      case '[?]': {
        const [operand, index] = args as [AstNodeLike, AstNodeLike];
        const o = this.estimate(operand);
        const i = this.estimate(index);
        return { cost: add(add(o.cost, i.cost), fixed(1)), shape: this.#withShape(elemDecl(o.shape.decl)) };
      }
      case 'list': {
        let cost = fixed(10);
        for (const e of args as AstNodeLike[]) cost = add(cost, this.estimate(e).cost);
        return { cost, shape: { size: fixed((args as unknown[]).length) } };
      }
      case 'map': {
        let cost = fixed(30);
        for (const [k, v] of args as [AstNodeLike, AstNodeLike][]) cost = add(add(cost, this.estimate(k).cost), this.estimate(v).cost);
        return { cost, shape: { size: fixed((args as unknown[]).length) } };
      }
      case '&&':
      case '||': {
        const [l, r] = (args as AstNodeLike[]).map((a) => this.estimate(a));
        return { cost: { min: l!.cost.min, max: addSaturating(l!.cost.max, r!.cost.max) }, shape: {} };
      }
      case '?:': {
        const [c, t, f] = (args as AstNodeLike[]).map((a) => this.estimate(a));
        const ts = this.#sizeOf((args as AstNodeLike[])[1]!, t!.shape);
        const fs = this.#sizeOf((args as AstNodeLike[])[2]!, f!.shape);
        return { cost: add(c!.cost, union(t!.cost, f!.cost)), shape: { size: union(ts, fs) } };
      }
      case '!_':
      case '-_':
        return { cost: add(this.estimate(args as AstNodeLike).cost, fixed(1)), shape: {} };
      case 'call':
        return this.#call(node, (args as [string, AstNodeLike[]])[0], undefined, (args as [string, AstNodeLike[]])[1]);
      case 'rcall': {
        const [fn, target, callArgs] = args as [string, AstNodeLike, AstNodeLike[]];
        return this.#call(node, fn, target, callArgs);
      }
      default:
        if (Array.isArray(args) && args.length === 2 && isNode(args[0]) && isNode(args[1])) return this.#binary(node.op, args[0], args[1]);
        return { cost: fixed(1), shape: {} };
    }
  }

  #binary(op: string, lhs: AstNodeLike, rhs: AstNodeLike): Estimate {
    const l = this.estimate(lhs);
    const r = this.estimate(rhs);
    const argCost = add(l.cost, r.cost);
    const ls = this.#sizeOf(lhs, l.shape);
    const rs = this.#sizeOf(rhs, r.shape);
    const lt = lhs.checkedType?.name;
    const isText = lt === 'string' || lt === 'bytes';
    switch (op) {
      case '==':
      case '!=': {
        const smallestMax = Math.min(ls.max, rs.max);
        return { cost: add(byFactor({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }, 0.1), argCost), shape: {} };
      }
      case '<': case '<=': case '>': case '>=':
        if (isText) {
          const smallestMax = Math.min(ls.max, rs.max);
          return { cost: add(byFactor({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }, 0.1), argCost), shape: {} };
        }
        break;
      case '+': {
        const size = { min: addSaturating(ls.min, rs.min), max: addSaturating(ls.max, rs.max) };
        if (isText) return { cost: add(byFactor(size, 0.1), argCost), shape: { size } };
        if (lhs.checkedType?.kind === 'list') return { cost: add(fixed(1), argCost), shape: { size } };
        break;
      }
      case 'in':
        if (rhs.checkedType?.kind === 'list') return { cost: add(byFactor(rs, 1), argCost), shape: {} };
        break;
    }
    return { cost: add(fixed(1), argCost), shape: {} };
  }

  #call(node: AstNodeLike, fn: string, target: AstNodeLike | undefined, args: AstNodeLike[]): Estimate {
    // indexOf, lastIndexOf, substring and split are macros here only to get cel-go's semantics: calls in cel-go
    const isMacro = (node.meta?.alternate !== undefined || node.meta?.macro !== undefined) && !MACRO_OVERRIDDEN_FUNCTIONS.has(fn);
    if (isMacro) {
      if (fn === 'has' && target === undefined) {
        const sel = args[0];
        // kube keeps a presence test free (PresenceTestHasCost(false)): only its operand costs
        const operand = sel && Array.isArray(sel.args) && isNode(sel.args[0]) ? this.estimate(sel.args[0]).cost : fixed(0);
        return { cost: operand, shape: {} };
      }
      if (fn === 'bind' && target?.op === 'id' && target.args === 'cel') return this.#bind(args);
      if (target) return this.#comprehension(fn, target, args);
    }
    const t = target ? this.estimate(target) : undefined;
    const as = args.map((a) => this.estimate(a));
    let argCost = t ? t.cost : fixed(0);
    for (const a of as) argCost = add(argCost, a.cost);
    const targetSize = target && t ? this.#sizeOf(target, t.shape) : undefined;
    const argSizes = args.map((a, i) => this.#sizeOf(a, as[i]!.shape));
    const lib = estimateLibraryCallCost(fn, targetSize, argSizes, target && t ? this.#callDetail(target, t.shape, args) : {});
    if (lib) return { cost: add(lib.cost, argCost), shape: lib.resultSize ? { size: lib.resultSize } : {} };
    switch (fn) {
      case 'dyn':
        return { cost: add(fixed(1), argCost), shape: as[0]?.shape ?? {} };
      case 'matches': {
        const str = target ? targetSize! : argSizes[0];
        const re = target ? argSizes[0] : argSizes[1];
        if (str && re) {
          const strCost = byFactor({ min: addSaturating(str.min, 1), max: addSaturating(str.max, 1) }, 0.1);
          const reCost = byFactor(re, 0.25);
          return { cost: add({ min: multiplySaturating(strCost.min, reCost.min), max: multiplySaturating(strCost.max, reCost.max) }, argCost), shape: {} };
        }
        break;
      }
      case 'contains':
        if (targetSize && argSizes[0]) {
          const a = byFactor(targetSize, 0.1);
          const b = byFactor(argSizes[0], 0.1);
          return { cost: add({ min: multiplySaturating(a.min, b.min), max: multiplySaturating(a.max, b.max) }, argCost), shape: {} };
        }
        break;
      case 'startsWith':
      case 'endsWith':
        if (argSizes[0]) return { cost: add(byFactor(argSizes[0], 0.1), argCost), shape: {} };
        break;
      case 'string':
      case 'bytes': {
        const from = args[0]?.checkedType?.name;
        const sz = argSizes[0];
        if (sz && (from === 'string' || from === 'bytes')) {
          // cel-go: a string becomes up to 4 bytes per code point; 4 bytes may make one code point
          let size = sz;
          if (fn === 'bytes' && from === 'string') size = { min: sz.min, max: multiplySaturating(sz.max, 4) };
          if (fn === 'string' && from === 'bytes') size = { min: Math.floor(sz.min / 4), max: sz.max };
          return { cost: add(byFactor(sz, 0.1), argCost), shape: { size } };
        }
        // string(int) and the other conversions: no size, as in cel-go (a concatenation with one is unbounded)
        break;
      }
      case 'format':
        // ext.Strings format: the format string's traversal; no result size (cel-go cannot bound it)
        if (targetSize) return { cost: add(byFactor(targetSize, 0.1), argCost), shape: {} };
        break;
    }
    return { cost: add(fixed(1), argCost), shape: {} };
  }

  /** What kube's estimator reads from the checked AST: the receiver list's element (kind and size) and literal arguments. */
  #callDetail(target: AstNodeLike, shape: Shape, args: AstNodeLike[]): CallDetail {
    const literalArgs = args.map((a) => (a.op === 'value' ? a.args : undefined));
    if (target.checkedType?.kind !== 'list') return { literalArgs };
    const elem = elemDecl(shape.decl);
    const elemName = target.checkedType && 'valueType' in target.checkedType
      ? (target.checkedType as { valueType?: { name?: string } }).valueType?.name : undefined;
    const elementSize = elem ? declSize(elem, this.#pathSizes) : undefined;
    return {
      targetIsList: true,
      elementIsStringOrBytes: elemName === 'string' || elemName === 'bytes',
      ...(elementSize ? { elementSize } : {}),
      literalArgs,
    };
  }

  #bind(args: AstNodeLike[]): Estimate {
    const [v, init, body] = args;
    if (!v || !init || !body) return { cost: fixed(1), shape: {} };
    const i = this.estimate(init);
    const name = v.args as string;
    this.#push(name, { ...i.shape, size: this.#sizeOf(init, i.shape) });
    const b = this.estimate(body);
    this.#pop(name);
    return { cost: add(add(fixed(10), i.cost), b.cost), shape: b.shape };
  }

  /** all/exists/exists_one/map/filter as cel-go expands them (accumulator reads, list appends). */
  #comprehension(fn: string, range: AstNodeLike, args: AstNodeLike[]): Estimate {
    const r = this.estimate(range);
    const n = this.#sizeOf(range, r.shape);
    const vars = args.slice(0, args.length === 3 && fn === 'map' ? 1 : args.length - 1).filter((a) => a.op === 'id').map((a) => a.args as string);
    const rangeKind = range.checkedType?.kind;
    const elem = r.shape.decl ? (rangeKind === 'map' || r.shape.decl.kind === 'map' ? keyDecl(r.shape.decl) : elemDecl(r.shape.decl)) : undefined;
    const bodies = args.filter((a) => !(a.op === 'id' && vars.includes(a.args as string) && args.indexOf(a) < vars.length));
    if (vars.length === 2 && r.shape.decl) {
      this.#push(vars[0]!, r.shape.decl.kind === 'list' ? { size: { min: 1, max: 1 } } : this.#withShape(keyDecl(r.shape.decl)));
      this.#push(vars[1]!, this.#withShape(elemDecl(r.shape.decl)));
    } else {
      for (const v of vars) this.#push(v, this.#withShape(elem));
    }
    const costs = bodies.map((b) => this.estimate(b).cost);
    for (const v of vars) this.#pop(v);
    const p = costs[0] ?? fixed(0);
    let init = fixed(0);
    let step: CostEstimate;
    let result = fixed(1);
    let shape: Shape = {};
    switch (fn) {
      case 'all': step = add(fixed(3), p); break;
      case 'exists': step = add(fixed(4), p); break;
      case 'exists_one': step = add(p, { min: 1, max: 2 }); result = fixed(2); break;
      case 'map':
        init = fixed(10);
        step = costs.length === 2 ? add(p, union(fixed(1), add(fixed(12), costs[1]!))) : add(fixed(12), p);
        shape = { size: n };
        break;
      case 'filter':
        init = fixed(10);
        step = add(p, { min: 1, max: 13 });
        shape = { size: n };
        break;
      default: step = add(fixed(3), p);
    }
    return { cost: add(add(add(r.cost, init), mulCost(n, step)), result), shape };
  }
}

function fieldDecl(decl: DeclType | undefined, field: string): DeclType | undefined {
  if (!decl) return undefined;
  // kube's size estimator follows object fields only: a map's `x.key` falls back to the type's size
  if (decl.kind === 'object') return decl.fields.get(field)?.type;
  return undefined;
}

function elemDecl(decl: DeclType | undefined): DeclType | undefined {
  if (!decl) return undefined;
  if (decl.kind === 'list') return decl.elem;
  if (decl.kind === 'map') return decl.value;
  return undefined;
}

function keyDecl(decl: DeclType | undefined): DeclType | undefined {
  return decl?.kind === 'map' ? decl.key : undefined;
}

/**
 * The static cost estimate of a checked cel-js AST over the declared
 * variables. pathSizes: sizes of values reached through variables are
 * {0, bound} as kube's CRD size estimator gives them.
 */
export function estimateCost(ast: AstNodeLike, variables: ReadonlyMap<string, DeclType>, pathSizes: boolean): CostEstimate {
  return new Estimator(variables, pathSizes).estimate(ast).cost;
}
