import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, type KubectlResult, type TestServer } from '../helpers/server.js';

/**
 * `capstan serve` with kube's default-on pod admission plugins, driven by
 * kubectl as a user would: a pod gets its service account and the projected
 * kube-api-access token volume, LimitRange defaults, its PriorityClass's
 * priority and the default tolerations; an unknown RuntimeClass or service
 * account is refused with kube's message; nodes start tainted not-ready and
 * a binding copies the node's topology labels to the pod.
 */

const skip = kubectlMissing();

const LIMITS = `apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: limited}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 256Mi}
    defaultRequest: {cpu: 100m}
    max: {cpu: "1"}
`;

const PRIORITY = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch-high}
value: 1000
preemptionPolicy: Never
`;

describe('pod admission plugins through kubectl', { skip }, () => {
  let server: TestServer;
  const k = (args: string[], input?: string): Promise<KubectlResult> => kubectl(server, args, input);
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await k(args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}`);
    return r.stdout;
  };
  const getJson = async (args: string[]): Promise<any> => JSON.parse(await ok(['get', ...args, '-o', 'json']));

  before(async () => {
    server = await startServer({ backend: 'sqlite', args: ['--default-unreachable-toleration-seconds=120'] });
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('kubectl run: the default service account, its kube-api-access volume mounted read-only, priority 0 and the default tolerations', async () => {
    await ok(['run', 'web', '--image=nginx:1.27']);
    const pod = await getJson(['pod', 'web']);
    assert.equal(pod.spec.serviceAccountName, 'default');
    assert.equal(pod.spec.serviceAccount, 'default');
    const volume = pod.spec.volumes.find((v: { name: string }) => v.name.startsWith('kube-api-access-'));
    assert.match(volume.name, /^kube-api-access-[a-z0-9]{5}$/);
    assert.deepEqual(volume.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    assert.deepEqual(pod.spec.containers[0].volumeMounts, [{ name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    assert.equal(pod.spec.priority, 0);
    assert.equal(pod.spec.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(pod.spec.tolerations, [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
    ]);
    // The pod stays updatable: what admission added reads back as it was stored.
    await ok(['label', 'pod', 'web', 'tier=front']);

    await ok(['create', 'serviceaccount', 'quiet']);
    await ok(['patch', 'serviceaccount', 'quiet', '-p', '{"automountServiceAccountToken":false}']);
    await ok(['run', 'quiet', '--image=nginx', '--overrides={"spec":{"serviceAccountName":"quiet"}}']);
    const quiet = await getJson(['pod', 'quiet']);
    assert.equal(quiet.spec.volumes, undefined);
    assert.equal(quiet.spec.containers[0].volumeMounts, undefined);

    const missing = await k(['run', 'lost', '--image=nginx', '--overrides={"spec":{"serviceAccountName":"ghost"}}']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /Error from server \(Forbidden\): pods "lost" is forbidden: error looking up service account default\/ghost: serviceaccount "ghost" not found/);
  });

  it('LimitRange defaults appear on a pod, with the kubernetes.io/limit-ranger annotation; a pod over the max is refused', async () => {
    await ok(['create', 'namespace', 'limited']);
    await ok(['apply', '-f', '-'], LIMITS);
    // The namespace's default service account comes from a controller; the plugin waits a moment for it.
    await ok(['run', 'sized', '-n', 'limited', '--image=nginx']);
    const pod = await getJson(['pod', 'sized', '-n', 'limited']);
    assert.deepEqual(pod.spec.containers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
    assert.equal(pod.metadata.annotations['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: cpu, memory request for container sized; cpu, memory limit for container sized');
    const big = await k(['run', 'big', '-n', 'limited', '--image=nginx', '--overrides={"spec":{"containers":[{"name":"big","image":"nginx","resources":{"limits":{"cpu":"2"}}}]}}']);
    assert.notEqual(big.code, 0);
    assert.match(big.stderr, /pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2/);
  });

  it('a pod naming a PriorityClass gets its priority; the system classes exist; an unknown class is refused', async () => {
    const system = await getJson(['priorityclass', 'system-node-critical']);
    assert.equal(system.value, 2000001000);
    assert.equal((await getJson(['priorityclass', 'system-cluster-critical'])).value, 2000000000);
    await ok(['apply', '-f', '-'], PRIORITY);
    await ok(['run', 'urgent', '--image=nginx', '--overrides={"spec":{"priorityClassName":"batch-high"}}']);
    const pod = await getJson(['pod', 'urgent']);
    assert.equal(pod.spec.priority, 1000);
    assert.equal(pod.spec.preemptionPolicy, 'Never');
    const unknown = await k(['run', 'nobody', '--image=nginx', '--overrides={"spec":{"priorityClassName":"nope"}}']);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /pods "nobody" is forbidden: no PriorityClass with name nope was found/);
    const second = await k(['apply', '-f', '-'], PRIORITY.replace('batch-high', 'one').replace('value: 1000', 'value: 1\nglobalDefault: true'));
    assert.equal(second.code, 0, second.stderr);
    const third = await k(['apply', '-f', '-'], PRIORITY.replace('batch-high', 'two').replace('value: 1000', 'value: 2\nglobalDefault: true'));
    assert.notEqual(third.code, 0);
    assert.match(third.stderr, /priorityclasses.scheduling.k8s.io "two" is forbidden: PriorityClass one is already marked as default. Only one default can exist/);
  });

  it('an unknown RuntimeClass is refused; a known one brings its overhead and scheduling', async () => {
    const refused = await k(['run', 'sandboxed', '--image=nginx', '--overrides={"spec":{"runtimeClassName":"gvisor"}}']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Error from server \(Forbidden\): pods "sandboxed" is forbidden: pod rejected: RuntimeClass "gvisor" not found/);
    await ok(['apply', '-f', '-'], 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\noverhead: {podFixed: {cpu: 250m}}\nscheduling: {nodeSelector: {sandbox: gvisor}}\n');
    await ok(['run', 'sandboxed', '--image=nginx', '--overrides={"spec":{"runtimeClassName":"gvisor"}}']);
    const pod = await getJson(['pod', 'sandboxed']);
    assert.deepEqual(pod.spec.overhead, { cpu: '250m' });
    assert.deepEqual(pod.spec.nodeSelector, { sandbox: 'gvisor' });
  });

  it('nodes are created tainted not-ready; binding a pod copies the node\'s topology labels', async () => {
    await ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Node\nmetadata:\n  name: worker\n  labels: {topology.kubernetes.io/zone: zone-a, topology.kubernetes.io/region: region-1}\n');
    const node = await getJson(['node', 'worker']);
    assert.deepEqual(node.spec.taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    const bound = await http(server, 'POST', '/api/v1/namespaces/default/pods/web/binding', { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web' }, target: { kind: 'Node', name: 'worker' } } });
    assert.equal(bound.status, 201);
    const pod = await eventually(async () => {
      const p = await getJson(['pod', 'web']);
      return p.spec.nodeName === 'worker' ? p : undefined;
    });
    assert.equal(pod.metadata.labels['topology.kubernetes.io/zone'], 'zone-a');
    assert.equal(pod.metadata.labels['topology.kubernetes.io/region'], 'region-1');
    assert.equal(pod.metadata.labels.tier, 'front');
  });
});
