import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { isApiError } from '../../src/machinery/errors.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * ResourceQuota as a user meets it through kubectl: the controller fills in
 * status.used, admission refuses what would go past status.hard with kube's
 * messages (also under a burst of concurrent creates), scopes select what a
 * quota counts, dry runs are weighed but not charged, a create that fails in
 * storage gives its charge back, and deleting (or a pod's end) frees quota.
 * Every namespace has its kube-root-ca.crt ConfigMap, which counts.
 */

const skip = kubectlMissing();

describe('ResourceQuota with kubectl', { skip }, () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  async function k(args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return kubectl(server, args, input);
  }

  async function namespace(name: string): Promise<void> {
    assert.equal((await k(['create', 'namespace', name])).code, 0);
    await eventually(async () => (await k(['get', 'configmap', 'kube-root-ca.crt', '-n', name])).code === 0, 20_000);
  }

  async function used(ns: string, quota: string, resource: string): Promise<string> {
    const r = await k(['get', 'resourcequota', quota, '-n', ns, '-o', `jsonpath={.status.used.${resource.replace(/\./g, '\\.')}}`]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  }

  async function usedBecomes(ns: string, quota: string, resource: string, value: string): Promise<void> {
    await eventually(async () => (await used(ns, quota, resource)) === value, 20_000);
  }

  it('fills in status.used and admits exactly up to the limit under 20 concurrent creates', async () => {
    await namespace('quota-burst');
    const created = await k(['create', 'quota', 'cms', '--hard=configmaps=6,count/configmaps=6', '-n', 'quota-burst']);
    assert.equal(created.code, 0, created.stderr);
    await usedBecomes('quota-burst', 'cms', 'configmaps', '1');
    assert.equal(await used('quota-burst', 'cms', 'count/configmaps'), '1');
    const hard = await k(['get', 'resourcequota', 'cms', '-n', 'quota-burst', '-o', 'jsonpath={.status.hard.configmaps}']);
    assert.equal(hard.stdout, '6');

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        http(server, 'POST', '/api/v1/namespaces/quota-burst/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } } }),
      ),
    );
    const admitted = results.filter((r) => r.status === 201);
    assert.equal(admitted.length, 5, results.map((r) => `${r.status} ${r.json?.message ?? ''}`).join('\n'));
    for (const r of results.filter((x) => x.status !== 201)) {
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.reason, 'Forbidden');
      assert.match(
        r.json.message,
        /^configmaps "cm-\d+" is forbidden: exceeded quota: cms, requested: configmaps=1,count\/configmaps=1, used: configmaps=6,count\/configmaps=6, limited: configmaps=6,count\/configmaps=6$/,
      );
    }
    const listed = await k(['get', 'configmaps', '-n', 'quota-burst', '-o', 'name']);
    assert.equal(listed.stdout.trim().split('\n').length, 6);
    assert.equal(await used('quota-burst', 'cms', 'configmaps'), '6');

    const refused = await k(['create', 'configmap', 'one-more', '-n', 'quota-burst']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /configmaps "one-more" is forbidden: exceeded quota: cms, requested: configmaps=1,count\/configmaps=1, used: configmaps=6,count\/configmaps=6, limited: configmaps=6,count\/configmaps=6/);
  });

  it('weighs dry runs without charging them, gives back the charge of a create that fails, and frees quota on delete', async () => {
    await namespace('quota-dry');
    assert.equal((await k(['create', 'quota', 'cms', '--hard=configmaps=3', '-n', 'quota-dry'])).code, 0);
    await usedBecomes('quota-dry', 'cms', 'configmaps', '1');

    const dry = await k(['create', 'configmap', 'dry', '--dry-run=server', '-n', 'quota-dry']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(await used('quota-dry', 'cms', 'configmaps'), '1');

    assert.equal((await k(['create', 'configmap', 'a', '-n', 'quota-dry'])).code, 0);
    assert.equal(await used('quota-dry', 'cms', 'configmaps'), '2');
    // Admitted and charged, then refused by storage: the charge comes back.
    const again = await k(['create', 'configmap', 'a', '-n', 'quota-dry']);
    assert.match(again.stderr, /configmaps "a" already exists/);
    assert.equal(await used('quota-dry', 'cms', 'configmaps'), '2');
    assert.equal((await k(['create', 'configmap', 'b', '-n', 'quota-dry'])).code, 0);
    assert.equal(await used('quota-dry', 'cms', 'configmaps'), '3');

    const dryFull = await k(['create', 'configmap', 'c', '--dry-run=server', '-n', 'quota-dry']);
    assert.match(dryFull.stderr, /configmaps "c" is forbidden: exceeded quota: cms, requested: configmaps=1, used: configmaps=3, limited: configmaps=3/);

    assert.equal((await k(['delete', 'configmap', 'a', '-n', 'quota-dry'])).code, 0);
    await usedBecomes('quota-dry', 'cms', 'configmaps', '2');
    const c = await k(['create', 'configmap', 'c', '-n', 'quota-dry']);
    assert.equal(c.code, 0, c.stderr);
    assert.equal(await used('quota-dry', 'cms', 'configmaps'), '3');
  });

  it("refuses a pod over its compute quota with kube's messages and frees its share when it ends", async () => {
    await namespace('quota-compute');
    assert.equal((await k(['create', 'quota', 'compute', '--hard=requests.cpu=1,limits.cpu=2,pods=2', '-n', 'quota-compute'])).code, 0);
    await usedBecomes('quota-compute', 'compute', 'requests.cpu', '0');

    const bare = await k(['run', 'bare', '--image=nginx', '--restart=Never', '-n', 'quota-compute']);
    assert.match(bare.stderr, /pods "bare" is forbidden: failed quota: compute: must specify limits\.cpu for: bare; requests\.cpu for: bare/);

    const manifest = (name: string, request: string, limit: string): string =>
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: request }, limits: { cpu: limit } } }] } });
    const big = await k(['apply', '-n', 'quota-compute', '-f', '-'], manifest('big', '2', '2'));
    assert.match(big.stderr, /pods "big" is forbidden: exceeded quota: compute, requested: requests\.cpu=2, used: requests\.cpu=0, limited: requests\.cpu=1/);

    const fits = await k(['apply', '-n', 'quota-compute', '-f', '-'], manifest('fits', '600m', '1'));
    assert.equal(fits.code, 0, fits.stderr);
    assert.equal(await used('quota-compute', 'compute', 'requests.cpu'), '600m');
    assert.equal(await used('quota-compute', 'compute', 'pods'), '1');
    const second = await k(['apply', '-n', 'quota-compute', '-f', '-'], manifest('second', '600m', '1'));
    assert.match(second.stderr, /pods "second" is forbidden: exceeded quota: compute, requested: requests\.cpu=600m, used: requests\.cpu=600m, limited: requests\.cpu=1/);

    // A pod that has ended no longer counts (its object does, under count/pods).
    const ended = await k(['patch', 'pod', 'fits', '-n', 'quota-compute', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Succeeded"}}']);
    assert.equal(ended.code, 0, ended.stderr);
    await usedBecomes('quota-compute', 'compute', 'requests.cpu', '0');
    assert.equal(await used('quota-compute', 'compute', 'pods'), '0');
    const now = await k(['apply', '-n', 'quota-compute', '-f', '-'], manifest('second', '600m', '1'));
    assert.equal(now.code, 0, now.stderr);
  });

  it('counts only what is inside a quota scope', async () => {
    await namespace('quota-scope');
    assert.equal((await k(['create', 'quota', 'besteffort', '--hard=pods=1', '--scopes=BestEffort', '-n', 'quota-scope'])).code, 0);
    await usedBecomes('quota-scope', 'besteffort', 'pods', '0');
    assert.equal((await k(['run', 'free-1', '--image=nginx', '--restart=Never', '-n', 'quota-scope'])).code, 0);
    const second = await k(['run', 'free-2', '--image=nginx', '--restart=Never', '-n', 'quota-scope']);
    assert.match(second.stderr, /pods "free-2" is forbidden: exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1/);
    const burstable = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'paid' }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { memory: '64Mi' } } }] } });
    const paid = await k(['apply', '-n', 'quota-scope', '-f', '-'], burstable);
    assert.equal(paid.code, 0, paid.stderr);
    assert.equal(await used('quota-scope', 'besteffort', 'pods'), '1');
  });
  it('counts custom resources as count/<plural>.<group>', async () => {
    const crd = JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    assert.equal((await k(['apply', '-f', '-'], crd)).code, 0);
    assert.equal((await k(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=30s'])).code, 0);
    await namespace('quota-crd');
    assert.equal((await k(['create', 'quota', 'crs', '--hard=count/widgets.example.com=1', '-n', 'quota-crd'])).code, 0);
    await usedBecomes('quota-crd', 'crs', 'count/widgets.example.com', '0');
    const widget = (name: string): string => JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name } });
    const first = await eventually(async () => {
      const r = await k(['apply', '-n', 'quota-crd', '-f', '-'], widget('w1'));
      return r.code === 0 ? r : undefined;
    }, 20_000);
    assert.equal(first.code, 0);
    const second = await k(['apply', '-n', 'quota-crd', '-f', '-'], widget('w2'));
    assert.match(second.stderr, /widgets\.example\.com "w2" is forbidden: exceeded quota: crs, requested: count\/widgets\.example\.com=1, used: count\/widgets\.example\.com=1, limited: count\/widgets\.example\.com=1/);
    assert.equal((await k(['delete', 'widget', 'w1', '-n', 'quota-crd'])).code, 0);
    await usedBecomes('quota-crd', 'crs', 'count/widgets.example.com', '0');
    assert.equal((await k(['apply', '-n', 'quota-crd', '-f', '-'], widget('w2'))).code, 0);
  });
});

describe('ResourceQuota for in-process clients', () => {
  it('admits exactly the limit when 20 loopback creates race (more than the loopback client has connections)', async () => {
    const server = new ApiServer();
    await server.start();
    try {
      await server.controllersSynced;
      const client = server.client('quota-test');
      const ns = { group: '', version: 'v1', namespace: 'default' };
      await client.create({ ...ns, resource: 'resourcequotas' }, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { 'count/secrets': '3' } } });
      await eventually(async () => ((await client.get({ ...ns, resource: 'resourcequotas', name: 'q' })).status as { used?: unknown } | undefined)?.used !== undefined);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => client.create({ ...ns, resource: 'secrets' }, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s-${i}` } })),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3);
      for (const r of results) if (r.status === 'rejected') assert.ok(isApiError(r.reason, 'Forbidden'), String(r.reason));
      const used = (await client.get({ ...ns, resource: 'resourcequotas', name: 'q' })).status as { used: Record<string, string> };
      assert.equal(used.used['count/secrets'], '3');
    } finally {
      await server.stop();
    }
  });
});
