import type { Environment } from '@marcbachmann/cel-js';

import { attempt, Caught, loop } from './async.js';
import { libraryError } from './errors.js';
import { celEquals, type CelValue, isMapValue, mapEntries, toList } from './values.js';
import type { AstNode, Checker, Context, Evaluator, MacroCall, TypeDecl } from './macro-shapes.js';

/*
 * Macros as cel-js runs them: a handler called at parse time with the call's
 * AST returns hooks that the type checker and the evaluator call (the
 * shapes in macro-shapes.ts).
 */
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
  env.registerFunction('list.sortBy(ast, ast): list', ({ ast, args, receiver }: MacroCall) => {
    const name = identifier(args[0]!, 'sortBy(var, ...) variable name must be a simple identifier');
    const keyExpr = args[1]!;
    let elem: TypeDecl;
    return {
      typeCheck(chk: Checker, _m: unknown, ctx: Context): TypeDecl {
        const listType = chk.check(receiver, ctx);
        elem = listType.kind === 'list' ? (listType.valueType ?? chk.getType('dyn')) : chk.getType('dyn');
        chk.check(keyExpr, ctx.forkWithVariable(name, elem));
        if (!receiver.maybeAsync && !keyExpr.maybeAsync) ast.setMeta('async', false);
        return listType;
      },
      evaluate(ev: Evaluator, _m: unknown, ctx: Context): unknown {
        const run = (range: unknown): unknown => {
          const list = toList(range);
          const c = ctx.forkWithVariable(name, elem);
          const keys: unknown[] = [];
          return loop(
            list,
            (v) => ev.run(keyExpr, c.setIterValue(v, ev)),
            (k) => void keys.push(k),
            () => sortByKeys(list, keys),
          );
        };
        const range = ev.run(receiver, ctx);
        return range instanceof Promise ? range.then(run) : run(range);
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

function twoVarMacro(name: string, kind: Kind, { ast, args, receiver }: MacroCall): object {
  const msg = `${name}() variable names must be simple identifiers`;
  const first = identifier(args[0]!, msg);
  const second = identifier(args[1]!, msg);
  if (first === second) throw libraryError(`${name}() second variable must be different from the first variable`);
  const filter = args.length === 4 ? args[2]! : undefined;
  const body = args[args.length - 1]!;
  let types: { first: TypeDecl; second: TypeDecl };
  return {
    typeCheck(chk: Checker, _m: unknown, ctx: Context): TypeDecl {
      const rangeType = chk.check(receiver, ctx);
      types = iterationTypes(chk, rangeType, receiver);
      const inner = ctx.forkWithVariable(first, types.first).forkWithVariable(second, types.second);
      if (filter) chk.check(filter, inner);
      const bodyType = chk.check(body, inner);
      if (!receiver.maybeAsync && !body.maybeAsync && !filter?.maybeAsync) ast.setMeta('async', false);
      switch (kind) {
        case 'all':
        case 'exists':
        case 'existsOne':
          return chk.getType('bool');
        case 'transformList':
          return chk.registry.getListType(bodyType);
        case 'transformMap':
          return chk.registry.getMapType(types.first, bodyType);
        case 'transformMapEntry':
          return bodyType.kind === 'map' ? bodyType : chk.getType('map');
      }
    },
    evaluate(ev: Evaluator, _m: unknown, ctx: Context): unknown {
      const run = (range: unknown): unknown => {
        // Fresh contexts per evaluation: an asynchronous evaluation may interleave with another.
        const outer = ctx.forkWithVariable(first, types.first);
        const inner = outer.forkWithVariable(second, types.second);
        const bind = ([a, b]: [unknown, unknown]): Context => {
          outer.setIterValue(a, ev);
          return inner.setIterValue(b, ev);
        };
        return evaluateTwoVar(name, kind, pairs(range), bind, (node, c) => ev.run(node, c), filter, body);
      };
      const range = ev.run(receiver, ctx);
      return range instanceof Promise ? range.then(run) : run(range);
    },
  };
}

type Pair = [unknown, unknown];

function evaluateTwoVar(
  name: string,
  kind: Kind,
  items: Pair[],
  bind: (p: Pair) => Context,
  run: (node: AstNode, c: Context) => unknown,
  filter: AstNode | undefined,
  body: AstNode,
): unknown {
  const predicate = (r: unknown): boolean => {
    if (typeof r !== 'boolean') throw libraryError(`${name}() predicate must return bool`);
    return r;
  };
  switch (kind) {
    case 'all':
    case 'exists': {
      // Errors count only when no element decides the result, as cel-go's quantifiers.
      const want = kind === 'exists';
      let decided = false;
      let error: Caught | undefined;
      return loop(
        items,
        (p) => attempt(() => run(body, bind(p))),
        (r) => {
          if (r instanceof Caught) {
            error ??= r;
            return false;
          }
          if (predicate(r) === want) decided = true;
          return decided;
        },
        () => {
          if (decided) return want;
          if (error) throw error.error;
          return !want;
        },
      );
    }
    case 'existsOne': {
      let count = 0;
      return loop(
        items,
        (p) => run(body, bind(p)),
        (r) => void (predicate(r) && count++),
        () => count === 1,
      );
    }
    default: {
      // The transforms: filter (when given), then the body, per element.
      const out: unknown[] = [];
      const keys: unknown[] = [];
      const step = (p: Pair): unknown => {
        const c = bind(p);
        const keep = filter ? run(filter, c) : true;
        const then = (k: unknown): unknown => (k === true ? run(body, c) : SKIP);
        return keep instanceof Promise ? keep.then(then) : then(keep);
      };
      return loop(
        items,
        step,
        (r, p) => {
          if (r === SKIP) return;
          out.push(r);
          keys.push(p[0]);
        },
        () => collect(name, kind, out, keys),
      );
    }
  }
}

const SKIP = Symbol('skip');

function collect(name: string, kind: Kind, out: unknown[], keys: unknown[]): unknown {
  if (kind === 'transformList') return out;
  const map = new Map<unknown, unknown>();
  if (kind === 'transformMap') {
    keys.forEach((k, i) => map.set(k, out[i]));
    return map;
  }
  for (const entry of out) {
    if (!isMapValue(entry)) throw libraryError(`${name}() expression must return a map`);
    for (const [k, v] of mapEntries(entry)) {
      if ([...map.keys()].some((x) => celEquals(x, k))) throw libraryError(`insert failed: key ${String(k)} already exists`);
      map.set(k, v);
    }
  }
  return map;
}
