/**
 * Variables whose names hold a dot (kube's `authorizer.requestResource`):
 * cel-js reads `a.b` as a selection on `a`, so such a variable is declared
 * under an alias of the same length (the dot becomes `_`) and the
 * expression's text is rewritten before parsing; equal lengths keep every
 * error position where the user wrote it.
 */

/** The alias of a dotted variable name. */
export function aliasOf(name: string): string {
  return name.replaceAll('.', '_');
}

const IDENT = /[A-Za-z0-9_]/;

/** Offsets of the source that are inside string or bytes literals. */
function literalRanges(source: string): [number, number][] {
  const ranges: [number, number][] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c !== '"' && c !== "'") {
      i++;
      continue;
    }
    let raw = false;
    for (let j = i - 1; j >= 0 && j >= i - 2; j--) {
      const p = source[j]!;
      if (p === 'r' || p === 'R') raw = true;
      else if (p !== 'b' && p !== 'B') break;
    }
    const triple = source.startsWith(c.repeat(3), i);
    const close = triple ? c.repeat(3) : c;
    let k = i + close.length;
    while (k < source.length && !source.startsWith(close, k)) k += !raw && source[k] === '\\' ? 2 : 1;
    const end = Math.min(source.length, k + close.length);
    ranges.push([i, end]);
    i = end;
  }
  return ranges;
}

/** The source with each dotted variable name (outside literals, as a whole identifier path) replaced by its alias. */
export function rewriteQualifiedNames(source: string, names: readonly string[]): string {
  if (names.length === 0 || !names.some((n) => source.includes(n))) return source;
  const literals = literalRanges(source);
  const inLiteral = (at: number): boolean => literals.some(([s, e]) => at >= s && at < e);
  let out = source;
  for (const name of names) {
    let from = 0;
    for (let at = out.indexOf(name, from); at >= 0; at = out.indexOf(name, from)) {
      from = at + name.length;
      const before = at > 0 ? out[at - 1]! : '';
      const after = out[at + name.length] ?? '';
      if ((before && (IDENT.test(before) || before === '.')) || (after && IDENT.test(after)) || inLiteral(at)) continue;
      out = out.slice(0, at) + aliasOf(name) + out.slice(at + name.length);
    }
  }
  return out;
}
