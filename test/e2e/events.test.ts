import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, EventsV1Api, KubeConfig, type CoreV1Event, type EventsV1Event } from '@kubernetes/client-node';
import { PYTHON, pythonClientMissing } from '../helpers/python-client.js';
import { kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * Events through both APIs, as users make them: @kubernetes/client-node
 * creating core/v1 and events.k8s.io/v1 Events and reading each through the
 * other version; kube's validation by request version; `kubectl events` and
 * `kubectl get events` listing them; Debian's python3-kubernetes with its typed models.
 */

// Listing through EventsV1Api would fail in the client, as against kube: its model refuses the
// eventTime: null of events made through core/v1. The script lists through CoreV1Api.
const PYTHON_SCRIPT = `
import datetime, json, sys
from kubernetes import client, config
config.load_kube_config(sys.argv[1])
ns = sys.argv[2]
events, core = client.EventsV1Api(), client.CoreV1Api()
t = datetime.datetime(2026, 11, 25, 4, 0, 0, 123456, tzinfo=datetime.timezone.utc)
regarding = client.V1ObjectReference(kind='ConfigMap', namespace=ns, name='cfg', api_version='v1')
created = events.create_namespaced_event(ns, client.EventsV1Event(
    metadata=client.V1ObjectMeta(name='py.new'), event_time=t, reporting_controller='example.com/py',
    reporting_instance='py-1', action='Checked', reason='Valid', regarding=regarding, note='from python', type='Normal'))
read = core.read_namespaced_event('py.new', ns)
out = {'note': created.note, 'eventTime': created.event_time.isoformat(), 'message': read.message,
       'reportingComponent': read.reporting_component, 'involved': read.involved_object.name,
       'coreEventTime': read.event_time.isoformat(), 'listed': sorted(e.metadata.name for e in core.list_namespaced_event(ns).items if e.event_time)}
try:
    events.create_namespaced_event(ns, client.EventsV1Event(metadata=client.V1ObjectMeta(name='py.bad'), event_time=t, regarding=regarding, reason='R', type='Normal'))
except client.ApiException as e:
    out['badStatus'] = e.status
    out['badMessage'] = json.loads(e.body)['message']
print(json.dumps(out))
`;

const ns = 'events-e2e';

/** A MicroTime as kube writes it, where client-node's types want a Date. */
function microTime(text: string): Date {
  return text as unknown as Date;
}

function apiError(err: unknown): { code: number; message: string } {
  const e = err as { code?: number; body?: string };
  return { code: e.code ?? 0, message: String(JSON.parse(e.body ?? '{}').message) };
}

describe('events end to end', () => {
  let server: TestServer;
  let core: CoreV1Api;
  let events: EventsV1Api;

  before(async () => {
    server = await startServer();
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
    events = kc.makeApiClient(EventsV1Api);
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cfg' } } });
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('an events.k8s.io/v1 Event reads back through core/v1 with the renamed fields', async () => {
    // client-node types eventTime as a Date but sends it as it is: a Date goes out with
    // milliseconds, which kube's MicroTime refuses (below); users send the microsecond text.
    const eventTime = '2026-11-25T04:00:00.123456Z';
    const body: EventsV1Event = {
      metadata: { name: 'cfg.new' },
      eventTime: microTime(eventTime),
      reportingController: 'example.com/e2e',
      reportingInstance: 'e2e-1',
      action: 'Checked',
      reason: 'Valid',
      regarding: { kind: 'ConfigMap', namespace: ns, name: 'cfg', apiVersion: 'v1' },
      note: 'the config map is fine',
      type: 'Normal',
    };
    const created = await events.createNamespacedEvent({ namespace: ns, body });
    assert.equal(created.note, 'the config map is fine');
    const read: CoreV1Event = await core.readNamespacedEvent({ namespace: ns, name: 'cfg.new' });
    assert.equal(read.message, 'the config map is fine');
    assert.equal(read.reportingComponent, 'example.com/e2e');
    assert.equal(read.reportingInstance, 'e2e-1');
    assert.equal(read.action, 'Checked');
    assert.equal(read.reason, 'Valid');
    assert.equal(read.type, 'Normal');
    assert.deepEqual(
      { kind: read.involvedObject.kind, namespace: read.involvedObject.namespace, name: read.involvedObject.name, apiVersion: read.involvedObject.apiVersion },
      { kind: 'ConfigMap', namespace: ns, name: 'cfg', apiVersion: 'v1' },
    );
    assert.equal(String(read.eventTime), eventTime);
    assert.equal(read.count, undefined);
  });

  it('a core/v1 Event reads back through events.k8s.io/v1 with its deprecated fields', async () => {
    const first = new Date('2026-11-25T03:00:00Z');
    await core.createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name: 'cfg.old' },
        involvedObject: { kind: 'ConfigMap', namespace: ns, name: 'cfg', apiVersion: 'v1' },
        reason: 'Seen',
        message: 'seen three times',
        source: { component: 'old-controller', host: 'node-1' },
        firstTimestamp: first,
        lastTimestamp: first,
        count: 3,
        type: 'Warning',
      },
    });
    const read = await events.readNamespacedEvent({ namespace: ns, name: 'cfg.old' });
    assert.equal(read.note, 'seen three times');
    assert.equal(read.reason, 'Seen');
    assert.equal(read.type, 'Warning');
    assert.equal(read.deprecatedCount, 3);
    assert.deepEqual({ ...read.deprecatedSource }, { component: 'old-controller', host: 'node-1' });
    assert.equal(read.deprecatedFirstTimestamp?.getTime(), first.getTime());
    assert.equal(read.regarding?.name, 'cfg');
  });

  it('events.k8s.io/v1 refuses what core/v1 accepts, with kube\'s messages', async () => {
    const legacy = { metadata: { name: 'loose' }, involvedObject: { kind: 'ConfigMap', namespace: ns, name: 'cfg' }, reason: 'R', type: 'Custom' };
    await core.createNamespacedEvent({ namespace: ns, body: legacy });
    await assert.rejects(
      events.createNamespacedEvent({ namespace: ns, body: { metadata: { name: 'strict' }, regarding: { kind: 'ConfigMap', namespace: ns, name: 'cfg' }, reason: 'R', type: 'Custom' } as unknown as EventsV1Event }),
      (err) => {
        assert.deepEqual(apiError(err), { code: 422, message: 'Event "strict" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: Custom]' });
        return true;
      },
    );
    await assert.rejects(
      events.createNamespacedEvent({ namespace: ns, body: { metadata: { name: 'strict' }, eventTime: microTime('2026-11-25T04:00:00.000001Z'), regarding: { kind: 'ConfigMap', namespace: ns, name: 'cfg' }, reportingController: 'c', reportingInstance: 'i', reason: 'R', type: 'Normal' } }),
      (err) => {
        assert.deepEqual(apiError(err), { code: 422, message: 'Event "strict" is invalid: action: Required value' });
        return true;
      },
    );
    // A Date as client-node sends it (milliseconds) is not a MicroTime: kube's decoding error.
    await assert.rejects(
      events.createNamespacedEvent({ namespace: ns, body: { metadata: { name: 'ms' }, eventTime: new Date('2026-11-25T04:00:00.123Z'), regarding: { kind: 'ConfigMap', namespace: ns, name: 'cfg' }, reportingController: 'c', reportingInstance: 'i', action: 'A', reason: 'R', type: 'Normal' } }),
      (err) => {
        assert.deepEqual(apiError(err), {
          code: 400,
          message: 'Event in version "v1" cannot be handled as a Event: parsing time "2026-11-25T04:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"',
        });
        return true;
      },
    );
    // Updating a note through events.k8s.io/v1 is refused; through core/v1 the message may change.
    const current = await events.readNamespacedEvent({ namespace: ns, name: 'cfg.new' });
    await assert.rejects(events.replaceNamespacedEvent({ namespace: ns, name: 'cfg.new', body: { ...current, note: 'changed' } }), (err) => {
      assert.deepEqual(apiError(err), { code: 422, message: 'Event "cfg.new" is invalid: message: Invalid value: "changed": field is immutable' });
      return true;
    });
    const coreCurrent = await core.readNamespacedEvent({ namespace: ns, name: 'cfg.new' });
    const replaced = await core.replaceNamespacedEvent({ namespace: ns, name: 'cfg.new', body: { ...coreCurrent, message: 'changed' } });
    assert.equal(replaced.message, 'changed');
  });

  it('python3-kubernetes: typed events.k8s.io/v1 create, read through core/v1, kube\'s refusal', { skip: pythonClientMissing('kubernetes.client') }, () => {
    const r = spawnSync(PYTHON, ['-c', PYTHON_SCRIPT, server.kubeconfig, ns], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    assert.deepEqual(out, {
      note: 'from python',
      eventTime: '2026-11-25T04:00:00.123456+00:00',
      message: 'from python',
      reportingComponent: 'example.com/py',
      involved: 'cfg',
      coreEventTime: '2026-11-25T04:00:00.123456+00:00',
      listed: ['cfg.new', 'py.new'],
      badStatus: 422,
      badMessage:
        'Event "py.bad" is invalid: [reportingController: Required value, reportingController: Invalid value: "": name part must be non-empty, ' +
        "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), reportingInstance: Required value, action: Required value]",
    });
  });

  it('kubectl get events and kubectl events list both kinds of event', { skip: kubectlMissing() }, async () => {
    const get = await kubectl(server, ['get', 'events', '-n', ns]);
    assert.equal(get.code, 0, get.stderr);
    const header = get.stdout.split('\n')[0]!;
    assert.match(header, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    assert.match(get.stdout, /Warning\s+Seen\s+configmap\/cfg\s+seen three times/);
    assert.match(get.stdout, /Normal\s+Valid\s+configmap\/cfg\s+changed/);

    const ev = await kubectl(server, ['events', '-n', ns]);
    assert.equal(ev.code, 0, ev.stderr);
    assert.match(ev.stdout.split('\n')[0]!, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    assert.match(ev.stdout, /Warning\s+Seen\s+ConfigMap\/cfg\s+seen three times/);
    assert.match(ev.stdout, /Normal\s+Valid\s+ConfigMap\/cfg\s+changed/);

    // --for selects on involvedObject kind, apiVersion and name.
    const warnings = await kubectl(server, ['events', '-n', ns, '--types=Warning', '--for', 'configmap/cfg']);
    assert.equal(warnings.code, 0, warnings.stderr);
    assert.match(warnings.stdout, /Seen/);
    assert.doesNotMatch(warnings.stdout, /Valid/);

    const v1 = await kubectl(server, ['get', 'events.v1.events.k8s.io', '-n', ns, 'cfg.old', '-o', 'jsonpath={.note}/{.deprecatedCount}']);
    assert.equal(v1.code, 0, v1.stderr);
    assert.equal(v1.stdout, 'seen three times/3');
  });
});
