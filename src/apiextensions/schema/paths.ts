/** field.Path rendering: `.child`, `[index]`, `[key]` (kube's Path.Key). */

import { goRepr } from '../../machinery/field-value.js';
import { formatFloatG } from '../../machinery/go-compat.js';

export function childPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

export function indexPath(path: string, i: number): string {
  return `${path}[${i}]`;
}

export function keyPath(path: string, key: string): string {
  return `${path}[${key}]`;
}


/**
 * A decoded JSON value as field.Error prints it: scalars as they are (the
 * error body prints those itself), objects and lists with Go's %#v of
 * map[string]interface {} and []interface {}, which unstructured content is.
 */
export function unstructuredValue(v: unknown): unknown {
  return v !== null && typeof v === 'object' ? goRepr(goSyntaxOf(v)) : v;
}

function goSyntaxOf(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : formatFloatG(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntaxOf).join(', ')}}`;
  const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[string]interface {}{${entries.map(([k, x]) => `${JSON.stringify(k)}:${goSyntaxOf(x)}`).join(', ')}}`;
}

