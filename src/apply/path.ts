/**
 * Path elements and paths (structured-merge-diff fieldpath.PathElement/Path):
 * how a child is selected from its parent, their total order (which fixes the
 * key order of FieldsV1), their human-readable form used in conflict
 * messages (`.spec.containers[name="nginx"].image`) and their FieldsV1 key
 * form (`f:name`, `k:{"name":"x"}`, `v:"a"`, `i:0`).
 */
import { compareGoStrings, goJsonEncode } from '../machinery/go-compat.js';
import { type JsonValue, compareValues, isJsonObject, valueToString, valuesEqual } from './value.js';

export interface KeyField {
  readonly name: string;
  readonly value: JsonValue;
}

export type PathElement =
  /** A struct field or a map key. */
  | { readonly kind: 'field'; readonly name: string }
  /** An item of an associative list with keys, by its key fields (sorted by name). */
  | { readonly kind: 'key'; readonly fields: readonly KeyField[] }
  /** An item of a set (associative list of scalars), by its value. */
  | { readonly kind: 'value'; readonly value: JsonValue }
  /** An item of an atomic list by position (only ever read from FieldsV1). */
  | { readonly kind: 'index'; readonly index: number };

export type Path = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return { kind: 'field', name };
}

/** A key element; fields are sorted by name as FieldList.Sort does. */
export function keyElement(fields: readonly KeyField[]): PathElement {
  return { kind: 'key', fields: [...fields].sort((a, b) => compareGoStrings(a.name, b.name)) };
}

export function valueElement(value: JsonValue): PathElement {
  return { kind: 'value', value };
}

export function indexElement(index: number): PathElement {
  return { kind: 'index', index };
}

const KIND_RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

function compareKeyFields(a: readonly KeyField[], b: readonly KeyField[]): number {
  for (let i = 0; ; i++) {
    if (i >= a.length) return i >= b.length ? 0 : -1;
    if (i >= b.length) return 1;
    const fa = a[i] as KeyField;
    const fb = b[i] as KeyField;
    const c = compareGoStrings(fa.name, fb.name);
    if (c !== 0) return c;
    const v = compareValues(fa.value, fb.value);
    if (v !== 0) return v;
  }
}

/** PathElement.Compare: fields < keys < values < indexes, then by content. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_RANK[a.kind] < KIND_RANK[b.kind] ? -1 : 1;
  switch (a.kind) {
    case 'field':
      return compareGoStrings(a.name, (b as typeof a).name);
    case 'key':
      return compareKeyFields(a.fields, (b as typeof a).fields);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index': {
      const bi = (b as typeof a).index;
      return a.index < bi ? -1 : a.index > bi ? 1 : 0;
    }
  }
}

export function pathElementsEqual(a: PathElement, b: PathElement): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'field':
      return a.name === (b as typeof a).name;
    case 'key': {
      const bf = (b as typeof a).fields;
      if (a.fields.length !== bf.length) return false;
      return a.fields.every((f, i) => f.name === (bf[i] as KeyField).name && valuesEqual(f.value, (bf[i] as KeyField).value));
    }
    case 'value':
      return valuesEqual(a.value, (b as typeof a).value);
    case 'index':
      return a.index === (b as typeof a).index;
  }
}

/** PathElement.String(). */
export function pathElementToString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map((f) => `${f.name}=${valueToString(f.value)}`).join(',')}]`;
    case 'value':
      return `[=${valueToString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

/** Path.String(): the elements' strings concatenated. */
export function pathToString(path: Path): string {
  return path.map(pathElementToString).join('');
}

/** SerializePathElement: the FieldsV1 key of an element. */
export function serializePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      // Written raw: the name is not JSON-escaped inside the key.
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map((f) => `${goJsonEncode(f.name)}:${goJsonEncode(f.value)}`).join(',')}}`;
    case 'value':
      return `v:${goJsonEncode(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** Raised for a FieldsV1 key of a known type that does not parse. */
export class PathElementError extends Error {}

/**
 * DeserializePathElement. Returns undefined for an element type this version
 * does not know (upstream drops those silently); throws for malformed keys.
 */
export function deserializePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new PathElementError('key must be 2 characters long:');
  if (s[1] !== ':') throw new PathElementError(`missing colon: ${s}`);
  const rest = s.slice(2);
  switch (s[0]) {
    case 'f':
      return fieldElement(rest);
    case 'v':
      return valueElement(parseJson(rest));
    case 'k': {
      const obj = parseJson(rest);
      if (!isJsonObject(obj)) throw new PathElementError(`ReadObjectCB: expect { or n, but found ${rest.slice(0, 1)}`);
      return keyElement(Object.keys(obj).map((name) => ({ name, value: obj[name] as JsonValue })));
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(rest)) throw new PathElementError(`strconv.Atoi: parsing ${JSON.stringify(rest)}: invalid syntax`);
      return indexElement(Number(rest));
    }
    default:
      return undefined;
  }
}

function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new PathElementError(err instanceof Error ? err.message : String(err));
  }
}
