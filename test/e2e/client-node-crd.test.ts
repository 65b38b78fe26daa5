import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADD, CustomObjectsApi, DELETE, ERROR, KubeConfig, KubernetesObjectApi, PatchStrategy, UPDATE, makeInformer, type Informer, type KubernetesListObject, type KubernetesObject, type ObjectCache } from '@kubernetes/client-node';
import { eventually, http, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * @kubernetes/client-node's informer over custom resources while 50 of them
 * are created, updated and (half) deleted: its cache ends equal to the
 * server's list and its handlers saw every add, update and delete. Also the
 * generic KubernetesObjectApi, which finds the resource through discovery
 * (the kind is not `Counter`: client-node 1.4 has a built-in V1Counter model
 * and would serialize a custom Counter as that, dropping every field).
 */

const GROUP = 'informer.example.com';
const PLURAL = 'tallies';
const NS = 'default';
const COUNT = 50;

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: PLURAL, singular: 'tally', kind: 'Tally' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } } } },
      },
    ],
  },
};

interface Tally extends KubernetesObject {
  spec?: { n?: number };
}

const nameOf = (i: number): string => `c${String(i).padStart(2, '0')}`;

/** Runs `fn` over 0..count-1, `width` at a time. */
async function inParallel(count: number, width: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

for (const backend of ['memory', 'sqlite'] as const) {
  describe(`@kubernetes/client-node informer over custom resources (${backend})`, () => {
    let server: TestServer;
    let kc: KubeConfig;
    let api: CustomObjectsApi;
    let informer: Informer<Tally> & ObjectCache<Tally>;

    before(async () => {
      server = await startServer({ backend });
      kc = new KubeConfig();
      kc.loadFromFile(server.kubeconfig);
      api = kc.makeApiClient(CustomObjectsApi);
      const made = await http(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: CRD });
      assert.equal(made.status, 201, made.text);
      await eventually(async () => (await http(server, 'GET', `/apis/${GROUP}/v1/namespaces/${NS}/${PLURAL}`)).status === 200);
    });
    after(async () => {
      await informer?.stop();
      await server?.stop();
      if (server) removeDir(server.dataDir);
    });

    it('keeps a cache equal to the server through create/update/delete churn', async () => {
      const list = async (): Promise<KubernetesListObject<Tally>> =>
        (await api.listNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: NS, plural: PLURAL })) as KubernetesListObject<Tally>;
      informer = makeInformer<Tally>(kc, `/apis/${GROUP}/v1/namespaces/${NS}/${PLURAL}`, list);
      const added = new Set<string>();
      const updatedTo1 = new Set<string>();
      const deleted = new Set<string>();
      const errors: unknown[] = [];
      informer.on(ADD, (o) => added.add(o.metadata!.name!));
      informer.on(UPDATE, (o) => {
        if (o.spec?.n === 1) updatedTo1.add(o.metadata!.name!);
      });
      informer.on(DELETE, (o) => deleted.add(o.metadata!.name!));
      informer.on(ERROR, (err) => errors.push(err));
      await informer.start();

      const ref = { group: GROUP, version: 'v1', namespace: NS, plural: PLURAL };
      await inParallel(COUNT, 8, (i) => api.createNamespacedCustomObject({ ...ref, body: { apiVersion: `${GROUP}/v1`, kind: 'Tally', metadata: { name: nameOf(i) }, spec: { n: 0 } } }));
      await inParallel(COUNT, 8, (i) => api.patchNamespacedCustomObject({ ...ref, name: nameOf(i), body: [{ op: 'replace', path: '/spec/n', value: 1 }] }));
      await inParallel(COUNT / 2, 8, (i) => api.deleteNamespacedCustomObject({ ...ref, name: nameOf(i * 2) }));

      const all = Array.from({ length: COUNT }, (_, i) => nameOf(i));
      const removed = all.filter((_, i) => i % 2 === 0);
      const kept = all.filter((_, i) => i % 2 === 1);
      const serverState = async (): Promise<string[]> => (await list()).items.map((o) => `${o.metadata!.name}@${o.metadata!.resourceVersion}`).sort();
      const cacheState = (): string[] => informer.list(NS).map((o) => `${o.metadata!.name}@${o.metadata!.resourceVersion}`).sort();
      await eventually(async () => deleted.size === removed.length && JSON.stringify(cacheState()) === JSON.stringify(await serverState()), 30_000);

      assert.deepEqual([...added].sort(), all);
      assert.deepEqual([...updatedTo1].sort(), all);
      assert.deepEqual([...deleted].sort(), removed);
      assert.deepEqual(informer.list(NS).map((o) => o.metadata!.name).sort(), kept);
      assert.ok(informer.list(NS).every((o) => o.spec?.n === 1));
      assert.deepEqual(cacheState(), await serverState());
      assert.deepEqual(errors, []);
    });

    it('the generic KubernetesObjectApi creates, reads, applies, lists and deletes a custom resource', async () => {
      const objects = KubernetesObjectApi.makeApiClient(kc);
      const header = { apiVersion: `${GROUP}/v1`, kind: 'Tally', metadata: { name: 'generic', namespace: NS } };
      const created = await objects.create<Tally>({ ...header, metadata: { ...header.metadata, labels: { via: 'generic' } }, spec: { n: 5 } });
      assert.equal(created.metadata?.uid?.length, 36);
      assert.equal((await objects.read<Tally>(header)).spec?.n, 5);
      const applied = await objects.patch<Tally>({ ...header, spec: { n: 6 } }, undefined, undefined, 'client-node-test', true, PatchStrategy.ServerSideApply);
      assert.equal(applied.spec?.n, 6);
      assert.ok(applied.metadata?.managedFields?.some((f) => f.manager === 'client-node-test' && f.operation === 'Apply'));
      const merged = await objects.patch<Tally>({ ...header, spec: { n: 7 } }, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);
      assert.equal(merged.spec?.n, 7);
      const listed = await objects.list<Tally>(`${GROUP}/v1`, 'Tally', NS, undefined, undefined, undefined, undefined, 'via=generic');
      assert.deepEqual(listed.items.map((o) => o.metadata?.name), ['generic']);
      await objects.delete(header);
      await assert.rejects(objects.read<Tally>(header), (err: { code?: number }) => err.code === 404);
    });
  });
}
