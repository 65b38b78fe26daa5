/**
 * The JSON ↔ protobuf conversions that differ from a plain field mapping,
 * checked against hand-built wire bytes of what Go's marshallers write.
 * These run without ../shared (the descriptors are committed).
 */
import { goJsonText } from '../../src/codec/go-json.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  decodeProtobufObject,
  decodeWatchEvents,
  encodeProtobufList,
  encodeProtobufObject,
  encodeWatchEvent,
  ProtobufDecodeError,
  ProtobufEncodeError,
  ProtobufEnvelopeError,
  ProtobufMissingKindError,
  ProtobufUnsupportedKindError,
  supportsProtobuf,
} from '../../src/codec/protobuf/index.js';
import { formatGoDuration, formatRfc3339, parseGoDuration, parseRfc3339 } from '../../src/codec/protobuf/wellknown.js';

// --- a tiny proto writer for building expected bytes -------------------------

function varint(v: number | bigint): number[] {
  let b = BigInt.asUintN(64, BigInt(v));
  const out: number[] = [];
  while (b > 0x7fn) {
    out.push(Number(b & 0x7fn) | 0x80);
    b >>= 7n;
  }
  out.push(Number(b));
  return out;
}
const vint = (n: number, v: number | bigint): number[] => [...varint(n << 3), ...varint(v)];
const ld = (n: number, payload: number[] | string): number[] => {
  const bytes = typeof payload === 'string' ? [...Buffer.from(payload, 'utf8')] : payload;
  return [...varint((n << 3) | 2), ...varint(bytes.length), ...bytes];
};
/** k8s\0 + runtime.Unknown{typeMeta, raw, "", ""}. */
function envelope(apiVersion: string, kind: string, raw: number[]): Buffer {
  return Buffer.from([0x6b, 0x38, 0x73, 0x00, ...ld(1, [...ld(1, apiVersion), ...ld(2, kind)]), ...ld(2, raw), ...ld(3, ''), ...ld(4, '')]);
}
/** The raw message bytes inside an envelope produced by the encoder. */
function rawOf(enveloped: Buffer): Buffer {
  let pos = 4;
  const read = (): number => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = enveloped[pos++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
      shift += 7;
    }
  };
  for (;;) {
    const tag = read();
    const n = read();
    if (tag >>> 3 === 2) return enveloped.subarray(pos, pos + n);
    pos += n;
  }
}
/** What Go's JSON of the object is (the decoded protobuf of a Go-written message says the same). */
const goJson = (obj: Record<string, unknown>): unknown => JSON.parse(goJsonText(obj)!);
const hasBytes = (hay: Buffer, needle: number[]): boolean => hay.includes(Buffer.from(needle));

/** ObjectMeta as go-to-protobuf writes a value with only a name set: every non-pointer field, zero or not. */
function kubectlMeta(name: string): number[] {
  return [
    ...ld(1, name),
    ...ld(2, ''),
    ...ld(3, ''),
    ...ld(4, ''),
    ...ld(5, ''),
    ...ld(6, ''),
    ...vint(7, 0),
    ...ld(8, []), // creationTimestamp: zero Time, written empty
  ];
}

describe('protobuf envelope', () => {
  it('decodes a kubectl-style Namespace body to the JSON a Go client sends', () => {
    const body = envelope('v1', 'Namespace', [...ld(1, kubectlMeta('foo')), ...ld(2, []), ...ld(3, ld(1, ''))]);
    const got = decodeProtobufObject(body);
    assert.equal(got.kind, 'Namespace');
    assert.equal(got.apiVersion, 'v1');
    assert.equal(got.contentType, '');
    assert.equal(JSON.stringify(got.object), '{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"foo"},"spec":{},"status":{}}');
  });

  it('uses the defaults for an envelope without type, and reports missing kinds like kube', () => {
    const raw = ld(1, kubectlMeta('cm'));
    const noType = envelope('', '', raw);
    assert.deepEqual(decodeProtobufObject(noType, { apiVersion: 'v1', kind: 'ConfigMap' }).object, {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'cm' },
    });
    assert.throws(() => decodeProtobufObject(noType), (e: unknown) => e instanceof ProtobufMissingKindError && /Object 'Kind' is missing in 'runtime.TypeMeta\{APIVersion:"", Kind:""\}'/.test(e.message));
    assert.throws(() => decodeProtobufObject(envelope('', 'ConfigMap', raw)), ProtobufMissingKindError);
  });

  it('rejects bodies that are not enveloped protobuf', () => {
    assert.throws(() => decodeProtobufObject(Buffer.alloc(0)), (e: unknown) => e instanceof ProtobufEnvelopeError && e.message === 'empty data');
    assert.throws(() => decodeProtobufObject(Buffer.from('{"kind":"Pod"}')), (e: unknown) => e instanceof ProtobufEnvelopeError && e.message === 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
    assert.throws(() => decodeProtobufObject(Buffer.from([0x6b, 0x38, 0x73, 0x00])), (e: unknown) => e instanceof ProtobufEnvelopeError && e.message === 'empty body');
  });

  it('rejects malformed messages with a decode error', () => {
    const good = envelope('v1', 'ConfigMap', ld(1, kubectlMeta('cm')));
    for (let cut = 5; cut < good.length; cut += 3) {
      assert.throws(() => decodeProtobufObject(good.subarray(0, cut)), ProtobufDecodeError, `cut at ${cut}`);
    }
    // name (string, field 1 of ObjectMeta) sent as a varint
    assert.throws(() => decodeProtobufObject(envelope('v1', 'ConfigMap', ld(1, vint(1, 5)))), /wrong wireType/);
  });

  it('reports kinds without a proto message', () => {
    const crd = envelope('apiextensions.k8s.io/v1', 'CustomResourceDefinition', []);
    assert.throws(() => decodeProtobufObject(crd), (e: unknown) => e instanceof ProtobufUnsupportedKindError && e.kind === 'CustomResourceDefinition');
    assert.throws(() => encodeProtobufObject({ apiVersion: 'stable.example.com/v1', kind: 'CronTab' }), ProtobufUnsupportedKindError);
    assert.equal(supportsProtobuf('v1', 'Pod'), true);
    assert.equal(supportsProtobuf('apps/v1', 'DeploymentList'), true);
    assert.equal(supportsProtobuf('stable.example.com/v1', 'Status'), true);
    assert.equal(supportsProtobuf('meta.k8s.io/v1', 'Table'), false);
    assert.equal(supportsProtobuf('apiregistration.k8s.io/v1', 'APIService'), false);
  });

  it('skips unknown fields', () => {
    const raw = [...ld(1, kubectlMeta('cm')), ...ld(99, 'future'), ...vint(98, 7), ...ld(2, [...ld(1, 'k'), ...ld(2, 'v')])];
    assert.deepEqual(decodeProtobufObject(envelope('v1', 'ConfigMap', raw)).object, {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'cm' },
      data: { k: 'v' },
    });
  });

  it('writes the envelope Go writes', () => {
    // every non-pointer ObjectMeta field is written, zero or not (go-to-protobuf's Marshal)
    const got = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
    assert.deepEqual(got, envelope('v1', 'ConfigMap', ld(1, kubectlMeta('a'))));
  });
});

describe('protobuf conversions', () => {
  it('Time: RFC 3339 seconds ↔ {seconds, nanos: 0}; zero time is null', () => {
    const secs = 1199149261; // 2008-01-01T01:01:01Z
    const enc = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', creationTimestamp: '2008-01-01T02:01:01+01:00' } });
    assert.ok(hasBytes(rawOf(enc), ld(8, [...vint(1, secs), ...vint(2, 0)])));
    // Time drops nanoseconds on decode, as metav1.Time.Unmarshal does.
    const dec = decodeProtobufObject(envelope('v1', 'ConfigMap', ld(1, [...ld(1, 'a'), ...ld(8, [...vint(1, secs), ...vint(2, 999)])])));
    assert.equal((dec.object['metadata'] as Record<string, unknown>)['creationTimestamp'], '2008-01-01T01:01:01Z');
    const zero = decodeProtobufObject(envelope('v1', 'ConfigMap', ld(1, [...ld(1, 'a'), ...ld(8, vint(1, -62135596800))])));
    // creationTimestamp has omitzero (1.33+): the zero time is left out; another zero Time is null
    assert.ok(!('creationTimestamp' in (zero.object['metadata'] as Record<string, unknown>)));
    const event = decodeProtobufObject(envelope('v1', 'Event', [...ld(1, ld(1, 'e')), ...ld(6, vint(1, -62135596800)), ...ld(7, [])]));
    assert.equal(event.object['firstTimestamp'], null);
    assert.equal(event.object['lastTimestamp'], null);
    // a null time is the zero Time, written empty (a value struct)
    const nul = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', creationTimestamp: null } });
    assert.deepEqual(rawOf(nul), Buffer.from(ld(1, kubectlMeta('a'))));
    assert.throws(() => encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { creationTimestamp: 'yesterday' } }), ProtobufEncodeError);
  });

  it('MicroTime: six fractional digits ↔ {seconds, nanos}', () => {
    const obj = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e' }, eventTime: '2008-01-01T01:01:01.123456Z' };
    const raw = rawOf(encodeProtobufObject(obj));
    assert.ok(hasBytes(raw, ld(2, [...vint(1, 1199149261), ...vint(2, 123456000)])));
    const dec = decodeProtobufObject(envelope('events.k8s.io/v1', 'Event', [...ld(1, ld(1, 'e')), ...ld(2, [...vint(1, 1199149261), ...vint(2, 123456789)])]));
    assert.equal(dec.object['eventTime'], '2008-01-01T01:01:01.123456Z');
  });

  it('Quantity: string ↔ {string}; numbers are accepted', () => {
    const raw = rawOf(encodeProtobufObject({ apiVersion: 'v1', kind: 'ResourceQuota', spec: { hard: { pods: 10, cpu: '100m' } } }));
    // map entries sorted by key, values are Quantity messages
    assert.ok(hasBytes(raw, [...ld(1, [...ld(1, 'cpu'), ...ld(2, ld(1, '100m'))]), ...ld(1, [...ld(1, 'pods'), ...ld(2, ld(1, '10'))])]));
    const dec = decodeProtobufObject(encodeProtobufObject({ apiVersion: 'v1', kind: 'ResourceQuota', spec: { hard: { cpu: '100m' } } }));
    assert.deepEqual(dec.object['spec'], { hard: { cpu: '100m' } });
  });

  it('IntOrString: number or string ↔ {type, intVal, strVal}, all three written', () => {
    const svc = (targetPort: number | string) => ({ apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80, targetPort }] } });
    assert.ok(hasBytes(rawOf(encodeProtobufObject(svc(8080))), ld(4, [...vint(1, 0), ...vint(2, 8080), ...ld(3, '')])));
    assert.ok(hasBytes(rawOf(encodeProtobufObject(svc('http'))), ld(4, [...vint(1, 1), ...vint(2, 0), ...ld(3, 'http')])));
    for (const tp of [8080, 'http']) {
      const spec = decodeProtobufObject(encodeProtobufObject(svc(tp))).object['spec'] as { ports: Record<string, unknown>[] };
      assert.equal(spec.ports[0]!['targetPort'], tp);
    }
  });

  it('inline structs: VolumeSource fields sit in the Volume object, a sub-message on the wire', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', spec: { volumes: [{ name: 'v', configMap: { name: 'cm' } }] } };
    const raw = rawOf(encodeProtobufObject(pod));
    // Volume{name=1, volumeSource=2{configMap=19{localObjectReference=1{name=1}}}}
    assert.ok(hasBytes(raw, ld(1, [...ld(1, 'v'), ...ld(2, ld(19, ld(1, ld(1, 'cm'))))])));
    const back = decodeProtobufObject(encodeProtobufObject(pod)).object['spec'] as Record<string, unknown>;
    assert.deepEqual(back['volumes'], [{ name: 'v', configMap: { name: 'cm' } }]);
  });

  it('map<string, bytes>: base64 in JSON, raw bytes on the wire; empty kept, null dropped', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', data: { b: Buffer.from('hello').toString('base64'), a: '', c: null } };
    const raw = rawOf(encodeProtobufObject(secret));
    assert.ok(hasBytes(raw, [...ld(2, [...ld(1, 'a'), ...ld(2, '')]), ...ld(2, [...ld(1, 'b'), ...ld(2, 'hello')]), ...ld(2, ld(1, 'c'))]));
    const back = decodeProtobufObject(encodeProtobufObject(secret)).object;
    assert.deepEqual(back['data'], { a: '', b: 'aGVsbG8=', c: null });
  });

  it('RawExtension: embedded JSON ↔ raw bytes', () => {
    const cr = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data: { spec: { a: 1 } }, revision: 2 };
    const raw = rawOf(encodeProtobufObject(cr));
    assert.ok(hasBytes(raw, ld(2, ld(1, '{"spec":{"a":1}}'))));
    assert.deepEqual(decodeProtobufObject(encodeProtobufObject(cr)).object, goJson(cr));
    const bad = envelope('apps/v1', 'ControllerRevision', ld(2, ld(1, '{not json')));
    assert.throws(() => decodeProtobufObject(bad), (e: unknown) => e instanceof ProtobufDecodeError && /RawExtension does not hold JSON/.test(e.message));
  });

  it('FieldsV1: JSON object ↔ Raw bytes', () => {
    const mf = { manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } };
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', managedFields: [mf] } };
    assert.ok(hasBytes(rawOf(encodeProtobufObject(cm)), ld(7, ld(1, '{"f:data":{"f:a":{}}}'))));
    const back = decodeProtobufObject(encodeProtobufObject(cm)).object['metadata'] as Record<string, unknown>;
    assert.deepEqual(back['managedFields'], [mf]);
  });

  it('Duration: Go duration text ↔ nanoseconds', () => {
    const cases: [string, bigint][] = [
      ['0s', 0n],
      ['1ns', 1n],
      ['1.5µs', 1500n],
      ['1.000001ms', 1000001n],
      ['1s', 1_000_000_000n],
      ['1m30s', 90_000_000_000n],
      ['1h0m0s', 3_600_000_000_000n],
      ['-2h3m4.5s', -7_384_500_000_000n],
      ['2562047h47m16.854775807s', (1n << 63n) - 1n],
    ];
    for (const [text, ns] of cases) {
      assert.equal(formatGoDuration(ns), text);
      assert.equal(parseGoDuration(text), ns);
    }
    assert.equal(parseGoDuration('90m'), 5_400_000_000_000n);
    assert.equal(parseGoDuration('1.5h'), 5_400_000_000_000n);
    assert.equal(parseGoDuration('1us'), 1000n);
    assert.equal(parseGoDuration('0'), 0n);
    for (const bad of ['', '1', 'h', '1x', '.s', '3000000h']) assert.equal(parseGoDuration(bad), undefined, bad);
  });

  it('RFC 3339 helpers handle offsets, fractions and early years', () => {
    assert.deepEqual(parseRfc3339('2008-01-01T01:01:01Z'), { seconds: 1199149261, nanos: 0 });
    assert.deepEqual(parseRfc3339('2008-01-01T02:31:01.5+01:30'), { seconds: 1199149261, nanos: 500000000 });
    assert.equal(parseRfc3339('2008-02-30T00:00:00Z'), undefined);
    assert.equal(formatRfc3339(-62135596800), '0001-01-01T00:00:00Z');
    assert.equal(formatRfc3339(1199149261, 123456789, true), '2008-01-01T01:01:01.123456Z');
  });

  it('empty vs absent: zero non-pointer scalars drop, pointers and required fields keep them', () => {
    // DeploymentSpec.replicas is *int32 (0 means zero replicas); minReadySeconds is a plain int32 with omitempty;
    // paused is a plain bool with omitempty.
    const spec = [...vint(1, 0), ...vint(5, 0), ...vint(7, 0)];
    const dec = decodeProtobufObject(envelope('apps/v1', 'Deployment', [...ld(1, kubectlMeta('d')), ...ld(2, spec)]));
    // selector is a *LabelSelector without omitempty: nil is written as null
    assert.deepEqual(dec.object['spec'], { replicas: 0, selector: null });
    // ContainerPort.containerPort has no omitempty: a zero still shows. A list without omitempty is null when empty.
    const pod = decodeProtobufObject(envelope('v1', 'Pod', ld(2, [...ld(2, [...ld(1, 'c'), ...ld(6, vint(3, 0)), ...ld(8, [])])])));
    const podSpec = pod.object['spec'] as Record<string, unknown>;
    assert.deepEqual(podSpec['containers'], [{ name: 'c', ports: [{ containerPort: 0 }], resources: {} }]);
    // storageClassName "" (a *string: "no dynamic provisioning") and immutable: false (a *bool) survive
    const pvc = decodeProtobufObject(envelope('v1', 'PersistentVolumeClaim', ld(2, ld(5, ''))));
    assert.deepEqual(pvc.object['spec'], { storageClassName: '' });
    const cm = decodeProtobufObject(envelope('v1', 'ConfigMap', vint(4, 0)));
    assert.equal(cm.object['immutable'], false);
    // absent pointers stay absent on encode; present zeros are written; so are absent non-pointer scalars and value structs
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 0 } };
    const raw = rawOf(encodeProtobufObject(deployment));
    assert.ok(raw.subarray(0, 2 + kubectlMeta('').length).equals(Buffer.from(ld(1, kubectlMeta('')))));
    const specStart = 2 + kubectlMeta('').length;
    assert.deepEqual([...raw.subarray(specStart + 2, specStart + 4)], vint(1, 0));
    assert.ok(hasBytes(raw, ld(4, ld(1, '')))); // strategy: {type: ""}
    assert.ok(hasBytes(raw, [...vint(5, 0), ...vint(7, 0)])); // minReadySeconds 0, paused false
    assert.deepEqual(decodeProtobufObject(encodeProtobufObject(deployment)).object, goJson(deployment));
  });

  it('negative integers use ten-byte varints, as Go writes them', () => {
    const raw = rawOf(encodeProtobufObject({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, count: -1 }));
    assert.ok(hasBytes(raw, vint(8, -1)));
    assert.equal(vint(8, -1).length, 11);
    assert.equal(decodeProtobufObject(encodeProtobufObject({ apiVersion: 'v1', kind: 'Event', count: -1 })).object['count'], -1);
  });

  it('map keys are sorted by UTF-8 bytes', () => {
    const labels = { b: '1', a: '2', 'é': '3', 'Z': '4', '😀': '5', '\uffee': '6' };
    const dec = decodeProtobufObject(encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels } })).object;
    assert.deepEqual(Object.keys((dec['metadata'] as { labels: object }).labels), ['Z', 'a', 'b', 'é', '\uffee', '😀']);
  });

  it('names encode errors with a JSON path', () => {
    assert.throws(
      () => encodeProtobufObject({ apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'c', ports: [{ containerPort: 'x' }] }] } }),
      (e: unknown) => e instanceof ProtobufEncodeError && e.message.startsWith('Pod.spec.containers[0].ports[0].containerPort: expected an integer'),
    );
  });

  it('lists nest their items', () => {
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '5' }, items: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] };
    const dec = decodeProtobufObject(encodeProtobufList(list)).object;
    assert.deepEqual(dec, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] });
    assert.deepEqual(dec, goJson(list));
    // Items has no omitempty: an empty list decodes as null, as Go writes a nil slice
    assert.equal(decodeProtobufObject(encodeProtobufList({ ...list, items: [] })).object['items'], null);
  });
});

describe('protobuf watch framing', () => {
  it('frames WatchEvent messages with enveloped objects', () => {
    const pod = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p', resourceVersion: '7' } };
    const a = encodeWatchEvent('ADDED', pod);
    const b = encodeWatchEvent('DELETED', pod);
    assert.equal(a.readUInt32BE(0), a.length - 4);
    const objectBytes = encodeProtobufObject(pod);
    // WatchEvent{type=1, object=2 RawExtension{raw=1: the enveloped object}}
    assert.deepEqual(a.subarray(4), Buffer.from([...ld(1, 'ADDED'), ...ld(2, ld(1, [...objectBytes]))]));
    const all = Buffer.concat([a, b, b.subarray(0, 6)]);
    const { events, rest } = decodeWatchEvents(all);
    assert.deepEqual(events.map((e) => [e.type, e.object.object]), [
      ['ADDED', goJson(pod)],
      ['DELETED', goJson(pod)],
    ]);
    assert.equal(rest.length, 6);
  });

  it('encodes ERROR events carrying a Status', () => {
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (5)', reason: 'Expired', code: 410 };
    const { events } = decodeWatchEvents(encodeWatchEvent('ERROR', status));
    assert.deepEqual(events[0]!.object.object, status);
  });
});
