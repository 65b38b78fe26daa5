/**
 * How field.Error.ErrorBody (apimachinery 1.36, pkg/util/validation/field/
 * errors.go) prints a bad value: int/float/bool with %v, a string with %q,
 * anything else as json.Marshal writes it (HTML-safe escapes, map keys
 * sorted). A decoded JSON map or list is what kube's validator holds for
 * labels, selectors' matchLabels, string lists and unstructured content, so
 * it is written as that. A validator holding a Go struct, []byte or a time
 * passes the text json.Marshal gives for it (goJson / goStruct).
 */
import { compareGoStrings, goJsonEncode, goJsonString } from './go-compat.js';
import type { JsonValue } from './json-value.js';

/** A bad value already written as Go's json.Marshal writes it. */
export interface GoJson {
  goJson: string;
}

export function goJson(text: string): GoJson {
  return { goJson: text };
}

/**
 * json.Marshal of an internal API struct (pkg/apis/...): those carry no json
 * tags, so every field is written under its Go name, in declaration order,
 * zero values included. `fields` are [GoName, value] in that order; a value is
 * a decoded JSON value or a GoJson.
 */
export function goStruct(fields: readonly (readonly [string, unknown])[]): GoJson {
  return goJson(`{${fields.map(([name, v]) => `${goJsonString(name)}:${goJsonValue(v)}`).join(',')}}`);
}

export function isGoJson(value: unknown): value is GoJson {
  return typeof value === 'object' && value !== null && typeof (value as GoJson).goJson === 'string';
}

/** json.Marshal of a decoded JSON value (undefined as null) or a GoJson. */
export function goJsonValue(value: unknown): string {
  if (value === undefined) return 'null';
  if (isGoJson(value)) return value.goJson;
  // Only values holding a GoJson are walked here; the rest (any depth a client sent) goes to the iterative encoder.
  if (Array.isArray(value) && value.some(isGoJson)) return `[${value.map(goJsonValue).join(',')}]`;
  if (typeof value === 'object' && value !== null && Object.values(value).some(isGoJson)) {
    const keys = Object.keys(value).sort(compareGoStrings);
    return `{${keys.map((k) => `${goJsonString(k)}:${goJsonValue((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return goJsonEncode(value as JsonValue);
}

export function renderFieldValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return goJsonValue(value);
}

/** Go's %q for a string: JSON escaping is the same for printable text. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
