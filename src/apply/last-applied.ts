/**
 * kubectl's client-side-apply annotation during the upgrade to server-side
 * apply (managedfields/internal lastappliedmanager.go, lastappliedupdater.go,
 * lastapplied.go). Only the manager named exactly "kubectl" gets this
 * treatment: its apply conflicts on fields the annotation says kubectl set
 * (and that still hold those values) are forced through, and afterwards the
 * annotation is rewritten to the applied configuration so that a later
 * client-side apply computes the right three-way patch.
 */
import { goJsonEncode } from '../machinery/go-compat.js';
import { FieldSet } from './fieldset.js';
import type { ApplySchema } from './schema.js';
import { compare, toFieldSet, validate } from './typed.js';
import type { Conflict } from './updater.js';
import { type JsonObject, type JsonValue, deepCopy, isJsonObject } from './value.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The manager whose applies take over kubectl client-side-apply ownership. */
export const KUBECTL_MANAGER = 'kubectl';
/** apimachinery validation.TotalAnnotationSizeLimitB. */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function annotationsOf(obj: JsonObject): JsonObject | undefined {
  const meta = obj.metadata;
  if (!isJsonObject(meta)) return undefined;
  return isJsonObject(meta.annotations) ? meta.annotations : undefined;
}

export function hasLastApplied(obj: JsonObject): boolean {
  const v = annotationsOf(obj)?.[LAST_APPLIED_ANNOTATION];
  return typeof v === 'string' && v.length > 0;
}

/**
 * allowedConflictsFromLastApplied: the fields of the annotation that still
 * match the live object; undefined when the annotation is absent or unusable.
 */
export function allowedConflictsFromLastApplied(live: JsonObject, schema: ApplySchema, apiVersion: string): FieldSet | undefined {
  const text = annotationsOf(live)?.[LAST_APPLIED_ANNOTATION];
  if (typeof text !== 'string' || text === '') return undefined;
  let last: JsonValue;
  try {
    last = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  if (!isJsonObject(last) || last.apiVersion !== apiVersion) return undefined;
  if (validate(last, schema.root, true).length > 0) return undefined;
  const set = toFieldSet(last, schema.root);
  const c = compare(last, live, schema.root);
  return set.difference(c.modified).difference(c.added).difference(c.removed);
}

/** conflictsDifference: the conflicts whose path the set does not hold. */
export function conflictsOutside(conflicts: readonly Conflict[], allowed: FieldSet): Conflict[] {
  return conflicts.filter((c) => !allowed.has(c.path));
}

/** buildLastApplied: the applied configuration without the annotation, as Go's json.Encoder writes it. */
export function buildLastApplied(applied: JsonObject): string {
  const copy = deepCopy(applied);
  const annotations = annotationsOf(copy);
  if (annotations !== undefined) delete annotations[LAST_APPLIED_ANNOTATION];
  return `${goJsonEncode(copy)}\n`;
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** SetLastApplied: sets the annotation unless the annotations would then exceed their size limit. */
export function setLastApplied(obj: JsonObject, value: string): void {
  if (!isJsonObject(obj.metadata)) obj.metadata = {};
  const meta = obj.metadata as JsonObject;
  const annotations: JsonObject = isJsonObject(meta.annotations) ? meta.annotations : {};
  annotations[LAST_APPLIED_ANNOTATION] = value;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) total += utf8Length(k) + (typeof v === 'string' ? utf8Length(v) : 0);
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) delete annotations[LAST_APPLIED_ANNOTATION];
  meta.annotations = annotations;
}
