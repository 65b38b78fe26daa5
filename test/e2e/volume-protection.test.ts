import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * persistentvolumeclaim-protection-controller and
 * persistentvolume-protection-controller: the finalizers
 * StorageObjectInUseProtection puts on claims and volumes come off once
 * nothing uses them, so `kubectl delete` completes; a claim a scheduled pod
 * names, or a Bound volume, stays Terminating until that changes. With the
 * controllers off (`--controllers=*,-pvc-protection,-pv-protection`) the
 * objects stay.
 */

const skip = kubectlMissing();

const claim = (name: string): string => JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', resources: { requests: { storage: '1Gi' } } } });
const volume = (name: string): string => JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } } });

describe('volume protection controllers', { skip }, () => {
  let s: TestServer;
  let off: TestServer;

  before(async () => {
    [s, off] = await Promise.all([startServer({ backend: 'memory' }), startServer({ backend: 'memory', args: ['--controllers=*,-pvc-protection,-pv-protection'] })]);
  });

  after(async () => {
    for (const x of [s, off]) {
      await x?.stop();
      if (x) removeDir(x.dataDir);
    }
  });

  const exists = async (server: TestServer, path: string): Promise<boolean> => (await http(server, 'GET', path)).status === 200;

  it('a claim goes once no scheduled pod names it', async () => {
    for (const name of ['free', 'held']) assert.equal((await kubectl(s, ['create', '-f', '-'], claim(name))).code, 0);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'user' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'held' } }] } };
    // An unscheduled pod naming `free` does not hold it (no kubelet would start it with a terminating claim).
    const unscheduled = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pending' }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'free' } }] } };
    for (const p of [pod, unscheduled]) {
      const r = await kubectl(s, ['create', '-f', '-'], JSON.stringify(p));
      assert.equal(r.code, 0, r.stderr);
    }
    const d = await kubectl(s, ['delete', 'pvc', 'free', 'held', '--wait=false']);
    assert.equal(d.code, 0, d.stderr);
    await eventually(async () => !(await exists(s, '/api/v1/namespaces/default/persistentvolumeclaims/free')), 20_000);
    const held = await http(s, 'GET', '/api/v1/namespaces/default/persistentvolumeclaims/held');
    assert.equal(held.status, 200);
    assert.ok(held.json.metadata.deletionTimestamp);
    assert.deepEqual(held.json.metadata.finalizers, ['kubernetes.io/pvc-protection']);
    const dp = await kubectl(s, ['delete', 'pod', 'user', '--grace-period=0', '--force']);
    assert.equal(dp.code, 0, dp.stderr);
    await eventually(async () => !(await exists(s, '/api/v1/namespaces/default/persistentvolumeclaims/held')), 20_000);
  });

  it('a volume goes unless it is Bound', async () => {
    for (const name of ['pv-free', 'pv-bound']) assert.equal((await kubectl(s, ['create', '-f', '-'], volume(name))).code, 0);
    const bound = await http(s, 'PATCH', '/api/v1/persistentvolumes/pv-bound/status', { headers: { 'content-type': 'application/merge-patch+json' }, body: { status: { phase: 'Bound' } } });
    assert.equal(bound.status, 200, bound.text);
    const d = await kubectl(s, ['delete', 'pv', 'pv-free', 'pv-bound', '--wait=false']);
    assert.equal(d.code, 0, d.stderr);
    await eventually(async () => !(await exists(s, '/api/v1/persistentvolumes/pv-free')), 20_000);
    assert.ok(await exists(s, '/api/v1/persistentvolumes/pv-bound'));
    const released = await http(s, 'PATCH', '/api/v1/persistentvolumes/pv-bound/status', { headers: { 'content-type': 'application/merge-patch+json' }, body: { status: { phase: 'Released' } } });
    assert.equal(released.status, 200, released.text);
    await eventually(async () => !(await exists(s, '/api/v1/persistentvolumes/pv-bound')), 20_000);
  });

  it('adds a missing finalizer to a live claim; with the controllers off, deleted claims stay', async () => {
    // A claim whose finalizer was taken off gets it back (as for claims made before the admission plugin).
    assert.equal((await kubectl(s, ['create', '-f', '-'], claim('bare'))).code, 0);
    const stripped = await kubectl(s, ['patch', 'pvc', 'bare', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    assert.equal(stripped.code, 0, stripped.stderr);
    await eventually(async () => ((await http(s, 'GET', '/api/v1/namespaces/default/persistentvolumeclaims/bare')).json.metadata.finalizers ?? []).includes('kubernetes.io/pvc-protection'), 20_000);
    assert.equal((await kubectl(off, ['create', '-f', '-'], claim('stays'))).code, 0);
    assert.equal((await kubectl(off, ['delete', 'pvc', 'stays', '--wait=false'])).code, 0);
    // The delete landed (Terminating) but nothing takes the finalizer off.
    const got = await http(off, 'GET', '/api/v1/namespaces/default/persistentvolumeclaims/stays');
    assert.ok(got.json.metadata.deletionTimestamp);
    assert.doesNotMatch((await http(off, 'GET', '/metrics')).text, /name="pvcprotection"/);
  });
});
