/**
 * Go-exact JSON (codec/go-json.ts): what kube-apiserver's encoding/json
 * writes for built-in objects.
 *
 *  - every upstream fixture kind (../shared/k8s-api/testdata/HEAD, written by
 *    Go's encoder): our encoding of the decoded .json is the .json's bytes
 *    (compared compact: the fixtures are indented);
 *  - zero values Go writes although nobody stored them (DaemonSet and
 *    ReplicationController status counters, `status: {}`, template metadata
 *    without the creationTimestamp that 1.33+ omits), the order, the escaping
 *    and the trailing newline of bodies.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { encode } from '../../src/codec/codec.js';
import { goJsonText } from '../../src/codec/go-json.js';
import { JSON_TYPE } from '../../src/codec/media-type.js';
import { FIXTURE_DIR, firstDifference, sharedOrSkip, upstreamFixtures } from '../helpers/shared.js';

/** JSON text without the whitespace between tokens (strings kept byte for byte). */
function compact(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i]!;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c !== ' ' && c !== '\n' && c !== '\t' && c !== '\r') out += c;
  }
  return out;
}

function go(obj: Record<string, unknown>): Record<string, unknown> {
  const text = goJsonText(obj);
  assert.ok(text !== undefined, 'a built-in kind');
  return JSON.parse(text) as Record<string, unknown>;
}

describe('Go JSON: upstream fixtures (testdata/HEAD)', () => {
  it('has fixtures', (t) => {
    if (!sharedOrSkip(t, FIXTURE_DIR)) return;
    assert.ok(upstreamFixtures('.json').length >= 180);
  });
  for (const fx of upstreamFixtures('.json')) {
    it(`${fx.base}: re-encodes to the fixture's bytes`, () => {
      const text = readFileSync(join(FIXTURE_DIR, `${fx.base}.json`), 'utf8');
      const want = compact(text);
      const obj = JSON.parse(text) as Record<string, unknown>;
      const got = goJsonText(obj, { apiVersion: fx.apiVersion, kind: fx.kind });
      assert.ok(got !== undefined, `no descriptor for ${fx.apiVersion} ${fx.kind}`);
      if (got !== want) assert.fail(`differs ${firstDifference(got, want)}`);
    });
  }
});

describe('Go JSON: zero values kube writes', () => {
  it('DaemonSet: status counters without omitempty, selector null, template metadata {}', () => {
    const ds = go({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'd', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } },
    });
    assert.deepEqual(Object.keys(ds), ['kind', 'apiVersion', 'metadata', 'spec', 'status']);
    assert.deepEqual(ds['status'], { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
    const spec = ds['spec'] as Record<string, unknown>;
    assert.deepEqual(Object.keys(spec), ['selector', 'template', 'updateStrategy']);
    assert.equal(spec['selector'], null);
    assert.deepEqual(spec['updateStrategy'], {});
    const template = spec['template'] as Record<string, unknown>;
    // 1.33+ (kubernetes#130989): a zero creationTimestamp is omitted, not null.
    assert.deepEqual(template['metadata'], {});
    const container = ((template['spec'] as Record<string, unknown>)['containers'] as Array<Record<string, unknown>>)[0]!;
    assert.deepEqual(container, { name: 'c', image: 'i', resources: {} });
  });

  it('ReplicationController: status.replicas 0', () => {
    const rc = go({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'r' }, spec: { replicas: 0 } });
    assert.deepEqual(rc['status'], { replicas: 0 });
    assert.deepEqual(rc['spec'], { replicas: 0 });
  });

  it('Pod: status {} and spec.containers null when absent', () => {
    const pod = go({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } });
    assert.deepEqual(pod, { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' }, spec: { containers: null }, status: {} });
  });

  it('Deployment: template metadata {} and creationTimestamp omitted when zero, written when set', () => {
    const d = go({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', creationTimestamp: '2024-05-06T07:08:09.123+02:00' },
      spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { creationTimestamp: null, labels: { a: 'b' } } } },
    });
    assert.equal((d['metadata'] as Record<string, unknown>)['creationTimestamp'], '2024-05-06T05:08:09Z');
    const spec = d['spec'] as Record<string, unknown>;
    assert.deepEqual(spec['template'], { metadata: { labels: { a: 'b' } }, spec: { containers: null } });
    assert.deepEqual(spec['strategy'], {});
    assert.deepEqual(d['status'], {});
  });

  it('drops omitempty zeros a client sent, keeps pointer zeros', () => {
    const d = go({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', generation: 0 }, spec: { replicas: 0, minReadySeconds: 0, paused: false } });
    assert.deepEqual(d['metadata'], { name: 'd' });
    assert.deepEqual((d['spec'] as Record<string, unknown>)['replicas'], 0);
    assert.ok(!('minReadySeconds' in (d['spec'] as object)));
    assert.ok(!('paused' in (d['spec'] as object)));
  });

  it('core Event: reportingComponent and reportingInstance always written; times as null', () => {
    const e = go({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p' } });
    assert.deepEqual(e, {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod', name: 'p' },
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    });
  });

  it('Role: rules null when absent; RoleBinding roleRef always', () => {
    assert.deepEqual(go({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' } }), {
      kind: 'Role',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'r' },
      rules: null,
    });
    const rb = go({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'r' } });
    assert.deepEqual(rb['roleRef'], { apiGroup: '', kind: '', name: '' });
  });

  it('map keys sorted by bytes, numeric-looking keys included', () => {
    const text = goJsonText({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { b: '1', '10': 'x', '2': 'y', a: 'z' } });
    assert.equal(text, '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"},"data":{"10":"x","2":"y","a":"z","b":"1"}}');
  });

  it('escapes as Go: <, >, &, U+2028, U+2029', () => {
    const text = goJsonText({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: '<a href="x">&\u2028\u2029 \\u003c' } });
    assert.equal(text, '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"},"data":{"k":"\\u003ca href=\\"x\\"\\u003e\\u0026\\u2028\\u2029 \\\\u003c"}}');
  });

  it('quantities canonical, unknown fields dropped, custom kinds untouched', () => {
    const pod = go({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', resources: { limits: { cpu: '1000m', memory: '2048Ki' } } }] }, bogus: 1 });
    assert.deepEqual((pod['spec'] as { containers: Array<{ resources: unknown }> }).containers[0]!.resources, { limits: { cpu: '1', memory: '2Mi' } });
    assert.ok(!('bogus' in pod));
    assert.equal(goJsonText({ apiVersion: 'example.com/v1', kind: 'Widget', b: 1, a: 2 }), undefined);
  });

  it('JSON bodies end with a newline; Status in Go order', () => {
    const body = encode({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'm', reason: 'NotFound', code: 404, metadata: {} }, JSON_TYPE).toString();
    assert.equal(body, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m","reason":"NotFound","code":404}\n');
    assert.equal(encode({ apiVersion: 'example.com/v1', kind: 'Widget' }, JSON_TYPE).toString(), '{"apiVersion":"example.com/v1","kind":"Widget"}\n');
  });
});
