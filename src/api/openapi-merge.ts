/**
 * kube-openapi's aggregator (pkg/aggregator) on Swagger 2.0 documents held
 * as JSON trees, as kube-aggregator uses it to serve one /openapi/v2 for the
 * built-in APIs and every extension API server:
 *
 * - `filterSpecByPaths` (FilterSpecByPathsWithoutSideEffects): keep the
 *   paths under some prefixes, and drop the definitions only the dropped
 *   paths used (a definition no path used before stays);
 * - `mergeSpecs` (MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters):
 *   add a source's paths to a destination, the destination keeping a path
 *   both have; a source definition equal to the destination's (ignoring
 *   x-kubernetes-group-version-kind, whose lists are then merged) is shared,
 *   a different one is renamed `<name>_v2`, `_v3`, … (an earlier rename
 *   with equal content is reused), and shared parameters likewise.
 *
 * Go walks maps in random order; here names are visited sorted, so the
 * result is the same on every run. Inputs are never mutated.
 */
import { jsonEqual } from '../machinery/deep-json.js';
import { isJsonObject, sortKeysDeep, type Json, type JsonObject } from '../machinery/json.js';

const DEFINITION_PREFIX = '#/definitions/';
const PARAMETER_PREFIX = '#/parameters/';
const GVK = 'x-kubernetes-group-version-kind';

function section(doc: JsonObject, key: 'paths' | 'definitions' | 'parameters'): Record<string, JsonObject> {
  const v = doc[key];
  const out: Record<string, JsonObject> = {};
  if (isJsonObject(v)) for (const [k, x] of Object.entries(v)) if (isJsonObject(x)) out[k] = x;
  return out;
}

/** Every `$ref` under a JSON tree, without recursion (documents can nest deeply). */
function refsUnder(roots: Json[], visit: (ref: string) => void): void {
  const stack = [...roots];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (isJsonObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string') visit(x);
        else if (typeof x === 'object' && x !== null) stack.push(x);
      }
    }
  }
}

/** The definitions and shared parameters the given paths use, following references transitively. */
function usedBy(paths: Record<string, JsonObject>, doc: JsonObject): { definitions: Set<string>; parameters: Set<string> } {
  const definitions = section(doc, 'definitions');
  const parameters = section(doc, 'parameters');
  const used = { definitions: new Set<string>(), parameters: new Set<string>() };
  const pending: Json[] = Object.values(paths);
  const visit = (ref: string): void => {
    if (ref.startsWith(DEFINITION_PREFIX)) {
      const name = ref.slice(DEFINITION_PREFIX.length);
      if (used.definitions.has(name)) return;
      used.definitions.add(name);
      if (definitions[name]) pending.push(definitions[name]);
    } else if (ref.startsWith(PARAMETER_PREFIX)) {
      const name = ref.slice(PARAMETER_PREFIX.length);
      if (used.parameters.has(name)) return;
      used.parameters.add(name);
      if (parameters[name]) pending.push(parameters[name]);
    }
  };
  while (pending.length > 0) refsUnder(pending.splice(0), visit);
  return used;
}

/**
 * The paths `keepPath` accepts and what they need: a definition or parameter
 * goes only when the dropped paths were the reason it was there (one no path
 * used stays), as FilterSpecByPathsWithoutSideEffects decides.
 */
function filterPaths(doc: JsonObject, keepPath: (path: string) => boolean): JsonObject {
  if (!isJsonObject(doc['paths'])) return doc;
  const allPaths = section(doc, 'paths');
  const before = usedBy(allPaths, doc);
  const paths: Record<string, JsonObject> = {};
  for (const [path, item] of Object.entries(allPaths)) if (keepPath(path)) paths[path] = item;
  const after = usedBy(paths, doc);
  const keep = (all: Record<string, JsonObject>, used: Set<string>, usedBefore: Set<string>): JsonObject => {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(all)) if (used.has(k) || !usedBefore.has(k)) out[k] = v;
    return out;
  };
  const out: JsonObject = { ...doc, paths, definitions: keep(section(doc, 'definitions'), after.definitions, before.definitions) };
  if (doc['parameters'] !== undefined) out['parameters'] = keep(section(doc, 'parameters'), after.parameters, before.parameters);
  return out;
}

/** FilterSpecByPathsWithoutSideEffects: the paths starting with one of `prefixes`, and what they need. */
export function filterSpecByPaths(doc: JsonObject, prefixes: readonly string[]): JsonObject {
  return filterPaths(doc, (path) => prefixes.some((p) => path.startsWith(p)));
}

/** A copy of a tree with the references `renames` names (full `#/...` refs) rewritten. */
function withRefsRenamed(v: Json, renames: ReadonlyMap<string, string>): Json {
  if (Array.isArray(v)) return v.map((x) => withRefsRenamed(x, renames));
  if (!isJsonObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] = k === '$ref' && typeof x === 'string' ? (renames.get(x) ?? x) : withRefsRenamed(x, renames);
  }
  return out;
}

function withoutGvk(schema: JsonObject): JsonObject {
  if (schema[GVK] === undefined) return schema;
  const { [GVK]: _gvk, ...rest } = schema;
  return rest;
}

/** deepEqualDefinitionsModuloGVKs. */
function equalModuloGvk(a: JsonObject, b: JsonObject): boolean {
  return jsonEqual(withoutGvk(a), withoutGvk(b));
}

function gvkKey(gvk: Json): string | undefined {
  if (!isJsonObject(gvk)) return undefined;
  return `${String(gvk['group'] ?? '')}/${String(gvk['version'] ?? '')}.${String(gvk['kind'] ?? '')}`;
}

/** mergedGVKs: the destination's list with the source's new entries, sorted by group/version.kind when it grew. */
function mergedGvks(dest: JsonObject, source: JsonObject): Json[] | undefined {
  const a = dest[GVK];
  const b = source[GVK];
  if (!Array.isArray(b)) return undefined;
  if (!Array.isArray(a)) return a === undefined ? b : undefined;
  const entries = a.map((x) => ({ key: gvkKey(x) ?? '', value: x }));
  const seen = new Set(entries.map((e) => e.key));
  let changed = false;
  for (const x of b) {
    const key = gvkKey(x);
    if (key === undefined || seen.has(key)) continue;
    seen.add(key);
    entries.push({ key, value: x });
    changed = true;
  }
  if (!changed) return undefined;
  return entries.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0)).map((e) => e.value);
}

/**
 * The names that must change for `source`'s entries to sit beside `dest`'s:
 * an entry equal to the destination's keeps its name, an earlier rename with
 * equal content is reused, anything else gets the first free `<name>_vN`.
 */
function conflictRenames(dest: Record<string, JsonObject>, source: Record<string, JsonObject>, equal: (a: JsonObject, b: JsonObject) => boolean): Map<string, string> {
  const used = new Set(Object.keys(dest));
  const renames = new Map<string, string>();
  for (const name of Object.keys(source).sort()) {
    const value = source[name]!;
    const existing = dest[name];
    if (!existing || equal(existing, value)) continue;
    let i = 1;
    let candidate = '';
    let reused = false;
    for (let found = true; found; ) {
      i++;
      candidate = `${name}_v${i}`;
      const earlier = dest[candidate];
      found = earlier !== undefined;
      if (earlier && equal(earlier, value)) {
        reused = true;
        break;
      }
    }
    if (!reused) {
      while (used.has(candidate) || source[candidate] !== undefined) {
        i++;
        candidate = `${name}_v${i}`;
      }
      used.add(candidate);
    }
    renames.set(name, candidate);
  }
  return renames;
}

function renamedSection(entries: Record<string, JsonObject>, renames: ReadonlyMap<string, string>): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const [k, v] of Object.entries(entries)) out[renames.get(k) ?? k] = v;
  return out;
}

/** A Swagger document being merged into: its sections as plain maps, filled by `mergeSpecs`. */
export interface MergeTarget {
  paths: Record<string, JsonObject>;
  definitions: Record<string, JsonObject>;
  parameters: Record<string, JsonObject>;
}

/** MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters: adds `source` to `dest` (only `dest` changes). */
export function mergeSpecs(dest: MergeTarget, sourceDoc: JsonObject): void {
  if (!isJsonObject(sourceDoc['paths'])) return;
  let source = sourceDoc;
  const sourcePaths = Object.keys(section(source, 'paths'));
  const keep = sourcePaths.filter((p) => dest.paths[p] === undefined);
  if (keep.length === 0) return;
  if (keep.length < sourcePaths.length) {
    // Only the paths the destination lacks come, with what they need. (kube filters by these paths as
    // prefixes, which can keep a conflicting path and fail the whole merge; whole names cannot.)
    const wanted = new Set(keep);
    source = filterPaths(source, (path) => wanted.has(path));
  }
  const definitionRenames = conflictRenames(dest.definitions, section(source, 'definitions'), equalModuloGvk);
  const parameterRenames = conflictRenames(dest.parameters, section(source, 'parameters'), jsonEqual);
  const refRenames = new Map<string, string>();
  for (const [from, to] of definitionRenames) refRenames.set(DEFINITION_PREFIX + from, DEFINITION_PREFIX + to);
  for (const [from, to] of parameterRenames) refRenames.set(PARAMETER_PREFIX + from, PARAMETER_PREFIX + to);
  const rename = <T extends Json>(v: T): T => (refRenames.size === 0 ? v : (withRefsRenamed(v, refRenames) as T));
  for (const [name, def] of Object.entries(renamedSection(section(source, 'definitions'), definitionRenames))) {
    const existing = dest.definitions[name];
    if (!existing) {
      dest.definitions[name] = rename(def);
      continue;
    }
    const gvks = mergedGvks(existing, def);
    // The destination's object may be shared with other documents: it is replaced, never changed.
    if (gvks) dest.definitions[name] = { ...existing, [GVK]: gvks };
  }
  for (const [name, param] of Object.entries(renamedSection(section(source, 'parameters'), parameterRenames))) {
    if (!dest.parameters[name]) dest.parameters[name] = rename(param);
  }
  for (const [path, item] of Object.entries(section(source, 'paths'))) dest.paths[path] = rename(item);
}

/**
 * kube-aggregator's merged /openapi/v2: `base` (this server's own document,
 * whose info, security and version the result keeps) with each source merged
 * in, in the order given. Sections come out with sorted keys, as Go writes maps.
 */
export function mergeOpenApiV2(base: JsonObject, sources: readonly JsonObject[]): JsonObject {
  const target: MergeTarget = { paths: { ...section(base, 'paths') }, definitions: { ...section(base, 'definitions') }, parameters: { ...section(base, 'parameters') } };
  for (const source of sources) mergeSpecs(target, source);
  const sorted = (m: Record<string, JsonObject>): JsonObject => {
    const out: JsonObject = {};
    for (const k of Object.keys(m).sort()) out[k] = m[k]!;
    return out;
  };
  return { ...base, definitions: sorted(target.definitions), parameters: sorted(target.parameters), paths: sorted(target.paths) };
}

/** A downloaded document's sections with sorted keys all the way down, as this server writes its own. */
export function normalizeOpenApiV2(doc: JsonObject): JsonObject {
  return sortKeysDeep(doc) as JsonObject;
}
