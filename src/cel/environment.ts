import { Environment } from '@marcbachmann/cel-js';
import { registerJSONPatch, registerKubernetesLibraries } from './libraries/index.js';
import { isUnorderedList, type CelValue } from './values.js';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { aliasOf } from './qualified-names.js';
import type { DeclType, ObjectType } from './types.js';

/** A declared variable of an environment. */
export interface VariableDeclaration {
  readonly name: string;
  readonly type: DeclType;
}

/** Options of an environment. */
export interface EnvironmentOptions {
  /** Register the authorizer library (admission policies and webhook match conditions). */
  readonly authorizer?: boolean;
  /**
   * Variables declared only when their type is known to the environment
   * (types a library registers, e.g. the authorizer's), skipped otherwise.
   */
  readonly optionalVariables?: readonly VariableDeclaration[];
  /**
   * Sizes of values reached through variables are kube's CRD size estimates
   * ({0, MaxElements} at any path), as for x-kubernetes-validations.
   */
  readonly pathSizes?: boolean;
  /** Register `jsonpatch.escapeKey` (MutatingAdmissionPolicy environments). */
  readonly jsonPatch?: boolean;
  /** Allow `cel.bind` (ext.Bindings): the DRA device selector environment has it, kube's base environment does not. */
  readonly bindings?: boolean;
}

type ObjectCtor = new (entries?: Iterable<readonly [string, CelValue]>) => Map<string, CelValue>;

let nextId = 1;

/** Each environment's cel-js environment, kept off the class so that no cel-js type appears in src/cel/'s API. */
const engines = new WeakMap<CelEnvironment, Environment>();

/** @internal the cel-js environment behind an environment (src/cel/ only; index.ts does not export it). */
export function engineOf(env: CelEnvironment): Environment {
  return engines.get(env)!;
}

const bases = new Map<string, Environment>();

/** cel-go's options as cel-js spells them: optionals on, mixed aggregate literals allowed. */
function baseEnvironment(authorizer: boolean, bindings: boolean): Environment {
  const key = `${authorizer}/${bindings}`;
  let base = bases.get(key);
  if (!base) {
    base = registerKubernetesLibraries(new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false }), { authorizer, bindings });
    bases.set(key, base);
  }
  return base;
}

/**
 * Deep equality of CEL values with kube's semantics: set and map lists
 * compare without order, numbers compare across int/uint/double.
 */
export function celEquals(a: CelValue, b: CelValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) return a == b;
    return false;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    if (isUnorderedList(a) || isUnorderedList(b)) return a.every((x) => b.some((y) => celEquals(x, y)));
    return a.every((x, i) => celEquals(x, b[i]));
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celEquals(v, b.get(k))) return false;
    return true;
  }
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (a instanceof Duration && b instanceof Duration) return a.seconds === b.seconds && a.nanos === b.nanos;
  // uints (cel-js wraps them) compare by value
  const av = (a as { valueOf(): unknown }).valueOf();
  const bv = (b as { valueOf(): unknown }).valueOf();
  return typeof av === 'bigint' && typeof bv === 'bigint' && av === bv;
}

/**
 * One CEL environment: the variables a use declares (with their types and
 * size bounds) over kube's libraries. Immutable; its identity keys the
 * compiled-program cache.
 */
export class CelEnvironment {
  /** Identity of this environment in cache keys. */
  readonly id = nextId++;
  /** Declared variables by name. */
  readonly variables: ReadonlyMap<string, DeclType>;
  /** @internal whether the authorizer library is registered. */
  readonly authorizer: boolean;
  /** @internal variables whose names hold a dot (declared under an alias, see qualified-names.ts). */
  readonly dottedNames: readonly string[];
  /** @internal whether static sizes follow kube's CRD size estimator. */
  readonly pathSizes: boolean;
  #functionNames: ReadonlySet<string> | undefined;
  readonly #ctors = new Map<ObjectType, ObjectCtor>();
  readonly #typeNames = new Map<DeclType, string>();
  readonly #usedNames = new Set<string>();

  constructor(variables: readonly VariableDeclaration[], options: EnvironmentOptions = {}) {
    this.authorizer = options.authorizer === true;
    this.pathSizes = options.pathSizes === true;
    const engine = baseEnvironment(this.authorizer, options.bindings === true).clone({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
    if (options.jsonPatch) registerJSONPatch(engine);
    engines.set(this, engine);
    const vars = new Map<string, DeclType>();
    const dotted: string[] = [];
    const declare = (v: VariableDeclaration): void => {
      engineOf(this).registerVariable(v.name.includes('.') ? aliasOf(v.name) : v.name, this.#typeString(v.type));
      vars.set(v.name, v.type);
      if (v.name.includes('.')) dotted.push(v.name);
    };
    for (const v of variables) declare(v);
    for (const v of options.optionalVariables ?? []) {
      try {
        declare(v);
      } catch {
        // the library that registers this type is not loaded
      }
    }
    this.variables = vars;
    this.dottedNames = dotted;
    for (const scalar of ['string', 'int', 'double', 'bool', 'uint', 'bytes']) this.#registerListEquality(scalar);
  }

  /** cel-js's spelling of a declared type, registering object types on first sight. */
  #typeString(t: DeclType): string {
    switch (t.kind) {
      case 'scalar':
        switch (t.name) {
          case 'null_type': return 'null';
          case 'timestamp': return 'google.protobuf.Timestamp';
          case 'duration': return 'google.protobuf.Duration';
          default: return t.name;
        }
      case 'list': return `list<${this.#typeString(t.elem)}>`;
      case 'map': return `map<${this.#typeString(t.key)}, ${this.#typeString(t.value)}>`;
      case 'named': return t.name;
      case 'optional': return `optional<${this.#typeString(t.value)}>`;
      case 'object': return this.#registerObject(t);
    }
  }

  #registerObject(t: ObjectType): string {
    const known = this.#typeNames.get(t);
    if (known) return known;
    // cel-js's signature parser takes identifiers and dots only (kube's names hold '@idx', '@elem')
    const base = t.name.replace(/[^A-Za-z0-9_.]/g, '_');
    let name = base;
    for (let i = 2; this.#usedNames.has(name); i++) name = `${base}${i}`;
    this.#usedNames.add(name);
    this.#typeNames.set(t, name);
    const fields: Record<string, string> = {};
    for (const [f, field] of t.fields) fields[f] = this.#typeString(field.type);
    const ctor = { [name]: class extends Map<string, CelValue> {} }[name] as ObjectCtor;
    this.#ctors.set(t, ctor);
    engineOf(this).registerType(name, { ctor, fields });
    engineOf(this).registerOperator(`${name} == ${name}`, celEquals);
    this.#registerListEquality(name);
    return name;
  }

  #registerListEquality(elem: string): void {
    try {
      engineOf(this).registerOperator(`list<${elem}> == list<${elem}>`, celEquals);
    } catch {
      // already declared by a library: its equality stands
    }
  }

  /** @internal names of the functions and methods declared in this environment. */
  functionNames(): ReadonlySet<string> {
    if (!this.#functionNames) {
      const names = new Set<string>(['has', 'all', 'exists', 'exists_one', 'map', 'filter']);
      for (const f of engineOf(this).getDefinitions().functions) names.add(f.name);
      this.#functionNames = names;
    }
    return this.#functionNames;
  }

  /** @internal the object type registered under a CEL type name. */
  objectTypeNamed(name: string): ObjectType | undefined {
    for (const [t, n] of this.#typeNames) if (n === name && t.kind === 'object') return t;
    return undefined;
  }

  /** @internal the runtime instance of an object type. */
  makeObject(t: ObjectType, fields: [string, CelValue][]): CelValue {
    let ctor = this.#ctors.get(t);
    if (!ctor) {
      this.#registerObject(t);
      ctor = this.#ctors.get(t)!;
    }
    return new ctor(fields);
  }

  /** @internal the runtime instance of an object type whose fields are computed on first use (kube's lazy `variables`). */
  makeLazyObject(t: ObjectType, thunks: ReadonlyMap<string, () => CelValue>): CelValue {
    const obj = this.makeObject(t, []) as Map<string, CelValue>;
    const get = Map.prototype.get;
    const has = Map.prototype.has;
    const set = Map.prototype.set;
    Object.defineProperties(obj, {
      get: { value: (k: string): CelValue => {
        if (!has.call(obj, k)) {
          const thunk = thunks.get(k);
          if (!thunk) return undefined;
          set.call(obj, k, thunk());
        }
        return get.call(obj, k);
      } },
      has: { value: (k: string): boolean => has.call(obj, k) || thunks.has(k) },
    });
    return obj;
  }
}
