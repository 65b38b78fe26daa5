/**
 * Schema-directed walks over plain JSON values, after structured-merge-diff's
 * typed package: validation (AsTyped), the field set a value sets
 * (ToFieldSet), the comparison of two values (Compare), the apply merge
 * (Merge) and the removal of field paths (RemoveItems). Each follows its
 * upstream walker closely, including the quirks that show in managedFields
 * (which nodes become members, how empty values are promoted to leaves, list
 * ordering after a merge).
 *
 * `undefined` stands for an absent value (Go's nil Value), `null` for JSON null.
 */
import { FieldSet } from './fieldset.js';
import { type PathElement, fieldElement, indexElement, keyElement, pathElementToString, serializePathElement, valueElement } from './path.js';
import { type Atom, type ListAtom, type MapAtom, type ScalarKind, type TypeRef, deduced, resolve, untypedAtomic } from './schema.js';
import { foldJson } from '../machinery/deep-json.js';
import { strconvQuote } from '../machinery/go-compat.js';
import { type JsonObject, type JsonValue, isJsonObject, valuesEqual } from './value.js';

export interface ValidationError {
  readonly path: string;
  readonly message: string;
}

/** ValidationErrors.Error(). */
export function formatValidationErrors(errs: readonly ValidationError[]): string {
  const one = (e: ValidationError): string => (e.path === '' ? e.message : `${e.path}: ${e.message}`);
  if (errs.length === 1) return one(errs[0] as ValidationError);
  return ['errors:', ...errs.map((e) => `  ${one(e)}`)].join('\n');
}

function prefixed(errs: ValidationError[], prefix: string): ValidationError[] {
  return errs.map((e) => ({ path: prefix + e.path, message: e.message }));
}

function deduceAtom(atom: Atom, v: JsonValue | undefined): Atom {
  if (v === undefined || v === null) return atom;
  if (Array.isArray(v)) return atom.list ? { list: atom.list } : atom;
  if (typeof v === 'object') return atom.map ? { map: atom.map } : atom;
  return atom.scalar ? { scalar: atom.scalar } : atom;
}

function atomsEqual(a: Atom, b: Atom): boolean {
  return a.scalar === b.scalar && a.list === b.list && a.map === b.map;
}

function fieldType(t: MapAtom, key: string): TypeRef | undefined {
  return t.fields.get(key)?.type ?? t.elementType;
}

/** Go's %v of a value.Value wrapping decoded JSON (approximate: `&{...}`). */
function goValue(v: JsonValue): string {
  // Folded without recursion: an applied value may nest 10,000 levels.
  const inner = foldJson<string>(v, {
    leaf: (x) => (x === null ? '<nil>' : String(x)),
    array: (_a, items) => `[${items.join(' ')}]`,
    object: (_o, keys, members) => `map[${keys.map((k, i) => `${k}:${members[i]!}`).join(' ')}]`,
    keysOf: (o) => Object.keys(o).sort(),
  });
  return `&{${inner}}`;
}

function goTypeName(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

function goSharpV(v: JsonValue): string {
  if (typeof v === 'string') return strconvQuote(v);
  if (v === null) return 'interface {}(nil)';
  if (typeof v !== 'object') return String(v);
  return `${goTypeName(v)}{...}`;
}

/** validateScalar: messages as upstream's (Go-specific renderings are approximated). */
function validateScalar(t: ScalarKind, v: JsonValue | undefined, prefix: string): ValidationError[] {
  if (v === undefined || v === null) return [];
  const bad = (message: string): ValidationError[] => [{ path: '', message: prefix + message }];
  switch (t) {
    case 'numeric':
      return typeof v === 'number' ? [] : bad(`expected numeric (int or float), got ${goTypeName(v)}`);
    case 'string':
      return typeof v === 'string' ? [] : bad(`expected string, got &value.valueUnstructured{Value:${goSharpV(v)}}`);
    case 'boolean':
      return typeof v === 'boolean' ? [] : bad(`expected boolean, got ${goValue(v)}`);
    case 'untyped':
      return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' ? [] : bad(`expected any scalar, got ${goValue(v)}`);
  }
}

type PeResult = { pe: PathElement; error?: undefined } | { pe?: undefined; error: string };

/** listItemToPathElement: the key of an item of an associative list. */
export function listItemToPathElement(t: ListAtom, child: JsonValue): PeResult {
  if (t.relationship !== 'associative') return { error: 'invalid indexing of non-associative list' };
  if (t.keys.length > 0) {
    if (child === null) return { error: 'associative list with keys may not have a null element' };
    if (!isJsonObject(child)) return { error: 'associative list with keys may not have non-map elements' };
    const fields: { name: string; value: JsonValue }[] = [];
    for (const name of t.keys) {
      if (Object.prototype.hasOwnProperty.call(child, name)) {
        fields.push({ name, value: child[name] as JsonValue });
        continue;
      }
      const elem = t.elementType.atom();
      if (elem === undefined) return { error: `couldn't find default value for ${name}: invalid elementType for list` };
      if (elem.map === undefined) return { error: `couldn't find default value for ${name}: associative list may not have non-map types` };
      const def = elem.map.fields.get(name)?.default;
      if (def === undefined || def === null) {
        return { error: `associative list with keys has an element that omits key field ${strconvQuote(name)} (and doesn't have default value)` };
      }
      fields.push({ name, value: def });
    }
    return { pe: keyElement(fields) };
  }
  if (isJsonObject(child)) return { error: "associative list without keys has an element that's a map type" };
  if (Array.isArray(child)) return { error: 'not supported: associative list with lists as elements' };
  if (child === null) return { error: "associative list without keys has an element that's an explicit null" };
  return { pe: valueElement(child) };
}

/** listValue / mapValue: null is a valid empty list/map; another kind is an error (ignored by most walkers). */
function asList(v: JsonValue | undefined): JsonValue[] | undefined {
  return Array.isArray(v) ? v : undefined;
}
function asMap(v: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(v) ? v : undefined;
}

// ---------------------------------------------------------------- validate

/** AsTyped's validation. allowDuplicates is set for live objects, not for applied configurations. */
export function validate(value: JsonValue, type: TypeRef, allowDuplicates: boolean): ValidationError[] {
  return validateNode(value, type, allowDuplicates);
}

function validateNode(v: JsonValue, tr: TypeRef, allowDuplicates: boolean): ValidationError[] {
  // Untyped values take any scalar, any key and no list keys, so nothing under them can fail;
  // they are also where a body's free-form data nests thousands of levels deep.
  if (tr === untypedAtomic || tr === deduced) return [];
  const raw = tr.atom();
  if (raw === undefined) return [{ path: '', message: `schema error: no type found matching: ${tr.name}` }];
  const a = deduceAtom(raw, v);
  if (a.map) {
    if (v === null) return [];
    if (!isJsonObject(v)) return [{ path: '', message: `expected map, got ${goValue(v)}` }];
    const errs: ValidationError[] = [];
    for (const key of Object.keys(v)) {
      const ft = fieldType(a.map, key);
      if (ft === undefined) {
        errs.push({ path: `.${key}`, message: 'field not declared in schema' });
        break;
      }
      errs.push(...prefixed(validateNode(v[key] as JsonValue, ft, allowDuplicates), `.${key}`));
    }
    return errs;
  }
  if (a.scalar) return validateScalar(a.scalar, v, '');
  if (a.list) {
    if (v === null) return [];
    if (!Array.isArray(v)) return [{ path: '', message: `expected list, got ${goValue(v)}` }];
    const errs: ValidationError[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < v.length; i++) {
      const child = v[i] as JsonValue;
      let pe: PathElement;
      if (a.list.relationship !== 'associative') pe = indexElement(i);
      else {
        const r = listItemToPathElement(a.list, child);
        if (r.error !== undefined) {
          errs.push({ path: '', message: `element ${i}: ${r.error}` });
          return errs;
        }
        pe = r.pe;
        const k = serializePathElement(pe);
        if (seen.has(k) && !allowDuplicates) errs.push({ path: '', message: `duplicate entries for key ${pathElementToString(pe)}` });
        seen.add(k);
      }
      errs.push(...prefixed(validateNode(child, a.list.elementType, allowDuplicates), pathElementToString(pe)));
    }
    return errs;
  }
  return [{ path: '', message: `schema error: invalid atom: ${tr.name === '' ? 'inlined' : `named type: ${tr.name}`}` }];
}

// ------------------------------------------------------------- toFieldSet

/** ToFieldSet: the fields a value sets. */
export function toFieldSet(value: JsonValue, type: TypeRef): FieldSet {
  const set = new FieldSet();
  fieldSetNode(value, type, [], set);
  return set;
}

function fieldSetNode(v: JsonValue, tr: TypeRef, path: PathElement[], set: FieldSet): void {
  const a = deduceAtom(resolve(tr), v);
  if (a.map) {
    if (a.map.relationship === 'atomic') {
      set.insert(path);
      return;
    }
    const m = asMap(v);
    if (m === undefined) return;
    for (const key of Object.keys(m)) {
      const child = m[key] as JsonValue;
      const p = [...path, fieldElement(key)];
      fieldSetNode(child, fieldType(a.map, key) ?? untypedAtomic, p, set);
      if (child === null || (isJsonObject(child) && Object.keys(child).length === 0)) set.insert(p);
      else if (!a.map.fields.has(key)) set.insert(p);
    }
    return;
  }
  if (a.scalar) {
    set.insert(path);
    return;
  }
  if (a.list) {
    if (a.list.relationship === 'atomic') {
      set.insert(path);
      return;
    }
    const list = asList(v);
    if (list === undefined) return;
    const pes = list.map((child) => listItemToPathElement(a.list as ListAtom, child).pe);
    const seen = new Set<string>();
    const duplicates = new Set<string>();
    for (const pe of pes) {
      if (pe === undefined) continue;
      const k = serializePathElement(pe);
      if (seen.has(k)) {
        if (!duplicates.has(k)) {
          set.insert([...path, pe]);
          duplicates.add(k);
        }
      } else seen.add(k);
    }
    list.forEach((child, i) => {
      const pe = pes[i];
      if (pe === undefined || duplicates.has(serializePathElement(pe))) return;
      const p = [...path, pe];
      fieldSetNode(child, a.list!.elementType, p, set);
      set.insert(p);
    });
  }
}

// ------------------------------------------------------------------ compare

export interface Comparison {
  readonly removed: FieldSet;
  readonly modified: FieldSet;
  readonly added: FieldSet;
}

export function isSame(c: Comparison): boolean {
  return c.removed.empty() && c.modified.empty() && c.added.empty();
}

interface Walker {
  lhs: JsonValue | undefined;
  rhs: JsonValue | undefined;
  tr: TypeRef;
  path: PathElement[];
  inLeaf: boolean;
}

/** Compare: which fields rhs added, modified or removed relative to lhs. */
export function compare(lhs: JsonValue, rhs: JsonValue, type: TypeRef): Comparison {
  const c: Comparison = { removed: new FieldSet(), modified: new FieldSet(), added: new FieldSet() };
  compareNode({ lhs, rhs, tr: type, path: [], inLeaf: false }, c);
  return c;
}

function compareNode(w: Walker, c: Comparison): void {
  const atom = resolve(w.tr);
  const al = deduceAtom(atom, w.lhs);
  const ar = deduceAtom(atom, w.rhs);
  if (w.rhs === undefined) compareAtom(al, w, c);
  else if (w.lhs === undefined || atomsEqual(al, ar)) compareAtom(ar, w, c);
  else {
    // Mismatched kinds: both views run; the comparison sets are shared.
    compareAtom(al, { ...w }, c);
    compareAtom(ar, w, c);
  }
  if (!w.inLeaf) {
    if (w.lhs === undefined) c.added.insert(w.path);
    else if (w.rhs === undefined) c.removed.insert(w.path);
  }
}

function compareLeaf(w: Walker, c: Comparison): void {
  if (w.inLeaf) return;
  w.inLeaf = true;
  if (w.lhs === undefined) c.added.insert(w.path);
  else if (w.rhs === undefined) c.removed.insert(w.path);
  else if (!valuesEqual(w.rhs, w.lhs)) c.modified.insert(w.path);
}

function compareAtom(a: Atom, w: Walker, c: Comparison): void {
  if (a.map) {
    const l = asMap(w.lhs);
    const r = asMap(w.rhs);
    const empty = (l === undefined || Object.keys(l).length === 0) && (r === undefined || Object.keys(r).length === 0);
    if (a.map.relationship === 'atomic' || empty) return compareLeaf(w, c);
    const keys = new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})]);
    for (const key of keys) {
      compareNode(
        {
          lhs: l && Object.prototype.hasOwnProperty.call(l, key) ? l[key] : undefined,
          rhs: r && Object.prototype.hasOwnProperty.call(r, key) ? r[key] : undefined,
          tr: fieldType(a.map, key) ?? untypedAtomic,
          path: [...w.path, fieldElement(key)],
          inLeaf: false,
        },
        c,
      );
    }
    return;
  }
  if (a.scalar) return compareLeaf(w, c);
  if (a.list) {
    const l = asList(w.lhs);
    const r = asList(w.rhs);
    const empty = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
    if (a.list.relationship === 'atomic' || empty) return compareLeaf(w, c);
    compareListItems(a.list, l ?? [], r ?? [], w, c);
  }
}

function compareListItems(t: ListAtom, lhs: JsonValue[], rhs: JsonValue[], w: Walker, c: Comparison): void {
  const all: PathElement[] = [];
  const lValues = new Map<string, JsonValue[]>();
  const rValues = new Map<string, JsonValue[]>();
  for (const child of lhs) {
    const { pe } = listItemToPathElement(t, child);
    if (pe === undefined) continue;
    const k = serializePathElement(pe);
    const found = lValues.get(k);
    if (found) found.push(child);
    else {
      lValues.set(k, [child]);
      all.push(pe);
    }
  }
  for (const child of rhs) {
    const { pe } = listItemToPathElement(t, child);
    if (pe === undefined) continue;
    const k = serializePathElement(pe);
    const found = rValues.get(k);
    if (found) found.push(child);
    else {
      rValues.set(k, [child]);
      if (!lValues.has(k)) all.push(pe);
    }
  }
  const item = (pe: PathElement, l: JsonValue | undefined, r: JsonValue | undefined): void =>
    compareNode({ lhs: l, rhs: r, tr: t.elementType, path: [...w.path, pe], inLeaf: false }, c);
  for (const pe of all) {
    const k = serializePathElement(pe);
    const ll = lValues.get(k) ?? [];
    const rl = rValues.get(k) ?? [];
    if (ll.length <= 1 && rl.length <= 1) item(pe, ll[0], rl[0]);
    else if (ll.length >= 2 && rl.length >= 2) {
      // Duplicates on both sides compare as an atomic group.
      if (ll.length !== rl.length || ll.some((x, i) => !valuesEqual(x, rl[i] as JsonValue))) c.modified.insert([...w.path, pe]);
    } else if (ll.length >= 2) {
      if (rl.length !== 0) item(pe, undefined, rl[0]);
      c.removed.insert([...w.path, pe]);
    } else {
      if (ll.length !== 0) item(pe, ll[0], undefined);
      c.added.insert([...w.path, pe]);
    }
  }
}

// -------------------------------------------------------------------- merge

export interface MergeResult {
  readonly value: JsonValue | undefined;
  readonly errors: ValidationError[];
}

interface MergeWalker extends Walker {
  out: JsonValue | undefined;
}

/** Merge: rhs (an applied configuration) merged onto lhs (the live object). */
export function merge(lhs: JsonValue, rhs: JsonValue, type: TypeRef): MergeResult {
  const w: MergeWalker = { lhs, rhs, tr: type, path: [], inLeaf: false, out: undefined };
  const errors = mergeNode(w);
  return { value: w.out, errors };
}

function mergeNode(w: MergeWalker): ValidationError[] {
  const atom = resolve(w.tr);
  const al = deduceAtom(atom, w.lhs);
  const ar = deduceAtom(atom, w.rhs);
  if (w.rhs === undefined) return mergeAtom(al, w);
  if (w.lhs === undefined || atomsEqual(al, ar)) return mergeAtom(ar, w);
  // Mismatched kinds: the lhs view only contributes errors.
  return [...mergeAtom(al, { ...w }), ...mergeAtom(ar, w)];
}

function mergeLeaf(w: MergeWalker): void {
  if (w.inLeaf) return;
  w.inLeaf = true;
  w.out = w.rhs !== undefined ? w.rhs : w.lhs;
}

function mergeChild(tr: TypeRef, pe: PathElement, lhs: JsonValue | undefined, rhs: JsonValue | undefined, w: MergeWalker, errs: ValidationError[]): JsonValue | undefined {
  const w2: MergeWalker = { lhs, rhs, tr, path: [...w.path, pe], inLeaf: false, out: undefined };
  errs.push(...prefixed(mergeNode(w2), pathElementToString(pe)));
  return w2.out;
}

function mergeAtom(a: Atom, w: MergeWalker): ValidationError[] {
  if (a.map) {
    const l = asMap(w.lhs);
    const r = asMap(w.rhs);
    const empty = (l === undefined || Object.keys(l).length === 0) && (r === undefined || Object.keys(r).length === 0);
    if (a.map.relationship === 'atomic' || empty) {
      mergeLeaf(w);
      return [];
    }
    if (l === undefined && r === undefined) return [];
    const errs: ValidationError[] = [];
    const out: JsonObject = {};
    // Live keys keep their order; keys new in the configuration follow.
    const keys = [...Object.keys(l ?? {})];
    for (const k of Object.keys(r ?? {})) if (!l || !Object.prototype.hasOwnProperty.call(l, k)) keys.push(k);
    for (const key of keys) {
      const lv = l && Object.prototype.hasOwnProperty.call(l, key) ? l[key] : undefined;
      const rv = r && Object.prototype.hasOwnProperty.call(r, key) ? r[key] : undefined;
      const v = mergeChild(fieldType(a.map, key) ?? untypedAtomic, fieldElement(key), lv, rv, w, errs);
      if (v !== undefined) setKey(out, key, v);
    }
    if (Object.keys(out).length > 0) w.out = out;
    return errs;
  }
  if (a.scalar) {
    const le = validateScalar(a.scalar, w.lhs, 'lhs: ');
    const re = validateScalar(a.scalar, w.rhs, 'rhs: ');
    if (le.length > 0 && re.length > 0) return [...le, ...re];
    mergeLeaf(w);
    return [];
  }
  if (a.list) {
    const l = asList(w.lhs);
    const r = asList(w.rhs);
    const empty = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
    if (a.list.relationship === 'atomic' || empty) {
      mergeLeaf(w);
      return [];
    }
    if (l === undefined && r === undefined) return [];
    return mergeListItems(a.list, l ?? [], r ?? [], w);
  }
  return [{ path: '', message: `schema error: invalid atom: ${w.tr.name === '' ? 'inlined' : `named type: ${w.tr.name}`}` }];
}

function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

interface Indexed {
  pes: PathElement[];
  observed: Map<string, JsonValue>;
}

function indexList(t: ListAtom, list: JsonValue[], allowDuplicates: boolean, errs: ValidationError[]): Indexed {
  const observed = new Map<string, JsonValue>();
  const pes: PathElement[] = [];
  list.forEach((child, i) => {
    const r = listItemToPathElement(t, child);
    if (r.error !== undefined) {
      errs.push({ path: '', message: `element ${i}: ${r.error}` });
      return;
    }
    const k = serializePathElement(r.pe);
    if (observed.has(k)) {
      if (!allowDuplicates) {
        errs.push({ path: '', message: `duplicate entries for key ${pathElementToString(r.pe)}` });
        return;
      }
      // Duplicated live items are not merged with the new value.
      observed.set(k, null);
    } else observed.set(k, child);
    pes.push(r.pe);
  });
  return { pes, observed };
}

/** visitListItems of the merging walker: the merged order of an associative list. */
function mergeListItems(t: ListAtom, lhs: JsonValue[], rhs: JsonValue[], w: MergeWalker): ValidationError[] {
  const errs: ValidationError[] = [];
  const R = indexList(t, rhs, false, errs);
  const L = indexList(t, lhs, true, errs);
  if (errs.length > 0) return errs;
  const out: JsonValue[] = [];
  const key = serializePathElement;
  const sharedOrder = R.pes.filter((pe) => L.observed.has(key(pe)));
  let nextShared: PathElement | undefined = sharedOrder.shift();
  const mergedRHS = new Set<string>();
  const push = (pe: PathElement, l: JsonValue | undefined, r: JsonValue | undefined): void => {
    const v = mergeChild(t.elementType, pe, l, r, w, errs);
    if (v !== undefined) out.push(v);
  };
  let lI = 0;
  let rI = 0;
  while (lI < L.pes.length || rI < R.pes.length) {
    if (lI < L.pes.length && rI < R.pes.length) {
      const pe = L.pes[lI] as PathElement;
      if (key(pe) === key(R.pes[rI] as PathElement)) {
        mergedRHS.add(key(pe));
        push(pe, L.observed.get(key(pe)), R.observed.get(key(pe)));
        lI++;
        rI++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (R.observed.has(key(pe)) && nextShared !== undefined && key(nextShared) !== key(pe)) {
        // A shared item, but not the one due in this round.
        lI++;
        continue;
      }
    }
    if (lI < L.pes.length) {
      const pe = L.pes[lI] as PathElement;
      if (!R.observed.has(key(pe))) {
        push(pe, lhs[lI], undefined);
        lI++;
        continue;
      } else if (mergedRHS.has(key(pe))) {
        lI++;
      }
    }
    if (rI < R.pes.length) {
      const pe = R.pes[rI] as PathElement;
      mergedRHS.add(key(pe));
      push(pe, L.observed.get(key(pe)), R.observed.get(key(pe)));
      rI++;
      if (nextShared !== undefined && key(nextShared) === key(pe)) nextShared = sharedOrder.shift();
    }
  }
  if (out.length > 0) w.out = out;
  return errs;
}

// ------------------------------------------------------------- removeItems

/** RemoveItems: the value without the given paths (null when nothing remains). */
export function removeItems(value: JsonValue, toRemove: FieldSet, type: TypeRef): JsonValue {
  const a = deduceAtom(resolve(type), value);
  if (a.map) {
    if (!isJsonObject(value) || Object.keys(value).length === 0) return null;
    if (a.map.relationship === 'atomic') return null;
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      const pe = fieldElement(key);
      if (toRemove.hasMember(pe)) continue;
      let v = value[key] as JsonValue;
      const subset = toRemove.child(pe);
      if (subset !== undefined && !subset.empty()) v = removeItems(v, subset, fieldType(a.map, key) ?? untypedAtomic);
      setKey(out, key, v);
    }
    return Object.keys(out).length > 0 ? out : null;
  }
  if (a.scalar) return value;
  if (a.list) {
    if (!Array.isArray(value) || value.length === 0) return null;
    if (a.list.relationship === 'atomic') return null;
    const out: JsonValue[] = [];
    for (let item of value) {
      const { pe } = listItemToPathElement(a.list, item);
      if (pe !== undefined) {
        if (toRemove.hasMember(pe)) continue;
        const subset = toRemove.child(pe);
        if (subset !== undefined && !subset.empty()) item = removeItems(item, subset, a.list.elementType);
      }
      out.push(item);
    }
    return out.length > 0 ? out : null;
  }
  return value;
}

// ------------------------------------------------- EnsureNamedFieldsAreMembers

/** The set plus every declared struct field that has children in it as a member itself. */
export function ensureNamedFieldsAreMembers(set: FieldSet, type: TypeRef | undefined): FieldSet {
  const atom = type?.atom();
  const out = new FieldSet([...set.memberElements()], []);
  for (const node of set.childNodes()) {
    let childType: TypeRef | undefined;
    if (node.pe.kind === 'field' && atom?.map !== undefined) {
      const f = atom.map.fields.get(node.pe.name);
      if (f !== undefined) out.insertMember(node.pe);
      childType = f?.type ?? atom.map.elementType;
    } else if (node.pe.kind === 'key' && atom?.list !== undefined) {
      childType = atom.list.elementType;
    }
    const sub = ensureNamedFieldsAreMembers(node.set, childType);
    const target = out.descend(node.pe);
    for (const m of sub.memberElements()) target.insertMember(m);
    for (const c of sub.childNodes()) graft(target, c.pe, c.set);
  }
  return out;
}

function graft(target: FieldSet, pe: PathElement, set: FieldSet): void {
  const t = target.descend(pe);
  for (const m of set.memberElements()) t.insertMember(m);
  for (const c of set.childNodes()) graft(t, c.pe, c.set);
}
