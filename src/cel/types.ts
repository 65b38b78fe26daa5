/**
 * Declared types of CEL variables (kube's apiservercel.DeclType): what the
 * type checker sees and what the cost estimator knows about sizes. Our own
 * model, so that no cel-js type leaves src/cel/.
 */

/** A scalar CEL type name. */
export type ScalarTypeName = 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'timestamp' | 'duration' | 'null_type' | 'dyn';

interface Sized {
  /**
   * Largest size a value may have (list/map entries, string/bytes length);
   * the cost estimator's bound. Undefined for scalars of constant size.
   */
  readonly maxElements?: number;
  /** Smallest JSON serialization of a value (kube's MinSerializedSize). */
  readonly minSerializedSize: number;
}

export interface ScalarType extends Sized {
  readonly kind: 'scalar';
  readonly name: ScalarTypeName;
}

export interface ListType extends Sized {
  readonly kind: 'list';
  readonly elem: DeclType;
  /** x-kubernetes-list-type: set and map lists compare without order. */
  readonly listType?: 'atomic' | 'set' | 'map';
}

export interface MapType extends Sized {
  readonly kind: 'map';
  readonly key: DeclType;
  readonly value: DeclType;
}

export interface ObjectField {
  /** The property's name in JSON (the field's CEL name is escaped). */
  readonly jsonName: string;
  readonly type: DeclType;
  readonly required: boolean;
}

export interface ObjectType extends Sized {
  readonly kind: 'object';
  /** CEL type name, e.g. kube's `kubernetes.AdmissionRequest` or a schema path. */
  readonly name: string;
  /** Escaped CEL field name → field. */
  readonly fields: ReadonlyMap<string, ObjectField>;
}

/** A type registered by a library (e.g. `kubernetes.authorization.Authorizer`), referred to by name. */
export interface NamedType extends Sized {
  readonly kind: 'named';
  readonly name: string;
}

/** optional(T): a value that may be absent (a CRD rule's oldSelf with optionalOldSelf). */
export interface OptionalType extends Sized {
  readonly kind: 'optional';
  readonly value: DeclType;
}

export type DeclType = ScalarType | ListType | MapType | ObjectType | NamedType | OptionalType;

function scalar(name: ScalarTypeName, minSerializedSize: number): ScalarType {
  return { kind: 'scalar', name, minSerializedSize };
}

/** The scalar types, without size bounds. */
export const Types = {
  bool: scalar('bool', 4),
  int: scalar('int', 1),
  uint: scalar('uint', 1),
  double: scalar('double', 1),
  string: scalar('string', 2),
  bytes: scalar('bytes', 2),
  timestamp: scalar('timestamp', 21),
  duration: scalar('duration', 3),
  null: scalar('null_type', 4),
  dyn: scalar('dyn', 1),
} as const;

/** list<elem>. */
export function listOf(elem: DeclType, maxElements?: number, listType?: ListType['listType']): ListType {
  return { kind: 'list', elem, minSerializedSize: 2, ...(maxElements === undefined ? {} : { maxElements }), ...(listType ? { listType } : {}) };
}

/** map<key, value>. */
export function mapOf(key: DeclType, value: DeclType, maxElements?: number): MapType {
  return { kind: 'map', key, value, minSerializedSize: 2, ...(maxElements === undefined ? {} : { maxElements }) };
}

/** An object type with fields given as name → type (names already CEL identifiers). */
export function objectOf(name: string, fields: Record<string, DeclType>, required: readonly string[] = []): ObjectType {
  const map = new Map<string, ObjectField>();
  for (const [k, type] of Object.entries(fields)) map.set(k, { jsonName: k, type, required: required.includes(k) });
  return { kind: 'object', name, fields: map, minSerializedSize: 2 };
}

/** optional(value). */
export function optionalOf(value: DeclType): OptionalType {
  return { kind: 'optional', value, minSerializedSize: value.minSerializedSize, ...(value.maxElements === undefined ? {} : { maxElements: value.maxElements }) };
}

/** A library-registered type by name. */
export function namedType(name: string): NamedType {
  return { kind: 'named', name, minSerializedSize: 1 };
}

/** A scalar with a size bound (strings, bytes, dyn from int-or-string). */
export function sized<T extends ScalarType>(t: T, maxElements: number, minSerializedSize = t.minSerializedSize): T {
  return { ...t, maxElements, minSerializedSize };
}

/** kube's spelling of a type in messages: list(int), map(string, dyn). */
export function typeName(t: DeclType): string {
  switch (t.kind) {
    case 'scalar': return t.name;
    case 'list': return `list(${typeName(t.elem)})`;
    case 'map': return `map(${typeName(t.key)}, ${typeName(t.value)})`;
    case 'optional': return `optional_type(${typeName(t.value)})`;
    default: return t.name;
  }
}
