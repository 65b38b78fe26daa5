/**
 * How deep request bodies, and the documents patches make of them, may nest
 * (objects and arrays, YAML or JSON).
 * go-yaml and Go's encoding/json stop at 10000, but here every walk of a
 * decoded value (js-yaml's parser and dumper, JSON.stringify, field
 * validation, cloning) is recursive, and js-yaml's parser alone overflows
 * the stack near 1600 levels: the limit is one every walk survives, and the
 * errors are kube's texts with this bound. No real object nests this deep.
 */
export const MAX_NESTING_DEPTH = 1000;

/**
 * Whether valid JSON text nests objects and arrays deeper than `limit`: one
 * pass over the text (about half the cost of JSON.parse on it), skipped for
 * text too short to open that many levels and close them again.
 */
export function jsonNestingExceeds(text: string, limit: number): boolean {
  if (text.length <= 2 * limit + 1) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * Whether a decoded value nests objects and arrays deeper than `limit`,
 * without recursion: a patch can build a document deeper than its body
 * (a JSON patch `copy` of a deep value into a deep path).
 */
export function valueNestingExceeds(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
