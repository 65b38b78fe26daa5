/**
 * Small reimplementations of Go runtime/library behaviour that leaks into what
 * kube-apiserver returns from patch code: fmt's %v/%s rendering of decoded JSON
 * (it appears verbatim in error messages), reflect type names, interface
 * equality (which panics on maps and slices), sort.SliceStable's exact
 * algorithm (strategic merge patch sorts with a comparator that is not a strict
 * weak order, so the result depends on the algorithm), and encoding/json's
 * scalar encoding (JSON patch "test" compares encoded bytes).
 */

import { type JsonValue, isJsonObject } from './json-value.js';
import { foldJson } from './deep-json.js';

/** The dynamic Go type a decoded JSON value has in kube (ints are int64: PreserveInts). */
export type GoType = 'nil' | 'map' | 'slice' | 'string' | 'bool' | 'int64' | 'float64';

export function goTypeOf(v: JsonValue | undefined): GoType {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    default:
      return 'map';
  }
}

/** reflect.Type.String() of a value's dynamic type, as printed with %s. */
export function goTypeName(v: JsonValue | undefined): string {
  switch (goTypeOf(v)) {
    case 'nil':
      return '%!s(<nil>)';
    case 'map':
      return 'map[string]interface {}';
    case 'slice':
      return '[]interface {}';
    default:
      return goTypeOf(v);
  }
}

/** Raised where the Go implementation would panic at run time. */
export class GoPanic extends Error {
  constructor(message: string) {
    super(`runtime error: ${message}`);
    this.name = 'GoPanic';
  }
}

/** Go's `==` on two interface{} values holding decoded JSON. */
export function goEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const ta = goTypeOf(a);
  const tb = goTypeOf(b);
  if (ta !== tb) return false;
  if (ta === 'map' || ta === 'slice') throw new GoPanic(`comparing uncomparable type ${goTypeName(a)}`);
  if (ta === 'nil') return true;
  return a === b;
}

/** Go map[interface{}] keys must be hashable; maps and slices panic. */
export function assertHashable(v: JsonValue | undefined): void {
  const t = goTypeOf(v);
  if (t === 'map' || t === 'slice') throw new GoPanic(`hash of unhashable type ${goTypeName(v)}`);
}

/** Compares strings by code point, i.e. by their UTF-8 bytes as Go does. */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0) as number;
    const cy = y.value.codePointAt(0) as number;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

function formatInt(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
}

/** strconv.FormatFloat(f, 'g', -1, 64) — what fmt's %v prints for a float64. */
export function formatFloatG(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant, expPart] = Math.abs(f).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const exp = Number(expPart);
  const sign = f < 0 ? '-' : '';
  // Shortest formatting decides between %e and %f with precision 6.
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const e = Math.abs(exp);
    return `${sign}${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

function sortedKeys(obj: Record<string, unknown>): string[] {
  return Object.keys(obj).sort(compareGoStrings);
}

/** fmt.Sprintf("%v", v) for decoded JSON (maps print sorted, like fmt does); values of any depth. */
export function goSprint(v: JsonValue | undefined | readonly JsonValue[][]): string {
  return foldJson<string>(v, {
    leaf: (x) => (x === null || x === undefined ? '<nil>' : typeof x === 'number' ? (Number.isInteger(x) ? formatInt(x) : formatFloatG(x)) : String(x)),
    array: (_a, items) => `[${items.join(' ')}]`,
    object: (_o, keys, members) => `map[${keys.map((k, i) => `${k}:${members[i]!}`).join(' ')}]`,
    keysOf: sortedKeys,
  });
}

/** fmt.Sprintf("%s", v): non-strings render as %!s(type=value). */
export function goSprintS(v: JsonValue | undefined): string {
  return foldJson<string>(v, {
    leaf: (x) => (x === null || x === undefined ? '%!s(<nil>)' : typeof x === 'string' ? x : `%!s(${goTypeOf(x as JsonValue)}=${goSprint(x as JsonValue)})`),
    array: (_a, items) => `[${items.join(' ')}]`,
    object: (_o, keys, members) => `map[${keys.map((k, i) => `${k}:${members[i]!}`).join(' ')}]`,
    keysOf: sortedKeys,
  });
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** strconv.Quote (and fmt's %q of a string): a double-quoted Go string literal, printable runes kept, others escaped. */
export function strconvQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c === 0x22) {
      out += '\\"';
      continue;
    }
    if (c === 0x5c) {
      out += '\\\\';
      continue;
    }
    if (c >= 0x20 && c < 0x7f) {
      out += ch;
      continue;
    }
    if (c >= 0x80 && !(c >= 0xd800 && c <= 0xdfff) && PRINTABLE.test(ch)) {
      out += ch;
      continue;
    }
    switch (c) {
      case 0x07:
        out += '\\a';
        continue;
      case 0x08:
        out += '\\b';
        continue;
      case 0x0c:
        out += '\\f';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x0b:
        out += '\\v';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    // A lone surrogate cannot come out of Go's decoder: it would have been U+FFFD.
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else if (c < 0x10000) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += `\\U${c.toString(16).padStart(8, '0')}`;
  }
  return out + '"';
}

/** strconv.Quote(string(rune(b))) wrapped in single quotes, as encoding/json's quoteChar. */
export function goQuoteChar(b: number): string {
  if (b === 0x27) return `'\\''`;
  if (b === 0x22) return `'"'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 92: '\\\\' };
  const esc = named[b];
  if (esc !== undefined) return `'${esc}'`;
  if (b < 0x20 || b === 0x7f) return `'\\x${b.toString(16).padStart(2, '0')}'`;
  // Bytes >= 0x80 become the Latin-1 rune of the same number; C1 controls,
  // NBSP and soft hyphen are not printable for strconv.
  if ((b >= 0x80 && b <= 0x9f) || b === 0xa0 || b === 0xad) return `'\\u00${b.toString(16).padStart(2, '0')}'`;
  return `'${String.fromCharCode(b)}'`;
}

const HEX = '0123456789abcdef';

/** encoding/json's encoding of a string (HTML-escaping on, Go >= 1.22 escapes). */
export function goJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c && c !== 0x3c && c !== 0x3e && c !== 0x26) {
        out += s[i];
        continue;
      }
      switch (c) {
        case 0x22:
          out += '\\"';
          break;
        case 0x5c:
          out += '\\\\';
          break;
        case 0x08:
          out += '\\b';
          break;
        case 0x0c:
          out += '\\f';
          break;
        case 0x0a:
          out += '\\n';
          break;
        case 0x0d:
          out += '\\r';
          break;
        case 0x09:
          out += '\\t';
          break;
        default:
          out += `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
      }
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i] + s[i + 1];
        i++;
        continue;
      }
      out += '\\ufffd';
      continue;
    }
    if (c >= 0xdc00 && c <= 0xdfff) {
      out += '\\ufffd';
      continue;
    }
    if (c === 0x2028 || c === 0x2029) {
      out += `\\u202${c === 0x2028 ? '8' : '9'}`;
      continue;
    }
    out += s[i];
  }
  return out + '"';
}

/** encoding/json's encoding of a float64/int64 (ES6-style cutoffs, "-0" kept). */
export function goJsonNumber(n: number): string {
  if (Object.is(n, -0)) return '-0';
  return String(n);
}

/** Compact encoding/json text of a decoded JSON value (json.Marshal: map keys sorted, HTML-safe escapes). */
export function goJsonEncode(v: JsonValue): string {
  return foldJson<string>(v, {
    leaf: (x) => (x === null ? 'null' : typeof x === 'string' ? goJsonString(x) : typeof x === 'number' ? goJsonNumber(x) : x ? 'true' : 'false'),
    array: (_a, items) => `[${items.join(',')}]`,
    object: (_o, keys, members) => `{${keys.map((k, i) => `${goJsonString(k)}:${members[i]!}`).join(',')}}`,
    keysOf: sortedKeys,
  });
}

/**
 * sort.SliceStable with Go's exact algorithm (insertion sort in blocks of 20,
 * then SymMerge). The comparator receives elements, as Go's closure reads them
 * from the slice being permuted.
 */
export function goSliceStable<T>(data: T[], less: (a: T, b: T) => boolean): void {
  const n = data.length;
  const lessAt = (i: number, j: number): boolean => less(data[i] as T, data[j] as T);
  const swap = (i: number, j: number): void => {
    const t = data[i] as T;
    data[i] = data[j] as T;
    data[j] = t;
  };
  const insertionSort = (a: number, b: number): void => {
    for (let i = a + 1; i < b; i++) {
      for (let j = i; j > a && lessAt(j, j - 1); j--) swap(j, j - 1);
    }
  };
  const swapRange = (a: number, b: number, k: number): void => {
    for (let i = 0; i < k; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number): void => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (lessAt(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!lessAt(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const nn = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = nn - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = nn - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!lessAt(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = nn - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };

  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
}

/**
 * encoding/json's error for a value that is not an object decoded into the
 * TypeMeta struct kube's decoders read a kind with (meta.Interpret).
 */
export function typeMetaUnmarshalError(value: unknown): string {
  const kind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${kind} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
}
