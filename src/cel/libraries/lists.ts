import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';

import { libraryError } from './errors.js';
import { registerSortBy } from './macros.js';
import { celEquals, type CelValue, checkedInt, compareValues, toList } from './values.js';

const TIMESTAMP = 'google.protobuf.Timestamp';
const DURATION = 'google.protobuf.Duration';

/** kube's comparableTypes: what isSorted, min, max (and ext.Lists' sort) accept. */
export const COMPARABLE_TYPES = ['int', 'uint', 'double', 'bool', DURATION, TIMESTAMP, 'string', 'bytes'] as const;
/** kube's summableTypes and the zero each sums from. */
const SUMMABLE: ReadonlyArray<[string, () => CelValue]> = [
  ['int', () => 0n],
  ['uint', () => new UnsignedInt(0n)],
  ['double', () => 0],
  [DURATION, () => new Duration(0n, 0)],
];

/**
 * kube's library.Lists (from 1.0): isSorted, sum, min, max, indexOf,
 * lastIndexOf on lists.
 */
export function registerKubeLists(env: Environment): void {
  for (const t of COMPARABLE_TYPES) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, isSorted);
    env.registerFunction(`list<${t}>.min(): ${t}`, (l: CelValue) => extreme(l, 'min', 1));
    env.registerFunction(`list<${t}>.max(): ${t}`, (l: CelValue) => extreme(l, 'max', -1));
  }
  for (const [t, zero] of SUMMABLE) env.registerFunction(`list<${t}>.sum(): ${t}`, (l: CelValue) => sum(l, zero));
  // indexOf and lastIndexOf on lists: builtins.ts (macros that also take over cel-js's string forms).
}

function compareOrFail(a: CelValue, b: CelValue): number {
  const c = compareValues(a, b);
  if (c === undefined) throw libraryError('no such overload');
  return c;
}

function isSorted(l: CelValue): boolean {
  const list = toList(l);
  for (let i = 1; i < list.length; i++) if (compareOrFail(list[i - 1], list[i]) === 1) return false;
  return true;
}

/** min (prefer = 1: replace the result when it compares greater) or max (prefer = -1). */
function extreme(l: CelValue, name: string, prefer: number): CelValue {
  const list = toList(l);
  if (list.length === 0) throw libraryError(`${name} called on empty list`);
  let result = list[0];
  for (let i = 1; i < list.length; i++) if (compareOrFail(result, list[i]) === prefer) result = list[i];
  return result;
}

function add(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkedInt(a + b);
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (a instanceof UnsignedInt && b instanceof UnsignedInt) {
    const s = a.valueOf() + b.valueOf();
    if (s > 0xffffffffffffffffn) throw libraryError('unsigned integer overflow');
    return new UnsignedInt(s);
  }
  if (a instanceof Duration && b instanceof Duration) return a.addDuration(b);
  throw libraryError('no such overload');
}

function sum(l: CelValue, zero: () => CelValue): CelValue {
  let acc = zero();
  for (const v of toList(l)) acc = add(acc, v);
  return acc;
}

/**
 * cel-go's ext.Lists at version 3 (kube from 1.34): slice, flatten,
 * lists.range, reverse, distinct, sort, sortBy.
 */
export function registerExtLists(env: Environment): void {
  env.registerFunction('list<T>.slice(int, int): list<T>', slice);
  env.registerFunction('list<dyn>.flatten(): list<dyn>', (l: CelValue) => flatten(toList(l), 1n));
  env.registerFunction('list<dyn>.flatten(int): list<dyn>', (l: CelValue, depth: bigint) => flatten(toList(l), depth));
  env.registerType('kubernetes.ListsNamespace', ListsNamespace);
  env.registerConstant('lists', 'kubernetes.ListsNamespace', new ListsNamespace());
  env.registerFunction('kubernetes.ListsNamespace.range(int): list<int>', (_ns: unknown, n: bigint) => {
    const out: bigint[] = [];
    for (let i = 0n; i < n; i++) out.push(i);
    return out;
  });
  env.registerFunction('list<T>.reverse(): list<T>', (l: CelValue) => [...toList(l)].reverse());
  env.registerFunction('list<T>.distinct(): list<T>', (l: CelValue) => {
    const out: CelValue[] = [];
    for (const v of toList(l)) if (!out.some((o) => celEquals(o, v))) out.push(v);
    return out;
  });
  for (const t of COMPARABLE_TYPES) {
    env.registerFunction(`list<${t}>.sort(): list<${t}>`, (l: CelValue) => sortByKeys(toList(l), toList(l)));
  }
  registerSortBy(env, sortByKeys);
}

/** The list namespace constant that `lists.range` is called on. */
export class ListsNamespace {}

function slice(l: CelValue, start: bigint, end: bigint): CelValue[] {
  const list = toList(l);
  if (start < 0n || end < 0n) throw libraryError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) {
    throw libraryError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  }
  if (BigInt(list.length) < end) throw libraryError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
  return list.slice(Number(start), Number(end));
}

function flatten(list: readonly CelValue[], depth: bigint): CelValue[] {
  if (depth < 0n) throw libraryError('level must be non-negative');
  const out: CelValue[] = [];
  for (const v of list) {
    if ((Array.isArray(v) || v instanceof Set) && depth > 0n) out.push(...flatten(toList(v), depth - 1n));
    else out.push(v);
  }
  return out;
}

function sameKind(a: CelValue, b: CelValue): boolean {
  if (typeof a !== typeof b) return false;
  if (typeof a !== 'object' || a === null || b === null) return true;
  return (a as object).constructor === (b as object).constructor;
}

/** sortListByAssociatedKeys: a stable sort of the list by the keys at the same positions. */
export function sortByKeys(list: readonly CelValue[], keys: readonly CelValue[]): CelValue[] {
  if (list.length !== keys.length) {
    throw libraryError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`,
    );
  }
  if (list.length === 0) return [...list];
  const first = keys[0];
  if (compareValues(first, first) === undefined && !(typeof first === 'number')) {
    throw libraryError('list elements must be comparable');
  }
  const order = keys.map((_, i) => i);
  for (const k of keys) if (!sameKind(k, first)) throw libraryError('list elements must have the same type');
  order.sort((i, j) => compareValues(keys[i], keys[j]) ?? 0);
  return order.map((i) => list[i]);
}
