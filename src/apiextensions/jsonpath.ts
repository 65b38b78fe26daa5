/**
 * The JSONPath dialect of client-go's util/jsonpath, as kube-apiserver
 * evaluates a CustomResourceDefinition's additionalPrinterColumns (the path is
 * parsed as the template `{<path>}`, missing keys allowed): fields (`.a`,
 * with `\.` escaping a dot in a key), `['key']`, indexes and slices
 * (`[0]`, `[-1]`, `[1:3]`, `[::2]`), wildcards (`[*]`, `.*`), recursive
 * descent (`..name`), unions (`[0,2]`, `['a','b']`) and filters
 * (`[?(@.type=="Ready")]`, `[?(@.x)]`, with == != < > <= >=).
 */

export type PathNode =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'recursive' }
  | { kind: 'index'; indexes: IndexSpec[] }
  | { kind: 'keys'; names: string[] }
  | { kind: 'filter'; left: PathNode[]; op: FilterOp | undefined; right: FilterOperand | undefined };

export interface IndexSpec {
  start: number | undefined;
  end: number | undefined;
  step: number | undefined;
  /** A single index ([2]) rather than a slice ([2:3]). */
  single: boolean;
}

type FilterOp = '==' | '!=' | '<' | '>' | '<=' | '>=';
type FilterOperand = { kind: 'path'; path: PathNode[] } | { kind: 'literal'; value: string | number | boolean };

export class JsonPathError extends Error {}

/** Parses a column's path (without the surrounding braces). Throws JsonPathError. */
export function parseJsonPath(path: string): PathNode[] {
  const p = new Parser(path);
  const nodes = p.parsePath(() => p.atEnd());
  return nodes;
}

class Parser {
  pos = 0;
  constructor(readonly text: string) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text[this.pos + offset] ?? '';
  }

  fail(why: string): never {
    throw new JsonPathError(why);
  }

  parsePath(done: () => boolean): PathNode[] {
    const nodes: PathNode[] = [];
    if (this.peek() === '$') this.pos++;
    if (this.peek() === '@') this.pos++;
    while (!done()) {
      const c = this.peek();
      if (c === '.') {
        if (this.peek(1) === '.') {
          this.pos += 2;
          nodes.push({ kind: 'recursive' });
          if (this.peek() === '[' || done()) continue;
        } else this.pos++;
        if (this.peek() === '*') {
          this.pos++;
          nodes.push({ kind: 'wildcard' });
          continue;
        }
        const name = this.fieldName();
        // `{.}` and a trailing dot name the current object.
        if (name !== '') nodes.push({ kind: 'field', name });
      } else if (c === '[') {
        nodes.push(this.bracket());
      } else if (c === ' ') {
        this.pos++;
      } else {
        this.fail(`unrecognized character in action: ${JSON.stringify(c)}`);
      }
    }
    return nodes;
  }

  fieldName(): string {
    let name = '';
    while (!this.atEnd()) {
      const c = this.peek();
      if (c === '\\' && this.peek(1) === '.') {
        name += '.';
        this.pos += 2;
        continue;
      }
      if (c === '.' || c === '[' || c === ' ' || c === ')' || c === '=' || c === '!' || c === '<' || c === '>' || c === ']' || c === ',') break;
      name += c;
      this.pos++;
    }
    return name;
  }

  bracket(): PathNode {
    this.pos++; // [
    if (this.peek() === '?') {
      this.pos++;
      if (this.peek() !== '(') this.fail('unrecognized filter');
      this.pos++;
      const node = this.filter();
      if (this.peek() !== ')' || this.peek(1) !== ']') this.fail('unclosed filter');
      this.pos += 2;
      return node;
    }
    const end = this.text.indexOf(']', this.pos);
    if (end < 0) this.fail('unterminated array');
    const body = this.text.slice(this.pos, end).trim();
    this.pos = end + 1;
    if (body === '*') return { kind: 'wildcard' };
    if (body.startsWith("'") || body.startsWith('"')) {
      const names = body.split(',').map((s) => s.trim());
      for (const n of names) if (n.length < 2 || n[0] !== n[n.length - 1]) this.fail(`invalid array index ${body}`);
      return { kind: 'keys', names: names.map((n) => n.slice(1, -1)) };
    }
    const indexes = body.split(',').map((part) => this.indexSpec(part.trim(), body));
    return { kind: 'index', indexes };
  }

  indexSpec(part: string, body: string): IndexSpec {
    const pieces = part.split(':');
    if (pieces.length > 3) this.fail(`invalid array index ${body}`);
    const num = (s: string | undefined): number | undefined => {
      if (s === undefined || s.trim() === '') return undefined;
      if (!/^-?\d+$/.test(s.trim())) this.fail(`invalid array index ${body}`);
      return Number(s.trim());
    };
    if (pieces.length === 1) {
      const i = num(pieces[0]);
      if (i === undefined) this.fail(`invalid array index ${body}`);
      return { start: i, end: i === -1 ? undefined : i + 1, step: undefined, single: true };
    }
    return { start: num(pieces[0]), end: num(pieces[1]), step: num(pieces[2]), single: false };
  }

  filter(): PathNode {
    const left = this.operandPath();
    while (this.peek() === ' ') this.pos++;
    if (this.peek() === ')') return { kind: 'filter', left, op: undefined, right: undefined };
    const op = (['==', '!=', '<=', '>=', '<', '>'] as const).find((o) => this.text.startsWith(o, this.pos));
    if (!op) this.fail('unrecognized filter operator');
    this.pos += op.length;
    while (this.peek() === ' ') this.pos++;
    const right = this.operand();
    while (this.peek() === ' ') this.pos++;
    return { kind: 'filter', left, op, right };
  }

  operandPath(): PathNode[] {
    while (this.peek() === ' ') this.pos++;
    if (this.peek() !== '@' && this.peek() !== '$') this.fail('unrecognized filter operand');
    return this.parsePath(() => this.atEnd() || [' ', ')', '=', '!', '<', '>'].includes(this.peek()));
  }

  operand(): FilterOperand {
    const c = this.peek();
    if (c === '@' || c === '$') return { kind: 'path', path: this.operandPath() };
    if (c === '"' || c === "'") {
      const end = this.text.indexOf(c, this.pos + 1);
      if (end < 0) this.fail('unterminated string');
      const value = this.text.slice(this.pos + 1, end);
      this.pos = end + 1;
      return { kind: 'literal', value };
    }
    const m = /^(true|false|-?\d+(\.\d+)?([eE][-+]?\d+)?)/.exec(this.text.slice(this.pos));
    if (!m) this.fail('unrecognized filter operand');
    this.pos += m[0].length;
    if (m[0] === 'true' || m[0] === 'false') return { kind: 'literal', value: m[0] === 'true' };
    return { kind: 'literal', value: Number(m[0]) };
  }
}

/** Every value the path selects in `root` (missing keys select nothing). */
export function evaluateJsonPath(nodes: readonly PathNode[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const node of nodes) current = current.flatMap((v) => step(node, v));
  return current;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sortedValues(v: Record<string, unknown>): unknown[] {
  return Object.keys(v)
    .sort()
    .map((k) => v[k]);
}

function step(node: PathNode, v: unknown): unknown[] {
  switch (node.kind) {
    case 'field':
      return isObj(v) && node.name in v ? [v[node.name]] : [];
    case 'keys':
      return isObj(v) ? node.names.filter((n) => n in v).map((n) => v[n]) : [];
    case 'wildcard':
      if (Array.isArray(v)) return [...v];
      return isObj(v) ? sortedValues(v) : [];
    case 'recursive':
      return descendants(v);
    case 'index':
      return Array.isArray(v) ? node.indexes.flatMap((spec) => slice(v, spec)) : [];
    case 'filter': {
      const items = Array.isArray(v) ? v : isObj(v) ? sortedValues(v) : [];
      return items.filter((item) => matches(node, item));
    }
  }
}

function descendants(v: unknown): unknown[] {
  const out: unknown[] = [v];
  const children = Array.isArray(v) ? v : isObj(v) ? sortedValues(v) : [];
  for (const c of children) out.push(...descendants(c));
  return out;
}

function slice(list: unknown[], spec: IndexSpec): unknown[] {
  const len = list.length;
  const norm = (i: number): number => (i < 0 ? i + len : i);
  if (spec.single) {
    const i = norm(spec.start!);
    return i >= 0 && i < len ? [list[i]] : [];
  }
  const stepBy = spec.step ?? 1;
  if (stepBy <= 0) return [];
  const start = Math.max(0, Math.min(len, spec.start === undefined ? 0 : norm(spec.start)));
  const end = Math.max(0, Math.min(len, spec.end === undefined ? len : norm(spec.end)));
  const out: unknown[] = [];
  for (let i = start; i < end; i += stepBy) out.push(list[i]);
  return out;
}

function matches(node: Extract<PathNode, { kind: 'filter' }>, item: unknown): boolean {
  const lefts = evaluateJsonPath(node.left, item);
  if (!node.op || !node.right) return lefts.length > 0;
  if (lefts.length === 0) return false;
  const rights = node.right.kind === 'literal' ? [node.right.value] : evaluateJsonPath(node.right.path, item);
  if (rights.length === 0) return false;
  const a = lefts[0];
  const b = rights[0];
  switch (node.op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    default: {
      if (typeof a !== 'number' || typeof b !== 'number') return false;
      if (node.op === '<') return a < b;
      if (node.op === '>') return a > b;
      if (node.op === '<=') return a <= b;
      return a >= b;
    }
  }
}

/** How client-go's jsonpath prints one value (Go's fmt.Fprint of the decoded JSON). */
export function printJsonPathValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(printJsonPathValue).join(' ')}]`;
  if (isObj(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${printJsonPathValue(v[k])}`).join(' ')}]`;
  return String(v);
}
