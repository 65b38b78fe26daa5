import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { http, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/** Subresources that write: scale (kubectl scale), pods/binding and bindings, pods/eviction with budgets. */

describe('subresources', () => {
  let server: TestServer;
  const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    http(server, method, path, { ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
  const deployment = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
  const pod = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

  before(async () => {
    server = await startServer({ backend: 'memory' });
    assert.equal((await req('POST', '/api/v1/namespaces', { metadata: { name: 'sub' } })).status, 201);
    assert.equal((await req('POST', '/apis/apps/v1/namespaces/sub/deployments', deployment)).status, 201);
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('scale: GET is an autoscaling/v1 Scale; PUT and PATCH change only spec.replicas', async () => {
    const scale = await req('GET', '/apis/apps/v1/namespaces/sub/deployments/web/scale');
    assert.equal(scale.status, 200);
    assert.equal(scale.json.kind, 'Scale');
    assert.equal(scale.json.apiVersion, 'autoscaling/v1');
    assert.deepEqual(scale.json.spec, { replicas: 1 });
    assert.deepEqual(scale.json.status, { replicas: 0, selector: 'app=web' });
    const put = await req('PUT', '/apis/apps/v1/namespaces/sub/deployments/web/scale', { ...scale.json, spec: { replicas: 4 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.spec.replicas, 4);
    const stale = await req('PUT', '/apis/apps/v1/namespaces/sub/deployments/web/scale', { ...scale.json, spec: { replicas: 5 } });
    assert.equal(stale.status, 409);
    const patched = await req('PATCH', '/apis/apps/v1/namespaces/sub/deployments/web/scale', { spec: { replicas: 2 } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.spec.replicas, 2);
    const dep = await req('GET', '/apis/apps/v1/namespaces/sub/deployments/web');
    assert.equal(dep.json.spec.replicas, 2);
    assert.equal(dep.json.metadata.generation, 3);
    const bad = await req('PATCH', '/apis/apps/v1/namespaces/sub/deployments/web/scale', { spec: { replicas: -1 } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(bad.status, 422);
    assert.match(bad.json.message, /^Scale\.autoscaling "web" is invalid: spec\.replicas: Invalid value: -1: must be greater than or equal to 0/);
    assert.equal((await req('GET', '/apis/apps/v1/namespaces/sub/deployments/nope/scale')).status, 404);
  });

  it('kubectl scale works', { skip: kubectlMissing() }, async () => {
    const r = await kubectl(server, ['scale', 'deployment', 'web', '-n', 'sub', '--replicas=7']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /deployment\.apps\/web scaled/);
    const dep = await req('GET', '/apis/apps/v1/namespaces/sub/deployments/web');
    assert.equal(dep.json.spec.replicas, 7);
  });

  it('binding: assigns a node once, then 409', async () => {
    assert.equal((await req('POST', '/api/v1/namespaces/sub/pods', pod('b1'))).status, 201);
    const bind = await req('POST', '/api/v1/namespaces/sub/pods/b1/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'b1' }, target: { kind: 'Node', name: 'node-a' } });
    assert.equal(bind.status, 201, bind.text);
    assert.equal(bind.json.status, 'Success');
    const p = await req('GET', '/api/v1/namespaces/sub/pods/b1');
    assert.equal(p.json.spec.nodeName, 'node-a');
    assert.equal(p.json.status.conditions.find((c: { type: string }) => c.type === 'PodScheduled').status, 'True');
    const again = await req('POST', '/api/v1/namespaces/sub/bindings', { metadata: { name: 'b1' }, target: { name: 'node-b' } });
    assert.equal(again.status, 409);
    assert.match(again.json.message, /pod b1 is already assigned to node "node-a"/);
    assert.equal((await req('POST', '/api/v1/namespaces/sub/pods', pod('b2'))).status, 201);
    assert.equal((await req('POST', '/api/v1/namespaces/sub/bindings', { metadata: { name: 'b2' }, target: { name: 'node-b' } })).status, 201);
  });

  it('eviction: honours the matching PodDisruptionBudget', async () => {
    for (const n of ['e1', 'e2']) {
      assert.equal((await req('POST', '/api/v1/namespaces/sub/pods', pod(n, { app: 'db' }))).status, 201);
      const cur = await req('GET', `/api/v1/namespaces/sub/pods/${n}`);
      assert.equal((await req('PUT', `/api/v1/namespaces/sub/pods/${n}/status`, { ...cur.json, status: { phase: 'Running' } })).status, 200);
    }
    const pdb = await req('POST', '/apis/policy/v1/namespaces/sub/poddisruptionbudgets', { metadata: { name: 'db' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'db' } } } });
    assert.equal(pdb.status, 201, pdb.text);
    const evict = (n: string) => req('POST', `/api/v1/namespaces/sub/pods/${n}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: n } });
    const refused = await evict('e1');
    assert.equal(refused.status, 429);
    assert.equal(refused.json.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.equal(refused.json.details.causes[0].reason, 'DisruptionBudget');
    // What the disruption controller would report: one disruption allowed.
    const cur = await req('GET', '/apis/policy/v1/namespaces/sub/poddisruptionbudgets/db');
    const status = { observedGeneration: cur.json.metadata.generation ?? 1, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 };
    assert.equal((await req('PUT', '/apis/policy/v1/namespaces/sub/poddisruptionbudgets/db/status', { ...cur.json, status })).status, 200);
    const ok = await evict('e1');
    assert.equal(ok.status, 201, ok.text);
    assert.equal((await req('GET', '/api/v1/namespaces/sub/pods/e1')).status, 404);
    const after = await req('GET', '/apis/policy/v1/namespaces/sub/poddisruptionbudgets/db');
    assert.equal(after.json.status.disruptionsAllowed, 0);
    assert.ok(after.json.status.disruptedPods.e1);
    assert.equal((await evict('e2')).status, 429);
    // A pending pod does not count against budgets.
    assert.equal((await req('POST', '/api/v1/namespaces/sub/pods', pod('e3', { app: 'db' }))).status, 201);
    assert.equal((await evict('e3')).status, 201);
    const mismatch = await req('POST', '/api/v1/namespaces/sub/pods/e2/eviction', { metadata: { name: 'other' } });
    assert.equal(mismatch.status, 400);
  });
});
