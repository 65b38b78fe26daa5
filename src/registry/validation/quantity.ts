/**
 * resource.Quantity parsing for comparisons: the exact value as a fraction
 * (numerator over a power of ten), enough for "requests must be <= limits",
 * QoS classes and sums. Text forms follow resource.ParseQuantity:
 * `<sign><digits>[.<digits>]<suffix>`, suffix one of the binary SI (Ki..Ei),
 * decimal SI (n, u, m, "", k, M, G, T, P, E) or an exponent (e3, E-2).
 */

export interface QuantityValue {
  /** value = num / 10^scale (exact). */
  num: bigint;
  scale: number;
}

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const SHAPE = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)([a-zA-Z]*|[eE][+-]?\d+)$/;

/** The parsed value, or undefined when the text is not a quantity (kube: "quantities must match the regular expression ..."). */
export function parseQuantity(v: unknown): QuantityValue | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) v = String(v);
  if (typeof v !== 'string') return undefined;
  const m = SHAPE.exec(v.trim() === v ? v : '');
  if (!m) return undefined;
  const negative = m[1] === '-';
  const [intPart, fracPart = ''] = m[2]!.split('.');
  let num = BigInt((intPart || '0') + fracPart);
  let scale = fracPart.length;
  const suffix = m[3]!;
  if (suffix in DECIMAL) {
    scale -= DECIMAL[suffix]!;
  } else if (suffix in BINARY) {
    num <<= BigInt(BINARY[suffix]!);
  } else if (/^[eE][+-]?\d+$/.test(suffix)) {
    scale -= Number.parseInt(suffix.slice(1), 10);
  } else {
    return undefined;
  }
  if (scale < 0) {
    num *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { num: negative ? -num : num, scale };
}

function align(a: QuantityValue, b: QuantityValue): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.num * 10n ** BigInt(scale - a.scale), b.num * 10n ** BigInt(scale - b.scale), scale];
}

export function compareQuantity(a: QuantityValue, b: QuantityValue): -1 | 0 | 1 {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addQuantity(a: QuantityValue, b: QuantityValue): QuantityValue {
  const [x, y, scale] = align(a, b);
  return { num: x + y, scale };
}

export function isPositive(q: QuantityValue): boolean {
  return q.num > 0n;
}

export function isNegative(q: QuantityValue): boolean {
  return q.num < 0n;
}

export const QUANTITY_REGEX_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
