/**
 * Block-style YAML for small JSON values. The gnostic OpenAPI v2 protobuf
 * carries vendor extensions, defaults, examples and enums as YAML text
 * (`Any.yaml`); clients such as kubectl parse it back with a YAML 1.1 parser,
 * so every string that could read as another type is quoted.
 */
import { isJsonObject, type Json } from '../machinery/json.js';

const PLAIN = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
const YAML11_KEYWORDS = new Set(['y', 'yes', 'n', 'no', 'true', 'false', 'on', 'off', 'null', '~']);

function scalar(v: Json): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean' || typeof v === 'number') return String(v);
  if (typeof v === 'string') {
    if (PLAIN.test(v) && !YAML11_KEYWORDS.has(v.toLowerCase())) return v;
    return JSON.stringify(v);
  }
  throw new Error('not a scalar');
}

function emit(v: Json, indent: string, lines: string[], prefix: string): void {
  if (Array.isArray(v)) {
    if (v.length === 0) {
      lines.push(prefix + '[]');
      return;
    }
    if (prefix !== '') lines.push(prefix.trimEnd());
    for (const item of v) {
      if (Array.isArray(item) && item.length === 0) {
        lines.push(indent + '- []');
      } else if (isJsonObject(item) && Object.keys(item).length === 0) {
        lines.push(indent + '- {}');
      } else if (isJsonObject(item) || Array.isArray(item)) {
        const sub: string[] = [];
        emit(item, indent + '  ', sub, '');
        if (sub.length === 0) continue;
        // First line of the nested block rides on the dash.
        lines.push(indent + '- ' + (sub[0] as string).slice(indent.length + 2));
        for (const l of sub.slice(1)) lines.push(l);
      } else {
        lines.push(indent + '- ' + scalar(item));
      }
    }
    return;
  }
  if (isJsonObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 0) {
      lines.push(prefix + '{}');
      return;
    }
    if (prefix !== '') lines.push(prefix.trimEnd());
    for (const k of keys) {
      const value = v[k] as Json;
      const key = indent + scalar(k) + ':';
      if (isJsonObject(value) || Array.isArray(value)) {
        const empty = Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
        if (empty) lines.push(key + ' ' + (Array.isArray(value) ? '[]' : '{}'));
        else emit(value, Array.isArray(value) ? indent : indent + '  ', lines, key + ' ');
      } else {
        lines.push(key + ' ' + scalar(value));
      }
    }
    return;
  }
  lines.push(prefix + scalar(v));
}

/** YAML document text (with trailing newline) for a JSON value. */
export function toYaml(v: Json): string {
  const lines: string[] = [];
  emit(v, '', lines, '');
  return lines.join('\n') + '\n';
}
