/**
 * FieldsV1, the managedFields encoding of a field set
 * (fieldpath.Set.ToJSON / FromJSON): a JSON trie keyed by serialized path
 * elements in path-element order, `{}` for a member leaf, and `".": {}` for a
 * node that is a member and also has children.
 */
import { FieldSet } from './fieldset.js';
import { type PathElement, comparePathElements, deserializePathElement, serializePathElement } from './path.js';
import { type JsonObject, type JsonValue, isJsonObject } from './value.js';

export function setToFieldsV1(set: FieldSet): JsonObject {
  return emit(set, false);
}

function emit(set: FieldSet, includeSelf: boolean): JsonObject {
  const out: JsonObject = {};
  const members = set.memberElements();
  const children = set.childNodes();
  if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = {};
  let mi = 0;
  let ci = 0;
  while (mi < members.length || ci < children.length) {
    const m = members[mi];
    const c = children[ci];
    const order = m === undefined ? 1 : c === undefined ? -1 : comparePathElements(m, c.pe);
    if (order < 0) {
      out[serializePathElement(m as PathElement)] = {};
      mi++;
    } else if (order > 0) {
      out[serializePathElement((c as { pe: PathElement }).pe)] = emit((c as { set: FieldSet }).set, false);
      ci++;
    } else {
      out[serializePathElement((c as { pe: PathElement }).pe)] = emit((c as { set: FieldSet }).set, true);
      mi++;
      ci++;
    }
  }
  return out;
}

/** Raised for FieldsV1 content that is not a field set. */
export class FieldsV1Error extends Error {}

/** FieldsToSet: parses FieldsV1 (null/absent is the empty set). */
export function fieldsV1ToSet(fields: JsonValue | undefined): FieldSet {
  if (fields === undefined || fields === null) return new FieldSet();
  if (!isJsonObject(fields)) throw new FieldsV1Error(`ReadMapCB: expect { or n, but found ${describe(fields)}`);
  return read(fields).children ?? new FieldSet();
}

function describe(v: JsonValue): string {
  if (Array.isArray(v)) return '[';
  if (typeof v === 'string') return '"';
  return String(v).slice(0, 1);
}

/** readIterV1: the subtree under a node, and whether the node itself is a member. */
function read(obj: JsonObject): { children: FieldSet | undefined; isMember: boolean } {
  let children: FieldSet | undefined;
  let isMember = false;
  for (const key of Object.keys(obj)) {
    const value = obj[key] as JsonValue;
    if (key === '.') {
      isMember = true;
      continue;
    }
    let pe: PathElement | undefined;
    try {
      pe = deserializePathElement(key);
    } catch (err) {
      throw new FieldsV1Error(`parsing key as path element: ${err instanceof Error ? err.message : String(err)}`);
    }
    // Unknown element types come from a newer version: dropped, as upstream does.
    if (pe === undefined) continue;
    if (value !== null && !isJsonObject(value)) throw new FieldsV1Error(`ReadMapCB: expect { or n, but found ${describe(value)}`);
    const sub = value === null ? { children: undefined, isMember: true } : read(value);
    if (sub.isMember) {
      children ??= new FieldSet();
      children.insertMember(pe);
    }
    if (sub.children !== undefined) {
      children ??= new FieldSet();
      const target = children.descend(pe);
      const merged = target.union(sub.children);
      replaceContents(target, merged);
    }
  }
  if (children === undefined) isMember = true;
  return { children, isMember };
}

/** Copies merged's content into target (descend returns a live node we must fill in place). */
function replaceContents(target: FieldSet, merged: FieldSet): void {
  for (const m of merged.memberElements()) target.insertMember(m);
  for (const c of merged.childNodes()) {
    const t = target.descend(c.pe);
    replaceContents(t, c.set);
  }
}
