import { CORE_SCHEMA, load } from 'js-yaml';

/**
 * Deeply nested YAML bodies. go-yaml (sigs.k8s.io/yaml) reads flow
 * collections up to 10,000 levels; js-yaml's recursive parser overflows the
 * stack near 1,600. Nesting that deep is written in flow style (`[[[…]]]`,
 * `{a: {a: …}}`, JSON inside YAML: block style needs an indentation per
 * level), so the flow collections of a deep body are read here with an
 * explicit stack, each replaced in the text by a placeholder scalar, and the
 * rest of the document is left to js-yaml; the placeholders are then
 * swapped for their values. Scalars are resolved by js-yaml one at a time
 * (the core schema, as the rest of the body), so `1`, `true`, `~`, quoted
 * escapes mean the same wherever they stand.
 *
 * Flow content this reader does not take (anchors, aliases, tags, explicit
 * or collection keys, single-pair entries in sequences, plain scalars
 * spanning lines) leaves the collection to js-yaml, as before.
 */

/** Flow collections nested deeper than this are read here rather than by js-yaml. */
export const DEEP_FLOW_LEVELS = 500;

/** A flow collection nested beyond go-yaml's max_flow_level: its text and where it stood. */
export class FlowDepthError extends Error {
  /** `line` is 0-based, as go-yaml's marks. */
  constructor(
    readonly limit: number,
    readonly line: number,
  ) {
    super(`exceeded max depth of ${limit}`);
    this.name = 'FlowDepthError';
  }
}

export interface SplicedYaml {
  /** The source with each deep flow collection replaced by a placeholder plain scalar. */
  source: string;
  /** Placeholder → the collection's value. */
  values: Map<string, unknown>;
}

/** Whether the text could hold flow collections deeper than DEEP_FLOW_LEVELS (brackets counted blindly). */
function mayBeDeep(source: string): boolean {
  if (source.length < 2 * DEEP_FLOW_LEVELS) return false;
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > DEEP_FLOW_LEVELS) return true;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return false;
}

/**
 * The body with its deep flow collections taken out, or undefined when it
 * has none (or one this reader does not take). Throws FlowDepthError past
 * `maxFlowLevel`.
 */
export function spliceDeepFlows(source: string, maxFlowLevel: number, token: string): SplicedYaml | undefined {
  if (!mayBeDeep(source)) return undefined;
  const values = new Map<string, unknown>();
  const pieces: string[] = [];
  let copied = 0;
  for (const start of flowStarts(source)) {
    if (start < copied) continue;
    const reader = new FlowReader(source, start, maxFlowLevel);
    const read = reader.read();
    if (read === undefined) return undefined;
    if (reader.maxDepth <= DEEP_FLOW_LEVELS) continue;
    const name = `${token}${values.size}`;
    values.set(name, read.value);
    pieces.push(source.slice(copied, start), name);
    copied = read.end;
  }
  if (values.size === 0) return undefined;
  pieces.push(source.slice(copied));
  return { source: pieces.join(''), values };
}

/** Swaps placeholders in constructed documents for their values (the documents are shallow by now). */
export function restoreDeepFlows(documents: unknown[], values: Map<string, unknown>): unknown[] {
  const swap = (v: unknown): unknown => (typeof v === 'string' && values.has(v) ? values.get(v) : v);
  const work: object[] = [];
  const out = documents.map(swap);
  for (const d of out) if (d !== null && typeof d === 'object') work.push(d);
  for (let o = work.pop(); o !== undefined; o = work.pop()) {
    const rec = o as Record<string, unknown>;
    for (const k of Object.keys(rec)) {
      const v = rec[k];
      if (typeof v === 'string') {
        if (values.has(v)) rec[k] = values.get(v);
      } else if (v !== null && typeof v === 'object' && !isSpliced(v, values)) work.push(v);
    }
  }
  return out;
}

function isSpliced(v: object, values: Map<string, unknown>): boolean {
  for (const x of values.values()) if (x === v) return true;
  return false;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09;
const isBreak = (c: number): boolean => c === 0x0a || c === 0x0d;
const isBlankOrEnd = (c: number): boolean => Number.isNaN(c) || isSpace(c) || isBreak(c);

/**
 * Where flow collections start in the block parts of a document: at a node's
 * start (line start, after `- `, `? `, `: `, a key's colon, a document
 * marker), never inside a scalar or a comment.
 */
function* flowStarts(s: string): Generator<number> {
  let i = 0;
  const n = s.length;
  const lineEnd = (from: number): number => {
    const e = s.indexOf('\n', from);
    return e < 0 ? n : e;
  };
  while (i < n) {
    const lineStart = i;
    let j = i;
    while (isSpace(s.charCodeAt(j))) j++;
    const indent = j - lineStart;
    let next = lineEnd(j) + 1;
    for (;;) {
      const c = s.charCodeAt(j);
      if (Number.isNaN(c) || isBreak(c) || c === 0x23 /* # */) break;
      if (j === lineStart && (s.startsWith('---', j) || s.startsWith('...', j)) && isBlankOrEnd(s.charCodeAt(j + 3))) {
        j += 3;
      } else if ((c === 0x2d || c === 0x3f || c === 0x3a) && isBlankOrEnd(s.charCodeAt(j + 1))) {
        j += 1; // '- ', '? ', ': '
      } else if (c === 0x5b || c === 0x7b) {
        yield j;
        break; // the collection's reader finds its end; the caller skips past it
      } else if (c === 0x22 || c === 0x27) {
        const end = quotedEnd(s, j);
        if (end < 0) return;
        j = end;
        while (isSpace(s.charCodeAt(j))) j++;
        if (s.charCodeAt(j) !== 0x3a || !isBlankOrEnd(s.charCodeAt(j + 1))) {
          next = lineEnd(j) + 1;
          break;
        }
        j += 1;
        next = lineEnd(j) + 1;
      } else if (c === 0x7c || c === 0x3e) {
        // A block scalar: its lines are those indented deeper than this one.
        let k = lineEnd(j) + 1;
        while (k < n) {
          let m = k;
          while (s.charCodeAt(m) === 0x20) m++;
          if (!isBreak(s.charCodeAt(m)) && m < n && m - k <= indent) break;
          k = lineEnd(k) + 1;
        }
        next = k;
        break;
      } else if (c === 0x26 || c === 0x21) {
        while (!isBlankOrEnd(s.charCodeAt(j))) j++; // anchor or tag
      } else {
        // A plain scalar: a key when a ': ' follows on its line.
        const end = lineEnd(j);
        let k = j;
        let key = -1;
        for (; k < end; k++) {
          const d = s.charCodeAt(k);
          if (d === 0x3a && isBlankOrEnd(s.charCodeAt(k + 1))) {
            key = k;
            break;
          }
          if (d === 0x23 && isSpace(s.charCodeAt(k - 1))) break;
        }
        if (key < 0) break;
        j = key + 1;
      }
      while (isSpace(s.charCodeAt(j))) j++;
    }
    i = Math.max(next, lineStart + 1);
  }
}

/** The index after a quoted scalar starting at `at`, or -1 when it does not end. */
function quotedEnd(s: string, at: number): number {
  const q = s.charCodeAt(at);
  for (let i = at + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (q === 0x22 && c === 0x5c) i++;
    else if (c === q) {
      if (q === 0x27 && s.charCodeAt(i + 1) === 0x27) i++;
      else return i + 1;
    }
  }
  return -1;
}

interface Open {
  value: unknown[] | Record<string, unknown>;
  /** For a mapping: the key whose value is being read. */
  key: string | undefined;
}

/** One flow collection read with an explicit stack; undefined from read() when it holds what this reader does not take. */
class FlowReader {
  maxDepth = 0;
  private i: number;
  private readonly scalars = new Map<string, unknown>();

  constructor(
    private readonly s: string,
    start: number,
    private readonly maxFlowLevel: number,
  ) {
    this.i = start;
  }

  read(): { value: unknown; end: number } | undefined {
    const s = this.s;
    const stack: Open[] = [];
    let root: unknown;
    // Each turn reads one node where a node is expected, or closes collections.
    for (;;) {
      this.skipBlank();
      const top = stack[stack.length - 1];
      const c = s.charCodeAt(this.i);
      if (top !== undefined) {
        const closing = Array.isArray(top.value) ? 0x5d : 0x7d;
        if (!Array.isArray(top.value) && top.key !== undefined && (c === closing || c === 0x2c)) {
          // `{a: }` and `{a: , b}`: a key with an empty value is null.
          if (!this.completed(stack, null)) return undefined;
          continue;
        }
        if (c === closing) {
          this.i++;
          stack.pop();
          if (!this.completed(stack, top.value)) return { value: top.value, end: this.i };
          continue;
        }
        if (!Array.isArray(top.value) && top.key === undefined) {
          if (!this.readKey(top)) return undefined;
          continue;
        }
      }
      if (c === 0x5b || c === 0x7b) {
        if (stack.length + 1 > this.maxFlowLevel) throw new FlowDepthError(this.maxFlowLevel, this.lineOf(this.i));
        this.i++;
        stack.push({ value: c === 0x5b ? [] : {}, key: undefined });
        this.maxDepth = Math.max(this.maxDepth, stack.length);
        continue;
      }
      const scalar = this.scalar();
      if (scalar === undefined) return undefined;
      if (!this.completed(stack, scalar.value)) return undefined;
    }
  }

  /** Puts a finished node into its parent and steps past the separator; false when there is no parent. */
  private completed(stack: Open[], value: unknown): boolean {
    const parent = stack[stack.length - 1];
    if (parent === undefined) return false;
    if (Array.isArray(parent.value)) parent.value.push(value);
    else {
      setMember(parent.value, parent.key!, value);
      parent.key = undefined;
    }
    this.skipBlank();
    if (this.s.charCodeAt(this.i) === 0x2c) this.i++;
    return true;
  }

  /** A flow mapping's key and its ':'; a key without a value (`{a, b: 1}`) is null at once. */
  private readKey(top: Open): boolean {
    const c = this.s.charCodeAt(this.i);
    if (c === 0x5b || c === 0x7b || c === 0x3f) return false;
    const key = this.scalar();
    if (key === undefined) return false;
    const name = key.value === null ? 'null' : String(key.value);
    if (typeof key.value === 'object' && key.value !== null) return false;
    this.skipBlank();
    if (this.s.charCodeAt(this.i) === 0x3a) {
      this.i++;
      top.key = name;
      return true;
    }
    setMember(top.value as Record<string, unknown>, name, null);
    const d = this.s.charCodeAt(this.i);
    if (d === 0x2c) this.i++;
    else if (d !== 0x7d) return false;
    return true;
  }

  /** A quoted or plain scalar at i, resolved by js-yaml. */
  private scalar(): { value: unknown } | undefined {
    const s = this.s;
    const start = this.i;
    const c = s.charCodeAt(start);
    let end: number;
    if (c === 0x22 || c === 0x27) {
      end = quotedEnd(s, start);
      if (end < 0) return undefined;
    } else {
      // Plain: not starting with an indicator; ends at a flow indicator, ': ', ' #' or the line's end.
      if ('&*!|>%@`#,[]{}'.includes(s[start] ?? ',')) return undefined;
      end = start;
      for (;;) {
        const d = s.charCodeAt(end);
        if (Number.isNaN(d) || isBreak(d) || d === 0x2c || d === 0x5b || d === 0x5d || d === 0x7b || d === 0x7d) break;
        if (d === 0x3a) {
          const e = s.charCodeAt(end + 1);
          if (isBlankOrEnd(e) || e === 0x2c || e === 0x5b || e === 0x5d || e === 0x7b || e === 0x7d) break;
        }
        if (d === 0x23 && isSpace(s.charCodeAt(end - 1))) break;
        end++;
      }
      while (end > start && isSpace(s.charCodeAt(end - 1))) end--;
      if (end === start) return undefined;
      // A plain scalar continued on the next line is folded by rules not repeated here.
      let k = end;
      while (isSpace(s.charCodeAt(k))) k++;
      if (isBreak(s.charCodeAt(k))) {
        while (isBlankOrEnd(s.charCodeAt(k)) && k < s.length) k++;
        const n = s.charCodeAt(k);
        if (!(n === 0x2c || n === 0x5d || n === 0x7d || n === 0x3a || n === 0x23)) return undefined;
      }
    }
    this.i = end;
    const raw = s.slice(start, end);
    if (this.scalars.has(raw)) return { value: this.scalars.get(raw) };
    let value: unknown;
    try {
      value = load(raw, { schema: CORE_SCHEMA, json: true });
    } catch {
      return undefined;
    }
    if (value !== null && typeof value === 'object') return undefined;
    this.scalars.set(raw, value);
    return { value };
  }

  private skipBlank(): void {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.i);
      if (isSpace(c) || isBreak(c)) this.i++;
      else if (c === 0x23 && (this.i === 0 || isBlankOrEnd(s.charCodeAt(this.i - 1)))) {
        const e = s.indexOf('\n', this.i);
        this.i = e < 0 ? s.length : e;
      } else return;
    }
  }

  private lineOf(at: number): number {
    let line = 0;
    for (let k = this.s.indexOf('\n'); k >= 0 && k < at; k = this.s.indexOf('\n', k + 1)) line++;
    return line;
  }
}

function setMember(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}
