import type { Environment } from '@marcbachmann/cel-js';

import { libraryError } from './errors.js';
import { celEquals, type CelValue, isMapValue, mapEntries, toList } from './values.js';

/*
 * Macros as cel-js runs them: a handler called at parse time with the call's
 * AST returns hooks that the type checker and the evaluator call. The shapes
 * below are the parts of cel-js's (untyped) macro interface these macros use.
 */
interface AstNode {
  readonly op: string;
  readonly args: unknown;
}
interface TypeDecl {
  readonly kind: string;
  readonly valueType?: TypeDecl;
  readonly keyType?: TypeDecl;
}
interface CheckContext {
  forkWithVariable(name: string, type: TypeDecl): CheckContext;
}
interface EvalContext {
  reuse(parent: unknown): EvalContext;
  setIterValue(v: unknown, ev: Evaluator): EvalContext;
}
interface Checker {
  check(node: AstNode, ctx: unknown): TypeDecl;
  getType(name: string): TypeDecl;
  registry: { getListType(t: TypeDecl): TypeDecl; getMapType(k: TypeDecl, v: TypeDecl): TypeDecl };
  createError(code: string, message: string, node: AstNode): Error;
}
interface Evaluator {
  run(node: AstNode, ctx: unknown): unknown;
}
interface MacroCall {
  readonly ast: AstNode;
  readonly args: readonly AstNode[];
  readonly receiver: AstNode;
}

function identifier(node: AstNode, message: string): string {
  if (node.op === 'id' && typeof node.args === 'string') return node.args;
  throw libraryError(message);
}

/** The element type (list) or key and value types (map) a comprehension over `t` binds. */
function iterationTypes(chk: Checker, t: TypeDecl, node: AstNode): { first: TypeDecl; second: TypeDecl } {
  const dyn = chk.getType('dyn');
  if (t.kind === 'list') return { first: chk.getType('int'), second: t.valueType ?? dyn };
  if (t.kind === 'map') return { first: t.keyType ?? dyn, second: t.valueType ?? dyn };
  if (t.kind === 'dyn') return { first: dyn, second: dyn };
  throw chk.createError('invalid_comprehension_range', 'expression does not select a list or map', node);
}

/** The (first, second) pairs a two-variable comprehension visits: (index, element) or (key, value). */
function pairs(range: unknown): Array<[unknown, unknown]> {
  if (Array.isArray(range) || range instanceof Set) return toList(range).map((v, i) => [BigInt(i), v]);
  if (isMapValue(range)) return mapEntries(range);
  throw libraryError('expression does not select a list or map');
}

type SortByKeys = (list: readonly CelValue[], keys: readonly CelValue[]) => CelValue[];

/** ext.Lists' `list.sortBy(e, keyExpr)`: the list ordered by each element's key. */
export function registerSortBy(env: Environment, sortByKeys: SortByKeys): void {
  env.registerFunction('list.sortBy(ast, ast): list', ({ args, receiver }: MacroCall) => {
    const name = identifier(args[0]!, 'sortBy(var, ...) variable name must be a simple identifier');
    const keyExpr = args[1]!;
    let iterCtx: CheckContext & EvalContext;
    return {
      typeCheck(chk: Checker, _m: unknown, ctx: CheckContext): TypeDecl {
        const listType = chk.check(receiver, ctx);
        const elem = listType.kind === 'list' ? (listType.valueType ?? chk.getType('dyn')) : chk.getType('dyn');
        iterCtx = ctx.forkWithVariable(name, elem) as CheckContext & EvalContext;
        chk.check(keyExpr, iterCtx);
        return listType;
      },
      evaluate(ev: Evaluator, _m: unknown, ctx: unknown): CelValue[] {
        const list = toList(ev.run(receiver, ctx));
        const c = iterCtx.reuse(ctx);
        const keys = list.map((v) => ev.run(keyExpr, c.setIterValue(v, ev)));
        return sortByKeys(list, keys);
      },
    };
  });
}

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

/**
 * cel-go's ext.TwoVarComprehensions (kube from 1.32): all, exists,
 * existsOne (also spelled exists_one), transformList, transformMap and
 * transformMapEntry with an index/key and a value variable, the transforms
 * also with a filter.
 */
export function registerTwoVarComprehensions(env: Environment): void {
  const forms: ReadonlyArray<[string, Kind, number]> = [
    ['all', 'all', 3],
    ['exists', 'exists', 3],
    ['existsOne', 'existsOne', 3],
    ['exists_one', 'existsOne', 3],
    ['transformList', 'transformList', 3],
    ['transformList', 'transformList', 4],
    ['transformMap', 'transformMap', 3],
    ['transformMap', 'transformMap', 4],
    ['transformMapEntry', 'transformMapEntry', 3],
    ['transformMapEntry', 'transformMapEntry', 4],
  ];
  for (const [name, kind, arity] of forms) {
    const params = Array.from({ length: arity }, () => 'ast').join(', ');
    env.registerFunction(`dyn.${name}(${params}): dyn`, (call: MacroCall) => twoVarMacro(name, kind, call));
  }
}

function twoVarMacro(name: string, kind: Kind, { args, receiver }: MacroCall): object {
  const msg = `${name}() variable names must be simple identifiers`;
  const first = identifier(args[0]!, msg);
  const second = identifier(args[1]!, msg);
  if (first === second) throw libraryError(`${name}() second variable must be different from the first variable`);
  const filter = args.length === 4 ? args[2]! : undefined;
  const body = args[args.length - 1]!;
  let iterCtx: CheckContext & EvalContext;
  let innerCtx: CheckContext & EvalContext;
  return {
    typeCheck(chk: Checker, _m: unknown, ctx: CheckContext): TypeDecl {
      const rangeType = chk.check(receiver, ctx);
      const t = iterationTypes(chk, rangeType, receiver);
      iterCtx = ctx.forkWithVariable(first, t.first) as CheckContext & EvalContext;
      innerCtx = iterCtx.forkWithVariable(second, t.second) as CheckContext & EvalContext;
      if (filter) chk.check(filter, innerCtx);
      const bodyType = chk.check(body, innerCtx);
      switch (kind) {
        case 'all':
        case 'exists':
        case 'existsOne':
          return chk.getType('bool');
        case 'transformList':
          return chk.registry.getListType(bodyType);
        case 'transformMap':
          return chk.registry.getMapType(t.first, bodyType);
        case 'transformMapEntry':
          return bodyType.kind === 'map' ? bodyType : chk.getType('map');
      }
    },
    evaluate(ev: Evaluator, _m: unknown, ctx: unknown): unknown {
      const range = ev.run(receiver, ctx);
      const outer = iterCtx.reuse(ctx);
      const inner = innerCtx.reuse(outer);
      const bind = (a: unknown, b: unknown): EvalContext => {
        outer.setIterValue(a, ev);
        return inner.setIterValue(b, ev);
      };
      const run = (node: AstNode, c: EvalContext): unknown => ev.run(node, c);
      switch (kind) {
        case 'all':
        case 'exists': {
          const want = kind === 'exists';
          let error: unknown;
          for (const [a, b] of pairs(range)) {
            let r: unknown;
            try {
              r = run(body, bind(a, b));
            } catch (e) {
              error ??= e;
              continue;
            }
            if (typeof r !== 'boolean') throw libraryError(`${name}() predicate must return bool`);
            if (r === want) return want;
          }
          if (error !== undefined) throw error;
          return !want;
        }
        case 'existsOne': {
          let count = 0;
          for (const [a, b] of pairs(range)) {
            const r = run(body, bind(a, b));
            if (typeof r !== 'boolean') throw libraryError(`${name}() predicate must return bool`);
            if (r) count++;
          }
          return count === 1;
        }
        case 'transformList': {
          const out: unknown[] = [];
          for (const [a, b] of pairs(range)) {
            const c = bind(a, b);
            if (filter && run(filter, c) !== true) continue;
            out.push(run(body, c));
          }
          return out;
        }
        case 'transformMap': {
          const out = new Map<unknown, unknown>();
          for (const [a, b] of pairs(range)) {
            const c = bind(a, b);
            if (filter && run(filter, c) !== true) continue;
            out.set(a, run(body, c));
          }
          return out;
        }
        case 'transformMapEntry': {
          const out = new Map<unknown, unknown>();
          for (const [a, b] of pairs(range)) {
            const c = bind(a, b);
            if (filter && run(filter, c) !== true) continue;
            const entry = run(body, c);
            if (!isMapValue(entry)) throw libraryError(`${name}() expression must return a map`);
            for (const [k, v] of mapEntries(entry)) {
              if ([...out.keys()].some((x) => celEquals(x, k))) {
                throw libraryError(`insert failed: key ${String(k)} already exists`);
              }
              out.set(k, v);
            }
          }
          return out;
        }
      }
    },
  };
}
