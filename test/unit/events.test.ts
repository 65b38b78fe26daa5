/**
 * Events as kube-apiserver 1.36 validates and converts them
 * (pkg/apis/core/validation/events.go, pkg/apis/events/v1/conversion.go):
 * legacy rules for every event, strict ones for events.k8s.io/v1 writes, the
 * internal type's field paths whatever the version; core/v1 <-> events.k8s.io/v1
 * field for field, checked on the upstream fixtures both ways.
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { ApiError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { coreToEventsV1, eventsV1ToCore } from '../../src/registry/conversions/events.js';
import { fieldExtractorFor } from '../../src/registry/field-selectors.js';
import { ResourceStore } from '../../src/registry/resource-store.js';
import { strategyFor } from '../../src/registry/strategies.js';
import { KeyLayout } from '../../src/storage/keys.js';
import { MemoryStore } from '../../src/storage/memory.js';
import { sharedText } from '../helpers/shared.js';

const EVENTS_V1 = 'events.k8s.io/v1';
const QUALIFIED_NAME_REGEX =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

function eventStore(): ResourceStore {
  return new ResourceStore(
    { group: '', resource: 'events', kind: 'Event', namespaced: true, prefix: new KeyLayout().resourcePrefix('', 'events'), fields: fieldExtractorFor('', 'events', true).extract },
    strategyFor('', 'events', 'Event'),
    new MemoryStore(),
  );
}

/** A stored (core/v1) event in namespace ns. */
function coreEvent(name: string, fields: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Event', metadata: { name }, ...fields } as KubeObject;
}

/** What an events.k8s.io/v1 client sends, as the store receives it (converted to core/v1). */
function fromEventsV1(name: string, fields: Record<string, unknown>): KubeObject {
  return eventsV1ToCore({ apiVersion: EVENTS_V1, kind: 'Event', metadata: { name }, ...fields } as KubeObject);
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.status.code, 422);
    assert.equal(err.status.reason, 'Invalid');
    // The internal core Event's kind, whichever version the request used (core group: no details.group).
    assert.deepEqual(err.status.details && { group: err.status.details.group, kind: err.status.details.kind }, { group: undefined, kind: 'Event' });
    return err.status.message ?? '';
  }
  assert.fail('expected 422 Invalid');
}

const NOW = '2026-11-25T04:00:00.123456Z';
const complete = {
  eventTime: NOW,
  reportingController: 'example.com/controller',
  reportingInstance: 'controller-1',
  action: 'Scheduled',
  reason: 'Started',
  regarding: { kind: 'Pod', namespace: 'ns', name: 'p', apiVersion: 'v1' },
  note: 'it started',
  type: 'Normal',
};

describe('events.k8s.io/v1 Event validation (strict)', () => {
  it('accepts a complete event', async () => {
    const created = await eventStore().create(fromEventsV1('e', complete), 'ns', { requestVersion: EVENTS_V1 });
    assert.equal(created.metadata?.name, 'e');
  });

  it('requires eventTime and a type Normal|Warning', async () => {
    const { eventTime: _t, type: _y, ...rest } = complete;
    assert.equal(
      await refusal(eventStore().create(fromEventsV1('e', rest), 'ns', { requestVersion: EVENTS_V1 })),
      'Event "e" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: ]',
    );
    assert.equal(
      await refusal(eventStore().create(fromEventsV1('e', { ...complete, type: 'Info' }), 'ns', { requestVersion: EVENTS_V1 })),
      'Event "e" is invalid: type: Invalid value: "": has invalid value: Info',
    );
  });

  it('requires reportingController (a qualified name), reportingInstance, action and reason, with length limits', async () => {
    const { reportingController: _c, reportingInstance: _i, action: _a, reason: _r, ...rest } = complete;
    assert.equal(
      await refusal(eventStore().create(fromEventsV1('e', rest), 'ns', { requestVersion: EVENTS_V1 })),
      'Event "e" is invalid: [reportingController: Required value, reportingController: Invalid value: "": name part must be non-empty, ' +
        `reportingController: Invalid value: "": ${QUALIFIED_NAME_REGEX}, reportingInstance: Required value, action: Required value, reason: Required value]`,
    );
    const long = { ...complete, reportingInstance: 'i'.repeat(129), action: 'a'.repeat(129), reason: 'r'.repeat(129), note: 'n'.repeat(1025) };
    assert.equal(
      await refusal(eventStore().create(fromEventsV1('e', long), 'ns', { requestVersion: EVENTS_V1 })),
      'Event "e" is invalid: [reportingInstance: Invalid value: "": can have at most 128 characters, action: Invalid value: "": can have at most 128 characters, ' +
        'reason: Invalid value: "": can have at most 128 characters, message: Invalid value: "": can have at most 1024 characters]',
    );
    // Exactly at the limits (bytes, as Go's len counts them).
    const atLimit = { ...complete, reportingInstance: 'i'.repeat(128), note: 'é'.repeat(512) };
    await eventStore().create(fromEventsV1('e', atLimit), 'ns', { requestVersion: EVENTS_V1 });
    assert.match(await refusal(eventStore().create(fromEventsV1('e', { ...complete, note: 'é'.repeat(513) }), 'ns', { requestVersion: EVENTS_V1 })), /message: Invalid value: "": can have at most 1024 characters/);
  });

  it('regarding without a namespace only in default or kube-system; the name must be a DNS subdomain', async () => {
    const clusterScoped = { ...complete, regarding: { kind: 'Node', name: 'n1', apiVersion: 'v1' } };
    assert.equal(
      await refusal(eventStore().create(fromEventsV1('e', clusterScoped), 'ns', { requestVersion: EVENTS_V1 })),
      'Event "e" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace',
    );
    await eventStore().create(fromEventsV1('e', clusterScoped), 'kube-system', { requestVersion: EVENTS_V1 });
    assert.match(
      await refusal(eventStore().create(fromEventsV1('Bad_Name', complete), 'ns', { requestVersion: EVENTS_V1 })),
      /^Event "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/,
    );
  });

  it('series needs count >= 2 and lastObservedTime; deprecated fields must be unset', async () => {
    const bad = {
      ...complete,
      series: { count: 1 },
      deprecatedSource: { component: 'kubelet' },
      deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
      deprecatedLastTimestamp: '2026-01-01T00:00:00Z',
      deprecatedCount: 3,
    };
    assert.equal(
      await refusal(eventStore().create(fromEventsV1('e', bad), 'ns', { requestVersion: EVENTS_V1 })),
      'Event "e" is invalid: [series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value, ' +
        'firstTimestamp: Invalid value: "": needs to be unset, lastTimestamp: Invalid value: "": needs to be unset, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]',
    );
  });

  it('updates through events.k8s.io/v1 may change the series only', async () => {
    const rs = eventStore();
    const created = await rs.create(fromEventsV1('e', complete), 'ns', { requestVersion: EVENTS_V1 });
    const update = (change: Record<string, unknown>) =>
      rs.update('ns', { name: 'e', requestVersion: EVENTS_V1 }, (cur) => ({ ...eventsV1ToCore({ ...coreToEventsV1(cur!), ...change }), metadata: cur!.metadata }) as KubeObject);
    const updated = await update({ series: { count: 2, lastObservedTime: '2026-11-25T04:01:00.000001Z' } });
    assert.notEqual(updated.object.metadata?.resourceVersion, created.metadata?.resourceVersion);
    assert.equal(
      await refusal(update({ series: { count: 1, lastObservedTime: '2026-11-25T04:01:00.000001Z' } })),
      'Event "e" is invalid: series.count: Invalid value: "": should be at least 2',
    );
    assert.equal(
      await refusal(update({ note: 'changed', regarding: { kind: 'Pod', namespace: 'ns', name: 'q' }, deprecatedCount: 0, eventTime: '2026-11-25T05:00:00Z', related: { kind: 'Node', name: 'n' } })),
      'Event "e" is invalid: [involvedObject: Invalid value: {"Kind":"Pod","Namespace":"ns","Name":"q","UID":"","APIVersion":"","ResourceVersion":"","FieldPath":""}: field is immutable, ' +
        'message: Invalid value: "changed": field is immutable, eventTime: Invalid value: "2026-11-25T05:00:00.000000Z": field is immutable, ' +
        'related: Invalid value: {"Kind":"Node","Namespace":"","Name":"n","UID":"","APIVersion":"","ResourceVersion":"","FieldPath":""}: field is immutable]',
    );
    // kube checks reason twice: two causes, one line in the message (ToAggregate drops repeats).
    const twice = rs.update('ns', { name: 'e', requestVersion: EVENTS_V1 }, (cur) => ({ ...cur!, reason: 'Other', type: 'Warning' }));
    await assert.rejects(twice, (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status.message, 'Event "e" is invalid: [reason: Invalid value: "Other": field is immutable, type: Invalid value: "Warning": field is immutable]');
      assert.deepEqual(err.status.details?.causes?.map((c) => c.field), ['reason', 'reason', 'type']);
      return true;
    });
  });
});

describe('core/v1 Event validation (legacy only)', () => {
  it('old-style events: involvedObject.namespace must match (empty allowed in default)', async () => {
    const rs = eventStore();
    await rs.create(coreEvent('a', { involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p' }, reason: 'R', message: 'm', count: 1, source: { component: 'kubelet' }, type: 'Normal' }), 'ns', { requestVersion: 'v1' });
    await rs.create(coreEvent('b', { involvedObject: { kind: 'Node', name: 'n' } }), 'default', { requestVersion: 'v1' });
    assert.equal(
      await refusal(rs.create(coreEvent('c', { involvedObject: { kind: 'Pod', namespace: 'other', name: 'p' } }), 'ns', { requestVersion: 'v1' })),
      'Event "c" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    );
    assert.equal(
      await refusal(rs.create(coreEvent('d', { involvedObject: { kind: 'Node', name: 'n' } }), 'ns', { requestVersion: 'v1' })),
      'Event "d" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace',
    );
  });

  it('no strict rules: any type, deprecated fields, names that are path segments, and free updates', async () => {
    const rs = eventStore();
    const old = { involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p' }, type: 'Whatever', firstTimestamp: '2026-01-01T00:00:00Z', count: 4 };
    await rs.create(coreEvent('Pod_Name.1234', old), 'ns', { requestVersion: 'v1' });
    const r = await rs.update('ns', { name: 'Pod_Name.1234', requestVersion: 'v1' }, (cur) => ({ ...cur!, message: 'changed', count: 5 }));
    assert.equal(r.object['message'], 'changed');
    // events.k8s.io/v1beta1 is legacy as well.
    await rs.create(coreEvent('e', { ...old, message: 'x'.repeat(2000) }), 'ns', { requestVersion: 'events.k8s.io/v1beta1' });
  });

  it('new-style events through core/v1 still need the reporting fields', async () => {
    assert.equal(
      await refusal(eventStore().create(coreEvent('e', { involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p' }, eventTime: NOW, reportingComponent: 'c', reportingInstance: 'i', reason: 'R' }), 'ns', { requestVersion: 'v1' })),
      'Event "e" is invalid: action: Required value',
    );
  });
});

function fixture(t: TestContext, name: string): KubeObject | undefined {
  const text = sharedText(t, 'k8s-api', 'testdata', 'HEAD', name);
  return text === undefined ? undefined : (JSON.parse(text) as KubeObject);
}

/** The object without its TypeMeta (written by the encoder), as text: field order counts. */
function bodyText(o: KubeObject): string {
  const { apiVersion: _a, kind: _k, ...body } = o;
  return JSON.stringify(body);
}

describe('core/v1 <-> events.k8s.io/v1 conversion (Convert_v1_Event_To_core_Event and back)', () => {
  const renamed: Array<[string, string]> = [
    ['regarding', 'involvedObject'],
    ['note', 'message'],
    ['deprecatedSource', 'source'],
    ['deprecatedFirstTimestamp', 'firstTimestamp'],
    ['deprecatedLastTimestamp', 'lastTimestamp'],
    ['deprecatedCount', 'count'],
    ['reportingController', 'reportingComponent'],
  ];
  const same = ['eventTime', 'series', 'reportingInstance', 'action', 'reason', 'related', 'type'];

  it('events.k8s.io/v1 fixture → core/v1: every field where upstream puts it, and back unchanged', (t) => {
    const v1 = fixture(t, 'events.k8s.io.v1.Event.json');
    if (!v1) return;
    const core = eventsV1ToCore(v1);
    assert.equal(core.apiVersion, 'v1');
    assert.deepEqual(core.metadata, v1.metadata);
    for (const [from, to] of renamed) assert.deepEqual(core[to], v1[from], `${from} → ${to}`);
    for (const f of same) assert.deepEqual(core[f], v1[f], f);
    assert.deepEqual(Object.keys(core).sort(), ['apiVersion', 'kind', 'metadata', ...renamed.map(([, to]) => to), ...same].sort());
    assert.equal(bodyText(coreToEventsV1(core)), bodyText(v1));
    assert.equal(coreToEventsV1(core).apiVersion, 'events.k8s.io/v1');
  });

  it('core/v1 fixture → events.k8s.io/v1: every field where upstream puts it, and back unchanged', (t) => {
    const core = fixture(t, 'core.v1.Event.json');
    if (!core) return;
    const v1 = coreToEventsV1(core);
    assert.equal(v1.apiVersion, EVENTS_V1);
    for (const [to, from] of renamed) assert.deepEqual(v1[to], core[from], `${from} → ${to}`);
    for (const f of same) assert.deepEqual(v1[f], core[f], f);
    assert.equal(bodyText(eventsV1ToCore(v1)), bodyText(core));
    assert.equal(eventsV1ToCore(v1).apiVersion, 'v1');
  });
});
