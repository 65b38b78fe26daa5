import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { etcdMissing, startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';
import { openWatch } from '../helpers/watch.js';

/**
 * The in-process garbage collector driven by kubectl: `delete --cascade`
 * background, foreground and orphan of owners with 100 dependents (a
 * ConfigMap and a custom resource as owners), a chain of owners, dangling
 * and mismatched references, an owner in the wrong namespace, the graph
 * rebuilt after a restart in the middle of a foreground deletion, and on
 * etcd (three processes) the collector running on the leader only and resuming on another
 * process after the leader is killed.
 */

const skip = kubectlMissing();
const DEPENDENTS = 100;

type Server = { url: string; creds: TestServer['creds']; kubeconfig: string };

async function ok(server: Server, args: string[], input?: string): Promise<string> {
  const r = await kubectl(server, args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function createNamespace(server: Server, name: string): Promise<void> {
  await ok(server, ['create', 'namespace', name]);
}

async function uidOf(server: Server, args: string[]): Promise<string> {
  return (await ok(server, ['get', ...args, '-o', 'jsonpath={.metadata.uid}'])).trim();
}

function ownerRef(kind: string, apiVersion: string, name: string, uid: string, block = true): Record<string, unknown> {
  return { apiVersion, kind, name, uid, ...(block ? { blockOwnerDeletion: true } : {}) };
}

/** `count` ConfigMaps named `<prefix>-<i>` owned through `refs`, created in one kubectl apply. */
async function createDependents(server: Server, ns: string, prefix: string, count: number, refs: Array<Record<string, unknown>>): Promise<void> {
  const items = Array.from({ length: count }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${prefix}-${i}`, namespace: ns, ownerReferences: refs },
    data: { i: String(i) },
  }));
  await ok(server, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
}

async function configMapNames(server: Server, ns: string): Promise<string[]> {
  const res = await http(server, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
  assert.equal(res.status, 200);
  return (res.json.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name).filter((n) => n !== 'kube-root-ca.crt');
}

async function status(server: Server, path: string): Promise<number> {
  return (await http(server, 'GET', path)).status;
}

describe('garbage collector with kubectl delete --cascade', { skip }, () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ backend: 'sqlite' });
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('--cascade=background deletes the owner at once and its 100 dependents after it', async () => {
    await createNamespace(server, 'gc-bg');
    await ok(server, ['create', 'configmap', 'owner', '-n', 'gc-bg']);
    const uid = await uidOf(server, ['configmap', 'owner', '-n', 'gc-bg']);
    await createDependents(server, 'gc-bg', 'dep', DEPENDENTS, [ownerRef('ConfigMap', 'v1', 'owner', uid)]);
    assert.equal((await configMapNames(server, 'gc-bg')).length, DEPENDENTS + 1);
    await ok(server, ['delete', 'configmap', 'owner', '-n', 'gc-bg', '--cascade=background']);
    assert.equal(await status(server, '/api/v1/namespaces/gc-bg/configmaps/owner'), 404);
    await eventually(async () => (await configMapNames(server, 'gc-bg')).length === 0, 60_000, 200);
    // The collector's queues show in /metrics under client-go's names.
    const metrics = (await http(server, 'GET', '/metrics')).text;
    const adds = /^workqueue_adds_total\{name="garbage_collector_attempt_to_delete"\} (\d+)/m.exec(metrics);
    assert.ok(adds && Number(adds[1]) >= DEPENDENTS, 'workqueue_adds_total counts the dependents looked at');
    assert.match(metrics, /^workqueue_depth\{name="garbage_collector_attempt_to_delete"\} \d+/m);
    assert.match(metrics, /^workqueue_work_duration_seconds_count\{name="garbage_collector_attempt_to_delete"\} [1-9]/m);
    assert.match(metrics, /^# TYPE workqueue_retries_total counter/m);
  });

  it('--cascade=foreground removes the owner only after its 100 blocking dependents', async () => {
    await createNamespace(server, 'gc-fg');
    await ok(server, ['create', 'configmap', 'owner', '-n', 'gc-fg']);
    const uid = await uidOf(server, ['configmap', 'owner', '-n', 'gc-fg']);
    await createDependents(server, 'gc-fg', 'dep', DEPENDENTS, [ownerRef('ConfigMap', 'v1', 'owner', uid)]);
    const rv = (await http(server, 'GET', '/api/v1/namespaces/gc-fg/configmaps')).json.metadata.resourceVersion as string;
    const watch = openWatch(server, `/api/v1/namespaces/gc-fg/configmaps?watch=true&resourceVersion=${rv}`);
    try {
      await ok(server, ['delete', 'configmap', 'owner', '-n', 'gc-fg', '--cascade=foreground']);
      await watch.waitFor((events) => events.some((e) => e.type === 'DELETED' && e.object.metadata.name === 'owner'), 60_000);
      const deleted = watch.events.filter((e) => e.type === 'DELETED').map((e) => e.object.metadata.name as string);
      assert.equal(deleted.length, DEPENDENTS + 1);
      assert.equal(deleted.at(-1), 'owner', 'the owner goes last');
      // Before it went, the owner carried the foregroundDeletion finalizer and a deletionTimestamp.
      const marked = watch.events.find((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'owner');
      assert.deepEqual(marked?.object.metadata.finalizers, ['foregroundDeletion']);
      assert.ok(marked?.object.metadata.deletionTimestamp);
    } finally {
      watch.close();
    }
    assert.deepEqual(await configMapNames(server, 'gc-fg'), []);
  });

  it('--cascade=orphan leaves the 100 dependents without their ownerReferences', async () => {
    await createNamespace(server, 'gc-orphan');
    await ok(server, ['create', 'configmap', 'owner', '-n', 'gc-orphan']);
    await ok(server, ['create', 'configmap', 'other', '-n', 'gc-orphan']);
    const uid = await uidOf(server, ['configmap', 'owner', '-n', 'gc-orphan']);
    const otherUid = await uidOf(server, ['configmap', 'other', '-n', 'gc-orphan']);
    await createDependents(server, 'gc-orphan', 'dep', DEPENDENTS, [ownerRef('ConfigMap', 'v1', 'owner', uid), ownerRef('ConfigMap', 'v1', 'other', otherUid, false)]);
    await ok(server, ['delete', 'configmap', 'owner', '-n', 'gc-orphan', '--cascade=orphan']);
    await eventually(async () => (await status(server, '/api/v1/namespaces/gc-orphan/configmaps/owner')) === 404, 60_000, 200);
    const res = await http(server, 'GET', '/api/v1/namespaces/gc-orphan/configmaps');
    const deps = (res.json.items as Array<{ metadata: { name: string; ownerReferences?: Array<{ uid: string }> } }>).filter((i) => i.metadata.name.startsWith('dep-'));
    assert.equal(deps.length, DEPENDENTS, 'every dependent survives');
    for (const d of deps) assert.deepEqual(d.metadata.ownerReferences?.map((r) => r.uid), [otherUid], `${d.metadata.name} keeps only its other owner`);
  });

  it('the legacy orphanDependents=false collects dependents; core/v1 ReplicationControllers orphan by default', async () => {
    await createNamespace(server, 'gc-legacy');
    await ok(server, ['create', 'configmap', 'owner', '-n', 'gc-legacy']);
    const uid = await uidOf(server, ['configmap', 'owner', '-n', 'gc-legacy']);
    await createDependents(server, 'gc-legacy', 'dep', 3, [ownerRef('ConfigMap', 'v1', 'owner', uid)]);
    const del = await http(server, 'DELETE', '/api/v1/namespaces/gc-legacy/configmaps/owner', { body: { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false } });
    assert.equal(del.status, 200, del.text);
    await eventually(async () => (await configMapNames(server, 'gc-legacy')).length === 0, 30_000, 200);

    // A ReplicationController deleted without options gets the orphan finalizer (its DefaultGarbageCollectionPolicy).
    const rc = {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'rc', namespace: 'gc-legacy' },
      spec: { replicas: 0, selector: { app: 'x' }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    };
    assert.equal((await http(server, 'POST', '/api/v1/namespaces/gc-legacy/replicationcontrollers', { body: rc })).status, 201);
    const rcUid = await uidOf(server, ['replicationcontroller', 'rc', '-n', 'gc-legacy']);
    await createDependents(server, 'gc-legacy', 'rcdep', 2, [ownerRef('ReplicationController', 'v1', 'rc', rcUid)]);
    const rcDel = await http(server, 'DELETE', '/api/v1/namespaces/gc-legacy/replicationcontrollers/rc');
    assert.equal(rcDel.status, 200);
    assert.deepEqual(rcDel.json.metadata.finalizers, ['orphan']);
    await eventually(async () => (await status(server, '/api/v1/namespaces/gc-legacy/replicationcontrollers/rc')) === 404, 30_000, 200);
    const left = await http(server, 'GET', '/api/v1/namespaces/gc-legacy/configmaps/rcdep-0');
    assert.equal(left.status, 200);
    assert.equal(left.json.metadata.ownerReferences, undefined);
  });

  it('deletecollection honours propagationPolicy: Orphan keeps the dependents, Foreground removes them first', async () => {
    await createNamespace(server, 'gc-collection');
    for (const policy of ['Orphan', 'Foreground']) {
      const lower = policy.toLowerCase();
      await ok(server, ['create', 'configmap', `owner-${lower}`, '-n', 'gc-collection']);
      await ok(server, ['label', 'configmap', `owner-${lower}`, '-n', 'gc-collection', `owner=${lower}`]);
      const uid = await uidOf(server, ['configmap', `owner-${lower}`, '-n', 'gc-collection']);
      await createDependents(server, 'gc-collection', `dep-${lower}`, 5, [ownerRef('ConfigMap', 'v1', `owner-${lower}`, uid)]);
      const res = await http(server, 'DELETE', `/api/v1/namespaces/gc-collection/configmaps?labelSelector=owner%3D${lower}`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: policy } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.items.map((i: { metadata: { finalizers?: string[] } }) => i.metadata.finalizers), [[policy === 'Orphan' ? 'orphan' : 'foregroundDeletion']]);
      await eventually(async () => (await status(server, `/api/v1/namespaces/gc-collection/configmaps/owner-${lower}`)) === 404, 30_000, 200);
    }
    const left = (await http(server, 'GET', '/api/v1/namespaces/gc-collection/configmaps')).json.items as Array<{ metadata: { name: string; ownerReferences?: unknown } }>;
    assert.deepEqual(left.map((i) => i.metadata.name).filter((n) => n.startsWith('dep-')).sort(), ['dep-orphan-0', 'dep-orphan-1', 'dep-orphan-2', 'dep-orphan-3', 'dep-orphan-4']);
    for (const i of left) assert.equal(i.metadata.ownerReferences, undefined);
  });

  it('a chain of three owners goes in the foreground and in the background', async () => {
    await createNamespace(server, 'gc-chain');
    for (const cascade of ['foreground', 'background']) {
      await ok(server, ['create', 'configmap', `a-${cascade}`, '-n', 'gc-chain']);
      const a = await uidOf(server, ['configmap', `a-${cascade}`, '-n', 'gc-chain']);
      await createDependents(server, 'gc-chain', `b-${cascade}`, 1, [ownerRef('ConfigMap', 'v1', `a-${cascade}`, a)]);
      const b = await uidOf(server, ['configmap', `b-${cascade}-0`, '-n', 'gc-chain']);
      await createDependents(server, 'gc-chain', `c-${cascade}`, 1, [ownerRef('ConfigMap', 'v1', `b-${cascade}-0`, b)]);
      await ok(server, ['delete', 'configmap', `a-${cascade}`, '-n', 'gc-chain', `--cascade=${cascade}`]);
      await eventually(async () => (await configMapNames(server, 'gc-chain')).length === 0, 30_000, 200);
    }
  });

  it('collects a dependent whose owner uid does not match, and one whose owner never existed', async () => {
    await createNamespace(server, 'gc-uid');
    await ok(server, ['create', 'configmap', 'owner', '-n', 'gc-uid']);
    const uid = await uidOf(server, ['configmap', 'owner', '-n', 'gc-uid']);
    await createDependents(server, 'gc-uid', 'good', 1, [ownerRef('ConfigMap', 'v1', 'owner', uid)]);
    await createDependents(server, 'gc-uid', 'mismatch', 1, [ownerRef('ConfigMap', 'v1', 'owner', '00000000-0000-0000-0000-000000000001')]);
    await createDependents(server, 'gc-uid', 'dangling', 1, [ownerRef('ConfigMap', 'v1', 'nobody', '00000000-0000-0000-0000-000000000002')]);
    await eventually(async () => {
      const names = await configMapNames(server, 'gc-uid');
      return !names.includes('mismatch-0') && !names.includes('dangling-0');
    }, 30_000, 200);
    assert.deepEqual((await configMapNames(server, 'gc-uid')).sort(), ['good-0', 'owner']);
  });

  it('reports an owner in another namespace (OwnerRefInvalidNamespace) and collects the dependent', async () => {
    await createNamespace(server, 'gc-ns-a');
    await createNamespace(server, 'gc-ns-b');
    await ok(server, ['create', 'configmap', 'owner', '-n', 'gc-ns-a']);
    const uid = await uidOf(server, ['configmap', 'owner', '-n', 'gc-ns-a']);
    await createDependents(server, 'gc-ns-b', 'stray', 1, [ownerRef('ConfigMap', 'v1', 'owner', uid)]);
    await eventually(async () => (await configMapNames(server, 'gc-ns-b')).length === 0, 30_000, 200);
    const events = await eventually(async () => {
      const list = (await http(server, 'GET', '/api/v1/namespaces/gc-ns-b/events')).json.items as Array<Record<string, any>>;
      return list.find((e) => e.reason === 'OwnerRefInvalidNamespace');
    }, 30_000, 200);
    assert.equal(events.type, 'Warning');
    assert.equal(events.involvedObject.name, 'stray-0');
    assert.equal(events.message, `ownerRef [v1/ConfigMap, namespace: gc-ns-b, name: owner, uid: ${uid}] does not exist in namespace "gc-ns-b"`);
    assert.equal(events.source.component, 'garbage-collector-controller');
    // The owner in its own namespace is untouched.
    assert.equal(await status(server, '/api/v1/namespaces/gc-ns-a/configmaps/owner'), 200);
  });

  it('a namespaced dependent of a cluster-scoped owner is allowed; a cluster-scoped dependent of a namespaced owner is reported and kept', async () => {
    await createNamespace(server, 'gc-scope');
    const role = (name: string, owners?: Array<Record<string, unknown>>): string =>
      JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, ...(owners ? { ownerReferences: owners } : {}) }, rules: [] });
    await ok(server, ['apply', '-f', '-'], role('gc-scope-owner'));
    const roleUid = await uidOf(server, ['clusterrole', 'gc-scope-owner']);
    await createDependents(server, 'gc-scope', 'ns-dep', 1, [ownerRef('ClusterRole', 'rbac.authorization.k8s.io/v1', 'gc-scope-owner', roleUid)]);
    await ok(server, ['create', 'configmap', 'owner', '-n', 'gc-scope']);
    const cmUid = await uidOf(server, ['configmap', 'owner', '-n', 'gc-scope']);
    await ok(server, ['apply', '-f', '-'], role('gc-scope-stray', [ownerRef('ConfigMap', 'v1', 'owner', cmUid)]));
    const event = await eventually(async () => {
      const list = (await http(server, 'GET', '/api/v1/namespaces/default/events')).json.items as Array<Record<string, any>>;
      return list.find((e) => e.reason === 'OwnerRefInvalidNamespace' && e.involvedObject.name === 'gc-scope-stray');
    }, 30_000, 200);
    assert.equal(event.message, `ownerRef [v1/ConfigMap, namespace: , name: owner, uid: ${cmUid}] does not exist in namespace ""`);
    assert.equal(event.involvedObject.kind, 'ClusterRole');
    // The namespaced dependent stays while its cluster-scoped owner lives, and goes with it.
    assert.deepEqual((await configMapNames(server, 'gc-scope')).sort(), ['ns-dep-0', 'owner']);
    await ok(server, ['delete', 'clusterrole', 'gc-scope-owner']);
    await eventually(async () => !(await configMapNames(server, 'gc-scope')).includes('ns-dep-0'), 30_000, 200);
    // The cluster-scoped one is not collected for its invalid reference (kube leaves it to the user).
    assert.equal(await status(server, '/apis/rbac.authorization.k8s.io/v1/clusterroles/gc-scope-stray'), 200);
  });

  it('a custom resource owner: 100 dependents go with it in the foreground', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.gc.example.com' },
      spec: {
        group: 'gc.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    await ok(server, ['apply', '-f', '-'], JSON.stringify(crd));
    await ok(server, ['wait', '--for=condition=Established', 'crd/widgets.gc.example.com', '--timeout=60s']);
    await createNamespace(server, 'gc-cr');
    await eventually(async () => (await kubectl(server, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'gc-cr' } }))).code === 0, 30_000, 200);
    const uid = await uidOf(server, ['widget', 'w', '-n', 'gc-cr']);
    await createDependents(server, 'gc-cr', 'dep', DEPENDENTS, [ownerRef('Widget', 'gc.example.com/v1', 'w', uid)]);
    await ok(server, ['delete', 'widget', 'w', '-n', 'gc-cr', '--cascade=foreground']);
    assert.deepEqual(await configMapNames(server, 'gc-cr'), []);
    assert.equal(await status(server, '/apis/gc.example.com/v1/namespaces/gc-cr/widgets/w'), 404);
    // Custom resources are dependents too.
    await ok(server, ['create', 'configmap', 'owner', '-n', 'gc-cr']);
    const cmUid = await uidOf(server, ['configmap', 'owner', '-n', 'gc-cr']);
    await ok(server, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'child', namespace: 'gc-cr', ownerReferences: [ownerRef('ConfigMap', 'v1', 'owner', cmUid)] } }));
    await ok(server, ['delete', 'configmap', 'owner', '-n', 'gc-cr']);
    await eventually(async () => (await status(server, '/apis/gc.example.com/v1/namespaces/gc-cr/widgets/child')) === 404, 30_000, 200);
  });
});

describe('garbage collector state after a restart in the middle of a foreground deletion', { skip }, () => {
  it('rebuilds the graph from the caches and finishes the deletion', async () => {
    const dataDir = tempDir('capstan-gc-restart-');
    // First without the collector, so the foreground deletion is left half done.
    let server = await startServer({ backend: 'sqlite', dataDir, args: ['--controllers=*,-garbage-collector-controller'] });
    try {
      await createNamespace(server, 'gc-restart');
      await ok(server, ['create', 'configmap', 'owner', '-n', 'gc-restart']);
      const uid = await uidOf(server, ['configmap', 'owner', '-n', 'gc-restart']);
      await createDependents(server, 'gc-restart', 'dep', DEPENDENTS, [ownerRef('ConfigMap', 'v1', 'owner', uid)]);
      await ok(server, ['delete', 'configmap', 'owner', '-n', 'gc-restart', '--cascade=foreground', '--wait=false']);
      const owner = await http(server, 'GET', '/api/v1/namespaces/gc-restart/configmaps/owner');
      assert.equal(owner.status, 200);
      assert.deepEqual(owner.json.metadata.finalizers, ['foregroundDeletion']);
      assert.equal((await configMapNames(server, 'gc-restart')).length, DEPENDENTS + 1);
      await server.stop();
      server = await startServer({ backend: 'sqlite', dataDir, port: server.port });
      await eventually(async () => (await configMapNames(server, 'gc-restart')).length === 0, 60_000, 200);
    } finally {
      await server.stop();
      removeDir(dataDir);
    }
  });
});

describe('garbage collector on three processes on one etcd', { skip: skip ?? etcdMissing() }, () => {
  let etcd: TestEtcd;
  const servers: TestServer[] = [];

  before(async () => {
    etcd = await startEtcd();
    const args = ['--etcd-servers', etcd.endpoint, '--leader-elect-lease-duration', '3s', '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '500ms'];
    const first = await startServer({ backend: 'etcd3', args });
    servers.push(first);
    for (let i = 0; i < 2; i++) servers.push(await startServer({ backend: 'etcd3', args: [...args, '--cert-dir', `${first.dataDir}/pki`] }));
  });

  after(async () => {
    for (const s of servers) await s.stop().catch(() => undefined);
    for (const s of servers) removeDir(s.dataDir);
    await etcd?.stop();
  });

  it('collects on the leader only, and on another process once the leader is killed', async () => {
    const leading = (s: TestServer): boolean => s.output().lastIndexOf('started leading') > s.output().lastIndexOf('stopped leading');
    const leader = await eventually(async () => (servers.filter(leading).length === 1 ? servers.find(leading) : undefined), 30_000, 200);
    const followers = servers.filter((s) => s !== leader);
    const follower = followers[0]!;
    await createNamespace(leader, 'gc-ha');
    await ok(leader, ['create', 'configmap', 'owner', '-n', 'gc-ha']);
    const uid = await uidOf(leader, ['configmap', 'owner', '-n', 'gc-ha']);
    await createDependents(leader, 'gc-ha', 'dep', 20, [ownerRef('ConfigMap', 'v1', 'owner', uid)]);
    await ok(follower, ['delete', 'configmap', 'owner', '-n', 'gc-ha']);
    await eventually(async () => (await configMapNames(follower, 'gc-ha')).length === 0, 30_000, 200);
    const queueAdds = async (s: TestServer): Promise<number> => Number(/^workqueue_adds_total\{name="garbage_collector_attempt_to_delete"\} (\d+)/m.exec((await http(s, 'GET', '/metrics')).text)?.[1] ?? 0);
    assert.ok((await queueAdds(leader)) > 0, 'the leader collected');
    for (const f of followers) assert.equal(await queueAdds(f), 0, 'a follower runs no collector');

    // A foreground deletion in flight when the leader dies is finished by the next leader.
    await ok(leader, ['create', 'configmap', 'owner2', '-n', 'gc-ha']);
    const uid2 = await uidOf(leader, ['configmap', 'owner2', '-n', 'gc-ha']);
    await createDependents(leader, 'gc-ha', 'dep2', DEPENDENTS, [ownerRef('ConfigMap', 'v1', 'owner2', uid2)]);
    await leader.kill();
    await ok(follower, ['delete', 'configmap', 'owner2', '-n', 'gc-ha', '--cascade=foreground', '--wait=false']);
    // A rare failure here (once in CI): say what was left and what the surviving processes logged.
    const explain = async (err: unknown): Promise<never> => {
      const left = await configMapNames(follower, 'gc-ha').catch(() => []);
      const owner = await http(follower, 'GET', '/api/v1/namespaces/gc-ha/configmaps/owner2').catch(() => undefined);
      const logs = followers.map((s, i) => `--- process ${i} (${leading(s) ? 'leading' : 'not leading'}):\n${s.output().split('\n').slice(-60).join('\n')}`);
      throw new Error([String(err), `left: ${left.length} ${left.slice(0, 5).join(' ')}`, `owner2: ${owner?.status} ${JSON.stringify(owner?.json?.metadata)}`, ...logs].join('\n'));
    };
    await eventually(async () => (await configMapNames(follower, 'gc-ha')).length === 0, 60_000, 200).catch(explain);
    await eventually(async () => followers.filter(leading).length === 1, 30_000, 200).catch(explain);
  });
});
