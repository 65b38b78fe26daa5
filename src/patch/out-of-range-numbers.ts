/**
 * Numbers beyond float64's range (1e400, -1e400) in JSON and merge patches.
 *
 * kube's patch libraries keep a patch value's source text (evanphx/json-patch's
 * lazy nodes), so such a number reaches the patched document verbatim and
 * only the typed decode of that document rejects it: a 422 quoting the
 * patched JSON with `1e400` in it (or nothing, when the field is unknown and
 * dropped). A JS number cannot hold it, so while a patch is applied each such
 * literal travels as a placeholder string, unique to the request, and the
 * patched document's JSON gets the literal back before it is decoded.
 */

import { randomBytes } from 'node:crypto';
import { goJsonString } from '../machinery/go-compat.js';
import type { JsonAst } from '../machinery/json-decode.js';
import { type JsonValue, isJsonObject } from '../machinery/json-value.js';

export class OutOfRangeNumbers {
  private readonly nonce = randomBytes(9).toString('base64');
  /** source literal → placeholder, and placeholder's JSON text → literal */
  private readonly placeholders = new Map<string, string>();
  private readonly literals = new Map<string, string>();

  get empty(): boolean {
    return this.placeholders.size === 0;
  }

  private placeholderFor(raw: string): string {
    let p = this.placeholders.get(raw);
    if (p === undefined) {
      p = `\u0000capstan-number-${this.nonce}-${this.placeholders.size}\u0000`;
      this.placeholders.set(raw, p);
      this.literals.set(goJsonString(p), raw);
    }
    return p;
  }

  /** `ast` with each out-of-range number replaced by its placeholder string (the same tree when there is none). */
  protect(ast: JsonAst): JsonAst {
    if (!hasOutOfRange(ast)) return ast;
    const map = (a: JsonAst): JsonAst => {
      if (a.kind === 'number' && !Number.isFinite(a.value)) {
        const value = this.placeholderFor(a.raw);
        return { kind: 'string', value, raw: goJsonString(value) };
      }
      return a;
    };
    // Rebuilt bottom-up with an explicit stack: nesting is the client's to choose.
    const rebuilt = new Map<JsonAst, JsonAst>();
    const stack: Array<{ node: JsonAst; expanded: boolean }> = [{ node: ast, expanded: false }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { node: JsonAst; expanded: boolean };
      const n = top.node;
      if (n.kind !== 'object' && n.kind !== 'array') {
        rebuilt.set(n, map(n));
        stack.pop();
        continue;
      }
      if (!top.expanded) {
        top.expanded = true;
        const children = n.kind === 'array' ? n.items : n.members.map(([, v]) => v);
        for (const c of children) stack.push({ node: c, expanded: false });
        continue;
      }
      stack.pop();
      rebuilt.set(
        n,
        n.kind === 'array'
          ? { kind: 'array', items: n.items.map((c) => rebuilt.get(c) as JsonAst) }
          : { kind: 'object', members: n.members.map(([k, c]) => [k, rebuilt.get(c) as JsonAst] as const) },
      );
    }
    return rebuilt.get(ast) as JsonAst;
  }

  /** JSON text (Go's encoding of a patched document) with the literals back in place of their placeholders. */
  restore(json: string): string {
    if (this.empty) return json;
    let out = json;
    for (const [quoted, raw] of this.literals) out = out.split(quoted).join(raw);
    return out;
  }

  /** The literal of the first placeholder left in `value` (document order), if any. */
  leftIn(value: JsonValue): string | undefined {
    if (this.empty) return undefined;
    const byPlaceholder = new Map([...this.placeholders].map(([raw, p]) => [p, raw]));
    const stack: JsonValue[] = [value];
    while (stack.length > 0) {
      const v = stack.pop() as JsonValue;
      if (typeof v === 'string') {
        const raw = byPlaceholder.get(v);
        if (raw !== undefined) return raw;
      } else if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push(v[i] as JsonValue);
      } else if (isJsonObject(v)) {
        const keys = Object.keys(v);
        for (let i = keys.length - 1; i >= 0; i--) stack.push(v[keys[i] as string] as JsonValue);
      }
    }
    return undefined;
  }
}

/** The first number (in document order) that float64 cannot hold, as written. */
export function firstOutOfRange(ast: JsonAst): string | undefined {
  const stack: JsonAst[] = [ast];
  while (stack.length > 0) {
    const a = stack.pop() as JsonAst;
    if (a.kind === 'number' && !Number.isFinite(a.value)) return a.raw;
    if (a.kind === 'array') for (let i = a.items.length - 1; i >= 0; i--) stack.push(a.items[i] as JsonAst);
    else if (a.kind === 'object') for (let i = a.members.length - 1; i >= 0; i--) stack.push((a.members[i] as readonly [string, JsonAst])[1]);
  }
  return undefined;
}

function hasOutOfRange(ast: JsonAst): boolean {
  return firstOutOfRange(ast) !== undefined;
}
