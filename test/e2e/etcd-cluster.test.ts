/**
 * Several Capstan processes on one etcd, as users run them behind a load
 * balancer: every process sees every write, watches can move between
 * processes, leader-only work fails over, and an etcd outage is survived
 * without restarting anything.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { after, before, describe, it } from 'node:test';
import { etcdMissing, startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { eventually, http, removeDir, startServer, type HttpResponse, type TestServer } from '../helpers/server.js';
import { openWatch, type StreamEvent } from '../helpers/watch.js';

const missing = etcdMissing();

const cm = (name: string, data: Record<string, string> = { v: '1' }): unknown => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

function rvOf(obj: { metadata: { resourceVersion: string } }): number {
  return Number(obj.metadata.resourceVersion);
}

async function ok(server: TestServer, method: string, path: string, body?: unknown): Promise<HttpResponse> {
  const res = await http(server, method, path, body === undefined ? {} : { body });
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path} on ${server.url}: ${res.status} ${res.text}`);
  return res;
}

/** Names and resourceVersions of the ConfigMaps a watch stream leaves behind. */
function stateFromEvents(events: StreamEvent[]): Map<string, string> {
  const state = new Map<string, string>();
  for (const e of events) {
    const name = e.object.metadata.name as string;
    if (e.type === 'DELETED') state.delete(name);
    else if (e.type === 'ADDED' || e.type === 'MODIFIED') state.set(name, e.object.metadata.resourceVersion as string);
  }
  return state;
}

async function listState(server: TestServer, ns: string): Promise<{ rv: string; state: Map<string, string> }> {
  const res = await ok(server, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
  const state = new Map<string, string>();
  for (const item of res.json.items) if (item.metadata.name !== 'kube-root-ca.crt') state.set(item.metadata.name, item.metadata.resourceVersion);
  return { rv: res.json.metadata.resourceVersion, state };
}

async function createNamespace(servers: TestServer[], name: string): Promise<void> {
  await ok(servers[0]!, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  // Settle the controller-made root CA ConfigMap so it does not show up mid-test.
  for (const s of servers) await eventually(async () => (await http(s, 'GET', `/api/v1/namespaces/${name}/configmaps/kube-root-ca.crt`)).status === 200, 20_000);
}

describe('several processes on one etcd', { skip: missing }, () => {
  let etcd: TestEtcd;
  const servers: TestServer[] = [];

  async function startProcess(certDir?: string): Promise<TestServer> {
    return startServer({
      backend: 'etcd3',
      args: [
        '--etcd-servers', etcd.endpoint,
        // Short leases so failover fits in a test; defaults are kube-controller-manager's 15s/10s/2s.
        '--leader-elect-lease-duration', '3s',
        '--leader-elect-renew-deadline', '2s',
        '--leader-elect-retry-period', '500ms',
        ...(certDir ? ['--cert-dir', certDir] : []),
      ],
    });
  }

  before(async () => {
    etcd = await startEtcd();
    const first = await startProcess();
    servers.push(first);
    // One CA and serving certificate for all, as behind one load balancer.
    for (let i = 0; i < 2; i++) servers.push(await startProcess(join(first.dataDir, 'pki')));
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    for (const s of servers) removeDir(s.dataDir);
    await etcd?.destroy();
  });

  it('every process sees every write, with the same resourceVersions, in gets, lists and watches', async () => {
    await createNamespace(servers, 'spread');
    // A client-go style informer (list + watch, @kubernetes/client-node) on each process.
    const informers = await Promise.all(
      servers.map(async (s) => {
        const kc = new KubeConfig();
        kc.loadFromFile(s.kubeconfig);
        const core = kc.makeApiClient(CoreV1Api);
        const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/spread/configmaps', () => core.listNamespacedConfigMap({ namespace: 'spread' }));
        await informer.start();
        return informer;
      }),
    );
    const watches = await Promise.all(
      servers.map(async (s) => {
        const { rv } = await listState(s, 'spread');
        return openWatch(s, `/api/v1/namespaces/spread/configmaps?watch=1&resourceVersion=${rv}`);
      }),
    );
    const rvs = new Map<string, number>();
    for (let i = 0; i < 30; i++) {
      const res = await ok(servers[i % 3]!, 'POST', '/api/v1/namespaces/spread/configmaps', cm(`cm-${i}`));
      rvs.set(`cm-${i}`, rvOf(res.json));
    }
    for (let i = 0; i < 10; i++) {
      const via = servers[(i + 1) % 3]!;
      const current = await ok(via, 'GET', `/api/v1/namespaces/spread/configmaps/cm-${i}`);
      assert.equal(rvOf(current.json), rvs.get(`cm-${i}`), 'a read on another process sees the write and its resourceVersion');
      const updated = await ok(via, 'PUT', `/api/v1/namespaces/spread/configmaps/cm-${i}`, { ...current.json, data: { v: '2' } });
      assert.ok(rvOf(updated.json) > rvs.get(`cm-${i}`)!);
    }
    for (let i = 25; i < 30; i++) await ok(servers[i % 3]!, 'DELETE', `/api/v1/namespaces/spread/configmaps/cm-${i}`);

    const lists = await Promise.all(servers.map((s) => listState(s, 'spread')));
    assert.equal(lists[0]!.state.size, 25);
    for (const l of lists) assert.deepEqual([...l.state].sort(), [...lists[0]!.state].sort(), 'every process lists the same objects at the same resourceVersions');
    for (const [i, w] of watches.entries()) {
      await w.waitFor((events) => stateFromEvents(events).size === 25 && events.filter((e) => e.type === 'DELETED').length === 5, 20_000);
      assert.deepEqual([...stateFromEvents(w.events)].sort(), [...lists[0]!.state].sort(), `the watch on process ${i} converges to the same state`);
      const seen = w.events.map((e) => rvOf(e.object));
      assert.deepEqual(seen, [...seen].sort((a, b) => a - b), 'events arrive in resourceVersion order');
      assert.equal(new Set(seen).size, seen.length, 'no event twice');
      w.close();
    }
    const informerState = (items: readonly V1ConfigMap[]): string[] =>
      items
        .filter((o) => o.metadata!.name !== 'kube-root-ca.crt')
        .map((o) => `${o.metadata!.name},${o.metadata!.resourceVersion}`)
        .sort();
    const expected = [...lists[0]!.state].map(([name, rv]) => `${name},${rv}`).sort();
    for (const [i, informer] of informers.entries()) {
      await eventually(async () => JSON.stringify(informerState(informer.list())) === JSON.stringify(expected), 20_000).catch(() => undefined);
      assert.deepEqual(informerState(informer.list()), expected, `the informer on process ${i} converges to the same state`);
      await informer.stop();
    }
  });

  it('a client switches processes mid-watch and resumes from its last resourceVersion without loss or repeats', async () => {
    await createNamespace(servers, 'switch');
    const { rv } = await listState(servers[0]!, 'switch');
    const reference = openWatch(servers[2]!, `/api/v1/namespaces/switch/configmaps?watch=1&resourceVersion=${rv}`);
    const first = openWatch(servers[0]!, `/api/v1/namespaces/switch/configmaps?watch=1&resourceVersion=${rv}`);
    for (let i = 0; i < 10; i++) await ok(servers[i % 3]!, 'POST', '/api/v1/namespaces/switch/configmaps', cm(`a-${i}`));
    await first.waitFor((events) => events.length >= 10);
    first.close();
    const last = first.events[first.events.length - 1]!.object.metadata.resourceVersion as string;
    // Writes go on while the client is between servers.
    for (let i = 0; i < 10; i++) await ok(servers[i % 3]!, 'POST', '/api/v1/namespaces/switch/configmaps', cm(`b-${i}`));
    const second = openWatch(servers[1]!, `/api/v1/namespaces/switch/configmaps?watch=1&resourceVersion=${last}`);
    await second.waitFor((events) => events.length >= 10);
    await reference.waitFor((events) => events.length >= 20);
    const names = (events: StreamEvent[]): string[] => events.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`);
    assert.deepEqual([...names(first.events), ...names(second.events)], names(reference.events));
    second.close();
    reference.close();
  });

  it('survives etcd stopped for 10 s under load: fast 503s, readyz fails on etcd, livez stays OK, no acknowledged write lost', async () => {
    await createNamespace(servers, 'outage');
    const { rv } = await listState(servers[1]!, 'outage');
    const watch = openWatch(servers[1]!, `/api/v1/namespaces/outage/configmaps?watch=1&resourceVersion=${rv}`);
    const acknowledged: string[] = [];
    const failures: Array<{ status: number; reason?: string; ms: number }> = [];
    let writing = true;
    let seq = 0;
    const writers = servers.map(async (s) => {
      while (writing) {
        const name = `w-${seq++}`;
        const started = Date.now();
        let res: HttpResponse | undefined;
        try {
          res = await http(s, 'POST', '/api/v1/namespaces/outage/configmaps', { body: cm(name) });
        } catch {
          // connection-level failure: not acknowledged
        }
        if (res?.status === 201) acknowledged.push(name);
        else failures.push({ status: res?.status ?? 0, ...(res?.json?.reason ? { reason: res.json.reason as string } : {}), ms: Date.now() - started });
        if (res?.status !== 201) await new Promise((r) => setTimeout(r, 100));
      }
    });
    await eventually(async () => acknowledged.length >= 30, 20_000);
    await etcd.stop();
    const stoppedAt = Date.now();

    // While etcd is away: requests fail with a 5xx Status, readyz names etcd, livez is fine.
    await eventually(async () => failures.length >= 3, 15_000);
    for (const s of servers) {
      const ready = await eventually(async () => {
        const r = await http(s, 'GET', '/readyz?verbose');
        return r.status === 500 || r.status === 503 ? r : undefined;
      }, 15_000);
      assert.match(ready.text, /\[-\]etcd failed/);
      assert.equal((await http(s, 'GET', '/livez')).status, 200);
      const get = await http(s, 'GET', '/api/v1/namespaces/outage/configmaps/w-0');
      assert.equal(get.status, 503, get.text);
      assert.equal(get.json.kind, 'Status');
      assert.equal(get.json.reason, 'ServiceUnavailable');
    }
    const remaining = 10_000 - (Date.now() - stoppedAt);
    if (remaining > 0) await new Promise((r) => setTimeout(r, remaining));
    await etcd.start();

    // Everything recovers by itself.
    for (const s of servers) await eventually(async () => (await http(s, 'GET', '/readyz')).status === 200, 30_000);
    const before = acknowledged.length;
    await eventually(async () => acknowledged.length >= before + 30, 30_000);
    writing = false;
    await Promise.all(writers);

    assert.ok(failures.length > 0);
    for (const f of failures) {
      assert.ok(f.status === 0 || f.status >= 500, `failures are 5xx: ${JSON.stringify(f)}`);
      assert.ok(f.ms < 15_000, `a failure comes fast, not after a hang: ${JSON.stringify(f)}`);
    }
    // Every acknowledged write is there, on every process.
    for (const s of servers) {
      const { state } = await listState(s, 'outage');
      const missingNames = acknowledged.filter((n) => !state.has(n));
      assert.deepEqual(missingNames, [], `process ${s.url} has every acknowledged write`);
    }
    // The watch opened before the outage resumed where it was: it saw every acknowledged write.
    await watch.waitFor((events) => acknowledged.every((n) => events.some((e) => e.object.metadata?.name === n)), 20_000);
    const revs = watch.events.map((e) => rvOf(e.object));
    assert.equal(new Set(revs).size, revs.length, 'no event twice across the outage');
    watch.close();
  });

  it('leader-only work runs on one process and moves when the leader is killed with SIGKILL, losing no acknowledged write', async () => {
    const lease = async (s: TestServer): Promise<{ holderIdentity?: string; leaseTransitions?: number }> =>
      (await ok(s, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/capstan-leader')).json.spec;
    const leaderOf = (holder: string | undefined): TestServer | undefined => (holder ? servers.find((s) => s.output().includes(`${holder} started leading`)) : undefined);
    const leading = (s: TestServer): boolean => s.output().lastIndexOf('started leading') > s.output().lastIndexOf('stopped leading');
    // A term can lapse for a moment (a renewal slower than the 2 s deadline on a loaded machine, the Lease
    // written through each process's own request pipeline): wait for a moment with one settled leader.
    const first = await eventually(async () => {
      const holder = leaderOf((await lease(servers[0]!)).holderIdentity);
      return holder && leading(holder) && servers.filter(leading).length === 1 ? holder : undefined;
    });
    assert.deepEqual(servers.filter(leading), [first], 'exactly one process leads');
    const before = await lease(servers[1]!);

    // Writes acknowledged by the leader just before it dies.
    const acknowledged: string[] = [];
    await createNamespace(servers, 'failover');
    for (let i = 0; i < 20; i++) {
      const res = await http(first, 'POST', '/api/v1/namespaces/failover/configmaps', { body: cm(`k-${i}`) });
      if (res.status === 201) acknowledged.push(`k-${i}`);
    }
    await first.kill();
    const survivors = servers.filter((s) => s !== first);
    for (const s of survivors) {
      const { state } = await listState(s, 'failover');
      assert.deepEqual(acknowledged.filter((n) => !state.has(n)), [], 'no acknowledged write lost');
    }
    assert.equal(acknowledged.length, 20);

    // Another process takes the Lease once it expires (3 s here)...
    const next = await eventually(async () => {
      const now = await lease(survivors[0]!);
      const leader = leaderOf(now.holderIdentity);
      return leader && leader !== first ? { leader, now } : undefined;
    }, 20_000, 200);
    assert.ok(survivors.includes(next.leader));
    assert.ok((next.now.leaseTransitions ?? 0) > (before.leaseTransitions ?? 0), 'leaseTransitions counts the change of holder');
    // ...and runs the controllers: a new namespace gets its default ServiceAccount and root CA.
    await ok(survivors[1]!, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'after-failover' } });
    await eventually(async () => (await http(survivors[0]!, 'GET', '/api/v1/namespaces/after-failover/serviceaccounts/default')).status === 200, 20_000);
    await eventually(async () => (await http(survivors[0]!, 'GET', '/api/v1/namespaces/after-failover/configmaps/kube-root-ca.crt')).status === 200, 20_000);
  });
});

describe('compaction on etcd', { skip: missing }, () => {
  it('compacts every --etcd-compaction-interval; Exact lists and watches at compacted versions get 410, current state stays', async () => {
    const etcd = await startEtcd();
    const server = await startServer({
      backend: 'etcd3',
      args: ['--etcd-servers', etcd.endpoint, '--etcd-compaction-interval', '2s', '--watch-cache-history', '2s'],
    });
    try {
      const created = await ok(server, 'POST', '/api/v1/namespaces/default/configmaps', cm('old'));
      const oldRv = created.json.metadata.resourceVersion as string;
      let current = created.json;
      for (let i = 0; i < 5; i++) current = (await ok(server, 'PUT', '/api/v1/namespaces/default/configmaps/old', { ...current, data: { v: String(i) } })).json;
      const exact = `/api/v1/namespaces/default/configmaps?resourceVersion=${oldRv}&resourceVersionMatch=Exact`;
      assert.equal((await http(server, 'GET', exact)).status, 200, 'retained before compaction');
      // Keep writing so that each compaction has a newer revision to reach.
      const expired = await eventually(async () => {
        await ok(server, 'POST', '/api/v1/namespaces/default/configmaps', cm(`tick-${Date.now()}`));
        const res = await http(server, 'GET', exact);
        return res.status === 410 ? res : undefined;
      }, 30_000, 500);
      assert.equal(expired.json.reason, 'Expired');
      // A watch is served from the watch cache's own history window (as kube's cacher serves it), a clock apart
      // from the store's compaction: the Exact list can be 410 a moment before the cache drops that revision.
      const first = await eventually(async () => {
        await ok(server, 'POST', '/api/v1/namespaces/default/configmaps', cm(`tick-${Date.now()}`));
        const watch = openWatch(server, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${oldRv}`);
        try {
          await watch.waitFor((events) => events.length > 0);
          return watch.events[0]!.type === 'ERROR' ? watch.events[0]! : undefined;
        } finally {
          watch.close();
        }
      }, 30_000, 500);
      assert.equal(first.object.code, 410);
      const now = await ok(server, 'GET', '/api/v1/namespaces/default/configmaps/old');
      assert.deepEqual(now.json.data, { v: '4' });
      assert.equal(now.json.metadata.resourceVersion, current.metadata.resourceVersion);
    } finally {
      await server.kill();
      removeDir(server.dataDir);
      await etcd.destroy();
    }
  });
});

describe('corrupt objects on etcd', { skip: missing }, () => {
  it('bytes written to etcd behind the server: GET is a 500 naming the key; the unsafe DELETE removes them', async () => {
    const etcd = await startEtcd();
    const server = await startServer({ backend: 'etcd3', args: ['--etcd-servers', etcd.endpoint, '--feature-gates=AllowUnsafeMalformedObjectDeletion=true'] });
    const client = new Etcd3({ hosts: etcd.endpoint });
    try {
      await ok(server, 'POST', '/api/v1/namespaces/default/configmaps', cm('bad'));
      await ok(server, 'POST', '/api/v1/namespaces/default/configmaps', cm('good'));
      await client.put('/registry/configmaps/default/bad').value(Buffer.from([0x7b, 0xff, 0x00]));
      const broken = await eventually(async () => {
        const res = await http(server, 'GET', '/api/v1/namespaces/default/configmaps/bad');
        return res.status === 500 ? res : undefined;
      });
      assert.equal(broken.json.reason, 'InternalError');
      assert.match(broken.json.message, /Key: \/registry\/configmaps\/default\/bad/);
      assert.equal((await http(server, 'GET', '/api/v1/namespaces/default/configmaps/good')).status, 200);
      const removed = await http(server, 'DELETE', '/api/v1/namespaces/default/configmaps/bad?ignoreStoreReadErrorWithClusterBreakingPotential=true');
      assert.equal(removed.status, 200, removed.text);
      assert.equal(await client.get('/registry/configmaps/default/bad').string(), null);
      await eventually(async () => (await http(server, 'GET', '/api/v1/namespaces/default/configmaps/bad')).status === 404);
    } finally {
      client.close();
      await server.kill();
      removeDir(server.dataDir);
      await etcd.destroy();
    }
  });
});
