import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { etcdMissing, startEtcd, startServersOnEtcd, stopServersOnEtcd, type TestEtcd } from '../helpers/etcd.js';
import { eventually, http, type TestServer } from '../helpers/server.js';

/**
 * Two servers on one etcd charge one quota: every charge is a
 * compare-and-swap of the quota's status, so concurrent creates spread over
 * both processes never admit more than the limit.
 */

const missing = etcdMissing();

describe('ResourceQuota across processes on one etcd', { skip: missing }, () => {
  let etcd: TestEtcd;
  const servers: TestServer[] = [];

  before(async () => {
    etcd = await startEtcd();
    servers.push(...(await startServersOnEtcd(etcd, 2)));
  });

  after(async () => {
    await stopServersOnEtcd(servers, etcd);
  });

  it('admits exactly the limit when 20 creates race through two processes', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    assert.equal((await http(a, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shared' } } })).status, 201);
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'secrets' }, spec: { hard: { 'count/secrets': '5' } } };
    assert.equal((await http(a, 'POST', '/api/v1/namespaces/shared/resourcequotas', { body: quota })).status, 201);
    // The leader's controller measures; both processes must see the usage before they admit.
    for (const s of servers) {
      await eventually(async () => (await http(s, 'GET', '/api/v1/namespaces/shared/resourcequotas/secrets')).json?.status?.used?.['count/secrets'] === '0', 30_000);
    }
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        http(i % 2 === 0 ? a : b, 'POST', '/api/v1/namespaces/shared/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s-${i}` } } }),
      ),
    );
    const admitted = results.filter((r) => r.status === 201).length;
    assert.equal(admitted, 5, results.map((r) => `${r.status} ${r.json?.message ?? ''}`).join('\n'));
    for (const r of results.filter((x) => x.status !== 201)) {
      // Refused by the quota, or (as kube does) with the Conflict of a status write that kept losing races.
      assert.ok(r.status === 403 || r.status === 409, r.text);
      if (r.status === 403) assert.match(r.json.message, /exceeded quota: secrets, requested: count\/secrets=1, used: count\/secrets=5, limited: count\/secrets=5$/);
    }
    const listed = (await http(b, 'GET', '/api/v1/namespaces/shared/secrets')).json;
    assert.equal(listed.items.length, 5);
    const status = (await http(b, 'GET', '/api/v1/namespaces/shared/resourcequotas/secrets')).json.status;
    assert.equal(status.used['count/secrets'], '5');
  });
});
