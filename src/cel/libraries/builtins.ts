import { type Environment, EvaluationError } from '@marcbachmann/cel-js';

import { whenAll } from './async.js';
import { libraryError } from './errors.js';
import { celEquals, codePoints, type CelValue } from './values.js';
import type { AstNode, Checker, Evaluator, MacroCall, TypeDecl } from './macro-shapes.js';

/*
 * cel-js ships indexOf, lastIndexOf, substring and split as built-ins with
 * JavaScript semantics (UTF-16 indexes, its own error texts); a registry
 * cannot redefine a built-in overload. cel-js expands macros by name and
 * arity before overloads are resolved, so these functions are registered as
 * macros: every `x.indexOf(y)` (and the others) is type checked and
 * evaluated here, with cel-go's ext.Strings semantics for strings (code
 * point indexes, "index out of range: N") and kube's list functions for
 * lists. Functions without arguments (lowerAscii, upperAscii, trim, join())
 * cannot be macros and stay cel-js's. split is taken over too: cel-js splits
 * an empty separator between UTF-16 units, Go between code points.
 */

interface Override {
  readonly name: string;
  readonly params: readonly ('string' | 'int')[];
  readonly result: 'int' | 'string' | 'list<string>';
  readonly onString: (s: string, ...args: never[]) => CelValue;
  /** The list form takes one argument of the element type. */
  readonly onList?: (list: readonly CelValue[], x: CelValue) => CelValue;
}

const SURROGATE = /[\ud800-\udfff]/;

/** Strings without surrogate pairs index the same by UTF-16 unit and by code point: the fast path. */
function bmp(...strings: string[]): boolean {
  return strings.every((s) => !SURROGATE.test(s));
}

function runes(s: string): string[] {
  return codePoints(s);
}

function find(hay: string[], needle: string[], i: number): boolean {
  for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) return false;
  return true;
}

/** ext.Strings indexOfOffset. */
export function indexOfOffset(s: string, sub: string, offset: bigint): bigint {
  if (sub === '') return offset;
  if (bmp(s, sub)) {
    if (offset < 0n || offset >= BigInt(s.length)) throw libraryError(`index out of range: ${offset}`);
    return BigInt(s.indexOf(sub, Number(offset)));
  }
  const r = runes(s);
  const n = runes(sub);
  if (offset < 0n || offset >= BigInt(r.length)) throw libraryError(`index out of range: ${offset}`);
  for (let i = Number(offset); i < r.length - (n.length - 1); i++) if (find(r, n, i)) return BigInt(i);
  return -1n;
}

/** ext.Strings lastIndexOfOffset. */
export function lastIndexOfOffset(s: string, sub: string, offset: bigint): bigint {
  if (sub === '') return offset;
  if (bmp(s, sub)) {
    if (offset < 0n || offset >= BigInt(s.length)) throw libraryError(`index out of range: ${offset}`);
    return BigInt(s.lastIndexOf(sub, Number(offset)));
  }
  const r = runes(s);
  const n = runes(sub);
  if (offset < 0n || offset >= BigInt(r.length)) throw libraryError(`index out of range: ${offset}`);
  let off = Number(offset);
  if (off > r.length - n.length) off = r.length - n.length;
  for (let i = off; i >= 0; i--) if (find(r, n, i)) return BigInt(i);
  return -1n;
}

/** ext.Strings lastIndexOf: the string's length for an empty needle; -1 when the needle is longer (in UTF-8 bytes, as Go compares). */
function lastIndexOf(s: string, sub: string): bigint {
  if (sub === '') return BigInt(runes(s).length);
  if (Buffer.byteLength(s, 'utf8') < Buffer.byteLength(sub, 'utf8')) return -1n;
  return lastIndexOfOffset(s, sub, BigInt(runes(s).length - 1));
}

function substr(s: string, start: bigint): string {
  const r = runes(s);
  if (start < 0n || start > BigInt(r.length)) throw libraryError(`index out of range: ${start}`);
  return r.slice(Number(start)).join('');
}

function substrRange(s: string, start: bigint, end: bigint): string {
  const r = runes(s);
  if (start > end) throw libraryError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > BigInt(r.length)) throw libraryError(`index out of range: ${start}`);
  if (end < 0n || end > BigInt(r.length)) throw libraryError(`index out of range: ${end}`);
  return r.slice(Number(start), Number(end)).join('');
}

/** strings.SplitN: at most n parts (all when n < 0, none when 0); an empty separator splits between code points. */
export function splitN(s: string, sep: string, n: bigint): string[] {
  if (n === 0n) return [];
  const parts = sep === '' ? runes(s) : s.split(sep);
  if (n < 0n || BigInt(parts.length) <= n) return parts;
  const k = Number(n);
  return [...parts.slice(0, k - 1), parts.slice(k - 1).join(sep)];
}

const OVERRIDES: readonly Override[] = [
  {
    name: 'indexOf',
    params: ['string'],
    result: 'int',
    onString: (s: string, sub: string) => indexOfOffset(s, sub, 0n),
    onList: (l, x) => BigInt(l.findIndex((v) => celEquals(v, x))),
  },
  { name: 'indexOf', params: ['string', 'int'], result: 'int', onString: indexOfOffset },
  {
    name: 'lastIndexOf',
    params: ['string'],
    result: 'int',
    onString: lastIndexOf,
    onList: (l, x) => {
      for (let i = l.length - 1; i >= 0; i--) if (celEquals(l[i], x)) return BigInt(i);
      return -1n;
    },
  },
  { name: 'lastIndexOf', params: ['string', 'int'], result: 'int', onString: lastIndexOfOffset },
  { name: 'substring', params: ['int'], result: 'string', onString: substr },
  { name: 'split', params: ['string'], result: 'list<string>', onString: (s: string, sep: string) => splitN(s, sep, -1n) },
  { name: 'split', params: ['string', 'int'], result: 'list<string>', onString: splitN },
  { name: 'substring', params: ['int', 'int'], result: 'string', onString: substrRange },
];

function runtimeKind(v: unknown): 'string' | 'int' | 'list' | undefined {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'bigint') return 'int';
  if (Array.isArray(v) || v instanceof Set) return 'list';
  return undefined;
}

function noOverload(name: string, receiver: string, args: readonly string[]): string {
  return `found no matching overload for '${receiver}.${name}(${args.join(', ')})'`;
}

function macroFor(o: Override, { ast, args, receiver }: MacroCall): object {
  return {
    typeCheck(chk: Checker, _m: unknown, ctx: unknown): TypeDecl {
      const recv = chk.check(receiver, ctx);
      const argTypes = args.map((a) => chk.check(a, ctx));
      if (!receiver.maybeAsync && !args.some((a) => a.maybeAsync)) ast.setMeta('async', false);
      const fits = (t: TypeDecl, want: string): boolean => t.kind === 'dyn' || t.name === want;
      if (recv.kind === 'dyn' || (recv.name === 'string' && o.params.every((p, i) => fits(argTypes[i]!, p)))) {
        return chk.getType(o.result);
      }
      if (recv.kind === 'list' && o.onList) {
        const elem = recv.valueType;
        const arg = argTypes[0]!;
        if (!elem || elem.kind === 'dyn' || arg.kind === 'dyn' || elem.unify(chk.registry, arg) !== null) {
          return chk.getType('int');
        }
      }
      throw chk.createError('no_matching_overload', noOverload(o.name, recv.name, argTypes.map((t) => t.name)), ast);
    },
    evaluate(ev: Evaluator, _m: unknown, ctx: unknown): CelValue {
      return whenAll([receiver, ...args].map((a) => ev.run(a, ctx)), ([recv, ...values]) => apply(o, recv, values));
    },
  };
}

function apply(o: Override, recv: unknown, values: unknown[]): CelValue {
  if (typeof recv === 'string' && o.params.every((p, i) => runtimeKind(values[i]) === p)) {
    return (o.onString as (...a: unknown[]) => CelValue)(recv, ...values);
  }
  if ((Array.isArray(recv) || recv instanceof Set) && o.onList) return o.onList([...recv], values[0]);
  throw new EvaluationError({
    code: 'no_matching_overload',
    message: noOverload(o.name, runtimeKind(recv) ?? typeof recv, values.map((v) => runtimeKind(v) ?? typeof v)),
  });
}

/**
 * The functions taken over by macros: they are calls in cel-go, so the cost
 * estimator and the runtime charge them as calls (libraries/cost.ts), not as
 * comprehensions.
 */
export const MACRO_OVERRIDDEN_FUNCTIONS: ReadonlySet<string> = new Set(OVERRIDES.map((o) => o.name));

/**
 * Takes over indexOf, lastIndexOf (strings and lists), substring and split. The
 * macros are declared on `bytes` receivers so that they do not collide with
 * cel-js's string overloads; cel-js expands a macro whatever the receiver.
 */
export function registerStringBuiltinOverrides(env: Environment): void {
  for (const o of OVERRIDES) {
    const params = o.params.map(() => 'ast').join(', ');
    env.registerFunction(`bytes.${o.name}(${params}): ${o.result}`, (call: MacroCall) => macroFor(o, call));
  }
}
