/**
 * metadata.managedFields ⇄ per-manager field sets (apimachinery
 * managedfields/internal managedfields.go, capmanagers.go): manager
 * identifiers, entry validation on decode, kube's entry order on encode, and
 * the cap on Update entries.
 */
import { goJsonString } from '../machinery/go-compat.js';
import { fieldsV1ToSet, setToFieldsV1 } from './fieldsv1.js';
import type { ManagedSets, VersionedSet } from './updater.js';
import { type JsonObject, type JsonValue, isJsonObject } from './value.js';

/** A managedFields entry as it appears in objects. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: JsonObject;
  subresource?: string;
}

/** Decoded managed fields: sets by manager identifier, plus each entry's time. */
export interface Managed {
  fields: ManagedSets;
  times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

export class ManagedFieldsError extends Error {}

/**
 * BuildManagerIdentifier: the entry without fieldsType, fieldsV1 and time
 * (and without apiVersion for appliers), as Go marshals it.
 */
export function managerIdentifier(e: { manager?: string; operation?: string; apiVersion?: string; subresource?: string }): string {
  const parts: string[] = [];
  if (e.manager) parts.push(`"manager":${goJsonString(e.manager)}`);
  if (e.operation) parts.push(`"operation":${goJsonString(e.operation)}`);
  if (e.apiVersion && e.operation !== 'Apply') parts.push(`"apiVersion":${goJsonString(e.apiVersion)}`);
  if (e.subresource) parts.push(`"subresource":${goJsonString(e.subresource)}`);
  return `{${parts.join(',')}}`;
}

export interface ManagerInfo {
  manager: string;
  operation: string;
  apiVersion: string;
  subresource: string;
}

/** The entry fields an identifier carries. */
export function parseIdentifier(id: string): ManagerInfo {
  try {
    const o = JSON.parse(id) as Record<string, unknown>;
    const s = (k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');
    return { manager: s('manager'), operation: s('operation'), apiVersion: s('apiVersion'), subresource: s('subresource') };
  } catch {
    return { manager: id, operation: '', apiVersion: '', subresource: '' };
  }
}

function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

/** DecodeManagedFields. Throws ManagedFieldsError for an invalid entry. */
export function decodeManagedFields(entries: readonly unknown[] | undefined): Managed {
  const managed = emptyManaged();
  (entries ?? []).forEach((raw, i) => {
    const e: JsonObject = isJsonObject(raw as JsonValue) ? (raw as JsonObject) : {};
    const operation = str(e.operation);
    if (operation !== 'Apply' && operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    const apiVersion = str(e.apiVersion);
    if (apiVersion === '') throw new ManagedFieldsError('apiVersion must not be empty');
    const fieldsType = str(e.fieldsType);
    if (fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`);
    const id = managerIdentifier({ manager: str(e.manager), operation, apiVersion, subresource: str(e.subresource) });
    let set;
    try {
      set = fieldsV1ToSet(e.fieldsV1);
    } catch (err) {
      throw new ManagedFieldsError(`error decoding versioned set: error decoding set: ${err instanceof Error ? err.message : String(err)}`);
    }
    managed.fields.set(id, { set, apiVersion, applied: operation === 'Apply' });
    managed.times.set(id, typeof e.time === 'string' ? e.time : undefined);
  });
  return managed;
}

function seconds(t: string | undefined): number {
  if (t === undefined) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** encodeManagedFields: entries sorted by operation, time, manager, apiVersion, subresource; undefined when none. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) entries.push(encodeEntry(id, vs, managed.times.get(id)));
  entries.sort(
    (p, q) =>
      compareStrings(p.operation ?? '', q.operation ?? '') ||
      seconds(p.time) - seconds(q.time) ||
      compareStrings(p.manager ?? '', q.manager ?? '') ||
      compareStrings(p.apiVersion ?? '', q.apiVersion ?? '') ||
      compareStrings(p.subresource ?? '', q.subresource ?? ''),
  );
  return entries;
}

function encodeEntry(id: string, vs: VersionedSet, time: string | undefined): ManagedFieldsEntry {
  const info = parseIdentifier(id);
  // Key order is the Go struct's field order.
  const e: ManagedFieldsEntry = {};
  if (info.manager) e.manager = info.manager;
  const operation = vs.applied ? 'Apply' : info.operation;
  if (operation === 'Apply' || operation === 'Update') e.operation = operation;
  if (vs.apiVersion) e.apiVersion = vs.apiVersion;
  if (time !== undefined) e.time = time;
  e.fieldsType = 'FieldsV1';
  e.fieldsV1 = setToFieldsV1(vs.set);
  if (info.subresource) e.subresource = info.subresource;
  return e;
}

export const DEFAULT_MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';

/**
 * capUpdateManagers: when more than max Update entries exist, the oldest are
 * merged into one "ancient-changes" entry per apiVersion.
 */
export function capUpdateManagers(managed: Managed, max = DEFAULT_MAX_UPDATE_MANAGERS): void {
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => seconds(managed.times.get(a)) - seconds(managed.times.get(b)) || compareStrings(a, b));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i] as string;
    const vs = managed.fields.get(id) as VersionedSet;
    const time = managed.times.get(id);
    const version = vs.apiVersion;
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: version });
    const first = firstByVersion.get(version);
    if (first === undefined) {
      firstByVersion.set(version, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      const s = managed.fields.get(first) as VersionedSet;
      managed.fields.delete(first);
      managed.fields.set(bucket, s);
    }
    const b = managed.fields.get(bucket) as VersionedSet;
    managed.fields.set(bucket, { set: vs.set.union(b.set), apiVersion: vs.apiVersion, applied: vs.applied });
    managed.fields.delete(id);
    length--;
    managed.times.set(bucket, time);
  }
}
