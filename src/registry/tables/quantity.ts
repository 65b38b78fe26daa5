/**
 * resource.Quantity's String(): the canonical form kube's printers show for
 * capacities, quota usage and metric values ("1536Mi" for "1.5Gi", "2k" for
 * "2000", "500m" for "0.5"). Stored quantities are kept as written, so the
 * printers canonicalize here, including ParseQuantity's shortcut that keeps
 * the original text when it is already canonical.
 */

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

interface Parsed {
  negative: boolean;
  /** The value is unscaled × 10^-scale (binary suffixes already multiplied in). */
  unscaled: bigint;
  scale: number;
  format: Format;
  /** The text kept by ParseQuantity when it is already canonical. */
  cached?: string;
}

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIX).map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT = new Map<number, string>([[0, ''], ...Object.entries(BINARY_SUFFIX).map(([s, e]): [number, string] => [e, s])]);

const SHAPE = /^([+-]?)(\d*)(?:\.(\d*))?([eEinumkKMGTP][-+]?\d*|[eEinumkKMGTP]*)$/;

function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: Format } | undefined {
  const dec = DECIMAL_SUFFIX[suffix];
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = BINARY_SUFFIX[suffix];
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[-+]?\d+$/.test(suffix.slice(1))) {
    return { base: 10, exponent: Number.parseInt(suffix.slice(1), 10), format: 'DecimalExponent' };
  }
  return undefined;
}

const INT64_MAX = (1n << 63n) - 1n;

function parse(text: string): Parsed | undefined {
  if (text === '0') return { negative: false, unscaled: 0n, scale: 0, format: 'DecimalSI', cached: '0' };
  const m = SHAPE.exec(text);
  if (!m) return undefined;
  const negative = m[1] === '-';
  const num = (m[2] ?? '').replace(/^0+/, '') || '0';
  const denom = m[3] ?? '';
  const suffix = interpretSuffix(m[4] ?? '');
  if (!suffix) return undefined;
  if ((m[2] ?? '') === '' && denom === '' && m[3] === undefined) return undefined;

  let unscaled = BigInt(num + denom);
  let scale = denom.length;
  if (suffix.base === 10) scale -= suffix.exponent;
  else unscaled <<= BigInt(suffix.exponent);
  if (scale < 0) {
    unscaled *= 10n ** BigInt(-scale);
    scale = 0;
  }
  // Values below a nano-unit round up (away from zero), as ParseQuantity does.
  if (scale > 9 && unscaled !== 0n) {
    const div = 10n ** BigInt(scale - 9);
    unscaled = (unscaled + div - 1n) / div;
    scale = 9;
  }
  let format = suffix.format;
  if (format === 'BinarySI' && unscaled !== 0n && unscaled < 10n ** BigInt(scale)) format = 'DecimalSI';

  const out: Parsed = { negative, unscaled, scale, format };
  const cached = fastPathKeepsText(text, num, denom, suffix);
  if (cached) out.cached = text;
  return out;
}

/** ParseQuantity's int64 fast path, which reuses the input text when it looks canonical. */
function fastPathKeepsText(text: string, num: string, denom: string, suffix: { base: 2 | 10; exponent: number; format: Format }): boolean {
  if (suffix.format === 'BinarySI') {
    if (suffix.exponent < 0 || denom !== '') return false;
    const precision = 15 - num.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
    if (precision < 0) return false;
    const value = BigInt(num);
    if (value > INT64_MAX || (value << BigInt(suffix.exponent)) > INT64_MAX) return false;
    return suffix.exponent % 10 === 0 && (value & 7n) !== 0n;
  }
  if (18 - (num.length + denom.length) < 0) return false;
  const scale = suffix.exponent - denom.length;
  if (scale < -9) return false;
  const shifted = num + denom;
  if (BigInt(shifted) > INT64_MAX) return false;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

function canonical(q: Parsed): string {
  if (q.unscaled === 0n) return '0';
  const sign = q.negative ? '-' : '';
  let format = q.format;
  if (format === 'BinarySI') {
    const whole = q.unscaled % 10n ** BigInt(q.scale) === 0n;
    const below1024 = q.unscaled < 1024n * 10n ** BigInt(q.scale);
    if (below1024 || !whole) format = 'DecimalSI';
  }
  if (format === 'BinarySI') {
    let value = q.unscaled / 10n ** BigInt(q.scale);
    let exponent = 0;
    while (value % 1024n === 0n) {
      value /= 1024n;
      exponent += 10;
    }
    return `${sign}${value}${BINARY_BY_EXPONENT.get(exponent) ?? ''}`;
  }
  let mantissa = q.unscaled;
  let exponent = -q.scale;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1;
  }
  while (((exponent % 3) + 3) % 3 !== 0) {
    mantissa *= 10n;
    exponent -= 1;
  }
  let suffix: string;
  if (format === 'DecimalExponent') suffix = exponent === 0 ? '' : `e${exponent}`;
  else suffix = DECIMAL_BY_EXPONENT.get(exponent) ?? '';
  return `${sign}${mantissa}${suffix}`;
}

/**
 * Quantity.String() of a JSON quantity (a string, or a bare number as
 * UnmarshalJSON accepts). Absent values are the zero quantity, "0"; text that
 * does not parse is shown as given.
 */
export function quantityString(v: unknown): string {
  if (v === undefined || v === null) return '0';
  const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  const q = parse(text);
  if (!q) return text;
  return q.cached ?? canonical(q);
}

/** (*Quantity).String() of a pointer field: "<nil>" when unset. */
export function quantityPtrString(v: unknown): string {
  return v === undefined || v === null ? '<nil>' : quantityString(v);
}
