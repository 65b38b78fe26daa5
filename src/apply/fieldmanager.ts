/**
 * kube-apiserver's field manager (apimachinery managedfields/internal,
 * NewDefaultFieldManager) over plain JSON objects: the decorator chain
 *
 *   versionCheck → lastAppliedUpdater → lastAppliedManager → skipNonApplied
 *   → capManagers → buildManagerInfo → managedFieldsUpdater → stripMeta
 *   → structuredMerge
 *
 * flattened into two entry points: serverSideApply (PATCH with
 * application/apply-patch+yaml) and trackUpdate (create, update and the
 * other patch types).
 */
import { ApiError, badRequest } from '../machinery/errors.js';
import type { KubeObject, ObjectMeta } from '../machinery/object.js';
import { applyConflictError } from './conflicts.js';
import { FieldSet } from './fieldset.js';
import {
  KUBECTL_MANAGER,
  allowedConflictsFromLastApplied,
  buildLastApplied,
  conflictsOutside,
  hasLastApplied,
  setLastApplied,
} from './last-applied.js';
import {
  DEFAULT_MAX_UPDATE_MANAGERS,
  type Managed,
  type ManagedFieldsEntry,
  ManagedFieldsError,
  capUpdateManagers,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  managerIdentifier,
} from './managed.js';
import { type Path, fieldElement } from './path.js';
import type { ApplySchema } from './schema.js';
import { formatValidationErrors, validate } from './typed.js';
import { ConflictsError, MergeError, Updater } from './updater.js';
import { type JsonObject, type JsonValue, deepCopy, isJsonObject } from './value.js';

/** Paths never tracked for a resource (kube's reset fields), e.g. [['status']] on a main resource. */
export type FieldPaths = readonly (readonly string[])[];

interface Common {
  /** The served group/version, recorded as the entries' apiVersion, e.g. "apps/v1". */
  apiVersion: string;
  schema: ApplySchema;
  /** "status", "scale", ... when the write targets a subresource. */
  subresource?: string;
  /** Clock for the entries' time (defaults to now). */
  now?: Date;
  resetFields?: FieldPaths;
  /** Update entries kept before the oldest are merged (kube: 10). */
  maxUpdateManagers?: number;
}

export interface ApplyParams extends Common {
  /** The stored object, or undefined when the apply creates it. */
  live: KubeObject | undefined;
  /** The applied configuration (the decoded request body). */
  applied: KubeObject;
  /** The fieldManager parameter (required by the caller for apply). */
  manager: string;
  force?: boolean;
  /** The served kind: an applied body of another group/version/kind is rejected as kube does. */
  kind: string;
}

export interface ApplyResult {
  /** The merged object with metadata.managedFields set (absent when nothing is managed). */
  object: KubeObject;
  managedFields: ManagedFieldsEntry[] | undefined;
  /** False when the apply changed nothing but (possibly) managedFields. */
  changed: boolean;
}

export interface UpdateParams extends Common {
  /** The stored object, or undefined for a create. */
  live: KubeObject | undefined;
  /** The object about to be stored, with metadata.managedFields as the request left them. */
  updated: KubeObject;
  /** fieldManager, or managerOrUserAgent(...) when the request named none. */
  manager: string;
  /**
   * Whether `managedFields: []` resets the field like `[{}]` does. kube's code
   * treats a non-nil empty list as a reset (its integration test
   * TestClearManagedFieldsWithUpdateEmptyList); the published documentation
   * and our SPEC say an empty list does not reset. Default false (SPEC).
   */
  emptyListResets?: boolean;
}

export interface UpdateResult {
  /** `updated` with metadata.managedFields replaced (absent when nothing is managed). */
  object: KubeObject;
  managedFields: ManagedFieldsEntry[] | undefined;
}

const BEFORE_FIRST_APPLY = 'before-first-apply';
const CURRENT_OPERATION = 'current-operation';

/** stripMetaManager's set: never part of anyone's managed fields. */
const STRIP_SET = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map(
    (f): Path => [fieldElement('metadata'), fieldElement(f)],
  ),
);

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function metaOf(obj: JsonObject): JsonObject | undefined {
  return isJsonObject(obj.metadata) ? obj.metadata : undefined;
}

/** A copy of obj without metadata.managedFields (RemoveObjectManagedFields). */
function withoutManagedFields(obj: JsonObject): JsonObject {
  const copy = deepCopy(obj);
  const meta = metaOf(copy);
  if (meta) delete meta.managedFields;
  return copy;
}

function setManagedFields(obj: JsonObject, entries: ManagedFieldsEntry[] | undefined): void {
  if (!isJsonObject(obj.metadata)) {
    if (entries === undefined) return;
    obj.metadata = {};
  }
  const meta = obj.metadata as JsonObject;
  if (entries === undefined) delete meta.managedFields;
  else meta.managedFields = entries as unknown as JsonValue;
}

function resetSet(paths: FieldPaths | undefined): FieldSet | undefined {
  if (paths === undefined || paths.length === 0) return undefined;
  return FieldSet.of(...paths.map((p) => p.map(fieldElement)));
}

/** objectGVKNN: "namespace/name; group/version, Kind=Kind". */
function gvkString(obj: JsonObject): string {
  const av = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const parts = av.split('/');
  let group = '';
  let version = '';
  if (parts.length === 1) version = av;
  else if (parts.length === 2) [group, version] = parts as [string, string];
  return `${group}/${version}, Kind=${kind}`;
}

function gvknn(obj: JsonObject): string {
  const meta = metaOf(obj);
  const ns = typeof meta?.namespace === 'string' ? meta.namespace : '';
  const name = typeof meta?.name === 'string' ? meta.name : '';
  return `${ns}/${name}; ${gvkString(obj)}`;
}

/** A plain error from the merge machinery: kube answers 500 with reason "" (errors it did not type). */
function untypedError(message: string): ApiError {
  return new ApiError({ message, code: 500 });
}

/** Nulls the merge introduced vanish, as they do when kube converts the result back into its Go type. */
function stripNewNulls(value: JsonValue, live: JsonValue | undefined): void {
  // An explicit stack: applied configurations nest as deep as bodies may (10,000 levels).
  const work: Array<{ value: JsonValue; live: JsonValue | undefined }> = [{ value, live }];
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    const v = w.value;
    if (Array.isArray(v)) {
      for (const item of v) work.push({ value: item, live: undefined });
      continue;
    }
    if (!isJsonObject(v)) continue;
    const l = isJsonObject(w.live) ? w.live : undefined;
    for (const key of Object.keys(v)) {
      const child = v[key] as JsonValue;
      if (child === null) {
        if (!(l && Object.prototype.hasOwnProperty.call(l, key) && l[key] === null)) delete v[key];
      } else work.push({ value: child, live: l?.[key] });
    }
  }
}

class Pipeline {
  readonly updater: Updater;
  readonly now: string;

  constructor(readonly p: Common) {
    const ignored = resetSet(p.resetFields);
    this.updater = new Updater(p.schema.root, ignored ? { ignored } : {});
    this.now = rfc3339(p.now ?? new Date());
  }

  identifier(manager: string, operation: 'Apply' | 'Update'): string {
    return managerIdentifier({ manager: manager === '' ? 'unknown' : manager, operation, apiVersion: this.p.apiVersion, subresource: this.p.subresource });
  }

  private strip(managed: Managed, id: string): void {
    const vs = managed.fields.get(id);
    if (vs === undefined) return;
    const set = vs.set.difference(STRIP_SET);
    if (set.empty()) managed.fields.delete(id);
    else managed.fields.set(id, { ...vs, set });
  }

  /** capManagers ∘ buildManagerInfo ∘ managedFieldsUpdater ∘ stripMeta ∘ structuredMerge, for updates. */
  update(live: JsonObject, next: JsonObject, managed: Managed, manager: string): Managed {
    for (const [what, obj] of [
      ['new object', next],
      ['live object', live],
    ] as const) {
      const errs = validate(obj, this.p.schema.root, true);
      if (errs.length > 0) throw new MergeError(`failed to convert ${what} (${gvknn(obj)}) to smd typed: ${formatValidationErrors(errs)}`);
    }
    const id = this.identifier(manager, 'Update');
    const out: Managed = {
      fields: this.updater.updateManagers(live, next, this.p.apiVersion, managed.fields, CURRENT_OPERATION),
      times: new Map(managed.times),
    };
    this.strip(out, CURRENT_OPERATION);
    const self = out.fields.get(CURRENT_OPERATION);
    if (self !== undefined) {
      out.fields.delete(CURRENT_OPERATION);
      const previous = out.fields.get(id);
      out.fields.set(id, previous ? { set: self.set.union(previous.set), apiVersion: self.apiVersion, applied: self.applied } : self);
      out.times.set(id, this.now);
    }
    capUpdateManagers(out, this.p.maxUpdateManagers ?? DEFAULT_MAX_UPDATE_MANAGERS);
    return out;
  }

  /** buildManagerInfo ∘ managedFieldsUpdater ∘ stripMeta ∘ structuredMerge, for applies. */
  apply(live: JsonObject, applied: JsonObject, managed: Managed, manager: string, force: boolean): { object: JsonObject | undefined; managed: Managed } {
    const mf = metaOf(applied)?.managedFields;
    if (Array.isArray(mf) && mf.every((e) => isJsonObject(e))) throw badRequest('metadata.managedFields must be nil');
    const patchErrs = validate(applied, this.p.schema.root, false);
    if (patchErrs.length > 0) throw new MergeError(`failed to create typed patch object (${gvknn(applied)}): ${formatValidationErrors(patchErrs)}`);
    const liveErrs = validate(live, this.p.schema.root, true);
    if (liveErrs.length > 0) throw new MergeError(`failed to create typed live object (${gvknn(live)}): ${formatValidationErrors(liveErrs)}`);
    const id = this.identifier(manager, 'Apply');
    const r = this.updater.apply(live, applied, this.p.apiVersion, managed.fields, id, force);
    const out: Managed = { fields: r.managers, times: new Map(managed.times) };
    this.strip(out, id);
    if (r.object !== undefined) out.times.set(id, this.now);
    return { object: r.object as JsonObject | undefined, managed: out };
  }
}

/** Server-side apply of `applied` onto `live` by `manager`. Throws ApiError (409 on conflicts). */
export function serverSideApply(params: ApplyParams): ApplyResult {
  const pipeline = new Pipeline(params);
  const liveFull: JsonObject = params.live ? (params.live as JsonObject) : {};
  let managed: Managed;
  try {
    managed = decodeManagedFields(metaOf(liveFull)?.managedFields as unknown[] | undefined);
  } catch (err) {
    throw untypedError(`failed to decode managed fields: ${(err as Error).message}`);
  }
  // versionCheckManager
  const expected = `${params.apiVersion.includes('/') ? params.apiVersion : `/${params.apiVersion}`}, Kind=${params.kind}`;
  if (gvkString(params.applied as JsonObject) !== expected) throw badRequest(`invalid object type: ${gvkString(params.applied as JsonObject)}`);

  const live = withoutManagedFields(liveFull);
  const applied = params.applied as JsonObject;
  try {
    // skipNonAppliedManager: an object nobody manages yet is first owned by "before-first-apply".
    if (managed.fields.size === 0) {
      try {
        managed = pipeline.update(params.schema.zero?.() ?? {}, live, managed, BEFORE_FIRST_APPLY);
      } catch (err) {
        if (err instanceof MergeError) throw new MergeError(`failed to create manager for existing fields: ${err.message}`);
        throw err;
      }
    }
    let result: { object: JsonObject | undefined; managed: Managed };
    try {
      result = pipeline.apply(live, applied, managed, params.manager, params.force === true);
    } catch (err) {
      // lastAppliedManager: kubectl's apply may take over what its client-side apply set.
      if (!(err instanceof ConflictsError) || params.manager !== KUBECTL_MANAGER) throw err;
      const allowed = allowedConflictsFromLastApplied(live, params.schema, params.apiVersion);
      if (allowed === undefined) throw err;
      const remaining = conflictsOutside(err.conflicts, allowed);
      if (remaining.length > 0) throw new ConflictsError(remaining);
      result = pipeline.apply(live, applied, managed, params.manager, true);
    }
    const changed = result.object !== undefined;
    const object = changed ? (result.object as JsonObject) : live;
    if (changed && params.schema.goTyped) stripNewNulls(object, live);
    // lastAppliedUpdater
    if (params.manager === KUBECTL_MANAGER && hasLastApplied(object)) setLastApplied(object, buildLastApplied(applied));
    const managedFields = encodeManagedFields(result.managed);
    setManagedFields(object, managedFields);
    return { object: object as KubeObject, managedFields, changed };
  } catch (err) {
    if (err instanceof ConflictsError) throw applyConflictError(err.conflicts);
    if (err instanceof MergeError || err instanceof ManagedFieldsError) throw untypedError(err.message);
    throw err;
  }
}

/** isResetManagedFields: a list holding one empty entry (or, optionally, an empty list). */
function isReset(mf: unknown, emptyListResets: boolean): boolean {
  if (!Array.isArray(mf)) return false;
  if (mf.length === 0) return emptyListResets;
  if (mf.length !== 1) return false;
  const e = mf[0] as JsonValue;
  if (!isJsonObject(e)) return false;
  return Object.entries(e).every(([k, v]) => {
    if (!['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'].includes(k)) return true;
    return v === null || v === '';
  });
}

function decodeOrEmpty(mf: unknown): Managed {
  try {
    return decodeManagedFields(Array.isArray(mf) ? mf : undefined);
  } catch {
    return emptyManaged();
  }
}

/** decodeLiveOrNew: the managed fields an update starts from. */
function startingManaged(live: JsonObject, next: JsonObject, isSubresource: boolean, emptyListResets: boolean): Managed {
  const liveMf = metaOf(live)?.managedFields;
  if (isSubresource) return decodeOrEmpty(liveMf);
  const newMf = metaOf(next)?.managedFields;
  if (isReset(newMf, emptyListResets)) return emptyManaged();
  // Clients unaware of managedFields drop them: fall back to the live object's.
  let managed: Managed | undefined;
  try {
    managed = decodeManagedFields(Array.isArray(newMf) ? newMf : undefined);
  } catch {
    managed = undefined;
  }
  if (managed === undefined || managed.fields.size === 0) return decodeOrEmpty(liveMf);
  return managed;
}

/**
 * managedFields after a create, update or non-apply patch (UpdateNoErrors:
 * never fails; on an internal error the live object's entries are kept).
 */
export function trackUpdate(params: UpdateParams): UpdateResult {
  const pipeline = new Pipeline(params);
  const liveFull: JsonObject = params.live ? (params.live as JsonObject) : {};
  const updated = deepCopy(params.updated as JsonObject);
  const managed = startingManaged(liveFull, updated, (params.subresource ?? '') !== '', params.emptyListResets === true);
  const next = withoutManagedFields(updated);
  let managedFields: ManagedFieldsEntry[] | undefined;
  try {
    const uid = (metaOf(liveFull) as ObjectMeta | undefined)?.uid;
    if (managed.fields.size === 0 && typeof uid === 'string' && uid !== '') {
      // skipNonAppliedManager: an existing object nobody manages stays untracked until applied to.
      managedFields = undefined;
    } else {
      // A create is compared with the kind's zero value, as kube compares it with a new empty object.
      const base = params.live ? withoutManagedFields(liveFull) : (params.schema.zero?.() ?? {});
      managedFields = encodeManagedFields(pipeline.update(base, next, managed, params.manager));
    }
  } catch (err) {
    if (!(err instanceof MergeError || err instanceof ManagedFieldsError)) throw err;
    const liveMf = metaOf(liveFull)?.managedFields;
    managedFields = Array.isArray(liveMf) ? (deepCopy(liveMf as JsonValue) as unknown as ManagedFieldsEntry[]) : undefined;
  }
  setManagedFields(next, managedFields);
  return { object: next as KubeObject, managedFields };
}
