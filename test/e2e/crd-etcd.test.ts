/**
 * Two Capstan processes on one etcd: a CRD created through one is served by
 * both (each process's serving controller follows the stored CRDs; the
 * leader writes its conditions), instances written through one are read
 * through the other, and deleting it through the other removes it from both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { etcdMissing, startEtcd, startServersOnEtcd, stopServersOnEtcd, type TestEtcd } from '../helpers/etcd.js';
import { eventually, http, type TestServer } from '../helpers/server.js';

const missing = etcdMissing();

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'sprockets.cluster.example.com' },
  spec: {
    group: 'cluster.example.com',
    scope: 'Cluster',
    names: { plural: 'sprockets', kind: 'Sprocket' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const PATH = '/apis/cluster.example.com/v1/sprockets';

describe('CRDs across processes on one etcd', { skip: missing }, () => {
  let etcd: TestEtcd;
  const servers: TestServer[] = [];

  before(async () => {
    etcd = await startEtcd();
    servers.push(...(await startServersOnEtcd(etcd, 2)));
  });

  after(async () => {
    await stopServersOnEtcd(servers, etcd);
  });

  it('a CRD created through one process is served by every process', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    assert.equal((await http(a, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: CRD })).status, 201);
    await eventually(async () => {
      const crd = (await http(b, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD.metadata.name}`)).json;
      return crd.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True');
    }, 20_000);
    for (const s of servers) await eventually(async () => (await http(s, 'GET', PATH)).status === 200, 20_000);
    const created = await http(b, 'POST', PATH, { body: { apiVersion: 'cluster.example.com/v1', kind: 'Sprocket', metadata: { name: 's1' }, teeth: 12 } });
    assert.equal(created.status, 201, created.text);
    const read = await eventually(async () => {
      const r = await http(a, 'GET', `${PATH}/s1`);
      return r.status === 200 ? r.json : undefined;
    });
    assert.equal(read.teeth, 12);
  });

  it('deleting it through the other process removes instances and the API everywhere', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    assert.equal((await http(b, 'DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD.metadata.name}`)).status, 200);
    for (const s of servers) await eventually(async () => (await http(s, 'GET', PATH)).status === 404, 30_000);
    assert.equal((await http(a, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD.metadata.name}`)).status, 404);
  });
});
