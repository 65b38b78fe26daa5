/**
 * events.k8s.io/v1 Event <-> its storage version, core v1 Event, as
 * kube-apiserver 1.36 converts them (through the internal core.Event):
 *   pkg/apis/events/v1/conversion.go             events/v1 <-> internal (the renamed fields)
 *   pkg/apis/events/v1/zz_generated.conversion.go the fields sharing a name
 *   pkg/apis/core/v1/zz_generated.conversion.go   internal <-> core/v1 (field for field)
 *
 *   events.k8s.io/v1           core/v1
 *   regarding                  involvedObject
 *   note                       message
 *   deprecatedSource           source
 *   deprecatedFirstTimestamp   firstTimestamp
 *   deprecatedLastTimestamp    lastTimestamp
 *   deprecatedCount            count
 *   reportingController        reportingComponent
 *   eventTime, series, reportingInstance, action, reason, related, type: same name
 *
 * Both sides are written the way Go encodes the typed structs, because that
 * is what a kube-apiserver client reads: structs and times are never omitted
 * (`involvedObject: {}`, `source: {}`, `firstTimestamp: null`,
 * `eventTime: null`), core/v1's reportingComponent and reportingInstance have
 * no omitempty (`""`), events.k8s.io/v1's series has count and
 * lastObservedTime without omitempty, and empty strings and zero counts are
 * dropped elsewhere.
 */
import type { KubeObject, ObjectMeta } from '../../machinery/object.js';
import {
  decode,
  encode,
  field,
  goInt32,
  goMicroTime,
  goPtr,
  goString,
  goStruct,
  goTime,
  optional,
  toPlain,
} from './go-json.js';

interface ObjectReference {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  apiVersion: string;
  resourceVersion: string;
  fieldPath: string;
}

interface EventSource {
  component: string;
  host: string;
}

interface EventSeries {
  count: number;
  lastObservedTime: string | null;
}

interface CoreEvent {
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  source: EventSource;
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  count: number;
  type: string;
  eventTime: string | null;
  series: EventSeries | null;
  action: string;
  related: ObjectReference | null;
  reportingComponent: string;
  reportingInstance: string;
}

interface EventsV1Event {
  eventTime: string | null;
  series: EventSeries | null;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  regarding: ObjectReference;
  related: ObjectReference | null;
  note: string;
  type: string;
  deprecatedSource: EventSource;
  deprecatedFirstTimestamp: string | null;
  deprecatedLastTimestamp: string | null;
  deprecatedCount: number;
}

const objectReferenceType = goStruct([
  optional('kind', goString),
  optional('namespace', goString),
  optional('name', goString),
  optional('uid', goString, 'UID'),
  optional('apiVersion', goString, 'APIVersion'),
  optional('resourceVersion', goString),
  optional('fieldPath', goString),
]);
const eventSourceType = goStruct([optional('component', goString), optional('host', goString)]);

/** core/v1 Event without TypeMeta and ObjectMeta, in declaration order. */
const coreEventType = goStruct([
  field('involvedObject', objectReferenceType),
  optional('reason', goString),
  optional('message', goString),
  optional('source', eventSourceType),
  optional('firstTimestamp', goTime),
  optional('lastTimestamp', goTime),
  optional('count', goInt32),
  optional('type', goString),
  optional('eventTime', goMicroTime),
  // core/v1 EventSeries: both fields omitempty (a zero MicroTime is still written, as null).
  optional('series', goPtr(goStruct([optional('count', goInt32), optional('lastObservedTime', goMicroTime)]))),
  optional('action', goString),
  optional('related', goPtr(objectReferenceType)),
  field('reportingComponent', goString, { go: 'ReportingController' }),
  field('reportingInstance', goString),
]);

/** events.k8s.io/v1 Event without TypeMeta and ObjectMeta, in declaration order. */
const eventsV1EventType = goStruct([
  field('eventTime', goMicroTime),
  // events.k8s.io/v1 EventSeries: both fields required, no omitempty.
  optional('series', goPtr(goStruct([field('count', goInt32), field('lastObservedTime', goMicroTime)]))),
  optional('reportingController', goString),
  optional('reportingInstance', goString),
  optional('action', goString),
  optional('reason', goString),
  optional('regarding', objectReferenceType),
  optional('related', goPtr(objectReferenceType)),
  optional('note', goString),
  optional('type', goString),
  optional('deprecatedSource', eventSourceType),
  optional('deprecatedFirstTimestamp', goTime),
  optional('deprecatedLastTimestamp', goTime),
  optional('deprecatedCount', goInt32),
]);

const BODY = { encodingJson: false } as const;

function metadataOf(obj: KubeObject): ObjectMeta {
  return typeof obj.metadata === 'object' && obj.metadata !== null ? obj.metadata : {};
}

function withTypeMeta(apiVersion: string, meta: ObjectMeta, fields: unknown): KubeObject {
  return { apiVersion, kind: 'Event', metadata: meta, ...(fields as Record<string, unknown>) };
}

/** An events.k8s.io/v1 Event as the core/v1 Event kube stores. */
export function eventsV1ToCore(obj: KubeObject): KubeObject {
  const e = decode(obj, eventsV1EventType, BODY) as EventsV1Event;
  const out: CoreEvent = {
    involvedObject: { ...e.regarding },
    reason: e.reason,
    message: e.note,
    source: { ...e.deprecatedSource },
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    count: e.deprecatedCount,
    type: e.type,
    eventTime: e.eventTime,
    series: e.series && { ...e.series },
    action: e.action,
    related: e.related && { ...e.related },
    reportingComponent: e.reportingController,
    reportingInstance: e.reportingInstance,
  };
  return withTypeMeta('v1', metadataOf(obj), toPlain(encode(out, coreEventType)));
}

/** A stored core/v1 Event as events.k8s.io/v1 serves it. */
export function coreToEventsV1(obj: KubeObject): KubeObject {
  const e = decode(obj, coreEventType, BODY) as CoreEvent;
  const out: EventsV1Event = {
    eventTime: e.eventTime,
    series: e.series && { ...e.series },
    reportingController: e.reportingComponent,
    reportingInstance: e.reportingInstance,
    action: e.action,
    reason: e.reason,
    regarding: { ...e.involvedObject },
    related: e.related && { ...e.related },
    note: e.message,
    type: e.type,
    deprecatedSource: { ...e.source },
    deprecatedFirstTimestamp: e.firstTimestamp,
    deprecatedLastTimestamp: e.lastTimestamp,
    deprecatedCount: e.count,
  };
  return withTypeMeta('events.k8s.io/v1', metadataOf(obj), toPlain(encode(out, eventsV1EventType)));
}
