/**
 * RFC 6902 JSON Patch with the semantics kube-apiserver actually has, i.e.
 * those of gopkg.in/evanphx/json-patch.v4 (v4.13.0) as called from the PATCH
 * handler. Its quirks are part of the API contract and reproduced on purpose:
 *
 * - a path's first segment is ignored ("a/b" acts like "/b"); a path without
 *   any "/" (including "") does not resolve, except "" for replace and test;
 * - negative array indices count from the end;
 * - "replace" of a missing object member adds it (only arrays check bounds);
 * - "copy" from a missing object member copies null;
 * - "test" of a missing member with value null (or no value) succeeds, and
 *   scalars compare by their encoded JSON text (1 ≠ 1.0; "&" in the object is
 *   encoded \u0026 by kube, so a raw "&" in the patch does not match);
 * - the whole document may only be replaced by an object or an array.
 *
 * Inputs are never mutated: containers on the paths an operation touches are
 * copied once per call, everything else is shared with the input.
 */

import { GoPanic, goJsonEncode, goJsonNumber, goJsonString } from '../machinery/go-compat.js';
import {
  JsonPatchApplyError,
  JsonPatchTooLargeError,
  MAX_JSON_PATCH_COPY_BYTES,
  MAX_JSON_PATCH_OPERATIONS,
  PatchDecodeError,
  PatchPanicError,
} from './errors.js';
import { type JsonAst, JsonSyntaxError, JsonTypeError, astKindName, astToValue, parseJsonAst } from '../machinery/json-decode.js';
import { type JsonObject, type JsonValue, copyObject, getOwn, hasOwn, isJsonObject, setOwn } from '../machinery/json-value.js';
import type { OutOfRangeNumbers } from './out-of-range-numbers.js';

/** One decoded operation: members as raw trees (absent → undefined, null → null AST). */
export interface JsonPatchOperation {
  readonly members: ReadonlyMap<string, JsonAst>;
}

export interface JsonPatchOptions {
  /** Operation count above which the patch is rejected (413); kube uses 10000. */
  maxOperations?: number;
  /** Limit on bytes added by "copy" operations; kube's default JSONPatchMaxCopyBytes is 3 MiB. 0 = unlimited. */
  maxCopyBytes?: number;
  /** Carries literals beyond float64's range as placeholders (see out-of-range-numbers.ts). */
  numbers?: OutOfRangeNumbers;
}

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

/**
 * jsonpatch.DecodePatch: the body must be a JSON array of objects (or null).
 * Throws PatchDecodeError carrying encoding/json's message.
 */
export function decodeJsonPatch(patch: string | Uint8Array, numbers?: OutOfRangeNumbers): JsonPatchOperation[] {
  let ast: JsonAst;
  try {
    ast = parseJsonAst(patch);
    if (numbers) ast = numbers.protect(ast);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new PatchDecodeError(err.message);
    throw err;
  }
  if (ast.kind === 'null') return [];
  if (ast.kind !== 'array') throw new PatchDecodeError(new JsonTypeError(astKindName(ast), 'jsonpatch.Patch').message);
  const ops: JsonPatchOperation[] = [];
  for (const item of ast.items) {
    if (item.kind === 'null') {
      ops.push({ members: new Map() });
      continue;
    }
    if (item.kind !== 'object') {
      throw new PatchDecodeError(new JsonTypeError(astKindName(item), 'jsonpatch.Operation').message);
    }
    const members = new Map<string, JsonAst>();
    for (const [k, v] of item.members) members.set(k, v);
    ops.push({ members });
  }
  return ops;
}

/**
 * Decodes and applies a JSON patch the way kube's PATCH handler does:
 * decode (400), count (413), apply (422). `doc` must be JSON data (plain
 * objects, arrays, strings, finite numbers, booleans, null). Returns the new document.
 */
export function applyJsonPatch(doc: unknown, patch: string | Uint8Array, options: JsonPatchOptions = {}): JsonValue {
  const ops = decodeJsonPatch(patch, options.numbers);
  const max = options.maxOperations ?? MAX_JSON_PATCH_OPERATIONS;
  if (ops.length > max) throw new JsonPatchTooLargeError(ops.length);
  return applyJsonPatchOperations(doc, ops, options);
}

export function applyJsonPatchOperations(
  doc: unknown,
  ops: readonly JsonPatchOperation[],
  options: JsonPatchOptions = {},
): JsonValue {
  const state = new ApplyState(doc as JsonValue, options.maxCopyBytes ?? MAX_JSON_PATCH_COPY_BYTES);
  try {
    for (const op of ops) applyOne(state, op);
  } catch (err) {
    if (err instanceof GoPanic) throw new PatchPanicError(err.message);
    throw err;
  }
  return state.root;
}

function applyOne(state: ApplyState, op: JsonPatchOperation): void {
  const kind = stringMember(op, 'op') ?? 'unknown';
  switch (kind) {
    case 'add':
      return state.add(op);
    case 'remove':
      return state.remove(op);
    case 'replace':
      return state.replace(op);
    case 'move':
      return state.move(op);
    case 'test':
      return state.test(op);
    case 'copy':
      return state.copy(op);
    default:
      throw new JsonPatchApplyError(`Unexpected kind: ${kind}`);
  }
}

/** Operation.Kind()/Path()/From(): a present, non-null member that decodes as a string. */
function stringMember(op: JsonPatchOperation, name: string): string | undefined {
  const v = op.members.get(name);
  return v?.kind === 'string' ? v.value : undefined;
}

function pathOf(op: JsonPatchOperation, verb: string): string {
  const v = op.members.get('path');
  if (v === undefined || v.kind === 'null') {
    throw new JsonPatchApplyError(`${verb} operation failed to decode path: operation missing path field: ${MISSING}`);
  }
  if (v.kind !== 'string') {
    throw new JsonPatchApplyError(`${verb} operation failed to decode path: json: cannot unmarshal ${astKindName(v)} into Go value of type string`);
  }
  return v.value;
}

function fromOf(op: JsonPatchOperation, verb: string): string {
  const v = op.members.get('from');
  if (v === undefined || v.kind === 'null') {
    throw new JsonPatchApplyError(`${verb} operation failed to decode from: operation, missing from field: ${MISSING}`);
  }
  if (v.kind !== 'string') {
    throw new JsonPatchApplyError(`${verb} operation failed to decode from: json: cannot unmarshal ${astKindName(v)} into Go value of type string`);
  }
  return v.value;
}

/** The value member as a plain value; absent and null both mean null. */
function valueOf(op: JsonPatchOperation): JsonValue {
  const v = op.members.get('value');
  return v === undefined ? null : astToValue(v);
}

function decodeKey(k: string): string {
  // RFC 6901: "~1" then "~0", in one left-to-right pass like strings.Replacer.
  return k.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

/** strconv.Atoi, including its error texts. */
function atoi(s: string): number {
  if (/^[+-]?[0-9]+$/.test(s)) {
    const n = Number(s);
    if (Math.abs(n) <= 9223372036854775807) return n;
    throw new Error(`strconv.Atoi: parsing "${s}": value out of range`);
  }
  throw new Error(`strconv.Atoi: parsing ${goJsonString(s)}: invalid syntax`);
}

type Container = JsonObject | JsonValue[];

class ApplyState {
  root: JsonValue;
  private readonly owned = new WeakSet<object>();
  private copied = 0;

  constructor(
    doc: JsonValue,
    private readonly maxCopyBytes: number,
  ) {
    this.root = doc;
  }

  private own<T extends Container>(c: T): T {
    if (this.owned.has(c)) return c;
    const copy = (Array.isArray(c) ? c.slice() : copyObject(c)) as T;
    this.owned.add(copy);
    return copy;
  }

  /**
   * A value safe to place at a second location: containers this call may
   * still mutate in place are copied; untouched input stays shared.
   */
  private detach(v: JsonValue): JsonValue {
    if (!isContainer(v) || !this.owned.has(v)) return v;
    if (Array.isArray(v)) return v.map((x) => this.detach(x));
    const out: JsonObject = {};
    for (const k of Object.keys(v)) setOwn(out, k, this.detach(v[k] as JsonValue));
    return out;
  }

  /**
   * findObject: walks all but the last segment. With `write`, containers on
   * the way are replaced by private copies so the caller may mutate the result.
   */
  private find(path: string, write: boolean): { con: Container; key: string } | undefined {
    const split = path.split('/');
    if (split.length < 2) return undefined;
    if (!isContainer(this.root)) return undefined;
    let con: Container = write ? this.own(this.root) : this.root;
    if (write) this.root = con;
    for (const part of split.slice(1, -1)) {
      const key = decodeKey(part);
      let next: JsonValue | undefined;
      let index = -1;
      if (Array.isArray(con)) {
        try {
          index = arrayIndex(con, key);
        } catch {
          return undefined;
        }
        next = con[index];
      } else {
        next = getOwn(con, key);
      }
      if (next === undefined || next === null || !isContainer(next)) return undefined;
      if (write) {
        next = this.own(next);
        if (Array.isArray(con)) con[index] = next;
        else setOwn(con, key, next);
      }
      con = next;
    }
    return { con, key: decodeKey(split[split.length - 1] as string) };
  }

  add(op: JsonPatchOperation): void {
    const path = pathOf(op, 'add');
    const found = this.find(path, true);
    if (!found) throw new JsonPatchApplyError(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
    try {
      containerAdd(found.con, found.key, valueOf(op));
    } catch (err) {
      throw new JsonPatchApplyError(`error in add for path: '${path}': ${messageOf(err)}`);
    }
  }

  remove(op: JsonPatchOperation): void {
    const path = pathOf(op, 'remove');
    const found = this.find(path, true);
    if (!found) throw new JsonPatchApplyError(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
    try {
      containerRemove(found.con, found.key);
    } catch (err) {
      throw new JsonPatchApplyError(`error in remove for path: '${path}': ${messageOf(err)}`);
    }
  }

  replace(op: JsonPatchOperation): void {
    const path = pathOf(op, 'replace');
    if (path === '') {
      const v = valueOf(op);
      if (!isContainer(v)) throw new JsonPatchApplyError('replace operation value must be object or array: %!w(<nil>)');
      this.root = v;
      return;
    }
    const found = this.find(path, true);
    if (!found) throw new JsonPatchApplyError(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
    const { con, key } = found;
    if (Array.isArray(con)) {
      let index: number;
      try {
        index = arrayIndex(con, key);
      } catch {
        throw new JsonPatchApplyError(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
      }
      con[index] = valueOf(op);
    } else {
      // An object member need not exist: the library's get never fails there.
      setOwn(con, key, valueOf(op));
    }
  }

  move(op: JsonPatchOperation): void {
    const from = fromOf(op, 'move');
    const src = this.find(from, true);
    if (!src) throw new JsonPatchApplyError(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
    let val: JsonValue;
    try {
      val = containerGet(src.con, src.key) ?? null;
      containerRemove(src.con, src.key);
    } catch (err) {
      throw new JsonPatchApplyError(`error in move for path: '${src.key}': ${messageOf(err)}`);
    }
    const path = pathOf(op, 'move');
    const dst = this.find(path, true);
    if (!dst) throw new JsonPatchApplyError(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
    try {
      containerAdd(dst.con, dst.key, val);
    } catch (err) {
      throw new JsonPatchApplyError(`error in move for path: '${path}': ${messageOf(err)}`);
    }
  }

  copy(op: JsonPatchOperation): void {
    const from = fromOf(op, 'copy');
    const src = this.find(from, false);
    if (!src) throw new JsonPatchApplyError(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
    let val: JsonValue;
    try {
      // A missing object member reads as nil, and copying nil adds null.
      val = containerGet(src.con, src.key) ?? null;
    } catch (err) {
      throw new JsonPatchApplyError(`error in copy for from: '${from}': ${messageOf(err)}`);
    }
    const path = pathOf(op, 'copy');
    const dst = this.find(path, true);
    if (!dst) throw new JsonPatchApplyError(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
    // The library sizes a copy by its encoding; a nil node (missing or null) counts 0.
    this.copied += val === null ? 0 : Buffer.byteLength(goJsonEncode(val));
    if (this.maxCopyBytes > 0 && this.copied > this.maxCopyBytes) {
      throw new JsonPatchApplyError(
        `Unable to complete the copy, the accumulated size increase of copy is ${this.copied}, exceeding the limit ${this.maxCopyBytes}`,
      );
    }
    try {
      containerAdd(dst.con, dst.key, this.detach(val));
    } catch (err) {
      throw new JsonPatchApplyError(`error while adding value during copy: ${messageOf(err)}`);
    }
  }

  test(op: JsonPatchOperation): void {
    const path = pathOf(op, 'test');
    const expected = op.members.get('value');
    if (path === '') {
      if (expected !== undefined && rawEqual(this.root, expected)) return;
      throw new JsonPatchApplyError(`testing value ${path} failed: test failed`);
    }
    const found = this.find(path, false);
    if (!found) throw new JsonPatchApplyError(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
    let actual: JsonValue | undefined;
    try {
      actual = containerGet(found.con, found.key);
    } catch (err) {
      throw new JsonPatchApplyError(`error in test for path: '${path}': ${messageOf(err)}`);
    }
    if (actual === undefined || actual === null) {
      // The library holds both a missing member and null as a nil node.
      if (expected === undefined || expected.kind === 'null') return;
      throw new JsonPatchApplyError(`testing value ${path} failed: test failed`);
    }
    if (expected !== undefined && rawEqual(actual, expected)) return;
    throw new JsonPatchApplyError(`testing value ${path} failed: test failed`);
  }
}

function isContainer(v: JsonValue | undefined): v is Container {
  return Array.isArray(v) || isJsonObject(v);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** partialArray index resolution shared by get/set/remove (negative indices allowed). */
function arrayIndex(arr: readonly JsonValue[], key: string): number {
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -arr.length) throw new Error(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
    idx += arr.length;
  }
  if (idx >= arr.length) throw new Error(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  return idx;
}

function containerGet(con: Container, key: string): JsonValue | undefined {
  if (Array.isArray(con)) return con[arrayIndex(con, key)];
  return getOwn(con, key);
}

function containerAdd(con: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(con)) {
    setOwn(con, key, value);
    return;
  }
  if (key === '-') {
    con.push(value);
    return;
  }
  let idx: number;
  try {
    idx = atoi(key);
  } catch (err) {
    throw new Error(`value was not a proper array index: '${key}': ${messageOf(err)}`);
  }
  const size = con.length + 1;
  if (idx >= size) throw new Error(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  if (idx < 0) {
    if (idx < -size) throw new Error(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
    idx += size;
  }
  con.splice(idx, 0, value);
}

function containerRemove(con: Container, key: string): void {
  if (!Array.isArray(con)) {
    if (!hasOwn(con, key)) throw new Error(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete con[key];
    return;
  }
  let idx = atoi(key);
  if (idx >= con.length) throw new Error(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  if (idx < 0) {
    if (idx < -con.length) throw new Error(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
    idx += con.length;
  }
  con.splice(idx, 1);
}

/**
 * lazyNode.equal between a document value and the patch's raw value: objects
 * and arrays structurally, scalars by comparing the patch's source text with
 * how kube's encoder (encoding/json) writes the document's value.
 */
type RawEqualTask =
  | { readonly kind: 'value'; readonly actual: JsonValue | undefined; readonly expected: JsonAst; readonly inArray: boolean }
  | { readonly kind: 'member'; readonly actual: JsonObject; readonly key: string; readonly members: ReadonlyMap<string, JsonAst> };

function rawEqual(actual: JsonValue | undefined, expected: JsonAst): boolean {
  // Depth first in the library's order (so a nil element panics only when
  // reached before a difference), on an explicit stack: nesting is the client's.
  const stack: RawEqualTask[] = [{ kind: 'value', actual, expected, inArray: false }];
  for (let t = stack.pop(); t !== undefined; t = stack.pop()) {
    if (t.kind === 'member') {
      const e = t.members.get(t.key);
      if (e === undefined) return false;
      const v = t.actual[t.key] as JsonValue;
      if ((v === null) !== (e.kind === 'null')) return false;
      if (v !== null) stack.push({ kind: 'value', actual: v, expected: e, inArray: false });
      continue;
    }
    const { actual: a, expected: e } = t;
    if (a === null && t.inArray) {
      // The library dereferences a nil element here and panics.
      throw new GoPanic('invalid memory address or nil pointer dereference');
    }
    if (a === undefined || a === null) {
      if (e.kind !== 'null') return false;
    } else if (Array.isArray(a)) {
      if (e.kind !== 'array' || e.items.length !== a.length) return false;
      for (let i = a.length - 1; i >= 0; i--) stack.push({ kind: 'value', actual: a[i] as JsonValue, expected: e.items[i] as JsonAst, inArray: true });
    } else if (isJsonObject(a)) {
      if (e.kind !== 'object') return false;
      const members = new Map<string, JsonAst>();
      for (const [k, v] of e.members) members.set(k, v);
      const keys = Object.keys(a);
      if (keys.length !== members.size) return false;
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ kind: 'member', actual: a, key: keys[i] as string, members });
    } else if (!scalarRawEqual(a, e)) {
      return false;
    }
  }
  return true;
}

/** A scalar of the document against the patch's source text, as kube's encoder writes it. */
function scalarRawEqual(actual: string | number | boolean, expected: JsonAst): boolean {
  switch (expected.kind) {
    case 'string':
      return typeof actual === 'string' && goJsonString(actual) === expected.raw;
    case 'number':
      return typeof actual === 'number' && goJsonNumber(actual) === expected.raw;
    case 'bool':
      return actual === expected.value;
    default:
      return false;
  }
}
