import { dump } from 'js-yaml';

/**
 * js-yaml's block-style output (sorted keys, no line wrapping, two-space
 * indent, nested sequences compact as `- - x`) for values nested deeper than
 * its recursive dumper survives: request bodies may nest 10,000 levels and
 * their objects are served as YAML too. Collections are laid out here with
 * an explicit stack; each scalar is still styled by js-yaml itself, one
 * scalar at a time, so quoting and block scalars are js-yaml's.
 */

const INDENT = '  ';

export interface DeepYamlOptions {
  compareKeys: (a: string, b: string) => number;
  /** Scalars at least this long are written double-quoted (js-yaml's styling of them overflows). */
  longScalarChars: number;
  doubleQuoted: (s: string) => string;
}

type Container = unknown[] | Record<string, unknown>;

interface Frame {
  value: Container;
  keys: string[] | undefined;
  level: number;
  compact: boolean;
  next: number;
}

export function deepToYaml(value: unknown, opts: DeepYamlOptions): string {
  const parts: string[] = [];
  const scalars = new ScalarTexts(opts);
  const isBlock = (v: unknown): v is Container => v !== null && typeof v === 'object' && (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0);
  const flowEmpty = (v: unknown): string | undefined => (v === null || typeof v !== 'object' ? undefined : Array.isArray(v) ? '[]' : '{}');
  const open = (v: Container, level: number, compact: boolean): Frame => ({
    value: v,
    keys: Array.isArray(v) ? undefined : Object.keys(v).sort(opts.compareKeys),
    level,
    compact,
    next: 0,
  });
  if (!isBlock(value)) return `${flowEmpty(value) ?? scalars.value(value, 0)}\n`;
  const stack: Frame[] = [open(value, 0, true)];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const seq = top.keys === undefined;
    const length = seq ? (top.value as unknown[]).length : top.keys!.length;
    if (top.next >= length) {
      stack.pop();
      continue;
    }
    const i = top.next++;
    if (!top.compact || i > 0) parts.push('\n', INDENT.repeat(top.level));
    const child = seq ? (top.value as unknown[])[i] : (top.value as Record<string, unknown>)[top.keys![i]!];
    let compact = seq;
    if (seq) parts.push('- ');
    else {
      const key = scalars.key(top.keys![i]!);
      // Keys with line breaks or over 1,024 characters are explicit pairs: `? key`, then `: value` on the next line.
      if (key.explicit) parts.push('? ', key.text, '\n', INDENT.repeat(top.level));
      else parts.push(key.text);
      compact = key.explicit;
      parts.push(isBlock(child) && !compact ? ':' : ': ');
    }
    // Sequence items and explicit values start on their indicator's line; other block values on the next.
    if (isBlock(child)) stack.push(open(child, top.level + 1, compact));
    else {
      const empty = flowEmpty(child);
      if (empty !== undefined) scalars.openEnded = false;
      parts.push(empty ?? scalars.value(child, top.level + 1));
    }
  }
  parts.push(scalars.openEnded ? '\n...\n' : '\n');
  return parts.join('');
}

/** Scalars as js-yaml writes them at a given level, memoized per text. */
class ScalarTexts {
  private readonly values = new Map<unknown, string>();
  private readonly openEndedValues = new Set<unknown>();
  /** Whether the last scalar written was a keep-chomped block scalar: a document ending on one gets `...`. */
  openEnded = false;
  private readonly keys = new Map<string, { text: string; explicit: boolean }>();

  constructor(private readonly opts: DeepYamlOptions) {}

  key(k: string): { text: string; explicit: boolean } {
    let key = this.keys.get(k);
    if (key === undefined) {
      if (k.length >= this.opts.longScalarChars) key = { text: this.opts.doubleQuoted(k), explicit: true };
      else {
        const rendered = dump({ [k]: null }, { lineWidth: -1 });
        key = rendered.startsWith('? ') ? { text: rendered.slice(2, rendered.lastIndexOf('\n: null')), explicit: true } : { text: rendered.slice(0, -': null\n'.length), explicit: false };
      }
      this.keys.set(k, key);
    }
    return key;
  }

  /** A scalar as a mapping value or sequence item at `level` (block scalars indented for it). */
  value(v: unknown, level: number): string {
    let text = this.values.get(v);
    if (text === undefined) {
      if (typeof v === 'string' && v.length >= this.opts.longScalarChars) text = this.opts.doubleQuoted(v);
      else {
        const rendered = dump({ k: v }, { lineWidth: -1 });
        // A keep-chomped block scalar (`|+`) ends js-yaml's document with an end marker; here the document goes on.
        const openEnded = rendered.endsWith('\n...\n');
        if (openEnded) this.openEndedValues.add(v);
        text = (openEnded ? rendered.slice(0, -'...\n'.length) : rendered).slice('k: '.length, -1);
      }
      this.values.set(v, text);
    }
    this.openEnded = this.openEndedValues.has(v);
    // js-yaml rendered it at level 1; continuation lines of a block scalar move with the level.
    return level <= 1 || !text.includes('\n') ? text : text.replace(/\n(?=[^\n])/g, `\n${INDENT.repeat(level - 1)}`);
  }
}
