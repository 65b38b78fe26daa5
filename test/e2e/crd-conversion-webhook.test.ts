import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';

import { ApiServer } from '../../src/server/apiserver.js';
import { writeKubeconfig } from '../../src/server/kubeconfig.js';
import { ensurePki } from '../../src/server/pki.js';
import { eventually, http, kubectl, kubectlMissing, removeDir, tempDir } from '../helpers/server.js';
import { openWatch } from '../helpers/watch.js';

/**
 * CRD conversion webhooks end to end: a webhook server on loopback with its
 * own CA converts Widgets between v1 (storage: spec.hostPort "h:p") and v2
 * (spec.host, spec.port), reached by URL and through a Service and its
 * EndpointSlice. kubectl creates, reads, lists, applies server-side and
 * patches in either version; a watch in v2 sees writes made in v1; the status
 * subresource converts; a webhook that is down, answers with another uid or
 * renames the object gets kube's 500s; @kubernetes/client-node reads v2.
 */

type Obj = { apiVersion: string; kind: string; metadata: { name?: string; labels?: Record<string, string> }; spec?: Record<string, unknown>; status?: Record<string, unknown> };
type Review = { apiVersion: string; kind: string; request: { uid: string; desiredAPIVersion: string; objects: Obj[] } };

const GROUP = 'conv.example.com';
const CRD_NAME = `widgets.${GROUP}`;
const NS = 'conv';

/** The webhook's conversion: v1 spec.hostPort ↔ v2 spec.host + spec.port. */
function convert(o: Obj, to: string): Obj {
  const out: Obj = { ...o, apiVersion: to, spec: { ...(o.spec ?? {}) } };
  const spec = out.spec!;
  if (to.endsWith('/v2') && typeof spec.hostPort === 'string') {
    const [host, port] = spec.hostPort.split(':');
    delete spec.hostPort;
    spec.host = host;
    spec.port = Number(port);
  } else if (to.endsWith('/v1') && typeof spec.host === 'string') {
    spec.hostPort = `${spec.host}:${String(spec.port)}`;
    delete spec.host;
    delete spec.port;
  }
  return out;
}

const versionSchema = (v: 'v1' | 'v2') => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: v === 'v1' ? { hostPort: { type: 'string' }, replicas: { type: 'integer' } } : { host: { type: 'string' }, port: { type: 'integer' }, replicas: { type: 'integer' } },
    },
    status: { type: 'object', properties: { phase: { type: 'string' }, replicas: { type: 'integer' } } },
  },
});

describe('CRD conversion webhooks', () => {
  let server: ApiServer;
  let hooks: Server;
  let hookPort = 0;
  let caBundle = '';
  let dir: string;
  let kubeconfig = '';
  /** How the webhook answers: converting, or one of kube's failure cases. */
  let mode: 'convert' | 'wrong-uid' | 'rename' | 'failure' = 'convert';
  const reviews: Review[] = [];
  const c = (): { url: string; creds: { ca: string; cert: string; key: string } } => {
    const kc = server.adminKubeconfig();
    return { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
  };
  const k = { get kubeconfig() { return kubeconfig; } };

  function crd(clientConfig: Record<string, unknown>): Record<string, unknown> {
    return {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: CRD_NAME },
      spec: {
        group: GROUP, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1', 'v1beta1'], clientConfig } },
        // v2 first: whatever the order, cleanup deletes through the storage version
        versions: (['v2', 'v1'] as const).map((v) => ({
          name: v, served: true, storage: v === 'v1', schema: { openAPIV3Schema: versionSchema(v) },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        })),
      },
    };
  }

  /** Sets the CRD's clientConfig and waits until a v2 read goes through the webhook it names. */
  async function useClientConfig(clientConfig: Record<string, unknown>): Promise<void> {
    const current = await http(c(), 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`);
    const body = crd(clientConfig);
    const res = current.status === 404
      ? await http(c(), 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body })
      : await http(c(), 'PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`, { body: { ...body, metadata: current.json.metadata } });
    assert.ok(res.status === 200 || res.status === 201, res.text);
  }

  before(async () => {
    dir = tempDir('capstan-conversion-');
    const pki = await ensurePki({ servingNames: ['converter.conv-svc.svc'], adminUser: 'unused', adminGroups: [] });
    caBundle = Buffer.from(pki.servingCa!).toString('base64');
    hooks = createServer({ key: pki.serving.key, cert: pki.serving.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
        reviews.push(review);
        const { uid, desiredAPIVersion, objects } = review.request;
        let response: Record<string, unknown>;
        if (mode === 'failure') response = { uid, result: { status: 'Failure', message: 'the converter is having a bad day' } };
        else {
          const converted = objects.map((o) => convert(o, desiredAPIVersion));
          if (mode === 'rename') converted.forEach((o) => (o.metadata = { ...o.metadata, name: 'someone-else' }));
          // labels may change: the webhook marks what it converted
          else converted.forEach((o) => (o.metadata = { ...o.metadata, labels: { ...(o.metadata.labels ?? {}), 'converted-to': desiredAPIVersion.split('/')[1]! } }));
          response = { uid: mode === 'wrong-uid' ? 'not-the-request' : uid, convertedObjects: converted, result: { status: 'Success' } };
        }
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response }));
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    hookPort = (hooks.address() as AddressInfo).port;
    server = new ApiServer({ config: { enableAggregatorRouting: true } });
    await server.start();
    kubeconfig = join(dir, 'admin.kubeconfig');
    writeKubeconfig(kubeconfig, server.adminKubeconfig());
    assert.equal((await http(c(), 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })).status, 201);
    await useClientConfig({ url: `https://127.0.0.1:${hookPort}/convert`, caBundle });
    await eventually(async () => (await http(c(), 'GET', `/apis/${GROUP}/v2/namespaces/${NS}/widgets`)).status === 200);
  });

  after(async () => {
    await server?.stop();
    hooks?.closeAllConnections();
    await new Promise<void>((r) => (hooks ? hooks.close(() => r()) : r()));
    removeDir(dir);
  });

  const path = (v: string, name = '') => `/apis/${GROUP}/${v}/namespaces/${NS}/widgets${name ? `/${name}` : ''}`;

  it('create in v1, read in v2 (and the reverse): the webhook converts both ways, labels it sets are kept', async () => {
    const made = await http(c(), 'POST', path('v1'), { body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'a' }, spec: { hostPort: 'alpha:80' } } });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.json.spec.hostPort, 'alpha:80', 'created in the storage version: no conversion');
    const before = reviews.length;
    const got = await http(c(), 'GET', path('v2', 'a'));
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.apiVersion, `${GROUP}/v2`);
    assert.deepEqual(got.json.spec, { host: 'alpha', port: 80 });
    assert.equal(got.json.metadata.labels['converted-to'], 'v2');
    assert.equal(got.json.metadata.uid, made.json.metadata.uid);
    const review = reviews[before]!;
    assert.equal(review.apiVersion, 'apiextensions.k8s.io/v1', 'v1 ConversionReview first');
    assert.equal(review.request.desiredAPIVersion, `${GROUP}/v2`);
    assert.equal(review.request.objects[0]!.apiVersion, `${GROUP}/v1`);

    const b = await http(c(), 'POST', path('v2'), { body: { apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: 'b' }, spec: { host: 'beta', port: 8080 } } });
    assert.equal(b.status, 201, b.text);
    assert.deepEqual({ host: b.json.spec.host, port: b.json.spec.port }, { host: 'beta', port: 8080 }, 'answered in the request version');
    const stored = await http(c(), 'GET', path('v1', 'b'));
    assert.equal(stored.json.spec.hostPort, 'beta:8080', 'stored in v1 through the webhook');
  });

  it('a list in v2 is one ConversionReview of every item', async () => {
    const before = reviews.length;
    const list = await http(c(), 'GET', path('v2'));
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json.kind, 'WidgetList');
    assert.equal(list.json.apiVersion, `${GROUP}/v2`);
    const byName = Object.fromEntries((list.json.items as Obj[]).map((i) => [i.metadata.name, i.spec]));
    assert.deepEqual(byName, { a: { host: 'alpha', port: 80 }, b: { host: 'beta', port: 8080 } });
    assert.equal(reviews.length - before, 1);
    assert.equal(reviews[before]!.request.objects.length, 2);
  });

  it('kubectl: create in v1, get in v2, apply --server-side in v2, patch in v2', { skip: kubectlMissing() }, async () => {
    const v1 = JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'k', namespace: NS }, spec: { hostPort: 'kay:1' } });
    const created = await kubectl(k, ['create', '-f', '-'], v1);
    assert.equal(created.code, 0, created.stderr);
    const got = await kubectl(k, ['get', `widgets.v2.${GROUP}`, 'k', '-n', NS, '-o', 'json']);
    assert.equal(got.code, 0, got.stderr);
    assert.deepEqual(JSON.parse(got.stdout).spec, { host: 'kay', port: 1 });
    const applied = await kubectl(k, ['apply', '--server-side', '-f', '-'], JSON.stringify({ apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: 'k', namespace: NS }, spec: { host: 'kay', port: 2 } }));
    assert.equal(applied.code, 0, applied.stderr);
    const afterApply = await http(c(), 'GET', path('v1', 'k'));
    assert.equal(afterApply.json.spec.hostPort, 'kay:2');
    const managers = (afterApply.json.metadata.managedFields as { manager: string; apiVersion: string }[]).filter((m) => m.manager === 'kubectl');
    assert.equal(managers[0]?.apiVersion, `${GROUP}/v2`, 'the apply is recorded in its version');
    const patched = await kubectl(k, ['patch', `widgets.v2.${GROUP}`, 'k', '-n', NS, '--type=merge', '-p', '{"spec":{"host":"kite"}}', '-o', 'json']);
    assert.equal(patched.code, 0, patched.stderr);
    assert.deepEqual(JSON.parse(patched.stdout).spec, { host: 'kite', port: 2 });
    assert.equal((await http(c(), 'GET', path('v1', 'k'))).json.spec.hostPort, 'kite:2');
    const listed = await kubectl(k, ['get', `widgets.v2.${GROUP}`, '-n', NS, '-o', 'name']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(listed.stdout.trim().split('\n').sort(), [`widget.${GROUP}/a`, `widget.${GROUP}/b`, `widget.${GROUP}/k`]);
    // the default output: a Table of v2 objects, converted before its rows are made
    const table = await kubectl(k, ['get', `widgets.v2.${GROUP}`, '-n', NS]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^NAME\s+AGE\n/);
    assert.deepEqual(table.stdout.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0]).sort(), ['a', 'b', 'k']);
  });

  it('a watch in v2 sees writes made in v1, converted and in order', async () => {
    const start = await http(c(), 'GET', path('v2'));
    const w = openWatch(c(), `${path('v2')}?watch=1&resourceVersion=${start.json.metadata.resourceVersion as string}`);
    try {
      assert.equal(await w.status, 200);
      for (let i = 1; i <= 5; i++) {
        const res = await http(c(), 'POST', path('v1'), { body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: `w${i}` }, spec: { hostPort: `h${i}:${i}` } } });
        assert.equal(res.status, 201, res.text);
      }
      assert.equal((await http(c(), 'DELETE', path('v1', 'w1'))).status, 200);
      await w.waitFor((ev) => ev.length >= 6);
      assert.deepEqual(w.events.map((e) => `${e.type} ${e.object.metadata.name as string}`), ['ADDED w1', 'ADDED w2', 'ADDED w3', 'ADDED w4', 'ADDED w5', 'DELETED w1']);
      for (const e of w.events) {
        assert.equal(e.object.apiVersion, `${GROUP}/v2`);
        assert.equal(typeof e.object.spec.host, 'string');
      }
    } finally {
      w.close();
    }
  });

  it('a watch in v2 from the current state: every object converted, more than the live events a watcher may hold', async () => {
    assert.equal((await http(c(), 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'conv-many' } } })).status, 201);
    const many = 230;
    for (let i = 0; i < many; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, many - i) }, async (_, j) => {
        const res = await http(c(), 'POST', `/apis/${GROUP}/v1/namespaces/conv-many/widgets`, { body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: `m${i + j}` }, spec: { hostPort: `m:${i + j}` } } });
        assert.equal(res.status, 201, res.text);
      }));
    }
    const before = reviews.length;
    const w = openWatch(c(), `/apis/${GROUP}/v2/namespaces/conv-many/widgets?watch=1`);
    try {
      await w.waitFor((ev) => ev.length >= many, 30_000);
      assert.equal(w.events.length, many);
      assert.ok(w.events.every((e) => e.type === 'ADDED' && e.object.apiVersion === `${GROUP}/v2` && e.object.spec.host === 'm'));
      assert.equal(new Set(w.events.map((e) => e.object.metadata.name as string)).size, many);
      assert.ok(reviews.length - before <= 2, 'the initial state goes in few reviews');
    } finally {
      w.close();
    }
  });

  it('the status and scale subresources convert', async () => {
    const st = await http(c(), 'PATCH', `${path('v2', 'a')}/status`, { body: { status: { phase: 'Ready', replicas: 2 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(st.status, 200, st.text);
    assert.equal(st.json.apiVersion, `${GROUP}/v2`);
    assert.deepEqual(st.json.spec, { host: 'alpha', port: 80 }, 'a status write keeps the spec');
    const v1 = await http(c(), 'GET', path('v1', 'a'));
    assert.equal(v1.json.status.phase, 'Ready');
    assert.equal(v1.json.spec.hostPort, 'alpha:80');
    const scale = await http(c(), 'GET', `${path('v2', 'a')}/scale`);
    assert.equal(scale.status, 200, scale.text);
    assert.equal(scale.json.status.replicas, 2);
    const scaled = await http(c(), 'PATCH', `${path('v2', 'a')}/scale`, { body: { spec: { replicas: 3 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal(scaled.json.spec.replicas, 3);
    const after = await http(c(), 'GET', path('v1', 'a'));
    assert.equal(after.json.spec.replicas, 3);
    assert.equal(after.json.spec.hostPort, 'alpha:80');
  });

  it('a delete in v2 of an object with a finalizer answers it in v2; removing the finalizer in v2 deletes it', async () => {
    assert.equal((await http(c(), 'POST', path('v1'), { body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'gone', finalizers: ['example.com/hold'] }, spec: { hostPort: 'g:9' } } })).status, 201);
    const del = await http(c(), 'DELETE', path('v2', 'gone'));
    assert.equal(del.status, 200, del.text);
    assert.equal(del.json.apiVersion, `${GROUP}/v2`);
    assert.deepEqual(del.json.spec, { host: 'g', port: 9 });
    assert.ok(del.json.metadata.deletionTimestamp);
    const released = await http(c(), 'PATCH', path('v2', 'gone'), { body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(released.status, 200, released.text);
    assert.equal((await http(c(), 'GET', path('v1', 'gone'))).status, 404);
  });

  it('@kubernetes/client-node reads v2', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const api = kc.makeApiClient(CustomObjectsApi);
    const got = (await api.getNamespacedCustomObject({ group: GROUP, version: 'v2', namespace: NS, plural: 'widgets', name: 'b' })) as Obj;
    assert.deepEqual(got.spec, { host: 'beta', port: 8080 });
  });

  it('a webhook answering another uid, renaming the object or failing: kube\'s 500s', async () => {
    try {
      mode = 'wrong-uid';
      let res = await http(c(), 'GET', path('v2', 'a'));
      assert.equal(res.status, 500, res.text);
      assert.equal(res.json.reason, 'InternalError');
      assert.match(res.json.message, new RegExp(`^Internal error occurred: conversion webhook for ${GROUP}/v1, Kind=Widget failed: expected response.uid="[0-9a-f-]{36}", got "not-the-request"$`));
      mode = 'rename';
      res = await http(c(), 'GET', path('v2', 'a'));
      assert.equal(res.status, 500, res.text);
      assert.equal(res.json.message, `Internal error occurred: conversion webhook for ${GROUP}/v1, Kind=Widget returned invalid object: must have the same name: a != someone-else`);
      res = await http(c(), 'GET', path('v2'));
      assert.equal(res.status, 500, res.text);
      assert.match(res.json.message, new RegExp(`^Internal error occurred: conversion webhook for ${GROUP}/v1, Kind=WidgetList returned invalid converted object at index 1: must have the same name: `));
      mode = 'failure';
      res = await http(c(), 'POST', path('v2'), { body: { apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: 'never' }, spec: { host: 'n', port: 1 } } });
      assert.equal(res.status, 500, res.text);
      assert.equal(res.json.message, `Internal error occurred: conversion webhook for ${GROUP}/v2, Kind=Widget failed: the converter is having a bad day`);
      assert.equal((await http(c(), 'GET', path('v1', 'never'))).status, 404, 'nothing was written');
      assert.equal((await http(c(), 'GET', path('v1', 'a'))).status, 200, 'the storage version needs no webhook');
    } finally {
      mode = 'convert';
    }
  });

  it('a watch whose conversion fails ends with an ERROR event', async () => {
    const w = openWatch(c(), `${path('v2')}?watch=1`);
    try {
      await w.waitFor((ev) => ev.length >= 3);
      mode = 'failure';
      assert.equal((await http(c(), 'POST', path('v1'), { body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'watched' }, spec: { hostPort: 'x:1' } } })).status, 201);
      await w.ended;
      const last = w.events[w.events.length - 1]!;
      assert.equal(last.type, 'ERROR');
      assert.equal(last.object.code, 500);
      assert.equal(last.object.message, `Internal error occurred: conversion webhook for ${GROUP}/v1, Kind=Widget failed: the converter is having a bad day`);
    } finally {
      mode = 'convert';
      w.close();
    }
  });

  it('through a Service and its EndpointSlice; a webhook that is down answers kube\'s 500', async () => {
    assert.equal((await http(c(), 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'conv-svc' } } })).status, 201);
    const svc = await http(c(), 'POST', '/api/v1/namespaces/conv-svc/services', {
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'converter' }, spec: { ports: [{ name: 'https', port: 443, targetPort: hookPort }] } },
    });
    assert.equal(svc.status, 201, svc.text);
    const slice = await http(c(), 'POST', '/apis/discovery.k8s.io/v1/namespaces/conv-svc/endpointslices', {
      body: {
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'converter-1', labels: { 'kubernetes.io/service-name': 'converter' } },
        addressType: 'IPv4', ports: [{ name: 'https', port: hookPort, protocol: 'TCP' }], endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
      },
    });
    assert.equal(slice.status, 201, slice.text);
    await useClientConfig({ service: { namespace: 'conv-svc', name: 'converter', path: '/convert', port: 443 }, caBundle });
    const viaService = await eventually(async () => {
      const before = reviews.length;
      const res = await http(c(), 'GET', path('v2', 'b'));
      return res.status === 200 && reviews.length > before ? res : undefined;
    });
    assert.deepEqual(viaService.json.spec, { host: 'beta', port: 8080 });

    // nothing listens on a closed port: Go's dial error, wrapped as kube wraps it
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await useClientConfig({ url: `https://127.0.0.1:${deadPort}/convert`, caBundle });
    const down = await eventually(async () => {
      const res = await http(c(), 'GET', path('v2', 'b'));
      return res.status === 500 ? res : undefined;
    });
    assert.equal(down.json.reason, 'InternalError');
    assert.equal(down.json.message, `Internal error occurred: conversion webhook for ${GROUP}/v1, Kind=Widget failed: Post "https://127.0.0.1:${deadPort}/convert": dial tcp 127.0.0.1:${deadPort}: connect: connection refused`);
    assert.deepEqual(down.json.details.causes, [{ message: `conversion webhook for ${GROUP}/v1, Kind=Widget failed: Post "https://127.0.0.1:${deadPort}/convert": dial tcp 127.0.0.1:${deadPort}: connect: connection refused` }]);
    if (!kubectlMissing()) {
      const r = await kubectl(k, ['get', `widgets.v2.${GROUP}`, 'b', '-n', NS]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Error from server \(InternalError\): Internal error occurred: conversion webhook for conv\.example\.com\/v1, Kind=Widget failed: Post/);
    }
    const metrics = await http(c(), 'GET', '/metrics');
    assert.match(metrics.text, /apiserver_crd_conversion_webhook_duration_seconds_count\{crd_name="widgets\.conv\.example\.com",from_version="v1",succeeded="false",to_version="v2"\} \d+/);
    assert.match(metrics.text, /apiserver_crd_conversion_webhook_duration_seconds_count\{crd_name="widgets\.conv\.example\.com",from_version="v1",succeeded="true",to_version="v2"\} \d+/);
  });

  it('deleting the CRD while its webhook is down removes its instances (through the storage version) and the CRD', async () => {
    assert.equal((await http(c(), 'DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`)).status, 200);
    await eventually(async () => (await http(c(), 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`)).status === 404, 30_000);
  });
});
