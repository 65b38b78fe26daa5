import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig, Watch, type V1ConfigMap } from '@kubernetes/client-node';
import { eventually, removeDir, startServer, type TestServer } from '../helpers/server.js';

/** @kubernetes/client-node (the official JavaScript client) against the real server. */

for (const backend of ['memory', 'sqlite'] as const) {
  describe(`@kubernetes/client-node against capstan (${backend})`, () => {
    let server: TestServer;
    let kc: KubeConfig;
    let core: CoreV1Api;
    const ns = 'client-node';

    before(async () => {
      server = await startServer({ backend });
      kc = new KubeConfig();
      kc.loadFromFile(server.kubeconfig);
      core = kc.makeApiClient(CoreV1Api);
      await core.createNamespace({ body: { metadata: { name: ns } } });
      await eventually(async () => (await core.listNamespacedServiceAccount({ namespace: ns })).items.some((sa) => sa.metadata?.name === 'default'));
    });
    after(async () => {
      await server?.stop();
      if (server) removeDir(server.dataDir);
    });

    it('creates, reads, replaces, lists and deletes a ConfigMap', async () => {
      const created = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cfg', labels: { app: 'x' } }, data: { a: '1' } } });
      assert.equal(created.metadata?.name, 'cfg');
      assert.equal(created.metadata?.namespace, ns);
      assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
      assert.ok(created.metadata?.creationTimestamp instanceof Date);

      const read = await core.readNamespacedConfigMap({ name: 'cfg', namespace: ns });
      assert.deepEqual(read.data, { a: '1' });
      assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);

      const replaced = await core.replaceNamespacedConfigMap({ name: 'cfg', namespace: ns, body: { ...read, data: { a: '2' } } });
      assert.deepEqual(replaced.data, { a: '2' });
      assert.ok(Number(replaced.metadata?.resourceVersion) > Number(read.metadata?.resourceVersion));

      await assert.rejects(core.replaceNamespacedConfigMap({ name: 'cfg', namespace: ns, body: { ...read, data: { a: '3' } } }), (err: { code?: number; body?: string }) => {
        assert.equal(err.code, 409);
        assert.equal(JSON.parse(err.body!).reason, 'Conflict');
        return true;
      });

      const list = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'app=x' });
      assert.deepEqual(list.items.map((c) => c.metadata?.name), ['cfg']);
      assert.ok(Number(list.metadata?.resourceVersion) >= Number(replaced.metadata?.resourceVersion));

      await core.deleteNamespacedConfigMap({ name: 'cfg', namespace: ns });
      await assert.rejects(core.readNamespacedConfigMap({ name: 'cfg', namespace: ns }), (err: { code?: number }) => err.code === 404);
    });

    it('watches ADDED, MODIFIED and DELETED events in order', async () => {
      const events: Array<{ type: string; name: string; data?: Record<string, string> }> = [];
      const start = await core.listNamespacedConfigMap({ namespace: ns });
      const watch = new Watch(kc);
      const req = await watch.watch(
        `/api/v1/namespaces/${ns}/configmaps`,
        { resourceVersion: start.metadata?.resourceVersion },
        (type: string, obj: V1ConfigMap) => events.push({ type, name: obj.metadata!.name!, ...(obj.data ? { data: obj.data } : {}) }),
        () => undefined,
      );
      try {
        await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'watched' }, data: { v: '1' } } });
        const cur = await core.readNamespacedConfigMap({ name: 'watched', namespace: ns });
        await core.replaceNamespacedConfigMap({ name: 'watched', namespace: ns, body: { ...cur, data: { v: '2' } } });
        await core.deleteNamespacedConfigMap({ name: 'watched', namespace: ns });
        await eventually(async () => events.length >= 3);
        assert.deepEqual(events.map((e) => `${e.type} ${e.name} ${e.data?.v ?? ''}`), ['ADDED watched 1', 'MODIFIED watched 2', 'DELETED watched 2']);
      } finally {
        req.abort();
      }
    });
  });
}
