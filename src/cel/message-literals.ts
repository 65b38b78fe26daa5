/**
 * CEL message construction (`Object{spec: Object.spec{replicas: 1}}`,
 * `JSONPatch{op: "add", path: "/x", value: 1}`), which MutatingAdmissionPolicy
 * expressions build their results with, rewritten into the map literals
 * cel-js can parse: `{"spec": dyn({"replicas": dyn(1)})}`. Field values are
 * wrapped in dyn() so that a message's fields may have different types, as
 * a message's do; the type names are dropped (kube only checks that the
 * root is an Object or a list of JSONPatch). String literals pass through.
 */

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const TYPE_PATH_BEFORE = /(?:^|[^A-Za-z0-9_.])(\.?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*$/;
const TYPE_PATH_AT_END = /\.?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\s*$/;
const MAX_TYPE_PATH = 512;
const NOT_TYPE_NAMES = new Set(['in', 'true', 'false', 'null']);

interface Frame {
  readonly kind: 'message' | 'other';
  expectField: boolean;
  valueOpen: boolean;
}

/** Length of the string literal starting at i (with its r/b prefixes), or 0. */
function stringLiteralLength(s: string, i: number): number {
  let j = i;
  while (j < s.length && j - i < 2 && /[rRbB]/.test(s[j]!)) j++;
  const q = s[j];
  if (q !== '"' && q !== "'") return 0;
  if (j > i && i > 0 && /[A-Za-z0-9_]/.test(s[i - 1]!)) return 0;
  const raw = /[rR]/.test(s.slice(i, j));
  const triple = s.startsWith(q.repeat(3), j);
  const close = triple ? q.repeat(3) : q;
  let k = j + close.length;
  while (k < s.length) {
    if (!raw && s[k] === '\\') {
      k += 2;
      continue;
    }
    if (s.startsWith(close, k)) return k + close.length - i;
    if (!triple && s[k] === '\n') break;
    k++;
  }
  return s.length - i;
}

export function rewriteMessageLiterals(expression: string): string {
  // output as chunks: rebuilding one growing string at every brace would be quadratic
  const out: string[] = [];
  const tail = (): string => {
    let text = '';
    for (let k = out.length - 1; k >= 0 && text.length < MAX_TYPE_PATH; k--) text = out[k]! + text;
    return text.slice(-MAX_TYPE_PATH);
  };
  const dropTail = (n: number): void => {
    while (n > 0) {
      const last = out.pop()!;
      if (last.length > n) out.push(last.slice(0, last.length - n));
      n -= Math.min(n, last.length);
    }
  };
  const stack: Frame[] = [];
  const top = (): Frame | undefined => stack[stack.length - 1];
  let i = 0;
  while (i < expression.length) {
    const c = expression[i]!;
    const frame = top();
    const lit = stringLiteralLength(expression, i);
    if (lit > 0 && !(frame?.kind === 'message' && frame.expectField)) {
      out.push(expression.slice(i, i + lit));
      i += lit;
      continue;
    }
    if (frame?.kind === 'message' && frame.expectField) {
      if (/\s/.test(c)) {
        out.push(c);
        i++;
        continue;
      }
      IDENT.lastIndex = i;
      const m = IDENT.exec(expression);
      if (m) {
        let j = i + m[0].length;
        while (j < expression.length && /\s/.test(expression[j]!)) j++;
        if (expression[j] === ':') {
          out.push(`${JSON.stringify(m[0])}: dyn(`);
          frame.expectField = false;
          frame.valueOpen = true;
          i = j + 1;
          continue;
        }
      }
      frame.expectField = false;
    }
    if (c === '{') {
      const before = tail();
      const path = TYPE_PATH_BEFORE.exec(before);
      if (path && !NOT_TYPE_NAMES.has(path[1]!)) {
        dropTail(before.length - before.replace(TYPE_PATH_AT_END, '').length);
        stack.push({ kind: 'message', expectField: true, valueOpen: false });
      } else {
        stack.push({ kind: 'other', expectField: false, valueOpen: false });
      }
      out.push(c);
      i++;
      continue;
    }
    if (c === '(' || c === '[') {
      stack.push({ kind: 'other', expectField: false, valueOpen: false });
      out.push(c);
      i++;
      continue;
    }
    if (c === ')' || c === ']' || c === '}') {
      const f = stack.pop();
      if (f?.kind === 'message' && f.valueOpen) out.push(')');
      out.push(c);
      i++;
      continue;
    }
    if (c === ',' && frame?.kind === 'message') {
      if (frame.valueOpen) out.push(')');
      frame.valueOpen = false;
      frame.expectField = true;
      out.push(c);
      i++;
      continue;
    }
    out.push(c);
    i++;
  }
  return out.join('');
}
