import { goTypeName } from './errors.js';
import { parseGoDuration } from './values.js';

/**
 * The AST validators kube's base environment adds to cel-go (1.29+):
 * literal arguments of duration(), timestamp() and matches() must parse, and
 * list and map literals must be homogeneous (except inside format()'s
 * arguments). cel-js checks none of these, so they run after its type check.
 */

interface Node {
  readonly op: string;
  readonly args: unknown;
  readonly pos?: number;
  readonly start?: number;
  readonly checkedType?: { readonly name?: string };
  readonly meta?: { readonly alternate?: unknown; readonly macro?: unknown };
}

/** One validation failure: where (offset in the source) and cel-go's message. */
export interface LiteralIssue {
  readonly offset: number;
  readonly message: string;
}

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && 'op' in v && 'args' in v;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function literalString(n: Node | undefined): string | undefined {
  return n?.op === 'value' && typeof n.args === 'string' ? n.args : undefined;
}

function offsetOf(n: Node): number {
  return n.pos ?? n.start ?? 0;
}

/**
 * Whether an RE2 pattern parses. JavaScript's syntax stands in for RE2's,
 * leniently: RE2's flag groups and named groups are accepted, so that no
 * pattern kube takes is refused here (a few RE2-invalid ones may pass).
 */
function validRegex(pattern: string): boolean {
  const js = pattern.replace(/\(\?[imsU-]+\)/g, '').replace(/\(\?[imsU-]+:/g, '(?:').replace(/\(\?P</g, '(?<');
  try {
    new RegExp(js);
    return true;
  } catch {
    return false;
  }
}

/** The first issue of the checked AST, or undefined. */
export function validateLiterals(root: unknown): LiteralIssue | undefined {
  let found: LiteralIssue | undefined;
  const visit = (n: unknown, underFormat: boolean): void => {
    if (found || !isNode(n)) return;
    const args = n.args;
    if (n.op === 'call' || n.op === 'rcall') {
      const [fn, targetOrArgs, maybeArgs] = args as [string, unknown, unknown];
      const target = n.op === 'rcall' ? (targetOrArgs as Node) : undefined;
      const callArgs = (n.op === 'rcall' ? maybeArgs : targetOrArgs) as Node[];
      const lit = literalString(callArgs[0]);
      if (lit !== undefined && !target && fn === 'duration' && parseGoDuration(lit) === undefined) {
        found = { offset: offsetOf(callArgs[0]!), message: 'invalid duration argument' };
      } else if (lit !== undefined && !target && fn === 'timestamp' && (!RFC3339.test(lit) || Number.isNaN(new Date(lit).getTime()))) {
        found = { offset: offsetOf(callArgs[0]!), message: 'invalid timestamp argument' };
      } else if (fn === 'matches') {
        const re = literalString(target ? callArgs[0] : callArgs[1]);
        const at = target ? callArgs[0] : callArgs[1];
        if (re !== undefined && at && !validRegex(re)) found = { offset: offsetOf(at), message: 'invalid matches argument' };
      }
      if (found) return;
      const format = fn === 'format';
      if (target) visit(target, false);
      for (const a of callArgs) visit(a, format);
      return;
    }
    if (n.op === 'list' || n.op === 'map') {
      if (!underFormat) {
        const mismatch = n.op === 'list' ? firstMismatch(args as Node[]) : firstMismatch((args as Node[][]).map((e) => e[0]!)) ?? firstMismatch((args as Node[][]).map((e) => e[1]!));
        if (mismatch) {
          found = mismatch;
          return;
        }
      }
      const children = n.op === 'list' ? (args as Node[]) : (args as Node[][]).flat();
      for (const c of children) visit(c, underFormat);
      return;
    }
    if (Array.isArray(args)) for (const a of args) visit(a, false);
    else if (isNode(args)) visit(args, false);
  };
  visit(root, false);
  return found;
}

function firstMismatch(nodes: Node[]): LiteralIssue | undefined {
  const first = nodes[0]?.checkedType?.name;
  for (const n of nodes.slice(1)) {
    const t = n.checkedType?.name;
    if (first !== undefined && t !== undefined && t !== first) {
      return { offset: offsetOf(n), message: `expected type '${goTypeName(first)}' but found '${goTypeName(t)}'` };
    }
  }
  return undefined;
}
