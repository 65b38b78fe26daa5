/**
 * Kubernetes strategic merge patch, server side: the apply half of
 * k8s.io/apimachinery/pkg/util/strategicpatch (v0.36) as kube-apiserver runs it
 * (StrategicMergeMapPatch with MergeParallelList and IgnoreUnmatchedNulls).
 *
 * The algorithm is reproduced step by step, including the parts that decide
 * list order ($setElementOrder, patch order, live order, and Go's stable sort
 * with an inconsistent comparator) and the errors with their texts. Two
 * deliberate modelling choices:
 *
 * - Patch keys are processed in the order they appear in the patch; Go ranges
 *   over a map in random order, which only matters for patches that both add
 *   to and delete from the same primitive list without $setElementOrder.
 * - Upstream mutates the live list in place while merging and later reads the
 *   mutated slice again to order server-only items (deletions shift it, new
 *   items fill the freed slots). SharedList models that aliasing, assuming the
 *   live slice has no spare capacity, which is what ToUnstructured produces
 *   for objects that went through conversion.
 *
 * Inputs are never mutated; results share unchanged subtrees with them.
 * Like upstream, values copied from the patch into places where the object
 * had nothing may keep leftover directives or nulls in nested list items;
 * kube drops those when converting the result to the typed object.
 */

import {
  GoPanic,
  type GoType,
  assertHashable,
  goEqual,
  goSliceStable,
  goSprint,
  goSprintS,
  goTypeName,
  goTypeOf,
} from '../machinery/go-compat.js';
import { PatchDecodeError, PatchPanicError, StrategicMergePatchError } from './errors.js';
import { JsonSyntaxError, JsonTypeError, astKindName, astToValue, parseJsonAst } from '../machinery/json-decode.js';
import { type JsonObject, type JsonValue, copyObject, getOwn, hasOwn, isJsonObject, setOwn } from '../machinery/json-value.js';
import { PatchSchema } from './schema.js';
import { firstOutOfRange } from './out-of-range-numbers.js';

const DIRECTIVE_MARKER = '$patch';
const DELETE_DIRECTIVE = 'delete';
const REPLACE_DIRECTIVE = 'replace';
const MERGE_DIRECTIVE = 'merge';
const RETAIN_KEYS_STRATEGY = 'retainKeys';
const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

// Sentinel errors of k8s.io/apimachinery/pkg/util/mergepatch and how
// interpretStrategicMergePatchError classifies them.
export const ERR_NO_LIST_OF_LISTS = 'lists of lists are not supported';
export const ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST = 'invalid patch format of primitive list';
export const ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS = 'invalid patch format of retainKeys';
export const ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST = 'invalid patch format of setElementOrder list';
export const ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT = 'strategic merge patch format is not supported';

const badRequest = (message: string): StrategicMergePatchError => new StrategicMergePatchError(message, 'bad-request');
const internal = (message: string): StrategicMergePatchError => new StrategicMergePatchError(message, 'internal');

/** mergepatch.ErrUnsupportedStrategicMergePatchFormat (400), for callers rejecting schemaless kinds. */
export function unsupportedStrategicMergePatchFormat(): StrategicMergePatchError {
  return badRequest(ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT);
}

function errNoMergeKey(m: JsonObject, key: string): StrategicMergePatchError {
  return internal(`map: ${goSprint(m)} does not contain declared merge key: ${key}`);
}

function errBadArgType(expected: 'map[string]interface {}' | '[]interface {}', actual: JsonValue | undefined): StrategicMergePatchError {
  return internal(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}

/**
 * Decodes a strategic merge patch body the way the handler does
 * (sigs.k8s.io/json into map[string]interface{}); failures are 400 with the
 * decoder's text. `null` decodes to an empty patch.
 */
export function decodeStrategicMergePatch(patch: string | Uint8Array): JsonObject {
  let value: JsonValue;
  try {
    const ast = parseJsonAst(patch);
    if (ast.kind !== 'object' && ast.kind !== 'null') {
      throw new PatchDecodeError(new JsonTypeError(astKindName(ast), 'map[string]interface {}').message);
    }
    // Into interface{}, a number float64 cannot hold fails (the first one, in document order).
    const outOfRange = firstOutOfRange(ast);
    if (outOfRange !== undefined) throw new PatchDecodeError(new JsonTypeError(`number ${outOfRange}`, 'float64').message);
    value = astToValue(ast);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new PatchDecodeError(err.message);
    throw err;
  }
  return value === null ? {} : (value as JsonObject);
}

/**
 * Applies a strategic merge patch to `doc` (the object as served, i.e. the
 * versioned object as JSON data). `patch` is preferably the request body
 * (string/bytes) so decoding failures get kube's answer; otherwise an
 * already-decoded patch (null = empty patch). Returns the patched object.
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, schema: PatchSchema = PatchSchema.unknown): JsonObject {
  let patchMap: JsonObject;
  if (typeof patch === 'string' || patch instanceof Uint8Array) {
    patchMap = decodeStrategicMergePatch(patch);
  } else if (patch === null || patch === undefined) {
    patchMap = {};
  } else if (isJsonObject(patch)) {
    patchMap = patch;
  } else {
    const kind = Array.isArray(patch) ? 'array' : typeof patch === 'boolean' ? 'bool' : typeof patch;
    throw new PatchDecodeError(new JsonTypeError(kind, 'map[string]interface {}').message);
  }
  if (!isJsonObject(doc)) throw errBadArgType('map[string]interface {}', doc as JsonValue);
  try {
    return runMergeMap(doc, patchMap, schema);
  } catch (err) {
    if (err instanceof GoPanic) throw new PatchPanicError(err.message);
    throw err;
  }
}

/** extractRetainKeysPatchStrategy: the strategy other than retainKeys. */
function patchStrategyOf(strategies: readonly string[]): string {
  switch (strategies.length) {
    case 0:
      return '';
    case 1:
      return strategies[0] === RETAIN_KEYS_STRATEGY ? '' : (strategies[0] as string);
    case 2:
      if (strategies[0] === RETAIN_KEYS_STRATEGY) return strategies[1] as string;
      if (strategies[1] === RETAIN_KEYS_STRATEGY) return strategies[0] as string;
  }
  throw internal(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

/** A nested mergeMap call, handed to runMergeMap, which answers with its result. */
interface MergeMapCall {
  readonly original: JsonObject | undefined;
  readonly patch: JsonObject;
  readonly schema: PatchSchema;
}

/** The steps of one mergeMap level: yields for each nested map merge it needs. */
type MergeSteps<T> = Generator<MergeMapCall, T, JsonObject>;

/**
 * mergeMap without recursion on the JS stack: each level is a generator that
 * yields its nested merges, run here from an explicit stack, so a patch
 * nested as deep as the decoders allow (10,000) merges as it does in Go.
 * Errors leave from the level that raised them, in upstream's order.
 */
function runMergeMap(original: JsonObject | undefined, patch: JsonObject, schema: PatchSchema): JsonObject {
  const stack: Array<MergeSteps<JsonObject>> = [mergeMap(original, patch, schema)];
  let answer: JsonObject | undefined;
  for (;;) {
    const top = stack[stack.length - 1] as MergeSteps<JsonObject>;
    const step = top.next(answer as JsonObject);
    if (step.done) {
      stack.pop();
      if (stack.length === 0) return step.value;
      answer = step.value;
    } else {
      stack.push(mergeMap(step.value.original, step.value.patch, step.value.schema));
      answer = undefined;
    }
  }
}

function* mergeMap(original: JsonObject | undefined, patch: JsonObject, schema: PatchSchema): MergeSteps<JsonObject> {
  if (hasOwn(patch, DIRECTIVE_MARKER)) return handleDirectiveInMergeMap(patch[DIRECTIVE_MARKER] as JsonValue, patch);

  const out = original ? copyObject(original) : {};
  const pending = new Map<string, JsonValue>();
  for (const k of Object.keys(patch)) pending.set(k, patch[k] as JsonValue);

  applyRetainKeysDirective(out, pending);
  yield* mergePatchIntoOriginal(out, pending, schema);

  for (const [key, patchV] of pending) {
    let k = key;
    let isDeleteList = false;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      isDeleteList = true;
      const originalKey = extractKey(key, DELETE_FROM_PRIMITIVE_LIST_PREFIX);
      if (originalKey.length > 0) k = originalKey;
    }

    // null deletes, also when it is the value of a deletion list.
    if (patchV === null) {
      delete out[k];
      continue;
    }

    const present = hasOwn(out, k);
    const originalV = present ? (out[k] as JsonValue) : undefined;
    const originalType = goTypeOf(originalV);
    if (!present || originalType !== goTypeOf(patchV)) {
      if (!isDeleteList) storeRemovingDirectives(out, k, discardNullValues(patchV));
      continue;
    }

    switch (originalType) {
      case 'map': {
        const field = schema.lookupField(k);
        const strategy = patchStrategyOf(field.strategies);
        setOwn(out, k, strategy === REPLACE_DIRECTIVE ? patchV : yield { original: originalV as JsonObject, patch: patchV as JsonObject, schema: field.schema });
        break;
      }
      case 'slice': {
        const field = schema.lookupSlice(k);
        const strategy = patchStrategyOf(field.strategies);
        const r = yield* mergeSliceHandler(originalV as JsonValue[], patchV as JsonValue[], field.schema, strategy, field.mergeKey, isDeleteList);
        setOwn(out, k, r.merged);
        break;
      }
      default:
        storeRemovingDirectives(out, k, patchV);
    }
  }
  return out;
}

function storeRemovingDirectives(out: JsonObject, key: string, value: JsonValue): void {
  const r = removeDirectives(value);
  if (r.keep) setOwn(out, key, r.value);
  else delete out[key];
}

function handleDirectiveInMergeMap(directive: JsonValue, patch: JsonObject): JsonObject {
  if (directive === REPLACE_DIRECTIVE) {
    // The rest of the patch is taken as is, nested directives included.
    const out = copyObject(patch);
    delete out[DIRECTIVE_MARKER];
    return out;
  }
  if (directive === DELETE_DIRECTIVE) return {};
  throw internal(`unknown patch type: ${goSprintS(directive)} in map: ${goSprint(patch)}`);
}

function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    throw badRequest(
      prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX ? ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST : ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST,
    );
  }
  return s.slice(slash + 1);
}

/**
 * $retainKeys: every other patch field must be listed, and fields of the
 * object not listed are cleared. Independent of the schema's strategy.
 */
function applyRetainKeysDirective(out: JsonObject, pending: Map<string, JsonValue>): void {
  if (!pending.has(RETAIN_KEYS_DIRECTIVE)) return;
  const retain = pending.get(RETAIN_KEYS_DIRECTIVE) as JsonValue;
  pending.delete(RETAIN_KEYS_DIRECTIVE);
  if (!Array.isArray(retain)) throw badRequest(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS);
  const keep = new Set<JsonValue>();
  for (const v of retain) {
    assertHashable(v);
    keep.add(v);
  }
  for (const [k, v] of pending) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!keep.has(k)) throw badRequest(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS);
  }
  for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
}

/**
 * Processes each $setElementOrder/<list> together with <list>: merges them,
 * then orders the result by $setElementOrder, keeping items only the server
 * has where the live list had them.
 */
function* mergePatchIntoOriginal(out: JsonObject, pending: Map<string, JsonValue>, schema: PatchSchema): MergeSteps<void> {
  for (const key of [...pending.keys()]) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX) || !pending.has(key)) continue;
    const setOrder = pending.get(key) as JsonValue;
    pending.delete(key);
    if (!Array.isArray(setOrder)) throw errBadArgType('[]interface {}', setOrder);
    const originalKey = extractKey(key, SET_ELEMENT_ORDER_PREFIX);

    const foundOriginal = hasOwn(out, originalKey);
    const foundPatch = pending.has(originalKey);
    let originalList: JsonValue[] = [];
    let patchList: JsonValue[] = [];
    if (foundOriginal) {
      const v = out[originalKey];
      if (!Array.isArray(v)) throw errBadArgType('[]interface {}', v);
      originalList = v;
    }
    if (foundPatch) {
      const v = pending.get(originalKey);
      if (!Array.isArray(v)) throw errBadArgType('[]interface {}', v);
      patchList = v;
    }

    const field = schema.lookupSlice(originalKey);
    const strategy = patchStrategyOf(field.strategies);
    const mergeKey = field.mergeKey;
    validatePatchWithSetOrderList(patchList, setOrder, mergeKey);

    let merged: JsonValue[];
    if (foundOriginal && !foundPatch) {
      merged = originalList;
    } else if (!foundOriginal && foundPatch) {
      merged = removeDirectives(patchList).value as JsonValue[];
    } else if (foundOriginal && foundPatch) {
      const r = yield* mergeSliceHandler(originalList, patchList, field.schema, strategy, mergeKey, false);
      merged = r.merged;
      originalList = r.originalAfter;
    } else {
      continue;
    }

    const [patchItems, serverOnly] =
      mergeKey.length === 0 ? partitionPrimitivesByPresentInList(merged, setOrder) : partitionMapsByPresentInList(merged, setOrder, mergeKey);
    const elementType = sliceElementType([originalList, patchList]);
    setOwn(out, originalKey, normalizeElementOrder(patchItems, serverOnly, setOrder, originalList, mergeKey, elementType));
    pending.delete(originalKey);
  }
}

function validatePatchWithSetOrderList(patchList: JsonValue[], setOrder: JsonValue[], mergeKey: string): void {
  if (setOrder.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey.length > 0 ? extractToDeleteItems(patchList)[0] : patchList;
  let patchIndex = 0;
  let setOrderIndex = 0;
  while (patchIndex < nonDelete.length && setOrderIndex < setOrder.length) {
    const item = nonDelete[patchIndex] as JsonValue;
    if (isJsonObject(item) && hasOwn(item, DIRECTIVE_MARKER)) {
      patchIndex++;
      continue;
    }
    if (mergeKeyValueEqual(item, setOrder[setOrderIndex] as JsonValue, mergeKey)) patchIndex++;
    setOrderIndex++;
  }
  if (patchIndex < nonDelete.length && setOrderIndex >= setOrder.length) {
    throw internal(`The order in patch list:\n${goSprint(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goSprint(setOrder)}\n`);
  }
}

function mergeKeyValueEqual(left: JsonValue, right: JsonValue, mergeKey: string): boolean {
  if (mergeKey.length === 0) return goEqual(left, right);
  if (!isJsonObject(left)) throw errBadArgType('map[string]interface {}', left);
  if (!isJsonObject(right)) throw errBadArgType('map[string]interface {}', right);
  if (!hasOwn(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!hasOwn(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return goEqual(left[mergeKey], right[mergeKey]);
}

interface SliceMergeResult {
  merged: JsonValue[];
  /** The caller's view of the live list after upstream's in-place edits. */
  originalAfter: JsonValue[];
}

function* mergeSliceHandler(
  original: JsonValue[],
  patch: JsonValue[],
  schema: PatchSchema,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
): MergeSteps<SliceMergeResult> {
  // Deletion lists apply whatever the field's strategy is.
  if (strategy === MERGE_DIRECTIVE || isDeleteList) return yield* mergeSlice(original, patch, schema, mergeKey, isDeleteList);
  return { merged: patch, originalAfter: original };
}

/**
 * A Go slice sharing its backing array with the caller's slice of the live
 * list: deletions shift elements left inside it and appends refill the tail,
 * and the caller still sees the first `callerLen` slots afterwards.
 */
class SharedList {
  private readonly backing: JsonValue[];
  private len: number;
  private readonly callerLen: number;
  private detached: JsonValue[] | undefined;

  constructor(original: JsonValue[]) {
    this.backing = original.slice();
    this.len = original.length;
    this.callerLen = original.length;
  }

  get length(): number {
    return this.detached ? this.detached.length : this.len;
  }

  at(i: number): JsonValue {
    return (this.detached ? this.detached[i] : this.backing[i]) as JsonValue;
  }

  set(i: number, v: JsonValue): void {
    if (this.detached) this.detached[i] = v;
    else this.backing[i] = v;
  }

  /** append(s[:i], s[i+1:]...) */
  removeAt(i: number): void {
    if (this.detached) {
      this.detached.splice(i, 1);
      return;
    }
    this.backing.copyWithin(i, i + 1, this.len);
    this.len--;
  }

  append(v: JsonValue): void {
    if (this.detached) this.detached.push(v);
    else this.backing[this.len++] = v;
  }

  /** The slice variable now points at a fresh array. */
  replaceWith(items: JsonValue[]): void {
    this.detached = items.slice();
  }

  items(): JsonValue[] {
    return this.detached ? this.detached.slice() : this.backing.slice(0, this.len);
  }

  callerView(): JsonValue[] {
    return this.backing.slice(0, this.callerLen);
  }
}

function* mergeSlice(original: JsonValue[], patch: JsonValue[], schema: PatchSchema, mergeKey: string, isDeleteList: boolean): MergeSteps<SliceMergeResult> {
  if (original.length === 0 && patch.length === 0) return { merged: original, originalAfter: original };

  const elementType = sliceElementType([original, patch]);
  if (elementType !== 'map') {
    if (isDeleteList) return { merged: deleteFromSlice(original, patch), originalAfter: original };
    let merged: JsonValue[];
    let originalAfter = original;
    if (patch.length === 0) {
      // append(original) reuses original's array, so deduplication edits it in place.
      const backing = original.slice();
      merged = deduplicateScalars(backing);
      originalAfter = backing;
    } else {
      merged = deduplicateScalars([...original, ...patch]);
    }
    const [patchItems, serverOnly] =
      mergeKey.length === 0 ? partitionPrimitivesByPresentInList(merged, patch) : partitionMapsByPresentInList(merged, patch, mergeKey);
    return { merged: normalizeElementOrder(patchItems, serverOnly, patch, originalAfter, mergeKey, elementType), originalAfter };
  }

  if (mergeKey === '') throw internal(`cannot merge lists without merge key for ${schema.goKind}`);

  const list = new SharedList(original);
  const patchWithout = mergeSliceWithSpecialElements(list, patch, mergeKey);
  // After $patch: replace upstream continues with a nil patch.
  const effectivePatch = patchWithout ?? [];
  const serverOrderLength = list.length;
  yield* mergeSliceWithoutSpecialElements(list, effectivePatch, mergeKey, schema);
  const merged = list.items();
  // mergeSlice's own `original` is the list after deletions, without appended items.
  const serverOrder = merged.slice(0, serverOrderLength);
  const [patchItems, serverOnly] = partitionMapsByPresentInList(merged, effectivePatch, mergeKey);
  return {
    merged: normalizeElementOrder(patchItems, serverOnly, effectivePatch, serverOrder, mergeKey, elementType),
    originalAfter: list.callerView(),
  };
}

/**
 * Handles items carrying $patch: deletes matching live items, or (replace)
 * makes the patch's plain items the new list. Returns the plain patch items,
 * or undefined after a replace.
 */
function mergeSliceWithSpecialElements(list: SharedList, patch: JsonValue[], mergeKey: string): JsonValue[] | undefined {
  const plain: JsonValue[] = [];
  let replace = false;
  for (const v of patch) {
    const item = v as JsonObject;
    if (!hasOwn(item, DIRECTIVE_MARKER)) {
      plain.push(v);
      continue;
    }
    const patchType = item[DIRECTIVE_MARKER] as JsonValue;
    if (patchType === DELETE_DIRECTIVE) {
      if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      deleteMatchingEntries(list, mergeKey, item[mergeKey] as JsonValue);
    } else if (patchType === REPLACE_DIRECTIVE) {
      // Keep scanning so other directive items are still validated.
      replace = true;
    } else if (patchType === MERGE_DIRECTIVE) {
      throw internal('merging lists cannot yet be specified in the patch');
    } else {
      throw internal(`unknown patch type: ${goSprintS(patchType)} in map: ${goSprint(item)}`);
    }
  }
  if (replace) {
    list.replaceWith(plain);
    return undefined;
  }
  return plain;
}

function deleteMatchingEntries(list: SharedList, mergeKey: string, mergeValue: JsonValue): void {
  for (;;) {
    const found = findMapInList(list, mergeKey, mergeValue);
    if (found < 0) return;
    list.removeAt(found);
  }
}

function* mergeSliceWithoutSpecialElements(list: SharedList, patch: JsonValue[], mergeKey: string, schema: PatchSchema): MergeSteps<void> {
  for (const v of patch) {
    const item = v as JsonObject;
    if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    const found = findMapInList(list, mergeKey, item[mergeKey] as JsonValue);
    if (found >= 0) list.set(found, yield { original: list.at(found) as JsonObject, patch: item, schema });
    else list.append(v);
  }
}

/** findMapInSliceBasedOnKeyValue over a SharedList; -1 when absent. */
function findMapInList(list: SharedList, key: string, value: JsonValue): number {
  for (let i = 0; i < list.length; i++) {
    const v = list.at(i);
    if (!isJsonObject(v)) throw internal(`value for key ${i} is not a map`);
    if (hasOwn(v, key) && goEqual(v[key], value)) return i;
  }
  return -1;
}

function findMapInSlice(items: readonly JsonValue[], key: string, value: JsonValue): boolean {
  for (let i = 0; i < items.length; i++) {
    const v = items[i] as JsonValue;
    if (!isJsonObject(v)) throw internal(`value for key ${i} is not a map`);
    if (hasOwn(v, key) && goEqual(v[key], value)) return true;
  }
  return false;
}

function deleteFromSlice(current: JsonValue[], toDelete: JsonValue[]): JsonValue[] {
  const drop = new Set<JsonValue>();
  for (const v of toDelete) {
    assertHashable(v);
    drop.add(v);
  }
  return current.filter((v) => {
    assertHashable(v);
    return !drop.has(v);
  });
}

/** Upstream's in-place deduplication, which reorders: a duplicate is overwritten by the last element. */
function deduplicateScalars(s: JsonValue[]): JsonValue[] {
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (goEqual(s[i], s[j])) {
        s[j] = s[length] as JsonValue;
        length--;
        j--;
      }
    }
  }
  return s.slice(0, length + 1);
}

/** The common element type of the lists; errors on mixed types, nested lists or no elements. */
function sliceElementType(slices: JsonValue[][]): GoType {
  let prev: GoType | undefined;
  for (const s of slices) {
    for (const v of s) {
      const current = goTypeOf(v);
      if (prev === undefined) {
        // reflect.TypeOf(nil).Kind() dereferences a nil interface.
        if (current === 'nil') throw new GoPanic('invalid memory address or nil pointer dereference');
        if (current === 'slice') throw new StrategicMergePatchError(ERR_NO_LIST_OF_LISTS, 'invalid');
        prev = current;
      } else if (prev !== current) {
        throw internal(`list element types are not identical: ${goSprint(slices)}`);
      }
    }
  }
  if (prev === undefined) throw internal('no elements in any of the given slices');
  return prev;
}

function partitionPrimitivesByPresentInList(original: JsonValue[], partitionBy: JsonValue[]): [JsonValue[], JsonValue[]] {
  const inPatch = new Set<JsonValue>();
  for (const v of partitionBy) {
    assertHashable(v);
    inPatch.add(v);
  }
  const patch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const v of original) {
    assertHashable(v);
    (inPatch.has(v) ? patch : serverOnly).push(v);
  }
  return [patch, serverOnly];
}

function partitionMapsByPresentInList(original: JsonValue[], partitionBy: JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  const patch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const v of original) {
    if (!isJsonObject(v)) throw errBadArgType('map[string]interface {}', v);
    if (!hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findMapInSlice(partitionBy, mergeKey, v[mergeKey] as JsonValue) ? patch : serverOnly).push(v);
  }
  return [patch, serverOnly];
}

/**
 * Sorts patch items by patchOrder and server-only items by serverOrder, then
 * interleaves them, keeping each server-only item before the first patch item
 * that the live list had after it.
 */
function normalizeElementOrder(
  patch: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: GoType,
): JsonValue[] {
  const sortedPatch = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const sortedServerOnly = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(sortedServerOnly, sortedPatch, serverOrder, mergeKey, kind);
}

function mergeSortedSlice(left: JsonValue[], right: JsonValue[], serverOrder: JsonValue[], mergeKey: string, kind: GoType): JsonValue[] {
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  const size = left.length + right.length;
  for (let k = 0; k < size; k++) {
    if (i >= left.length && j < right.length) {
      out.push(right[j++] as JsonValue);
    } else if (j >= right.length && i < left.length) {
      out.push(left[i++] as JsonValue);
    } else {
      const li = index(serverOrder, left[i] as JsonValue, mergeKey, kind);
      const ri = index(serverOrder, right[j] as JsonValue, mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++] as JsonValue);
      else out.push(right[j++] as JsonValue);
    }
  }
  return out;
}

/** Position of an item in a list, by merge key for maps, by value otherwise. */
function index(list: JsonValue[], item: JsonValue, mergeKey: string, kind: GoType): number {
  const valueOf =
    kind === 'map' ? (x: JsonValue): JsonValue => (isJsonObject(x) ? (getOwn(x, mergeKey) ?? null) : null) : (x: JsonValue): JsonValue => x;
  for (let i = 0; i < list.length; i++) {
    if (goEqual(valueOf(item), valueOf(list[i] as JsonValue))) return i;
  }
  return -1;
}

function extractToDeleteItems(list: JsonValue[]): [JsonValue[], JsonValue[]] {
  const nonDelete: JsonValue[] = [];
  const toDelete: JsonValue[] = [];
  for (const v of list) {
    if (!isJsonObject(v)) throw errBadArgType('map[string]interface {}', v);
    (hasOwn(v, DIRECTIVE_MARKER) && v[DIRECTIVE_MARKER] === DELETE_DIRECTIVE ? toDelete : nonDelete).push(v);
  }
  return [nonDelete, toDelete];
}

function normalizeSliceOrder(toSort: JsonValue[], order: JsonValue[], mergeKey: string, kind: GoType): JsonValue[] {
  let items = toSort.slice();
  let toDelete: JsonValue[] = [];
  if (kind === 'map') {
    for (const list of [items, order]) {
      for (const item of list) {
        if (!isJsonObject(item)) throw errBadArgType('map[string]interface {}', item);
        if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      }
    }
    [items, toDelete] = extractToDeleteItems(items);
  }
  // Upstream's comparator calls an item "less" whenever either side is missing
  // from `order`; the outcome then depends on the sort algorithm itself.
  goSliceStable(items, (a, b) => {
    const ia = index(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = index(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  });
  return [...items, ...toDelete];
}

/**
 * A copy of a value made without recursion (nesting is the client's to
 * choose): `keep` decides, per member or item, whether it is copied.
 */
function filteredCopy(v: JsonValue, keep: (child: JsonValue, inArray: boolean) => boolean): JsonValue {
  if (!Array.isArray(v) && !isJsonObject(v)) return v;
  const stack: Array<{ from: JsonValue[] | JsonObject; to: JsonValue[] | JsonObject }> = [];
  const start = (x: JsonValue): JsonValue => {
    if (!Array.isArray(x) && !isJsonObject(x)) return x;
    const to: JsonValue[] | JsonObject = Array.isArray(x) ? [] : {};
    stack.push({ from: x, to });
    return to;
  };
  const root = start(v);
  for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
    const { from, to } = w;
    if (Array.isArray(from)) {
      for (const x of from) if (keep(x, true)) (to as JsonValue[]).push(start(x));
    } else {
      for (const k of Object.keys(from)) {
        const x = from[k] as JsonValue;
        if (keep(x, false)) setOwn(to as JsonObject, k, start(x));
      }
    }
  }
  return root;
}

const isDirectiveMap = (v: JsonValue): boolean => isJsonObject(v) && hasOwn(v, DIRECTIVE_MARKER);

/** Drops maps carrying $patch (and list items that are such maps), at any depth. */
function removeDirectives(v: JsonValue): { keep: boolean; value: JsonValue } {
  if (isDirectiveMap(v)) return { keep: false, value: null };
  return { keep: true, value: filteredCopy(v, (child) => !isDirectiveMap(child)) };
}

/** discardNullValuesFromPatch: null members go, null list items stay. */
function discardNullValues(v: JsonValue): JsonValue {
  return filteredCopy(v, (child, inArray) => inArray || child !== null);
}
