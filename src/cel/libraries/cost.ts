import { CelFormat } from './format.js';
import { CelCIDR } from './ip.js';
import { codePoints, isMapValue, mapEntries } from './values.js';

/**
 * The cost of the Kubernetes library functions, as kube's
 * library.CostEstimator prices them (staging/src/k8s.io/apiserver/pkg/cel/
 * library/cost.go): EstimateCallCost at compile time from the sizes the
 * estimator knows, CallCost at evaluation from the actual values. Also the
 * ext.Lists functions, which cel-go prices itself. Any function not listed
 * here costs what the core estimator charges for a call.
 *
 * Sizes and costs are uint64 in cel-go; here they are numbers that saturate
 * at 2^64 - 1 (UINT64_MAX) as cel-go's arithmetic does.
 */
export interface SizeEstimate {
  min: number;
  max: number;
}

export interface CostEstimate {
  min: number;
  max: number;
}

/**
 * What the estimator knows beyond sizes, where kube's estimator reads it
 * from the checked AST: the receiver's kind and element, the overload chosen
 * (kube's overload ids: "cidr_ip", "cidr_contains_ip_string",
 * "cidr_contains_cidr_string"), and arguments written as literals.
 */
export interface CallDetail {
  /** The receiver is a list (rather than a string), for indexOf and lastIndexOf. */
  targetIsList?: boolean;
  /** Size of the receiver list's elements (maxLength of its items, say), when known. */
  elementSize?: SizeEstimate;
  /** The receiver list's elements are strings or bytes. */
  elementIsStringOrBytes?: boolean;
  overload?: string;
  /** Arguments (not the receiver) that are literals: their values, by position; undefined where not a literal. */
  literalArgs?: readonly unknown[];
}

export const UINT64_MAX = 18446744073709551615;
/** common.StringTraversalCostFactor. */
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
/** common.RegexStringLengthCostFactor. */
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;
/** common.ListCreateBaseCost. */
export const LIST_CREATE_BASE_COST = 10;
const CALL_COST = 1;
/** The cost of an authorization check: two per expression fit the per-expression limit. */
export const AUTHZ_CHECK_COST = 350_000;

const UNKNOWN: SizeEstimate = { min: 0, max: UINT64_MAX };

function sat(x: number): number {
  return x >= UINT64_MAX ? UINT64_MAX : x;
}

function addN(a: number, b: number): number {
  return sat(a + b);
}

function mulN(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  return sat(a * b);
}

function byFactor(x: number, f: number): number {
  if (x > 0 && f > 0 && x > UINT64_MAX / f) return UINT64_MAX;
  return sat(Math.ceil(x * f));
}

function add(a: SizeEstimate, b: SizeEstimate): SizeEstimate {
  return { min: addN(a.min, b.min), max: addN(a.max, b.max) };
}

function multiply(a: SizeEstimate, b: SizeEstimate): SizeEstimate {
  return { min: mulN(a.min, b.min), max: mulN(a.max, b.max) };
}

function factor(a: SizeEstimate, f: number): CostEstimate {
  return { min: byFactor(a.min, f), max: byFactor(a.max, f) };
}

function fixed(n: number): SizeEstimate {
  return { min: n, max: n };
}

const NOMINAL: CostEstimate = fixed(1);

const AUTHZ_ACCESSORS = new Set([
  'serviceAccount',
  'path',
  'group',
  'resource',
  'subresource',
  'namespace',
  'name',
  'allowed',
  'reason',
  'error',
  'errored',
]);
const LIST_TRAVERSALS = new Set(['isSorted', 'sum', 'max', 'min', 'indexOf', 'lastIndexOf']);
const IP_CIDR_ACCESSORS = new Set([
  'masked',
  'prefixLength',
  'family',
  'isUnspecified',
  'isLoopback',
  'isLinkLocalMulticast',
  'isLinkLocalUnicast',
]);
const QUANTITY_ACCESSORS = new Set([
  'sign',
  'asInteger',
  'isInteger',
  'asApproximateFloat',
  'isGreaterThan',
  'isLessThan',
  'compareTo',
  'add',
  'sub',
]);

type Estimate = { cost: CostEstimate; resultSize?: SizeEstimate };

/**
 * kube's EstimateCallCost (plus ext.Lists'): the cost of a call to a
 * library function given the size of its receiver (`target`, undefined for a
 * global function) and arguments, and the size of its result where that
 * differs from what the core estimator assumes; undefined when the function
 * is not priced by a library (the core estimator charges a plain call).
 */
export function estimateLibraryCallCost(
  fn: string,
  target: SizeEstimate | undefined,
  args: SizeEstimate[],
  detail: CallDetail = {},
): Estimate | undefined {
  if (fn === 'check') return { cost: fixed(AUTHZ_CHECK_COST) };
  if (AUTHZ_ACCESSORS.has(fn)) return { cost: NOMINAL };
  if (LIST_TRAVERSALS.has(fn)) {
    if (target === undefined) return undefined;
    if (detail.targetIsList) {
      let elCost: CostEstimate = fixed(1);
      if (detail.elementIsStringOrBytes) elCost = add(elCost, factor(detail.elementSize ?? UNKNOWN, STRING_TRAVERSAL_COST_FACTOR));
      return { cost: multiply(target, elCost) };
    }
    return { cost: factor(target, STRING_TRAVERSAL_COST_FACTOR) };
  }
  switch (fn) {
    case 'url':
      return args.length === 1 ? { cost: factor(args[0]!, STRING_TRAVERSAL_COST_FACTOR) } : undefined;
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      return target ? { cost: factor(target, STRING_TRAVERSAL_COST_FACTOR), resultSize: target } : undefined;
    case 'replace':
      return target && args.length >= 2 ? estimateReplace(target, args[0]!, args[1]!) : undefined;
    case 'split': {
      if (!target) return undefined;
      let max = target.max;
      const limit = detail.literalArgs?.[1];
      if (typeof limit === 'bigint') max = limit < 0n ? UINT64_MAX : Number(limit);
      return { cost: factor(target, 2 * STRING_TRAVERSAL_COST_FACTOR), resultSize: { min: 0, max } };
    }
    case 'join': {
      if (!target) return undefined;
      let size: SizeEstimate = multiply(target, detail.elementSize ?? UNKNOWN);
      if (args.length > 0) {
        const separators = { min: target.min > 0 ? target.min - 1 : 0, max: target.max > 0 ? target.max - 1 : 0 };
        size = add(size, multiply(args[0]!, separators));
      }
      return { cost: factor(size, STRING_TRAVERSAL_COST_FACTOR), resultSize: size };
    }
    case 'find':
    case 'findAll': {
      if (!target || args.length < 1) return undefined;
      const strCost = factor(add(target, fixed(1)), STRING_TRAVERSAL_COST_FACTOR);
      const regexCost = factor(args[0]!, REGEX_STRING_LENGTH_COST_FACTOR);
      return { cost: multiply(strCost, regexCost), resultSize: { min: 0, max: target.max } };
    }
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
    case 'quantity':
    case 'isQuantity':
      return args.length >= 1 ? { cost: factor(args[0]!, STRING_TRAVERSAL_COST_FACTOR) } : undefined;
    case 'ip':
      // cidr.ip() reads a field; ip(string) parses.
      if (detail.overload === 'cidr_ip' || (target && args.length === 0)) return { cost: NOMINAL };
      return args.length >= 1 ? { cost: factor(args[0]!, STRING_TRAVERSAL_COST_FACTOR) } : undefined;
    case 'ip.isCanonical':
      return args.length >= 1 ? { cost: factor(args[0]!, 2 * STRING_TRAVERSAL_COST_FACTOR) } : undefined;
    case 'fieldSelector':
    case 'labelSelector':
      return args.length >= 1 ? { cost: { min: selectorCost(args[0]!.min), max: selectorCost(args[0]!.max) } } : undefined;
    case 'validate': {
      if (args.length < 1) return undefined;
      const strCost = factor(add(args[0]!, fixed(1)), STRING_TRAVERSAL_COST_FACTOR);
      return { cost: multiply(strCost, fixed(byFactor(ESTIMATED_FORMAT_REGEX_SIZE, REGEX_STRING_LENGTH_COST_FACTOR))) };
    }
    case 'jsonpatch.escapeKey':
      return args.length >= 1 ? { cost: factor(args[0]!, STRING_TRAVERSAL_COST_FACTOR) } : undefined;
    case 'strings.quote': {
      if (args.length < 1) return undefined;
      const n = args[0]!;
      return { cost: factor(n, STRING_TRAVERSAL_COST_FACTOR), resultSize: { min: addN(n.min, 2), max: addN(mulN(n.max, 2), 2) } };
    }
    case 'sets.contains':
    case 'sets.equivalent':
    case 'sets.intersects':
      return args.length >= 2 ? { cost: add(multiply(args[0]!, args[1]!), fixed(CALL_COST)) } : undefined;
    case 'containsIP':
    case 'containsCIDR': {
      if (!target || args.length < 1) return undefined;
      const ipSize: SizeEstimate = { min: 4, max: 16 };
      let cost = factor(add(ipSize, ipSize), STRING_TRAVERSAL_COST_FACTOR);
      if (fn === 'containsCIDR') cost = add(add(cost, factor(ipSize, STRING_TRAVERSAL_COST_FACTOR)), NOMINAL);
      if (detail.overload === 'cidr_contains_ip_string' || detail.overload === 'cidr_contains_cidr_string') {
        cost = add(cost, factor(args[0]!, STRING_TRAVERSAL_COST_FACTOR));
      }
      return { cost };
    }
  }
  if (IP_CIDR_ACCESSORS.has(fn) || QUANTITY_ACCESSORS.has(fn)) return { cost: NOMINAL };
  return estimateExtLists(fn, target, detail);
}

function estimateReplace(sz: SizeEstimate, toReplace: SizeEstimate, replaceWith: SizeEstimate): Estimate {
  const count = { min: 0, max: 0 };
  const retained = { min: 0, max: 0 };
  if (toReplace.min === 0) {
    count.max = sz.max < UINT64_MAX ? sz.max + 1 : sz.max;
    retained.max = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    retained.max = sz.max;
  } else {
    count.max = sat(Math.ceil(sz.max / toReplace.min));
  }
  if (toReplace.max === 0) {
    count.min = sz.min < UINT64_MAX ? sz.min + 1 : sz.min;
    retained.min = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    retained.min = sz.min;
  } else {
    count.min = sat(Math.ceil(sz.min / toReplace.max));
  }
  const resultSize = add(multiply(count, replaceWith), retained);
  return { cost: factor(sz, 2 * STRING_TRAVERSAL_COST_FACTOR), resultSize };
}

/**
 * The regular expression size kube's estimate charges a named format's
 * validate() (the format is not known before evaluation); 128 as kube's
 * cost tests expect (34 for format.named(...).value().validate("my-name")).
 */
const ESTIMATED_FORMAT_REGEX_SIZE = 128;

/** A selector's parse: a base of 10, 50 per possible requirement (one per two characters), and the traversal. */
function selectorCost(size: number): number {
  if (size >= UINT64_MAX) return UINT64_MAX;
  return addN(addN(10, mulN(Math.ceil(size / 2), 50)), byFactor(size, STRING_TRAVERSAL_COST_FACTOR));
}

const CREATE_AND_CALL: CostEstimate = fixed(LIST_CREATE_BASE_COST + CALL_COST);

/** cel-go's ext.Lists estimators (version 3). */
function estimateExtLists(fn: string, target: SizeEstimate | undefined, detail: CallDetail): Estimate | undefined {
  if (fn === 'lists.range') {
    const n = detail.literalArgs?.[0];
    if (typeof n !== 'bigint') return { cost: UNKNOWN };
    const size = fixed(Number(n));
    return { cost: add(size, CREATE_AND_CALL), resultSize: size };
  }
  if (!target) return undefined;
  switch (fn) {
    case 'distinct':
      return { cost: add(multiply(target, target), CREATE_AND_CALL), resultSize: target };
    case 'reverse':
      return { cost: add(target, CREATE_AND_CALL), resultSize: target };
    case 'flatten': {
      const depthArg = detail.literalArgs?.[0];
      let depth = 1;
      if (detail.literalArgs === undefined || detail.literalArgs.length === 0) depth = 1;
      else if (typeof depthArg === 'bigint') depth = Number(depthArg);
      else depth = 256;
      let size = target;
      if (depth > 1) {
        size = multiply(size, detail.elementSize ?? UNKNOWN);
        size = multiply(size, fixed(Math.ceil(depth)));
      }
      return { cost: add(size, CREATE_AND_CALL), resultSize: size };
    }
    case 'slice': {
      const start = detail.literalArgs?.[0];
      const end = detail.literalArgs?.[1];
      const s = typeof start === 'bigint' ? Number(start) : 0;
      const e = typeof end === 'bigint' ? Number(end) : target.max;
      const size = e >= s ? fixed(e - s) : target;
      return { cost: add(size, CREATE_AND_CALL), resultSize: size };
    }
    case 'sort':
    case 'sortBy': {
      const logMin = target.min > 0 ? Math.ceil(Math.log2(target.min)) : 0;
      const logMax = target.max > 0 ? Math.ceil(Math.log2(target.max)) : 0;
      const scaled = multiply(target, { min: logMin, max: logMax });
      const cost = factor(scaled, fn === 'sort' ? 0.1 : 0.2);
      return { cost: add(cost, CREATE_AND_CALL), resultSize: target };
    }
  }
  return undefined;
}

/** traits.Sizer's Size(): code points of a string, bytes, list and map entries; 1 for anything else. */
function actualSize(v: unknown): number {
  if (typeof v === 'string') return codePoints(v).length;
  if (v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Set) return v.size;
  if (isMapValue(v)) return mapEntries(v).length;
  return 1;
}

/** kube's traversalCost: string and bytes lengths at the traversal factor (truncated), summed over lists and maps. */
function traversalCost(v: unknown): number {
  if (typeof v === 'string') return Math.floor(Buffer.byteLength(v, 'utf8') * STRING_TRAVERSAL_COST_FACTOR);
  if (v instanceof Uint8Array) return Math.floor(v.length * STRING_TRAVERSAL_COST_FACTOR);
  if (Array.isArray(v) || v instanceof Set) {
    let c = 0;
    for (const x of v) c = addN(c, traversalCost(x));
    return c;
  }
  if (isMapValue(v)) {
    let c = 0;
    for (const [k, x] of mapEntries(v)) c = addN(c, addN(traversalCost(k), traversalCost(x)));
    return c;
  }
  return 1;
}

function ceilFactor(n: number, f: number): number {
  return Math.ceil(n * f);
}

/**
 * kube's CallCost: the cost charged at evaluation for a call with these
 * receiver (undefined for a global function), arguments and result; undefined
 * when the function is not priced by a library.
 */
export function libraryCallCost(fn: string, target: unknown, args: unknown[], result: unknown): number | undefined {
  // cel-go passes the receiver as the first argument.
  const all = target === undefined ? args : [target, ...args];
  if (fn === 'check') return AUTHZ_CHECK_COST;
  if (AUTHZ_ACCESSORS.has(fn)) return 1;
  if (LIST_TRAVERSALS.has(fn)) return all.length > 0 ? traversalCost(all[0]) : 0;
  switch (fn) {
    case 'url':
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
    case 'quantity':
    case 'isQuantity':
      return all.length >= 1 ? ceilFactor(actualSize(all[0]), STRING_TRAVERSAL_COST_FACTOR) : undefined;
    case 'replace':
    case 'split':
      return all.length >= 1 ? ceilFactor(actualSize(all[0]), 2 * STRING_TRAVERSAL_COST_FACTOR) : undefined;
    case 'join':
      return all.length >= 1 ? ceilFactor(actualSize(result), 2 * STRING_TRAVERSAL_COST_FACTOR) : undefined;
    case 'find':
    case 'findAll': {
      if (all.length < 2) return undefined;
      const strCost = ceilFactor(1 + actualSize(all[0]), STRING_TRAVERSAL_COST_FACTOR);
      const regexCost = ceilFactor(actualSize(all[1]), REGEX_STRING_LENGTH_COST_FACTOR);
      return mulN(strCost, regexCost);
    }
    case 'ip':
      if (all.length < 1) return undefined;
      return all[0] instanceof CelCIDR ? 1 : ceilFactor(actualSize(all[0]), STRING_TRAVERSAL_COST_FACTOR);
    case 'ip.isCanonical':
      return all.length >= 1 ? ceilFactor(actualSize(all[0]), 2 * STRING_TRAVERSAL_COST_FACTOR) : undefined;
    case 'containsIP':
    case 'containsCIDR': {
      if (all.length < 2) return undefined;
      const cidrSize = actualSize(all[0]);
      let cost = ceilFactor(cidrSize + cidrSize, STRING_TRAVERSAL_COST_FACTOR);
      if (fn === 'containsCIDR') cost += ceilFactor(cidrSize, STRING_TRAVERSAL_COST_FACTOR) + 1;
      if (typeof all[1] === 'string') cost += ceilFactor(actualSize(all[1]), STRING_TRAVERSAL_COST_FACTOR);
      return cost;
    }
    case 'fieldSelector':
    case 'labelSelector':
      return all.length >= 2 ? selectorCost(actualSize(all[1])) : undefined;
    case 'validate': {
      if (all.length < 2 || !(all[0] instanceof CelFormat)) return undefined;
      const strCost = ceilFactor(1 + actualSize(all[1]), STRING_TRAVERSAL_COST_FACTOR);
      return mulN(strCost, ceilFactor(all[0].maxRegexSize, REGEX_STRING_LENGTH_COST_FACTOR));
    }
    case 'jsonpatch.escapeKey':
    case 'strings.quote':
      return args.length >= 1 ? ceilFactor(actualSize(args[args.length - 1]), STRING_TRAVERSAL_COST_FACTOR) : undefined;
    case 'sets.contains':
    case 'sets.equivalent':
    case 'sets.intersects': {
      const [a, b] = args.slice(-2);
      return args.length >= 2 ? addN(mulN(actualSize(a), actualSize(b)), CALL_COST) : undefined;
    }
    case 'lists.range':
    case 'slice':
    case 'reverse':
    case 'flatten':
      return LIST_CREATE_BASE_COST + CALL_COST + actualSize(result);
    case 'distinct': {
      const n = actualSize(all[0]);
      return addN(mulN(n, n), LIST_CREATE_BASE_COST + CALL_COST);
    }
  }
  if (IP_CIDR_ACCESSORS.has(fn) || QUANTITY_ACCESSORS.has(fn)) return 1;
  return undefined;
}

