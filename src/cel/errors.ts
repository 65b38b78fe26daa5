/**
 * Errors in kube's words. Compile errors read as cel-go's issues
 * (`ERROR: <input>:1:6: <message>` then the source line and a caret), so the
 * consumers can prefix kube's "compilation failed: ".
 */

/** kube's apiservercel.Error: a type and a detail. */
export interface CelError {
  /** invalid: the expression's fault; internal: ours. */
  readonly type: 'invalid' | 'internal';
  readonly detail: string;
}

interface EngineNode {
  readonly pos?: number;
  readonly start?: number;
  readonly end?: number;
  readonly op?: string;
  readonly args?: unknown;
}

interface EngineError {
  readonly name?: string;
  readonly code?: string;
  readonly summary?: string;
  readonly message: string;
  readonly range?: { start: number; end: number };
  readonly node?: EngineNode;
}

const BINARY_OPERATORS = new Set(['+', '-', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', 'in', '&&', '||']);

/** Where cel-go reports an error: at a binary expression's operator, else at the node. */
function errorOffset(source: string, e: EngineError): number {
  const n = e.node;
  if (n?.op && BINARY_OPERATORS.has(n.op) && Array.isArray(n.args)) {
    const lhs = n.args[0] as EngineNode | undefined;
    if (lhs?.end !== undefined) {
      const at = source.indexOf(n.op, lhs.end);
      if (at >= 0) return at;
    }
  }
  // cel-go places a selection at its dot, cel-js at the field name
  if ((n?.op === '.' || n?.op === '.?') && n.pos !== undefined) {
    const dot = source.lastIndexOf('.', n.pos);
    if (dot >= 0) return dot;
  }
  return n?.pos ?? e.range?.start ?? 0;
}

/** cel-js spells types list<int>; cel-go list(int). */
function goTypeNames(text: string): string {
  return text
    .replaceAll('google.protobuf.Timestamp', 'timestamp')
    .replaceAll('google.protobuf.Duration', 'duration')
    .replaceAll('<', '(')
    .replaceAll('>', ')');
}

const OPERATOR_FUNCTIONS: Record<string, string> = {
  '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_', '==': '_==_', '!=': '_!=_', '<': '_<_',
  '<=': '_<=_', '>': '_>_', '>=': '_>=_', in: '@in', '&&': '_&&_', '||': '_||_',
};

/** A cel-js check or parse message in cel-go's words, where the two differ and the mapping is known. */
function goMessage(e: EngineError, knownFunctions: ReadonlySet<string>): string {
  const summary = e.summary ?? e.message.split('\n')[0]!;
  let m: RegExpExecArray | null;
  if (e.name === 'ParseError') return `Syntax error: ${summary}`;
  switch (e.code) {
    case 'unknown_variable':
      if ((m = /^Unknown variable: (.+)$/.exec(summary))) return `undeclared reference to '${m[1]}' (in container '')`;
      break;
    case 'no_such_key':
      if ((m = /^No such key: (.+)$/.exec(summary))) return `undefined field '${m[1]}'`;
      break;
    case 'cannot_index_type':
      if ((m = /^Cannot index type '(.+)'$/.exec(summary))) return `type '${goTypeNames(m[1]!)}' does not support field selection`;
      break;
    case 'no_such_overload':
      if ((m = /^no such overload: (\S+) (\S+) (\S+)$/.exec(summary))) {
        return `found no matching overload for '${OPERATOR_FUNCTIONS[m[2]!] ?? m[2]}' applied to '(${goTypeNames(m[1]!)}, ${goTypeNames(m[3]!)})'`;
      }
      if ((m = /^no such overload: ([!-])(\S+)$/.exec(summary))) {
        return `found no matching overload for '${m[1]}_' applied to '(${goTypeNames(m[2]!)})'`;
      }
      break;
    case 'no_matching_overload':
      if ((m = /^found no matching overload for '(?:(.+)\.)?([A-Za-z_][\w.]*)\((.*)\)'$/.exec(summary))) {
        const [, receiver, fn, args] = m;
        if (!knownFunctions.has(fn!)) return `undeclared reference to '${fn}' (in container '')`;
        return receiver !== undefined
          ? `found no matching overload for '${fn}' applied to '${goTypeNames(receiver)}.(${goTypeNames(args!)})'`
          : `found no matching overload for '${fn}' applied to '(${goTypeNames(args!)})'`;
      }
      break;
  }
  return goTypeNames(summary);
}

/** Line and column (both 1-based, column in code points) of an offset. */
function lineAndColumn(source: string, offset: number): { line: number; column: number; text: string } {
  const before = source.slice(0, Math.max(0, Math.min(offset, source.length)));
  const lines = before.split('\n');
  const line = lines.length;
  const column = [...lines[lines.length - 1]!].length + 1;
  const text = source.split('\n')[line - 1] ?? '';
  return { line, column, text };
}

/**
 * A parse or type error as cel-go's Issues.String():
 * `ERROR: <input>:L:C: msg\n | source\n | ....^`.
 */
export function formatIssue(source: string, err: unknown, knownFunctions: ReadonlySet<string>): string {
  const e = (err ?? {}) as EngineError;
  return formatIssueAt(source, errorOffset(source, e), goMessage(e, knownFunctions));
}

/** One cel-go issue at an offset of the source. */
export function formatIssueAt(source: string, offset: number, message: string): string {
  const { line, column, text } = lineAndColumn(source, offset);
  const indicator = '.'.repeat(column - 1) + '^';
  return `ERROR: <input>:${line}:${column}: ${message}\n | ${text}\n | ${indicator}`;
}

/** cel-js spells types list<int>; cel-go list(int). */
export function goTypeName(name: string): string {
  return goTypeNames(name);
}

/** A cel-js evaluation error message in cel-go's words where they differ. */
export function goEvaluationMessage(err: unknown): string {
  const e = (err ?? {}) as EngineError;
  const summary = e.summary ?? String(e.message ?? err).split('\n')[0]!;
  let m: RegExpExecArray | null;
  if ((m = /index out of bounds, index (-?\d+) >= size (\d+)/.exec(summary))) return `index '${m[1]}' out of range in list size '${m[2]}'`;
  if ((m = /^No such key: (.+)$/.exec(summary))) return `no such key: ${m[1]}`;
  if (summary === 'modulo by zero') return 'modulus by zero';
  if (e.code === 'no_such_overload' || e.code === 'no_matching_overload') return 'no such overload';
  if (e.code === 'numeric_overflow') return 'integer overflow';
  return summary;
}
