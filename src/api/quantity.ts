/**
 * resource.Quantity (k8s.io/apimachinery/pkg/api/resource), as kube-apiserver
 * 1.36 parses, prints, compares and adds it. One implementation serves the
 * printers (canonical strings), field validation (ParseQuantity's error
 * texts, which reach clients verbatim), registry validation and defaulting
 * (comparisons, sums) and the codecs.
 *
 * Parsing follows ParseQuantity step by step: its scanner (which accepts more
 * than the regular expression in its error text, e.g. ".", "+", "1.G"), the
 * suffix table, the int64 fast path that keeps the input text when it is
 * already canonical, and the slow path that rounds up to nano units and caps
 * binary-SI values at 2^63-1. Printing follows Quantity.String() (what
 * MarshalJSON writes): the mantissa as an integer with the largest exponent
 * that loses nothing, in the format the text was written in.
 *
 * Values are exact: mantissa × 10^exponent with a bigint mantissa. Exponents
 * stay exponents, so "1e2000000" costs nothing until it is compared or added
 * to a value many orders of magnitude away.
 */

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

export interface Quantity {
  /** Signed; the value is mantissa × 10^exponent. */
  readonly mantissa: bigint;
  readonly exponent: number;
  /** The suffix family the text used; String() prints in it where it can. */
  readonly format: QuantityFormat;
  /** The input text, kept by ParseQuantity's fast path when it is already canonical: String() returns it. */
  readonly text?: string;
}

/** ParseQuantity's errors (ErrFormatWrong, ErrSuffix, ErrNumeric). */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";
export const QUANTITY_NUMERIC_ERROR = 'unable to parse numeric part of quantity';

/** A text that ParseQuantity rejects; the message is kube's. */
export class QuantityParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuantityParseError';
  }
}

const INT64_MAX = (1n << 63n) - 1n;
/** Values below a nano-unit round up to one: the smallest exponent a parsed quantity has. */
const NANO = -9;
/** maxInt64Factors: the decimal digits an int64 always holds. */
const MAX_INT64_FACTORS = 18;

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);
const DECIMAL_BY_EXPONENT: ReadonlyMap<number, string> = new Map([...DECIMAL_SUFFIXES].map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT: ReadonlyMap<number, string> = new Map([...BINARY_SUFFIXES].map(([s, e]) => [e, s]));

const SUFFIX_CHARS = 'eEinumkKMGTP';

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** parseQuantityString's pieces, as offsets into the text. */
interface Scanned {
  positive: boolean;
  /** The sign and number before the suffix: str[0, valueEnd); "0" when only zeros were read to the end. */
  valueEnd: number;
  /** The integer digits with leading zeros stripped: str[numStart, numEnd) ("0" when empty). */
  numStart: number;
  numEnd: number;
  /** The fraction digits: str[denomStart, denomEnd). */
  denomStart: number;
  denomEnd: number;
  suffixStart: number;
  allZeros: boolean;
  /** Whether the number has a digit at all (ParseQuantity's inf.Dec path fails without one). */
  hasDigits: boolean;
}

/** parseQuantityString: a scanner that splits sign, number and suffix; undefined is ErrFormatWrong. */
function scan(str: string): Scanned | undefined {
  const end = str.length;
  const out: Scanned = { positive: true, valueEnd: end, numStart: 0, numEnd: 0, denomStart: 0, denomEnd: 0, suffixStart: end, allZeros: false, hasDigits: false };
  let pos = 0;
  if (end > 0) {
    const c = str.charCodeAt(0);
    if (c === 0x2d) {
      out.positive = false;
      pos++;
    } else if (c === 0x2b) pos++;
  }
  const signEnd = pos;
  while (pos < end && str.charCodeAt(pos) === 0x30) pos++;
  out.hasDigits = pos > signEnd;
  if (pos >= end) {
    out.allZeros = true;
    return out;
  }
  out.numStart = pos;
  while (pos < end && isDigit(str.charCodeAt(pos))) pos++;
  out.numEnd = pos;
  out.denomStart = out.denomEnd = pos;
  if (pos > out.numStart) out.hasDigits = true;
  if (pos >= end) return out;
  if (str.charCodeAt(pos) === 0x2e) {
    pos++;
    out.denomStart = pos;
    while (pos < end && isDigit(str.charCodeAt(pos))) pos++;
    out.denomEnd = pos;
    if (pos > out.denomStart) out.hasDigits = true;
    if (pos >= end) return out;
  }
  out.valueEnd = pos;
  out.suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos] as string)) pos++;
  if (pos < end) {
    const c = str.charCodeAt(pos);
    if (c === 0x2d || c === 0x2b) pos++;
    while (pos < end && isDigit(str.charCodeAt(pos))) pos++;
    if (pos < end) return undefined;
  }
  return out;
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

const EXPONENT_DIGITS = /^[+-]?[0-9]+$/;

/** quantitySuffixer.interpret; undefined is ErrSuffix. */
function interpretSuffix(s: string): Suffix | undefined {
  const dec = DECIMAL_SUFFIXES.get(s);
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = BINARY_SUFFIXES.get(s);
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E') && EXPONENT_DIGITS.test(s.slice(1))) {
    const parsed = BigInt(s.slice(1));
    // strconv.ParseInt(s, 10, 64), then int32(parsed): 1.36 narrows wider exponents rather than rejecting them.
    if (parsed > INT64_MAX || parsed < -INT64_MAX - 1n) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

/** ParseQuantity's int64 fast path: the exponent it gives the value, or undefined when the value takes the inf.Dec path. */
function fastPathScale(numDigits: number, denomDigits: number, suffix: Suffix): number | undefined {
  let precision: number;
  let scale = 0;
  if (suffix.base === 10) {
    scale = suffix.exponent;
    precision = MAX_INT64_FACTORS - (numDigits + denomDigits);
  } else if (suffix.exponent >= 0 && denomDigits === 0) {
    // 1Mi (2^20) has about 6 digits of decimal precision.
    precision = 15 - numDigits - Math.trunc((suffix.exponent * 3) / 10) - 1;
  } else {
    precision = -1;
  }
  if (precision < 0) return undefined;
  scale -= denomDigits;
  return scale >= NANO ? scale : undefined;
}

const ZERO_TEXT: Quantity = { mantissa: 0n, exponent: 0, format: 'DecimalSI', text: '0' };

/** ParseQuantity's first steps: the scanned text and its suffix, or the error text (ErrFormatWrong, ErrSuffix). */
function scanWithSuffix(str: string): { s: Scanned; suffix: Suffix } | string {
  if (str.length === 0) return QUANTITY_FORMAT_ERROR;
  const s = scan(str);
  if (s === undefined) return QUANTITY_FORMAT_ERROR;
  const suffix = interpretSuffix(s.allZeros ? '' : str.slice(s.suffixStart));
  return suffix === undefined ? QUANTITY_SUFFIX_ERROR : { s, suffix };
}

/** ParseQuantity: the quantity, or kube's error text. */
function parse(str: string): Quantity | string {
  if (str === '0') return ZERO_TEXT;
  const scanned = scanWithSuffix(str);
  if (typeof scanned === 'string') return scanned;
  const { s, suffix } = scanned;
  const num = s.allZeros || s.numEnd === s.numStart ? '0' : str.slice(s.numStart, s.numEnd);
  const denom = str.slice(s.denomStart, s.denomEnd);

  const scale = fastPathScale(num.length, denom.length, suffix);
  if (scale !== undefined) {
    const shifted = num + denom;
    const value = BigInt(shifted);
    const result = suffix.base === 2 ? value << BigInt(suffix.exponent) : value;
    if (result <= INT64_MAX) {
      const q = { mantissa: s.positive ? result : -result, exponent: scale, format: suffix.format };
      // The text is reused when it is in canonical form.
      const canonical =
        suffix.format === 'BinarySI'
          ? suffix.exponent % 10 === 0 && (value & 7n) !== 0n
          : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
      return canonical ? { ...q, text: str } : q;
    }
  }

  // The inf.Dec path: SetString of the number, the suffix multiplied in.
  const value = s.allZeros ? '0' : str.slice(0, s.valueEnd);
  if (!s.hasDigits) return QUANTITY_NUMERIC_ERROR;
  const dot = value.indexOf('.');
  const digits = (dot < 0 ? value : value.slice(0, dot) + value.slice(dot + 1)).replace(/^[+-]/, '');
  let magnitude = BigInt(digits);
  let exponent = dot < 0 ? 0 : -(value.length - dot - 1);
  if (suffix.base === 10) exponent += suffix.exponent;
  else magnitude <<= BigInt(suffix.exponent);
  // Non-zero values round up (away from zero) to a whole number of nano-units.
  if (magnitude !== 0n && exponent < NANO) {
    const drop = NANO - exponent;
    // Below 10^drop the value is under one nano-unit: it rounds up to exactly one.
    if (drop > magnitude.toString().length) magnitude = 1n;
    else {
      const div = 10n ** BigInt(drop);
      magnitude = (magnitude + div - 1n) / div;
    }
    exponent = NANO;
  }
  let format = suffix.format;
  if (format === 'BinarySI') {
    // Binary-SI exponents are >= 0, so exponent here is in [-9, 0].
    const one = 10n ** BigInt(-exponent);
    if (magnitude > INT64_MAX * one) {
      magnitude = INT64_MAX;
      exponent = 0;
    } else if (magnitude !== 0n && magnitude < one) {
      format = 'DecimalSI';
    }
  }
  return { mantissa: s.positive ? magnitude : -magnitude, exponent, format };
}

/** resource.ParseQuantity. Throws QuantityParseError with kube's message. */
export function parseQuantity(text: string): Quantity {
  const q = parse(text);
  if (typeof q === 'string') throw new QuantityParseError(q);
  return q;
}

/** resource.ParseQuantity's error for a text, or undefined when it parses. */
export function quantityError(text: string): string | undefined {
  if (text === '0') return undefined;
  const scanned = scanWithSuffix(text);
  if (typeof scanned === 'string') return scanned;
  const { s, suffix } = scanned;
  // Only the inf.Dec path can fail now, on a number without digits (".", "+.", "").
  if (s.hasDigits) return undefined;
  const numDigits = Math.max(1, s.numEnd - s.numStart);
  return fastPathScale(numDigits, s.denomEnd - s.denomStart, suffix) !== undefined ? undefined : QUANTITY_NUMERIC_ERROR;
}

/**
 * Quantity.UnmarshalJSON of a value already decoded from JSON: a string
 * (spaces trimmed) or a number. Undefined for anything that does not parse,
 * and for null (the zero quantity of a struct, a nil pointer otherwise).
 */
export function quantityFromJson(v: unknown): Quantity | undefined {
  let text: string;
  if (typeof v === 'string') text = v.trim();
  else if (typeof v === 'number' && Number.isFinite(v)) text = String(v);
  else return undefined;
  const q = parse(text);
  return typeof q === 'string' ? undefined : q;
}

/** removeInt64Factors / removeBigIntFactors: the value with every factor of `base` taken out, and how many. */
function removeFactors(value: bigint, base: bigint): [bigint, number] {
  let times = 0;
  while (value !== 0n && value % base === 0n) {
    value /= base;
    times++;
  }
  return [value, times];
}

function abs(v: bigint): bigint {
  return v < 0n ? -v : v;
}

/** Whether the value has no fractional part. */
export function isWholeQuantity(q: Quantity): boolean {
  if (q.exponent >= 0 || q.mantissa === 0n) return true;
  const m = abs(q.mantissa);
  if (-q.exponent >= m.toString().length) return false;
  return m % 10n ** BigInt(-q.exponent) === 0n;
}

/** Quantity.String() (and the text MarshalJSON quotes): canonical form, or the text ParseQuantity kept. */
export function formatQuantity(q: Quantity): string {
  if (q.text !== undefined) return q.text;
  if (q.mantissa === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    // Between -1024 and 1024, or with a fraction, binary suffixes would round: print decimal.
    if (compareQuantities(q, KIBI) < 0 && compareQuantities(q, MINUS_KIBI) > 0) format = 'DecimalSI';
    else if (!isWholeQuantity(q)) format = 'DecimalSI';
  }
  if (format === 'BinarySI') {
    const whole = q.exponent >= 0 ? q.mantissa * 10n ** BigInt(q.exponent) : q.mantissa / 10n ** BigInt(-q.exponent);
    const [m, times] = removeFactors(whole, 1024n);
    // 1.36 drops a suffix it does not have (past Ei, reachable only by arithmetic).
    return `${m}${BINARY_BY_EXPONENT.get(times * 10) ?? ''}`;
  }
  let [m, exponent] = removeFactors(q.mantissa, 10n);
  exponent += q.exponent;
  // The exponent becomes a multiple of 3; the mantissa takes the difference.
  while (exponent % 3 !== 0) {
    m *= 10n;
    exponent--;
  }
  if (format === 'DecimalExponent') return exponent === 0 ? `${m}` : `${m}e${exponent}`;
  // 1.36 prints no suffix past E or below n (later releases fall back to exponents).
  return `${m}${DECIMAL_BY_EXPONENT.get(exponent) ?? ''}`;
}

const KIBI: Quantity = { mantissa: 1024n, exponent: 0, format: 'DecimalSI' };
const MINUS_KIBI: Quantity = { mantissa: -1024n, exponent: 0, format: 'DecimalSI' };

/** -1, 0 or 1 as the quantity is negative, zero or positive. */
export function quantitySign(q: Quantity): -1 | 0 | 1 {
  return q.mantissa < 0n ? -1 : q.mantissa > 0n ? 1 : 0;
}

/** Quantity.Cmp: -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const sa = quantitySign(a);
  const sb = quantitySign(b);
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const ma = abs(a.mantissa);
  const mb = abs(b.mantissa);
  // Orders of magnitude first, so that exponents far apart never build huge numbers.
  const oa = ma.toString().length + a.exponent;
  const ob = mb.toString().length + b.exponent;
  let c: -1 | 0 | 1;
  if (oa !== ob) c = oa < ob ? -1 : 1;
  else {
    const e = Math.min(a.exponent, b.exponent);
    const x = ma * 10n ** BigInt(a.exponent - e);
    const y = mb * 10n ** BigInt(b.exponent - e);
    c = x < y ? -1 : x > y ? 1 : 0;
  }
  return sa > 0 ? c : c === 0 ? 0 : c < 0 ? 1 : -1;
}

/** Exponent gaps beyond this are not added exactly (the aligned mantissa would be enormous). */
const MAX_ADD_GAP = 10_000;

/**
 * Quantity.Add: the exact sum, in a's format (b's when a is zero). Throws
 * RangeError for operands more than 10,000 orders of magnitude apart.
 */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  const format = a.mantissa === 0n ? b.format : a.format;
  if (b.mantissa === 0n) return { mantissa: a.mantissa, exponent: a.exponent, format };
  if (a.mantissa === 0n) return { mantissa: b.mantissa, exponent: b.exponent, format };
  const e = Math.min(a.exponent, b.exponent);
  if (Math.max(a.exponent, b.exponent) - e > MAX_ADD_GAP) throw new RangeError('quantities too far apart to add exactly');
  const mantissa = a.mantissa * 10n ** BigInt(a.exponent - e) + b.mantissa * 10n ** BigInt(b.exponent - e);
  return { mantissa, exponent: e, format };
}

/**
 * Quantity.String() of a JSON quantity (a string, or a bare number as
 * UnmarshalJSON accepts). Absent values are the zero quantity, "0"; text that
 * does not parse is shown as given.
 */
export function quantityString(v: unknown): string {
  if (v === undefined || v === null) return '0';
  const q = quantityFromJson(v);
  if (q !== undefined) return formatQuantity(q);
  return typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
}

/** (*Quantity).String() of a pointer field: "<nil>" when unset. */
export function quantityPtrString(v: unknown): string {
  return v === undefined || v === null ? '<nil>' : quantityString(v);
}

/**
 * What a JSON quantity reads back as once kube has decoded and re-encoded it:
 * the canonical string. Values that are not quantities (null, text that does
 * not parse, other types) are returned unchanged.
 */
export function canonicalQuantityJson(v: unknown): unknown {
  const q = quantityFromJson(v);
  return q === undefined ? v : formatQuantity(q);
}
