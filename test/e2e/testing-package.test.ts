import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestServer, type TestServer } from '../../src/testing/index.js';
import { kubectl, kubectlMissing, removeDir, tempDir } from '../helpers/server.js';

/** capstan/testing as a user's test suite uses it. */

const WIDGET_CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
          status: {type: object, properties: {ready: {type: boolean}}}
`;

/** Heap in use after full collections (the test runner does not pass --expose-gc, so it is switched on here). */
async function settledHeap(): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 50));
    gc();
  }
  return process.memoryUsage().heapUsed;
}

describe('capstan/testing', () => {
  let dir: string;
  let kube: TestServer;

  before(async () => {
    dir = tempDir('capstan-testing-');
    mkdirSync(join(dir, 'crds'));
    writeFileSync(join(dir, 'crds', 'widgets.yaml'), WIDGET_CRD);
    kube = await startTestServer({
      crds: [join(dir, 'crds')],
      objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'seeded', namespace: 'default' }, data: { a: '1' } }],
      authorization: 'RBAC',
    });
  });

  after(async () => {
    await kube.stop();
    removeDir(dir);
  });

  it('starts with the CRDs Established and the objects seeded', async () => {
    const crd = await kube.client.get({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', name: 'widgets.example.com' });
    assert.ok((crd.status as { conditions: Array<{ type: string; status: string }> }).conditions.some((c) => c.type === 'Established' && c.status === 'True'));
    const seeded = await kube.client.get({ group: '', version: 'v1', resource: 'configmaps', namespace: 'default', name: 'seeded' });
    assert.deepEqual(seeded.data, { a: '1' });
    assert.equal((seeded.metadata?.managedFields as Array<{ manager: string }>)[0]!.manager, 'capstan-testing');
  });

  it('gives limited users tokens, and RBAC decides what they may do', async () => {
    const alice = kube.clientFor('alice', ['developers']);
    const asAlice = (method: string, path: string, body?: unknown) =>
      fetchAs(kube.url, alice.token, method, path, body);
    assert.equal((await asAlice('GET', '/api/v1/namespaces/default/configmaps')).status, 403);
    await kube.apply(`
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: developers-view, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: developers}]
`);
    assert.equal((await asAlice('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal((await asAlice('DELETE', '/api/v1/namespaces/default/configmaps/seeded')).status, 403);
    const seen = kube.requests.filter((r) => r.user === 'alice').map((r) => [r.verb, r.path, r.status]);
    assert.deepEqual(seen, [
      ['list', '/api/v1/namespaces/default/configmaps', 403],
      ['list', '/api/v1/namespaces/default/configmaps', 200],
      ['delete', '/api/v1/namespaces/default/configmaps/seeded', 403],
    ]);
    assert.match(alice.kubeconfig, /token: capstan-test-/);
  });

  it('applies multi-document YAML and waits for a condition through a watch', async () => {
    const ns = await kube.freshNamespace('wait');
    assert.match(ns, /^wait-[a-z0-9]{5}$/);
    const [widget] = await kube.apply(`
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1}
spec: {size: 3}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c1}
data: {x: y}
`, { namespace: ns });
    assert.equal(widget!.metadata?.namespace, ns);
    const ref = { group: 'example.com', version: 'v1', resource: 'widgets', namespace: ns, name: 'w1' };
    const waiting = kube.waitFor(ref, (w) => (w?.status as { ready?: boolean } | undefined)?.ready === true);
    setTimeout(() => void kube.client.patch({ ...ref, subresource: 'status' }, 'merge', { status: { ready: true } }), 50);
    const ready = await waiting;
    assert.equal((ready!.spec as { size: number }).size, 3);
    // A condition that never holds: the error shows the last state.
    await assert.rejects(kube.waitFor(ref, (w) => (w?.spec as { size?: number } | undefined)?.size === 99, { timeoutMs: 200 }), /timed out after 200 ms waiting for widgets .*\/w1; last state: \{.*"size":3/);
    // Absence is a condition too.
    await kube.client.delete(ref);
    assert.equal(await kube.waitFor(ref, (w) => w === undefined), undefined);
  });

  it('resets to the state it started in, and restores a snapshot', async () => {
    const ns = await kube.freshNamespace('reset');
    await kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before-snapshot', namespace: ns } });
    const file = join(dir, 'snapshot.json');
    await kube.snapshot(file);
    await kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-snapshot', namespace: ns } });
    await kube.reset();
    const names = async (): Promise<string[]> => (await kube.client.list({ group: '', version: 'v1', resource: 'configmaps', namespace: ns })).items.map((c) => c.metadata!.name!);
    await assert.rejects(kube.client.get({ group: '', version: 'v1', resource: 'namespaces', name: ns }), /not found/);
    // The system's objects stay: the default namespace, the seeded objects, the CRD.
    await kube.client.get({ group: '', version: 'v1', resource: 'namespaces', name: 'default' });
    await kube.client.get({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', name: 'widgets.example.com' });
    await kube.restore(file);
    await kube.client.get({ group: '', version: 'v1', resource: 'namespaces', name: ns });
    assert.ok((await names()).includes('before-snapshot'));
    assert.ok(!(await names()).includes('after-snapshot'));
  });

  it('hands @kubernetes/client-node a KubeConfig and kubectl a kubeconfig file', async (t) => {
    const k8s = await import('@kubernetes/client-node');
    const kc = (await kube.kubeConfig()) as InstanceType<typeof k8s.KubeConfig>;
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const list = await core.listNamespace();
    assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
    const skip = kubectlMissing();
    if (skip) return t.skip(skip);
    const r = await kubectl({ kubeconfig: kube.kubeConfigPath }, ['get', 'widgets', '-A', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
  });

  it('runs many servers in one process, isolated, and leaves no handles behind and no heap', async () => {
    const handlesBefore = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
    await (await startTestServer()).stop();
    const heapBefore = await settledHeap();
    const servers = await Promise.all(Array.from({ length: 5 }, () => startTestServer()));
    await servers[0]!.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'only-here', namespace: 'default' } });
    await assert.rejects(servers[1]!.client.get({ group: '', version: 'v1', resource: 'configmaps', namespace: 'default', name: 'only-here' }), /not found/);
    for (let round = 0; round < 3; round++) await Promise.all(servers.map((s) => s.stop()));
    for (let i = 0; i < 15; i++) await (await startTestServer()).stop();
    // Timers and sockets of stopped servers are gone (a short wait for closing sockets to finish).
    let handlesAfter = 0;
    for (let i = 0; i < 50; i++) {
      handlesAfter = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
      if (handlesAfter <= handlesBefore) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(handlesAfter <= handlesBefore, `${handlesAfter} handles after, ${handlesBefore} before: ${process.getActiveResourcesInfo().join(', ')}`);
    // One idle server holds about 0.8 MiB of heap (bench/results/test-server.md): twenty kept alive by
    // a leak would add well over 8 MiB, while collection noise stays far below it.
    const growth = (await settledHeap()) - heapBefore;
    assert.ok(growth < 8 * 1024 * 1024, `heap grew by ${(growth / 1024 / 1024).toFixed(1)} MiB over 20 starts and stops`);
    // The suite's own server still answers as before.
    assert.equal((await fetchAs(kube.url, kube.clientFor('bob').token, 'GET', '/healthz')).status, 200);
  });

  it('gives a later server its own system objects (new uids, its own port in the kubernetes Endpoints)', async () => {
    const first = await startTestServer();
    const later = await startTestServer();
    try {
      const ns = { group: '', version: 'v1', resource: 'namespaces', name: 'kube-system' };
      const [a, b] = await Promise.all([first.client.get(ns), later.client.get(ns)]);
      assert.ok(b.metadata?.uid);
      assert.notEqual(a.metadata?.uid, b.metadata?.uid);
      const port = Number(new URL(later.url).port);
      const ref = { group: '', version: 'v1', resource: 'endpoints', namespace: 'default', name: 'kubernetes' };
      const endpoints = await later.waitFor(ref, (e) => ((e as { subsets?: Array<{ ports?: Array<{ port?: number }> }> } | undefined)?.subsets?.[0]?.ports?.[0]?.port) === port);
      assert.ok(endpoints);
      const services = await later.client.list({ group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices' });
      assert.ok(services.items.length > 20, `${services.items.length} APIServices`);
      const sa = await later.client.get({ group: '', version: 'v1', resource: 'serviceaccounts', namespace: 'default', name: 'default' });
      assert.equal(sa.metadata?.name, 'default');
    } finally {
      await Promise.all([first.stop(), later.stop()]);
    }
  });
});

/** A request with a bearer token (the test server's CA is not checked here: the token is what is under test). */
async function fetchAs(url: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(new URL(path, url), { method, rejectUnauthorized: false, headers: { Authorization: `Bearer ${token}`, ...(data ? { 'Content-Type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(data);
  });
}
