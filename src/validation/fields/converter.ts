/**
 * Strategic merge patch results never go through JSON: kube-apiserver turns
 * the patched map into the Go struct with runtime.DefaultUnstructuredConverter
 * (FromUnstructuredWithValidation), whose checks and texts differ from the
 * JSON decoder's:
 *
 * - unknown fields are collected per struct, with a path of struct field
 *   names and list indexes (map keys are not part of it), then sorted by
 *   message;
 * - a value of the wrong type stops the conversion with reflect-flavoured
 *   texts: `unrecognized type: int32`, `cannot convert float64 to int32`,
 *   `cannot restore struct from: string`, `cannot restore slice from map`;
 * - types with their own UnmarshalJSON (Quantity, Time, IntOrString, ...) are
 *   re-encoded to JSON and handed to it, so their errors are the JSON ones.
 *
 * Go visits struct fields in struct order, which OpenAPI does not record:
 * when a patch holds several bad values, the one reported first is the first
 * in key order here.
 */

import { goJsonEncode } from '../../machinery/go-compat.js';
import type { JsonValue } from '../../machinery/json-value.js';
import { strconvQuote } from '../../machinery/go-compat.js';
import { scanJson } from './json-scan.js';
import { type FieldType, Kind } from './schema.js';
import { stringifyJson } from '../../machinery/deep-json.js';

export interface ConvertResult {
  /** Sorted `unknown field "..."` messages; empty when `error` is set. */
  readonly unknown: string[];
  readonly error: string | undefined;
}

class ConvertError extends Error {}

/** reflect.Kind of the Go value a decoded JSON value is in an unstructured map (ints are int64). */
function goKindOf(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return 'slice';
  return 'map';
}

/** The reflect.Kind name of a scalar destination. */
function kindName(t: FieldType): string {
  switch (t.kind) {
    case Kind.String:
      return 'string';
    case Kind.Bool:
      return 'bool';
    default:
      return t.goType; // int32, int64, float64, uint8: kind and type names coincide
  }
}

class Converter {
  readonly unknown: string[] = [];
  private readonly path: string[] = [];

  convert(v: unknown, t: FieldType): void {
    if (v === null || v === undefined) return;
    switch (t.kind) {
      case Kind.String:
      case Kind.Bool:
      case Kind.Int:
      case Kind.Float:
      case Kind.Uint8:
        this.scalar(v, t);
        return;
      case Kind.Struct:
        this.struct(v, t);
        return;
      case Kind.Map: {
        if (typeof v !== 'object' || Array.isArray(v)) throw new ConvertError(`cannot restore map from ${goKindOf(v)}`);
        const obj = v as Record<string, unknown>;
        for (const key of Object.keys(obj)) this.convert(obj[key], t.elem);
        return;
      }
      case Kind.List:
        this.list(v, t);
        return;
      case Kind.Bytes:
        if (typeof v === 'string') {
          const scan = scanJson(stringifyJson(v), t, { strict: false });
          if (scan.error !== undefined) throw new ConvertError(`error decoding from json: ${scan.error}`);
          return;
        }
        this.list(v, t);
        return;
      case Kind.Any:
      case Kind.Raw:
        return;
      default: {
        // Types with UnmarshalJSON get the value re-encoded to JSON.
        const scan = scanJson(goJsonEncode(v as JsonValue), t, { strict: false });
        if (scan.error !== undefined) throw new ConvertError(scan.error);
      }
    }
  }

  private scalar(v: unknown, t: FieldType): void {
    const st = goKindOf(v);
    const dt = kindName(t);
    const numeric = t.kind === Kind.Int || t.kind === Kind.Uint8 || t.kind === Kind.Float;
    if (st === dt) return;
    if (st === 'int64' && numeric) return; // converted without an overflow check
    if (st === 'float64' && numeric) {
      if (t.kind === Kind.Float || Number.isInteger(v)) return;
      throw new ConvertError(`cannot convert float64 to ${t.goType}`);
    }
    // Go can convert an integer to a string (as a rune), but the converter refuses.
    if (st === 'int64' && t.kind === Kind.String) throw new ConvertError(`cannot convert int64 to ${t.goType}`);
    throw new ConvertError(`unrecognized type: ${dt}`);
  }

  private struct(v: unknown, t: FieldType): void {
    if (typeof v !== 'object' || Array.isArray(v)) throw new ConvertError(`cannot restore struct from: ${goKindOf(v)}`);
    const obj = v as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      const f = t.field(key);
      if (f === undefined) {
        if (!t.preserveUnknown) this.unknown.push(`unknown field ${strconvQuote(this.joined(key))}`);
        continue;
      }
      this.path.push(key);
      this.convert(obj[key], f);
      this.path.pop();
    }
  }

  private list(v: unknown, t: FieldType): void {
    if (!Array.isArray(v)) throw new ConvertError(`cannot restore slice from ${goKindOf(v)}`);
    for (let i = 0; i < v.length; i++) {
      this.path.push(`[${i}]`);
      this.convert(v[i], t.elem);
      this.path.pop();
    }
  }

  private joined(key: string): string {
    let p = '';
    for (const seg of this.path) p += seg.startsWith('[') || p === '' ? seg : `.${seg}`;
    return p === '' ? key : `${p}.${key}`;
  }
}

/** FromUnstructuredWithValidation of a patched object into the Go type. */
export function convertUnstructured(value: unknown, t: FieldType, collectUnknown: boolean): ConvertResult {
  const c = new Converter();
  try {
    c.convert(value, t);
  } catch (err) {
    if (err instanceof ConvertError) return { unknown: [], error: err.message };
    throw err;
  }
  // sort.Slice on the messages compares bytes; UTF-16 order agrees except beyond U+FFFF.
  const unknown = collectUnknown ? c.unknown.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) : [];
  return { unknown, error: undefined };
}
