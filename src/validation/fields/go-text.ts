/**
 * Texts Go's libraries produce while kube-apiserver decodes a body, rebuilt
 * byte for byte because they reach clients verbatim inside 400/422 Status
 * messages: encoding/json's UnmarshalTypeError, encoding/base64's
 * CorruptInputError and time.Parse's ParseError (metav1.Time and MicroTime
 * parse with it). strconv.Quote is patch/go-compat.ts's strconvQuote and
 * resource.ParseQuantity's errors are in api/quantity.ts.
 */

function hex2(b: number): string {
  return b.toString(16).padStart(2, '0');
}

/**
 * encoding/json's *UnmarshalTypeError text. `struct`/`field` are the error
 * context (innermost struct type name, JSON field path without indexes);
 * both empty gives the "Go value" form.
 */
export function unmarshalTypeError(value: string, goType: string, struct: string, field: string): string {
  if (struct !== '' || field !== '') return `json: cannot unmarshal ${value} into Go struct field ${struct}.${field} of type ${goType}`;
  return `json: cannot unmarshal ${value} into Go value of type ${goType}`;
}

const B64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

function b64(c: number): number {
  return c < 128 ? (B64[c] as number) : -1;
}

/**
 * base64.StdEncoding.Decode's error for a JSON string decoded into []byte, or
 * undefined when it decodes. Offsets count bytes; every byte before an error
 * is ASCII, so string indexes are byte offsets.
 */
export function base64Error(s: string): string | undefined {
  const n = s.length;
  let si = 0;
  const corrupt = (at: number): string => `illegal base64 data at input byte ${at}`;
  while (si < n) {
    // decodeQuantum
    let j = 0;
    for (; j < 4; j++) {
      if (si === n) {
        if (j === 0) return undefined;
        return corrupt(si - j);
      }
      const c = s.charCodeAt(si);
      si++;
      if (b64(c) >= 0) continue;
      if (c === 0x0a || c === 0x0d) {
        j--;
        continue;
      }
      if (c !== 0x3d) return corrupt(si - 1);
      // Padding reached.
      if (j === 0 || j === 1) return corrupt(si - 1);
      if (j === 2) {
        while (si < n && (s.charCodeAt(si) === 0x0a || s.charCodeAt(si) === 0x0d)) si++;
        if (si === n) return corrupt(n);
        if (s.charCodeAt(si) !== 0x3d) return corrupt(si - 1);
        si++;
      }
      while (si < n && (s.charCodeAt(si) === 0x0a || s.charCodeAt(si) === 0x0d)) si++;
      if (si < n) return corrupt(si);
      return undefined;
    }
  }
  return undefined;
}

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/**
 * Whether a JSON number literal decodes into a signed integer of `bits`
 * (strconv.ParseInt(s, 10, 64) then reflect's OverflowInt).
 */
export function intLiteralFits(lit: string, bits: number): boolean {
  const n = lit.length;
  let i = lit.charCodeAt(0) === 0x2d ? 1 : 0;
  if (i === n) return false;
  for (; i < n; i++) if (!isDigitCode(lit.charCodeAt(i))) return false;
  if (n <= 9) {
    // Fast path: |v| < 1e9 fits every width of interest.
    if (bits >= 32) return true;
  }
  const v = BigInt(lit);
  if (v < INT64_MIN || v > INT64_MAX) return false;
  if (bits === 64) return true;
  const lim = 1n << BigInt(bits - 1);
  return v >= -lim && v < lim;
}

/** Whether a JSON number literal decodes into uint8. */
export function uint8LiteralFits(lit: string): boolean {
  return /^[0-9]+$/.test(lit) && lit.length <= 3 && Number(lit) <= 255;
}

/** Whether a JSON number literal decodes into a float of `bits` (strconv.ParseFloat does not overflow). */
export function floatLiteralFits(lit: string, bits: number): boolean {
  const v = Math.abs(Number(lit));
  if (!Number.isFinite(v)) return false;
  return bits === 64 || v <= 3.4028234663852886e38;
}

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

/** time's own quoting in ParseError: non-ASCII and control bytes as \x escapes. */
function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c >= 0x80 || c < 0x20) {
      for (const b of Buffer.from(ch, 'utf8')) out += `\\x${hex2(b)}`;
    } else {
      if (c === 0x22 || c === 0x5c) out += '\\';
      out += ch;
    }
  }
  return out + '"';
}

interface ParseErr {
  readonly layoutElem: string;
  readonly valueElem: string;
  readonly message: string;
}

function parseError(layout: string, value: string, e: ParseErr): string {
  if (e.message === '') {
    return `parsing time ${timeQuote(value)} as ${timeQuote(layout)}: cannot parse ${timeQuote(e.valueElem)} as ${timeQuote(e.layoutElem)}`;
  }
  return `parsing time ${timeQuote(value)}${e.message}`;
}

function isDigitAt(s: string, i: number): boolean {
  return i < s.length && isDigitCode(s.charCodeAt(i));
}

/** time.getnum: one or two digits (exactly two when fixed). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigitAt(s, 0)) return undefined;
  if (!isDigitAt(s, 1)) {
    if (fixed) return undefined;
    return [s.charCodeAt(0) - 0x30, s.slice(1)];
  }
  return [(s.charCodeAt(0) - 0x30) * 10 + (s.charCodeAt(1) - 0x30), s.slice(2)];
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] as number;
}

/**
 * time.Parse(layout, value)'s error for the two layouts metav1 uses (RFC3339
 * and RFC3339Micro), or undefined when the value parses. Follows Go's generic
 * layout walk, which is what produces the error texts.
 */
export function timeParseError(value: string, layout: typeof RFC3339 | typeof RFC3339_MICRO): string | undefined {
  const micro = layout === RFC3339_MICRO;
  // The layout as Go's nextStdChunk splits it: [literal prefix, std element].
  const chunks: Array<[string, string]> = [
    ['', '2006'],
    ['-', '01'],
    ['-', '02'],
    ['T', '15'],
    [':', '04'],
    [':', '05'],
    ...(micro ? ([['', '.000000']] as Array<[string, string]>) : []),
    ['', 'Z07:00'],
  ];
  let v = value;
  let year = 0;
  let month = 0;
  let day = 0;
  const fail = (layoutElem: string, valueElem: string, message = ''): string => parseError(layout, value, { layoutElem, valueElem, message });
  for (let ci = 0; ci < chunks.length; ci++) {
    const [prefix, std] = chunks[ci] as [string, string];
    if (prefix !== '') {
      if (!v.startsWith(prefix)) return fail(prefix, v);
      v = v.slice(prefix.length);
    }
    const hold = v;
    let bad = false;
    let range = '';
    switch (std) {
      case '2006': {
        if (v.length < 4 || !isDigitAt(v, 0)) {
          bad = true;
          break;
        }
        const p = v.slice(0, 4);
        v = v.slice(4);
        if (!/^[0-9]{4}$/.test(p)) bad = true;
        else year = Number(p);
        break;
      }
      case '01': {
        const r = getnum(v, true);
        if (r === undefined) bad = true;
        else {
          [month, v] = r;
          if (month <= 0 || month > 12) range = 'month';
        }
        break;
      }
      case '02': {
        const r = getnum(v, true);
        if (r === undefined) bad = true;
        else [day, v] = r;
        break;
      }
      case '15': {
        const r = getnum(v, false);
        const hour = r === undefined ? 0 : r[0];
        if (r === undefined) bad = true;
        else v = r[1];
        if (hour < 0 || hour >= 24) range = 'hour';
        break;
      }
      case '04': {
        const r = getnum(v, true);
        const min = r === undefined ? 0 : r[0];
        if (r === undefined) bad = true;
        else v = r[1];
        if (min < 0 || min >= 60) range = 'minute';
        break;
      }
      case '05': {
        const r = getnum(v, true);
        if (r === undefined) {
          bad = true;
          break;
        }
        const sec = r[0];
        v = r[1];
        if (sec >= 60) {
          range = 'second';
          break;
        }
        // A fractional second the layout does not spell out is accepted.
        if (!micro && v.length >= 2 && (v[0] === '.' || v[0] === ',') && isDigitAt(v, 1)) {
          let k = 2;
          while (k < v.length && isDigitAt(v, k)) k++;
          v = v.slice(k);
        }
        break;
      }
      case '.000000': {
        if (v.length < 7) {
          bad = true;
          break;
        }
        if ((v[0] !== '.' && v[0] !== ',') || !/^[0-9]{6}$/.test(v.slice(1, 7))) bad = true;
        v = v.slice(7);
        break;
      }
      case 'Z07:00': {
        if (v.length >= 1 && v[0] === 'Z') {
          v = v.slice(1);
          break;
        }
        if (v.length < 6 || v[3] !== ':') {
          bad = true;
          break;
        }
        const sign = v[0];
        const hh = getnum(v.slice(1, 3), true);
        const mm = getnum(v.slice(4, 6), true);
        v = v.slice(6);
        if (hh === undefined || mm === undefined || (sign !== '+' && sign !== '-')) bad = true;
        // Offsets of 24 hours or 60 minutes are written in the wild, so the tests are > rather than >=.
        else if (hh[0] > 24) range = 'time zone offset hour';
        else if (mm[0] > 60) range = 'time zone offset minute';
        break;
      }
    }
    if (range !== '') return fail(std, v, `: ${range} out of range`);
    if (bad) return fail(std, hold);
  }
  if (v.length !== 0) return fail('', v, `: extra text: ${timeQuote(v)}`);
  if (day < 1 || day > daysIn(month, year)) return fail('', v, ': day out of range');
  return undefined;
}
