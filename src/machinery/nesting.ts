import { compareGoStrings } from './go-compat.js';

/**
 * How deep request bodies, and the documents patches make of them, may nest
 * (objects and arrays, YAML or JSON): Go's encoding/json (and sigs.k8s.io/json)
 * stops at 10000 levels, go-yaml at 10000 flow levels. Walks over decoded
 * values must not recurse in JS past a few hundred levels (deep-json.ts).
 */
export const MAX_NESTING_DEPTH = 10000;

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

/**
 * The opening character of the first object or array deeper than `limit` in
 * the order Go's json.Marshal writes the value (map keys sorted), or
 * undefined: encoding/json's decoder reports that character ("invalid
 * character '[' exceeded max depth") when YAML converted to JSON nests too deep.
 */
export function firstNestedPast(value: unknown, limit: number): '{' | '[' | undefined {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return Array.isArray(v) ? '[' : '{';
    const children = Array.isArray(v) ? v : Object.keys(v).sort(compareGoStrings).map((k) => (v as Record<string, unknown>)[k]);
    // Pushed last-first, so the first child is looked at first.
    for (let i = children.length - 1; i >= 0; i--) stack.push({ value: children[i], depth: depth + 1 });
  }
  return undefined;
}
