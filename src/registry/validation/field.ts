import { isRecord as isObj } from '../../machinery/json.js';
import { list, str } from '../tables/values.js';
import type { FieldError } from '../../machinery/errors.js';
export { goJson, goStruct, type GoJson } from '../../machinery/field-value.js';

/**
 * field.Error constructors with kube's wording (apimachinery
 * pkg/util/validation/field/errors.go) and small JSON accessors for
 * validating plain objects.
 */

export type Obj = Record<string, unknown>;

export { isObj, list, str };

/** The object, or a fresh empty one (unlike the printers' frozen rec(), validators may write into it). */
export function obj(v: unknown): Obj {
  return isObj(v) ? v : {};
}

export function objs(v: unknown): Obj[] {
  return list(v).map(obj);
}

export function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

export function has(v: unknown): boolean {
  return v !== undefined && v !== null;
}

export function required(field: string, detail = ''): FieldError {
  return detail ? { type: 'FieldValueRequired', field, detail } : { type: 'FieldValueRequired', field };
}

export function invalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, value, detail };
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  return { type: 'FieldValueNotSupported', field, value, supported: [...supported] };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, value };
}

/** field.TooLong: the value is never shown. */
export function tooLong(field: string, max: number): FieldError {
  return { type: 'FieldValueTooLong', field, detail: `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` };
}

export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, value: actual, detail: `must have at most ${max} items` };
}

/**
 * field.NotFound ("Not found: <value>"). FieldError's union in
 * server/errors.ts has no FieldValueNotFound yet; the reason string is the one
 * kube sends in details.causes.
 */
export function notFound(field: string, value: unknown): FieldError {
  return { type: 'FieldValueNotFound', field, value };
}

export const FIELD_IMMUTABLE = 'field is immutable';
export const NEGATIVE = 'must be greater than or equal to 0';

export function nonNegative(value: unknown, field: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [invalid(field, value, NEGATIVE)] : [];
}

export function inclusiveRange(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}
