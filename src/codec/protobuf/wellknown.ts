/**
 * JSON forms of the apimachinery types whose Go MarshalJSON differs from their
 * proto fields: metav1.Time / MicroTime (RFC 3339 text vs Unix seconds and
 * nanoseconds) and metav1.Duration (Go duration text vs nanoseconds).
 * Calendar arithmetic is done by hand: Date mangles years 0–99 and rounds
 * to milliseconds.
 */

/** Unix seconds of 0001-01-01T00:00:00Z, Go's zero time.Time. */
export const GO_ZERO_TIME_SECONDS = -62135596800;

const SECONDS_PER_DAY = 86400;

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

function pad(n: number, width: number): string {
  const s = String(Math.abs(n));
  return (n < 0 ? '-' : '') + (s.length >= width ? s : '0'.repeat(width - s.length) + s);
}

/** time.RFC3339 in UTC ("2006-01-02T15:04:05Z"), or with `micros`, RFC3339Micro (six digits, truncated). */
export function formatRfc3339(seconds: number, nanos = 0, micros = false): string {
  const days = Math.floor(seconds / SECONDS_PER_DAY);
  let rem = seconds - days * SECONDS_PER_DAY;
  const [y, mo, d] = civilFromDays(days);
  const h = Math.floor(rem / 3600);
  rem -= h * 3600;
  const mi = Math.floor(rem / 60);
  const s = rem - mi * 60;
  let out = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}`;
  if (micros) out += '.' + pad(Math.floor(nanos / 1000), 6);
  return out + 'Z';
}

const RFC3339 = /^(-?\d{4,})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Digits of text[i..i+n) as a number, or -1. */
function digits(text: string, i: number, n: number): number {
  let v = 0;
  for (let j = i; j < i + n; j++) {
    const c = text.charCodeAt(j) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Parses RFC 3339 text as Go's time.Parse(time.RFC3339, …) does; undefined when malformed. */
export function parseRfc3339(text: string): { seconds: number; nanos: number } | undefined {
  // Fast path for what servers write: "2006-01-02T15:04:05Z".
  if (text.length === 20 && text.charCodeAt(19) === 90 /* Z */ && text.charCodeAt(10) === 84 /* T */) {
    const y = digits(text, 0, 4);
    const mo = digits(text, 5, 2);
    const d = digits(text, 8, 2);
    const h = digits(text, 11, 2);
    const mi = digits(text, 14, 2);
    const s = digits(text, 17, 2);
    const separators = text[4] === '-' && text[7] === '-' && text[13] === ':' && text[16] === ':';
    const inRange = y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysIn(y, mo) && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && s >= 0 && s <= 59;
    if (separators && inRange) {
      return { seconds: daysFromCivil(y, mo, d) * SECONDS_PER_DAY + h * 3600 + mi * 60 + s, nanos: 0 };
    }
  }
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59) return undefined;
  let seconds = daysFromCivil(y, mo, d) * SECONDS_PER_DAY + h * 3600 + mi * 60 + s;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    const offset = (oh * 3600 + om * 60) * (m[9] === '-' ? -1 : 1);
    seconds -= offset;
  }
  const frac = m[7];
  const nanos = frac === undefined ? 0 : Number(frac.padEnd(9, '0'));
  return { seconds, nanos };
}

function daysIn(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

// ---------------------------------------------------------------------------
// Go time.Duration text

const NS = 1n;
const US = 1000n * NS;
const MS = 1000n * US;
const SEC = 1000n * MS;
const MIN = 60n * SEC;
const HOUR = 60n * MIN;

/** The fraction v / 10^prec as ".123" with trailing zeros dropped (no dot when zero), and v / 10^prec. */
function fmtFrac(v: bigint, prec: number): [string, bigint] {
  let digits = '';
  let printed = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    printed = printed || digit !== 0n;
    if (printed) digits = digit.toString() + digits;
    v /= 10n;
  }
  return [printed ? '.' + digits : '', v];
}

/** time.Duration.String(): "1h2m3.5s", "1.5ms", "0s". */
export function formatGoDuration(nanos: number | bigint): string {
  let u = BigInt(nanos);
  const neg = u < 0n;
  if (neg) u = -u;
  let out: string;
  if (u < SEC) {
    if (u === 0n) return '0s';
    let unit: string;
    let prec: number;
    if (u < US) {
      unit = 'ns';
      prec = 0;
    } else if (u < MS) {
      unit = 'µs';
      prec = 3;
    } else {
      unit = 'ms';
      prec = 6;
    }
    const [frac, whole] = fmtFrac(u, prec);
    out = whole.toString() + frac + unit;
  } else {
    const [frac, secsTotal] = fmtFrac(u, 9);
    let rest = secsTotal;
    out = (rest % 60n).toString() + frac + 's';
    rest /= 60n;
    if (rest > 0n) {
      out = (rest % 60n).toString() + 'm' + out;
      rest /= 60n;
      if (rest > 0n) out = rest.toString() + 'h' + out;
    }
  }
  return neg ? '-' + out : out;
}

const UNITS: Record<string, bigint> = {
  ns: NS,
  us: US,
  'µs': US, // U+00B5 micro sign
  'μs': US, // U+03BC Greek mu
  ms: MS,
  s: SEC,
  m: MIN,
  h: HOUR,
};

const MAX_INT64 = (1n << 63n) - 1n;

/** time.ParseDuration; undefined when malformed or out of range. */
export function parseGoDuration(text: string): bigint | undefined {
  let s = text;
  let neg = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') return undefined;
  let total = 0n;
  const part = /^(\d*)(?:\.(\d*))?([^\d.]+)/;
  while (s !== '') {
    const m = part.exec(s);
    if (m === null) return undefined;
    const [whole, intText, fracText, unitText] = [m[0], m[1] ?? '', m[2], m[3]!];
    if (intText === '' && (fracText === undefined || fracText === '')) return undefined;
    const unit = UNITS[unitText];
    if (unit === undefined) return undefined;
    let v = (intText === '' ? 0n : BigInt(intText)) * unit;
    if (fracText !== undefined && fracText !== '') {
      // Go truncates the fractional contribution toward zero.
      v += (BigInt(fracText) * unit) / 10n ** BigInt(fracText.length);
    }
    total += v;
    if (total > MAX_INT64 + (neg ? 1n : 0n)) return undefined;
    s = s.slice(whole.length);
  }
  return neg ? -total : total;
}
