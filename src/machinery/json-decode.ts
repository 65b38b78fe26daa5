/**
 * A JSON decoder whose failures read exactly like Go's encoding/json (and its
 * sigs.k8s.io/json fork): kube-apiserver puts those texts verbatim into 400
 * responses for undecodable patches. It also keeps the source text of numbers
 * and strings, because JSON patch "test" compares encoded bytes, not values.
 *
 * Iterative rather than recursive so hostile nesting cannot overflow the
 * stack; nesting beyond Go's limit (10000) fails with Go's message.
 */

import { goQuoteChar } from './go-compat.js';
import { type JsonObject, type JsonValue, setOwn } from './json-value.js';

export type JsonAst =
  | { readonly kind: 'object'; readonly members: Array<readonly [string, JsonAst]> }
  | { readonly kind: 'array'; readonly items: JsonAst[] }
  | { readonly kind: 'string'; readonly value: string; readonly raw: string }
  | { readonly kind: 'number'; readonly value: number; readonly raw: string }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'null' };

/** encoding/json's *SyntaxError. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/** encoding/json's *UnmarshalTypeError (value kind vs Go target type). */
export class JsonTypeError extends Error {
  constructor(
    readonly valueKind: string,
    readonly goType: string,
  ) {
    super(`json: cannot unmarshal ${valueKind} into Go value of type ${goType}`);
    this.name = 'JsonTypeError';
  }
}

const MAX_DEPTH = 10000;
const encoder = new TextEncoder();
const utf8 = new TextDecoder('utf-8');

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hexVal(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

type Frame =
  | { kind: 'array'; items: JsonAst[] }
  | { kind: 'object'; members: Array<readonly [string, JsonAst]>; key: string };

class Parser {
  private i = 0;
  constructor(
    private readonly b: Uint8Array,
    private readonly maxDepth: number,
  ) {}

  private fail(c: number, context: string): never {
    throw new JsonSyntaxError(`invalid character ${goQuoteChar(c)} ${context}`, this.i);
  }

  private eof(): never {
    throw new JsonSyntaxError('unexpected end of JSON input', this.b.length);
  }

  /** The byte at i; Go feeds a space at end of input, which decides some messages. */
  private at(i: number): number {
    return i < this.b.length ? (this.b[i] as number) : 0x20;
  }

  private skipSpace(): void {
    while (this.i < this.b.length && isSpace(this.b[this.i] as number)) this.i++;
  }

  parse(): JsonAst {
    const stack: Frame[] = [];
    const b = this.b;
    let value: JsonAst;
    for (;;) {
      // Expect the beginning of a value.
      this.skipSpace();
      if (this.i >= b.length) this.eof();
      const c = b[this.i] as number;
      let pushed = false;
      if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        if (stack.length + 1 > this.maxDepth) this.fail(c, 'exceeded max depth');
        this.i++;
        this.skipSpace();
        if (this.i >= b.length) this.eof();
        const d = b[this.i] as number;
        if (c === 0x5b) {
          if (d === 0x5d) {
            this.i++;
            value = { kind: 'array', items: [] };
          } else {
            stack.push({ kind: 'array', items: [] });
            pushed = true;
          }
        } else if (d === 0x7d) {
          this.i++;
          value = { kind: 'object', members: [] };
        } else {
          stack.push({ kind: 'object', members: [], key: this.objectKey() });
          pushed = true;
        }
      } else if (c === 0x22) {
        value = this.string();
      } else if (c === 0x2d || isDigit(c)) {
        value = this.number();
      } else if (c === 0x74) {
        this.literal('true');
        value = { kind: 'bool', value: true };
      } else if (c === 0x66) {
        this.literal('false');
        value = { kind: 'bool', value: false };
      } else if (c === 0x6e) {
        this.literal('null');
        value = { kind: 'null' };
      } else {
        this.fail(c, 'looking for beginning of value');
      }
      if (pushed) continue;

      // A value is complete: hand it to enclosing containers until one wants more.
      for (;;) {
        const top = stack[stack.length - 1];
        this.skipSpace();
        if (top === undefined) {
          if (this.i < b.length) this.fail(b[this.i] as number, 'after top-level value');
          return value!;
        }
        if (this.i >= b.length) this.eof();
        const d = b[this.i] as number;
        if (top.kind === 'array') {
          top.items.push(value!);
          if (d === 0x2c) {
            this.i++;
            break;
          }
          if (d === 0x5d) {
            this.i++;
            stack.pop();
            value = { kind: 'array', items: top.items };
            continue;
          }
          this.fail(d, 'after array element');
        } else {
          top.members.push([top.key, value!]);
          if (d === 0x2c) {
            this.i++;
            this.skipSpace();
            if (this.i >= b.length) this.eof();
            top.key = this.objectKey();
            break;
          }
          if (d === 0x7d) {
            this.i++;
            stack.pop();
            value = { kind: 'object', members: top.members };
            continue;
          }
          this.fail(d, 'after object key:value pair');
        }
      }
    }
  }

  /** Reads `"key" :` with the cursor on the key's first byte. */
  private objectKey(): string {
    const b = this.b;
    const c = b[this.i] as number;
    if (c !== 0x22) this.fail(c, 'looking for beginning of object key string');
    const key = this.string().value;
    this.skipSpace();
    if (this.i >= b.length) this.eof();
    const d = b[this.i] as number;
    if (d !== 0x3a) this.fail(d, 'after object key');
    this.i++;
    return key;
  }

  private literal(word: string): void {
    this.i++;
    for (let k = 1; k < word.length; k++) {
      const want = word.charCodeAt(k);
      const got = this.at(this.i);
      if (got !== want) this.fail(got, `in literal ${word} (expecting '${word[k]}')`);
      this.i++;
    }
  }

  private number(): JsonAst {
    const b = this.b;
    const start = this.i;
    if (this.at(this.i) === 0x2d) {
      this.i++;
      if (!isDigit(this.at(this.i))) this.fail(this.at(this.i), 'in numeric literal');
    }
    if (this.at(this.i) === 0x30) {
      this.i++;
    } else {
      while (this.i < b.length && isDigit(b[this.i] as number)) this.i++;
    }
    if (this.i < b.length && b[this.i] === 0x2e) {
      this.i++;
      if (!isDigit(this.at(this.i))) this.fail(this.at(this.i), 'after decimal point in numeric literal');
      while (this.i < b.length && isDigit(b[this.i] as number)) this.i++;
    }
    if (this.i < b.length && (b[this.i] === 0x65 || b[this.i] === 0x45)) {
      this.i++;
      if (this.at(this.i) === 0x2b || this.at(this.i) === 0x2d) this.i++;
      if (!isDigit(this.at(this.i))) this.fail(this.at(this.i), 'in exponent of numeric literal');
      while (this.i < b.length && isDigit(b[this.i] as number)) this.i++;
    }
    let raw = '';
    for (let k = start; k < this.i; k++) raw += String.fromCharCode(b[k] as number);
    return { kind: 'number', value: Number(raw), raw };
  }

  private string(): Extract<JsonAst, { kind: 'string' }> {
    const b = this.b;
    const start = this.i;
    this.i++; // opening quote
    let out = '';
    let chunk = this.i;
    for (;;) {
      if (this.i >= b.length) this.eof();
      const c = b[this.i] as number;
      if (c === 0x22) {
        out += decodeUtf8(b, chunk, this.i);
        this.i++;
        break;
      }
      if (c < 0x20) this.fail(c, 'in string literal');
      if (c !== 0x5c) {
        this.i++;
        continue;
      }
      out += decodeUtf8(b, chunk, this.i);
      this.i++;
      const e = this.at(this.i);
      if (this.i >= b.length) this.fail(e, 'in string escape code');
      const simple: Record<number, string> = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' };
      const s = simple[e];
      if (s !== undefined) {
        out += s;
        this.i++;
      } else if (e === 0x75) {
        this.i++;
        let unit = this.hex4();
        if (unit >= 0xd800 && unit < 0xdc00) {
          // Go joins a valid surrogate pair; a lone surrogate becomes U+FFFD.
          if (b[this.i] === 0x5c && b[this.i + 1] === 0x75) {
            const save = this.i;
            this.i += 2;
            const low = this.hex4();
            if (low >= 0xdc00 && low < 0xe000) {
              out += String.fromCharCode(unit, low);
              chunk = this.i;
              continue;
            }
            this.i = save;
          }
          unit = 0xfffd;
        } else if (unit >= 0xdc00 && unit < 0xe000) {
          unit = 0xfffd;
        }
        out += String.fromCharCode(unit);
      } else {
        this.fail(e, 'in string escape code');
      }
      chunk = this.i;
    }
    let raw = '';
    for (let k = start; k < this.i; k++) raw += String.fromCharCode(b[k] as number);
    return { kind: 'string', value: out, raw: latin1ToUtf8(raw) };
  }

  private hex4(): number {
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = this.at(this.i);
      const h = hexVal(c);
      if (h < 0 || this.i >= this.b.length) this.fail(c, 'in \\u hexadecimal character escape');
      v = v * 16 + h;
      this.i++;
    }
    return v;
  }
}

function decodeUtf8(b: Uint8Array, start: number, end: number): string {
  if (start >= end) return '';
  let ascii = true;
  for (let k = start; k < end; k++) {
    if ((b[k] as number) >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    let s = '';
    for (let k = start; k < end; k++) s += String.fromCharCode(b[k] as number);
    return s;
  }
  return utf8.decode(b.subarray(start, end));
}

function latin1ToUtf8(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(s)) return s;
  const bytes = new Uint8Array(s.length);
  for (let k = 0; k < s.length; k++) bytes[k] = s.charCodeAt(k);
  return utf8.decode(bytes);
}

export function toBytes(input: string | Uint8Array): Uint8Array {
  return typeof input === 'string' ? encoder.encode(input) : input;
}

/**
 * Parses JSON text; throws JsonSyntaxError with Go's message on bad input.
 * `maxDepth` lowers Go's nesting limit (request bodies: codec's MAX_NESTING_DEPTH).
 */
export function parseJsonAst(input: string | Uint8Array, maxDepth = MAX_DEPTH): JsonAst {
  return new Parser(toBytes(input), maxDepth).parse();
}

/** What encoding/json calls a JSON value's kind in UnmarshalTypeError. */
export function astKindName(ast: JsonAst): string {
  switch (ast.kind) {
    case 'bool':
      return 'bool';
    default:
      return ast.kind;
  }
}

/**
 * Converts a parsed tree to plain values; duplicate keys: last one wins, as in
 * Go. Iterative, like the parser, so any depth the parser accepts converts.
 */
export function astToValue(ast: JsonAst): JsonValue {
  const scalar = (a: JsonAst): JsonValue | undefined => {
    switch (a.kind) {
      case 'null':
        return null;
      case 'bool':
      case 'string':
      case 'number':
        return a.value;
      default:
        return undefined;
    }
  };
  const top = scalar(ast);
  if (top !== undefined) return top;
  const root: JsonValue = ast.kind === 'array' ? [] : {};
  const work: Array<{ ast: JsonAst; out: JsonValue[] | JsonObject }> = [{ ast, out: root as JsonValue[] | JsonObject }];
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    const entries: Array<readonly [string | number, JsonAst]> =
      w.ast.kind === 'array' ? w.ast.items.map((v, i) => [i, v] as const) : w.ast.kind === 'object' ? w.ast.members : [];
    for (const [k, child] of entries) {
      let v = scalar(child);
      if (v === undefined) {
        const container: JsonValue[] | JsonObject = child.kind === 'array' ? [] : {};
        work.push({ ast: child, out: container });
        v = container;
      }
      if (Array.isArray(w.out)) w.out[k as number] = v;
      else setOwn(w.out, k as string, v);
    }
  }
  return root;
}

/** Decodes JSON text into plain values with Go's error texts. */
export function decodeJson(input: string | Uint8Array): JsonValue {
  return astToValue(parseJsonAst(input));
}
