import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';

import { formatFloatG, strconvQuote } from '../../machinery/go-compat.js';
import { libraryError } from './errors.js';
import { celTypeName, codePoints, type CelValue, isMapValue, mapEntries, toList } from './values.js';

/**
 * cel-go's ext.Strings at the version kube-apiserver 1.36 uses (2): charAt,
 * replace, and from version 1 `format` and `strings.quote`. cel-js already
 * has lowerAscii, upperAscii, join and trim as built-ins (a registry
 * cannot redefine them); indexOf, lastIndexOf, substring and split are
 * taken over in builtins.ts.
 * `reverse` is ext.Strings version 3, which kube does not enable.
 */
export function registerStrings(env: Environment, version: 0 | 2): void {
  env.registerFunction('string.charAt(int): string', charAt);
  env.registerFunction('string.replace(string, string): string', (s: string, o: string, n: string) =>
    replaceN(s, o, n, -1n),
  );
  env.registerFunction('string.replace(string, string, int): string', replaceN);
  if (version < 1) return;
  env.registerFunction('string.format(list): string', (s: string, args: CelValue) => formatString(s, toList(args)));
  env.registerType('kubernetes.StringsNamespace', StringsNamespace);
  env.registerConstant('strings', 'kubernetes.StringsNamespace', new StringsNamespace());
  env.registerFunction('kubernetes.StringsNamespace.quote(string): string', (_ns: unknown, s: string) => quote(s));
}

/** The receiver of `strings.quote(...)`: cel-js resolves namespaced functions as methods of a constant. */
export class StringsNamespace {}

function charAt(s: string, index: bigint): string {
  const runes = codePoints(s);
  if (index < 0n || index > BigInt(runes.length)) throw libraryError(`index out of range: ${index}`);
  return runes[Number(index)] ?? '';
}

/** strings.Replace: at most n replacements (all when n < 0); an empty `old` matches before every code point and at the end. */
export function replaceN(s: string, old: string, replacement: string, n: bigint): string {
  if (old === replacement || n === 0n) return s;
  let left = n < 0n ? Infinity : Number(n);
  if (old === '') {
    const runes = codePoints(s);
    let out = '';
    for (let i = 0; i <= runes.length; i++) {
      if (left > 0) {
        out += replacement;
        left--;
      }
      out += runes[i] ?? '';
    }
    return out;
  }
  let out = '';
  let from = 0;
  while (left > 0) {
    const at = s.indexOf(old, from);
    if (at < 0) break;
    out += s.slice(from, at) + replacement;
    from = at + old.length;
    left--;
  }
  return out + s.slice(from);
}

const QUOTE_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** strings.quote: double-quoted, CEL escape sequences spelled out, invalid code points replaced by U+FFFD. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) out += '\uFFFD';
    else out += QUOTE_ESCAPES[ch] ?? ch;
  }
  return `${out}"`;
}

// ---- string.format (cel-go interpreter.ParseFormatString with ext.Strings' formatter) ----

/** The error formatting reports: parse errors and formatter errors get cel-go's prefixes. */
class FormatError extends Error {}

export function formatString(format: string, args: readonly CelValue[]): string {
  try {
    return parseFormat(format, args);
  } catch (e) {
    if (e instanceof FormatError) throw libraryError(e.message);
    throw e;
  }
}

function parseFormat(format: string, args: readonly CelValue[]): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    const c = format[i]!;
    if (c !== '%') {
      out += c;
      i++;
      continue;
    }
    if (format[i + 1] === '%') {
      out += '%';
      i += 2;
      continue;
    }
    if (argIndex >= args.length) throw new FormatError(`index ${argIndex} out of range`);
    if (i + 1 >= format.length) throw new FormatError('unexpected end of string');
    const [read, text] = formatClause(format.slice(i + 1), args[argIndex]);
    out += text;
    i += 1 + read;
    argIndex++;
  }
  return out;
}

type Clause = (v: CelValue) => string;

function formatClause(rest: string, arg: CelValue): [number, string] {
  let i = 0;
  let precision: number | undefined;
  if (rest[0] === '.') {
    i = 1;
    let digits = '';
    for (;;) {
      if (i >= rest.length) {
        throw new FormatError(
          'could not parse formatting clause: error while parsing precision: could not find end of precision specifier',
        );
      }
      if (!/[0-9]/.test(rest[i]!)) break;
      digits += rest[i];
      i++;
    }
    precision = digits === '' ? 0 : Number(digits);
  }
  const verb = rest[i]!;
  i++;
  let clause: Clause;
  switch (verb) {
    case 's':
      clause = formatAsString;
      break;
    case 'd':
      clause = formatDecimal;
      break;
    case 'f':
      clause = (v) => formatFixed(v, precision ?? 6);
      break;
    case 'e':
      clause = formatScientific;
      break;
    case 'b':
      clause = formatBinary;
      break;
    case 'x':
    case 'X':
      clause = (v) => formatHex(v, verb === 'X');
      break;
    case 'o':
      clause = formatOctal;
      break;
    default:
      throw new FormatError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
  try {
    return [i, clause(arg)];
  } catch (e) {
    if (e instanceof FormatError) throw new FormatError(`error during formatting: ${e.message}`);
    throw e;
  }
}

function isInteger(v: CelValue): v is bigint | UnsignedInt {
  return typeof v === 'bigint' || v instanceof UnsignedInt;
}

function intValue(v: bigint | UnsignedInt): bigint {
  return typeof v === 'bigint' ? v : v.valueOf();
}

/** Go's time.Time.String() as CEL's string(timestamp) prints it: RFC 3339 with the shortest fraction. */
function timestampString(d: Date): string {
  return d.toISOString().replace(/\.000Z$/, 'Z').replace(/(\.\d*?)0+Z$/, '$1Z');
}

/** string(duration): seconds with the shortest fraction and an "s". */
function durationString(d: Duration): string {
  const nanos = d.seconds * 1_000_000_000n + BigInt(d.nanos);
  const neg = nanos < 0n;
  const abs = neg ? -nanos : nanos;
  const whole = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}s`;
}

function bytesToString(b: Uint8Array): string {
  return new TextDecoder().decode(b);
}

function isTypeValue(v: CelValue): v is { name: string } {
  return typeof v === 'object' && v !== null && v.constructor?.name === 'Type' && typeof (v as { name?: unknown }).name === 'string';
}

/** `%s`: FormatString. */
function formatAsString(v: CelValue): string {
  if (Array.isArray(v) || v instanceof Set) return formatList(toList(v));
  if (isMapValue(v)) return formatMap(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (isInteger(v)) return String(intValue(v));
  if (typeof v === 'number') return formatFloatG(v);
  if (v instanceof Date) return timestampString(v);
  if (v instanceof Duration) return durationString(v);
  if (v instanceof Uint8Array) return bytesToString(v);
  if (v === null) return 'null';
  if (isTypeValue(v)) return v.name;
  throw new FormatError(
    `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${celTypeName(v)}`,
  );
}

/** A list member or map value as a CEL literal (clauseForType + quoteForCEL). */
function formatMember(v: CelValue): string {
  if (isInteger(v)) return String(intValue(v));
  if (typeof v === 'string') return strconvQuote(v);
  if (v instanceof Uint8Array) return `b${strconvQuote(bytesToString(v))}`;
  if (typeof v === 'boolean' || v === null || isTypeValue(v)) return formatAsString(v);
  if (v instanceof Date) return `timestamp(${strconvQuote(timestampString(v))})`;
  if (v instanceof Duration) return `duration(${strconvQuote(durationString(v))})`;
  if (Array.isArray(v) || v instanceof Set) return formatList(toList(v));
  if (isMapValue(v)) return formatMap(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return `"${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'}"`;
    return v.toFixed(6);
  }
  throw new FormatError(`no formatting function for ${celTypeName(v)}`);
}

function formatList(list: readonly CelValue[]): string {
  return `[${list.map(formatMember).join(', ')}]`;
}

function formatMap(m: Map<unknown, unknown> | Record<string, unknown>): string {
  const pairs = mapEntries(m).map(([k, v]): [string, string] => {
    let key: string;
    if (typeof k === 'string') key = strconvQuote(k);
    else if (typeof k === 'boolean') key = String(k);
    else if (isInteger(k)) key = String(intValue(k));
    else throw new FormatError(`no formatting function for map key of type ${celTypeName(k)}`);
    return [key, formatMember(v)];
  });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `{${pairs.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
}

function formatDecimal(v: CelValue): string {
  if (isInteger(v)) return String(intValue(v));
  throw new FormatError(`decimal clause can only be used on integers, was given ${celTypeName(v)}`);
}

/** A double for %f and %e: doubles, and the strings "NaN", "Infinity", "-Infinity". */
function floatArg(v: CelValue, clause: string): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  throw new FormatError(`${clause} clause can only be used on doubles, was given ${celTypeName(v)}`);
}

/** golang.org/x/text's en-US rendering of non-finite numbers. */
function nonFinite(f: number): string | undefined {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '∞';
  if (f === -Infinity) return '-∞';
  return undefined;
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `%f` through x/text's en-US printer: fixed point with thousands grouping. */
function formatFixed(v: CelValue, precision: number): string {
  const f = floatArg(v, 'fixed-point');
  const special = nonFinite(f);
  if (special !== undefined) return special;
  const text = Math.abs(f).toFixed(Math.min(precision, 100));
  const [whole, frac] = text.split('.') as [string, string | undefined];
  const sign = f < 0 || Object.is(f, -0) ? '-' : '';
  return `${sign}${groupThousands(whole)}${frac !== undefined ? `.${frac}` : ''}`;
}

const SUPERSCRIPT_DIGITS = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/**
 * `%e` through x/text's en-US printer. ext.Strings builds the verb as "%<p>e",
 * a width rather than a precision, so the mantissa always has 6 decimals.
 */
function formatScientific(v: CelValue): string {
  const f = floatArg(v, 'scientific');
  const special = nonFinite(f);
  if (special !== undefined) return special;
  const [mantissa, exp] = f.toExponential(6).split('e') as [string, string];
  const e = Number(exp);
  const digits = String(Math.abs(e)).padStart(2, '0');
  const sup = [...digits].map((d) => SUPERSCRIPT_DIGITS[Number(d)]).join('');
  return `${mantissa}\u202f×\u202f10${e < 0 ? '⁻' : ''}${sup}`;
}

function formatBinary(v: CelValue): string {
  if (isInteger(v)) return intValue(v).toString(2);
  if (typeof v === 'boolean') return v ? '1' : '0';
  throw new FormatError(`only integers and bools can be formatted as binary, was given ${celTypeName(v)}`);
}

function formatHex(v: CelValue, upper: boolean): string {
  let text: string;
  if (isInteger(v)) text = intValue(v).toString(16);
  else if (typeof v === 'string') text = Buffer.from(v, 'utf8').toString('hex');
  else if (v instanceof Uint8Array) text = Buffer.from(v).toString('hex');
  else {
    throw new FormatError(
      `only integers, byte buffers, and strings can be formatted as hex, was given ${celTypeName(v)}`,
    );
  }
  return upper ? text.toUpperCase() : text;
}

function formatOctal(v: CelValue): string {
  if (isInteger(v)) return intValue(v).toString(8);
  throw new FormatError(`octal clause can only be used on integers, was given ${celTypeName(v)}`);
}
