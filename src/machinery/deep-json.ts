/**
 * Walks over JSON values that never recurse in JS: request bodies may nest
 * 10,000 levels (nesting.ts), and V8's stack holds a few thousand frames of
 * a typical walker. Hot paths keep their recursive form for shallow values
 * and hand anything deeper than a few hundred levels to these.
 */

type Container = unknown[] | Record<string, unknown>;

interface FoldFrame<R> {
  value: Container;
  keys: string[] | undefined;
  results: R[];
  next: number;
}

/**
 * Post-order fold of a JSON tree with an explicit stack: `leaf` for
 * primitives, `array`/`object` once their children are folded (object
 * members in `keysOf` order, Object.keys by default).
 */
export function foldJson<R>(
  root: unknown,
  fold: {
    leaf: (v: unknown) => R;
    array: (v: unknown[], items: R[]) => R;
    object: (v: Record<string, unknown>, keys: string[], members: R[]) => R;
    keysOf?: (v: Record<string, unknown>) => string[];
  },
): R {
  const open = (v: unknown): FoldFrame<R> | undefined => {
    if (v === null || typeof v !== 'object') return undefined;
    const keys = Array.isArray(v) ? undefined : (fold.keysOf ?? Object.keys)(v as Record<string, unknown>);
    return { value: v as Container, keys, results: [], next: 0 };
  };
  const first = open(root);
  if (first === undefined) return fold.leaf(root);
  const stack: FoldFrame<R>[] = [first];
  for (;;) {
    const top = stack[stack.length - 1]!;
    const length = top.keys === undefined ? (top.value as unknown[]).length : top.keys.length;
    if (top.next < length) {
      const child = top.keys === undefined ? (top.value as unknown[])[top.next] : (top.value as Record<string, unknown>)[top.keys[top.next]!];
      top.next++;
      const frame = open(child);
      if (frame === undefined) top.results.push(fold.leaf(child));
      else stack.push(frame);
      continue;
    }
    stack.pop();
    const done = top.keys === undefined ? fold.array(top.value as unknown[], top.results) : fold.object(top.value as Record<string, unknown>, top.keys, top.results);
    const parent = stack[stack.length - 1];
    if (parent === undefined) return done;
    parent.results.push(done);
  }
}

/**
 * JSON.stringify for values of any depth: V8's own (fast, but it throws a
 * RangeError a few thousand levels down), and for the rare deeper value the
 * same text built without recursion.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  try {
    return indent === undefined ? JSON.stringify(value) : JSON.stringify(value, null, indent);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return stringifyDeep(value, indent ?? 0);
  }
}

/** What JSON.stringify writes for a member or item (undefined: the member is left out). */
function primitiveText(v: unknown): string | undefined {
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return undefined;
  return JSON.stringify(v);
}

function stringifyDeep(value: unknown, indent: number): string {
  // Built as pieces joined once: strings concatenated level by level would copy quadratically.
  const pad = (depth: number): string => (indent === 0 ? '' : '\n' + ' '.repeat(indent * depth));
  const parts: string[] = [];
  interface Frame {
    value: Container;
    keys: string[] | undefined;
    next: number;
    written: number;
    depth: number;
  }
  const open = (v: unknown, depth: number): Frame | undefined => {
    if (v === null || typeof v !== 'object') return undefined;
    const arr = Array.isArray(v);
    parts.push(arr ? '[' : '{');
    return { value: v as Container, keys: arr ? undefined : Object.keys(v as object), next: 0, written: 0, depth };
  };
  const root = open(value, 0);
  if (root === undefined) return primitiveText(value) ?? 'undefined';
  const stack: Frame[] = [root];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const arr = top.keys === undefined;
    const length = arr ? (top.value as unknown[]).length : top.keys!.length;
    if (top.next >= length) {
      stack.pop();
      if (top.written > 0) parts.push(pad(top.depth));
      parts.push(arr ? ']' : '}');
      continue;
    }
    const key = arr ? undefined : top.keys![top.next]!;
    const child = arr ? (top.value as unknown[])[top.next] : (top.value as Record<string, unknown>)[key!];
    top.next++;
    const isContainer = child !== null && typeof child === 'object';
    const text = isContainer ? '' : primitiveText(child);
    if (!arr && !isContainer && text === undefined) continue;
    parts.push(top.written++ > 0 ? ',' : '', pad(top.depth + 1));
    if (!arr) parts.push(JSON.stringify(key), indent === 0 ? ':' : ': ');
    if (isContainer) stack.push(open(child, top.depth + 1)!);
    else parts.push(text ?? 'null');
  }
  return parts.join('');
}

/**
 * Structural equality of JSON values without recursion: object key order
 * ignored, and a member holding `undefined` counts as absent (as it would
 * once encoded).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const work: unknown[] = [a, b];
  while (work.length > 0) {
    const y = work.pop();
    const x = work.pop();
    if (x === y) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) work.push(x[i], y[i]);
      continue;
    }
    if (Array.isArray(y)) return false;
    const xr = x as Record<string, unknown>;
    const yr = y as Record<string, unknown>;
    let count = 0;
    for (const k of Object.keys(xr)) {
      if (xr[k] === undefined) continue;
      count++;
      work.push(xr[k], yr[k]);
    }
    for (const k of Object.keys(yr)) if (yr[k] !== undefined) count--;
    if (count !== 0) return false;
  }
  return true;
}
