import type { FieldError } from '../../machinery/errors.js';
import { formatRfc3339 } from '../../codec/protobuf/wellknown.js';
import { isDns1123Subdomain, isQualifiedName, validateNameByRule } from '../../machinery/name-validation.js';
import type { ValidationContext } from '../strategy.js';
import { goStruct, invalid, isObj, obj, required, str, type GoJson, type Obj } from './field.js';

/**
 * Event validation as kube-apiserver 1.36 runs it (pkg/apis/core/validation/
 * events.go, ValidateEventCreate / ValidateEventUpdate). Events of both
 * versions are stored as core/v1 Events, and the field paths are the internal
 * type's (`involvedObject`, `message`, `reportingController`, `source`,
 * `count`) whichever version the request used. Every event passes the legacy
 * checks; only requests through events.k8s.io/v1 (not core/v1 nor
 * events.k8s.io/v1beta1) get the strict ones. The server's own writes count
 * as core/v1, as kube's requestGroupVersion does without request info.
 */

const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
const ACTION_LENGTH_LIMIT = 128;
const REASON_LENGTH_LIMIT = 128;
const NOTE_LENGTH_LIMIT = 1024;
const FIELD_IMMUTABLE = 'field is immutable';

/** Request versions that keep the legacy rules only, for backwards compatibility. */
const LEGACY_VERSIONS = new Set(['v1', 'events.k8s.io/v1beta1']);

function strict(ctx: ValidationContext): boolean {
  return ctx.requestVersion !== undefined && !LEGACY_VERSIONS.has(ctx.requestVersion);
}

/** Go's len(): bytes. */
function goLen(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** A metav1.Time / MicroTime is zero when unset (JSON null or absent). */
function isZeroTime(v: unknown): boolean {
  return typeof v !== 'string' || v === '' || /^0001-01-01T00:00:00(\.0+)?Z$/.test(v);
}

/** The instant of an RFC 3339 time as [UTC seconds since epoch, fraction digits], or undefined. */
function instant(v: unknown): { seconds: number; fraction: string } | undefined {
  if (isZeroTime(v)) return undefined;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i.exec(v as string);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${m[3]!.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  return { seconds: Math.floor(ms / 1000), fraction: (m[2] ?? '').replace(/0+$/, '') };
}

/** Semantic equality of two times (apiequality compares instants). */
function sameTime(a: unknown, b: unknown): boolean {
  const x = instant(a);
  const y = instant(b);
  if (!x || !y) return !x && !y;
  return x.seconds === y.seconds && x.fraction === y.fraction;
}

/**
 * json.Marshal of a metav1.Time (RFC 3339 in UTC, whole seconds) or, with
 * `micros`, a metav1.MicroTime (six fraction digits); a zero time is null.
 */
function timeJson(v: unknown, micros: boolean): string | null {
  const t = instant(v);
  if (!t) return null;
  return formatRfc3339(t.seconds, Number(t.fraction.padEnd(9, '0').slice(0, 9)), micros);
}

const REFERENCE_FIELDS = [
  ['Kind', 'kind'],
  ['Namespace', 'namespace'],
  ['Name', 'name'],
  ['UID', 'uid'],
  ['APIVersion', 'apiVersion'],
  ['ResourceVersion', 'resourceVersion'],
  ['FieldPath', 'fieldPath'],
] as const;

function sameReference(a: Obj, b: Obj): boolean {
  return REFERENCE_FIELDS.every(([, json]) => str(a[json]) === str(b[json]));
}

/** json.Marshal of the internal core.ObjectReference (untagged: Go field names). */
function referenceRepr(ref: Obj): GoJson {
  return goStruct(REFERENCE_FIELDS.map(([go, json]) => [go, str(ref[json])]));
}

/** json.Marshal of the internal core.EventSource. */
function sourceRepr(source: Obj): GoJson {
  return goStruct([
    ['Component', str(source.component)],
    ['Host', str(source.host)],
  ]);
}

function count(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** legacyValidateEvent: every event, whatever version it came through. */
function legacyValidateEvent(e: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = str(obj(e.metadata).namespace);
  const involvedNamespace = str(obj(e.involvedObject).namespace);
  const mismatch = (): FieldError => invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
  if (isZeroTime(e.eventTime)) {
    // Old-style events: the namespaces agree ("default" allowed for cluster-scoped objects, as old clients wrote).
    if (involvedNamespace === '') {
      if (namespace !== '' && namespace !== 'default') errs.push(mismatch());
    } else if (namespace !== involvedNamespace) {
      errs.push(mismatch());
    }
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(mismatch());
    const controller = str(e.reportingComponent);
    if (controller === '') errs.push(required('reportingController'));
    for (const msg of isQualifiedName(controller)) errs.push(invalid('reportingController', controller, msg));
    const instance = str(e.reportingInstance);
    if (instance === '') errs.push(required('reportingInstance'));
    if (goLen(instance) > REPORTING_INSTANCE_LENGTH_LIMIT) errs.push(invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LENGTH_LIMIT} characters`));
    const action = str(e.action);
    if (action === '') errs.push(required('action'));
    if (goLen(action) > ACTION_LENGTH_LIMIT) errs.push(invalid('action', '', `can have at most ${ACTION_LENGTH_LIMIT} characters`));
    const reason = str(e.reason);
    if (reason === '') errs.push(required('reason'));
    if (goLen(reason) > REASON_LENGTH_LIMIT) errs.push(invalid('reason', '', `can have at most ${REASON_LENGTH_LIMIT} characters`));
    if (goLen(str(e.message)) > NOTE_LENGTH_LIMIT) errs.push(invalid('message', '', `can have at most ${NOTE_LENGTH_LIMIT} characters`));
  }
  for (const msg of isDns1123Subdomain(namespace)) errs.push(invalid('namespace', namespace, msg));
  return errs;
}

/** validateV1EventSeries. */
function validateSeries(e: Obj): FieldError[] {
  if (!isObj(e.series)) return [];
  const errs: FieldError[] = [];
  if (count(e.series.count) < 2) errs.push(invalid('series.count', '', 'should be at least 2'));
  if (isZeroTime(e.series.lastObservedTime)) errs.push(required('series.lastObservedTime'));
  return errs;
}

/**
 * The name rule of the strict ValidateObjectMeta (NameIsDNSSubdomain); the
 * rest of it is the generic ObjectMeta validation every write gets.
 */
function dnsSubdomainName(e: Obj): FieldError[] {
  const meta = obj(e.metadata);
  const errs: FieldError[] = [];
  const generateName = str(meta.generateName);
  if (generateName) for (const msg of validateNameByRule('dns1123Subdomain', generateName, true)) errs.push(invalid('metadata.generateName', generateName, msg));
  const name = str(meta.name);
  if (name) for (const msg of isDns1123Subdomain(name)) errs.push(invalid('metadata.name', name, msg));
  return errs;
}

/** ValidateEventCreate. */
export function validateEventCreate(e: Obj, ctx: ValidationContext): FieldError[] {
  const errs = legacyValidateEvent(e);
  if (!strict(ctx)) return errs;
  errs.push(...dnsSubdomainName(e), ...validateSeries(e));
  if (isZeroTime(e.eventTime)) errs.push(required('eventTime'));
  const type = str(e.type);
  if (type !== 'Normal' && type !== 'Warning') errs.push(invalid('type', '', `has invalid value: ${type}`));
  if (!isZeroTime(e.firstTimestamp)) errs.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (!isZeroTime(e.lastTimestamp)) errs.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if (count(e.count) !== 0) errs.push(invalid('count', '', 'needs to be unset'));
  const source = obj(e.source);
  if (str(source.component) !== '' || str(source.host) !== '') errs.push(invalid('source', '', 'needs to be unset'));
  return errs;
}

/** ValidateEventUpdate (its ValidateObjectMetaUpdate is the generic one every update gets). */
export function validateEventUpdate(e: Obj, old: Obj, ctx: ValidationContext): FieldError[] {
  const errs = legacyValidateEvent(e);
  if (!strict(ctx)) return errs;
  const series = isObj(e.series) ? e.series : undefined;
  const oldSeries = isObj(old.series) ? old.series : undefined;
  const sameSeries = series && oldSeries ? count(series.count) === count(oldSeries.count) && sameTime(series.lastObservedTime, oldSeries.lastObservedTime) : series === oldSeries;
  if (!sameSeries) errs.push(...validateSeries(e));

  const immutable = (field: string, same: boolean, value: unknown): void => {
    if (!same) errs.push(invalid(field, value, FIELD_IMMUTABLE));
  };
  const text = (field: string, json: string): void => immutable(field, str(e[json]) === str(old[json]), str(e[json]));
  const time = (field: string, micros = false): void => immutable(field, sameTime(e[field], old[field]), timeJson(e[field], micros));
  const involved = obj(e.involvedObject);
  immutable('involvedObject', sameReference(involved, obj(old.involvedObject)), referenceRepr(involved));
  text('reason', 'reason');
  text('message', 'message');
  const source = obj(e.source);
  const oldSource = obj(old.source);
  immutable('source', str(source.component) === str(oldSource.component) && str(source.host) === str(oldSource.host), sourceRepr(source));
  time('firstTimestamp');
  time('lastTimestamp');
  immutable('count', count(e.count) === count(old.count), count(e.count));
  // kube checks reason twice.
  text('reason', 'reason');
  text('type', 'type');
  time('eventTime', true);
  text('action', 'action');
  const related = isObj(e.related) ? e.related : undefined;
  const oldRelated = isObj(old.related) ? old.related : undefined;
  immutable('related', related && oldRelated ? sameReference(related, oldRelated) : related === oldRelated, related ? referenceRepr(related) : null);
  text('reportingController', 'reportingComponent');
  text('reportingInstance', 'reportingInstance');
  return errs;
}
