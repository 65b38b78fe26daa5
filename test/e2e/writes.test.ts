import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { http, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * Writes with full fidelity through kubectl: server-side apply with conflicts
 * and --force-conflicts, the upgrade from client-side apply, every patch type,
 * server-side dry run (diff, create), scale, and the defaults kube-apiserver
 * fills in.
 */

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: writes
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
`;

describe('writes through kubectl', { skip: kubectlMissing() }, () => {
  let server: TestServer;
  const k = (args: string[], input?: string) => kubectl(server, args, input);
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await k(args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
    return r.stdout;
  };
  const getJson = async (args: string[]) => JSON.parse(await ok([...args, '-o', 'json']));

  before(async () => {
    server = await startServer({ backend: 'sqlite' });
    await ok(['create', 'namespace', 'writes']);
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('fills in kube-apiserver\'s defaults', async () => {
    await ok(['apply', '--server-side', '-f', '-'], DEPLOY);
    const d = await getJson(['get', 'deploy', 'web', '-n', 'writes']);
    assert.equal(d.spec.progressDeadlineSeconds, 600);
    assert.equal(d.spec.revisionHistoryLimit, 10);
    assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    const pod = d.spec.template.spec;
    assert.equal(pod.restartPolicy, 'Always');
    assert.equal(pod.dnsPolicy, 'ClusterFirst');
    assert.equal(pod.schedulerName, 'default-scheduler');
    assert.equal(pod.terminationGracePeriodSeconds, 30);
    assert.deepEqual(pod.securityContext, {});
    const c = pod.containers[0];
    assert.equal(c.imagePullPolicy, 'IfNotPresent');
    assert.equal(c.terminationMessagePath, '/dev/termination-log');
    assert.equal(c.terminationMessagePolicy, 'File');
    assert.equal(c.ports[0].protocol, 'TCP');
  });

  it('server-side apply: a second manager conflicts, --force-conflicts takes the field', async () => {
    const changed = DEPLOY.replace('replicas: 2', 'replicas: 5');
    const conflict = await k(['apply', '--server-side', '--field-manager=ops', '-f', '-'], changed);
    assert.notEqual(conflict.code, 0);
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.replicas/);
    await ok(['apply', '--server-side', '--field-manager=ops', '--force-conflicts', '-f', '-'], changed);
    const d = await getJson(['get', 'deploy', 'web', '-n', 'writes', '--show-managed-fields']);
    assert.equal(d.spec.replicas, 5);
    const owners = (d.metadata.managedFields as Array<{ manager: string; operation: string; fieldsV1: { 'f:spec'?: Record<string, unknown> } }>).map((m) => ({
      manager: m.manager,
      operation: m.operation,
      replicas: 'f:replicas' in (m.fieldsV1['f:spec'] ?? {}),
    }));
    assert.deepEqual(owners.find((o) => o.manager === 'ops'), { manager: 'ops', operation: 'Apply', replicas: true });
    assert.deepEqual(owners.find((o) => o.manager === 'kubectl'), { manager: 'kubectl', operation: 'Apply', replicas: false });
  });

  it('every patch type', async () => {
    await ok(['patch', 'deploy', 'web', '-n', 'writes', '--type=merge', '-p', '{"metadata":{"labels":{"tier":"front"}}}']);
    await ok(['patch', 'deploy', 'web', '-n', 'writes', '--type=json', '-p', '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.28"}]']);
    await ok(['patch', 'deploy', 'web', '-n', 'writes', '--type=strategic', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}']);
    const d = await getJson(['get', 'deploy', 'web', '-n', 'writes']);
    assert.equal(d.metadata.labels.tier, 'front');
    // A strategic merge patch puts a new list item before the existing ones (kube's mergeSlice order).
    assert.deepEqual(d.spec.template.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`), ['sidecar=busybox', 'web=nginx:1.28']);
    const failed = await k(['patch', 'deploy', 'web', '-n', 'writes', '--type=json', '-p', '[{"op":"test","path":"/spec/replicas","value":99}]']);
    assert.notEqual(failed.code, 0);
    assert.match(failed.stderr, /the server rejected our request due to an error in our request/);
  });

  it('server-side dry run: diff shows the change and create stores nothing', async () => {
    const before = await getJson(['get', 'deploy', 'web', '-n', 'writes']);
    const diff = await k(['diff', '-f', '-'], DEPLOY.replace('nginx:1.27', 'nginx:1.29'));
    assert.equal(diff.code, 1, diff.stderr);
    assert.doesNotMatch(diff.stdout, /annotations: \{\}/, 'empty metadata maps are dropped, as Go\'s omitempty does');
    assert.match(diff.stdout, /^-\s+- image: nginx:1\.28$/m);
    assert.match(diff.stdout, /^\+\s+- image: nginx:1\.29$/m);
    const after = await getJson(['get', 'deploy', 'web', '-n', 'writes']);
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
    const dry = await ok(['create', 'configmap', 'ghost', '-n', 'writes', '--from-literal=a=b', '--dry-run=server', '-o', 'json']);
    assert.equal(JSON.parse(dry).metadata.name, 'ghost');
    const r = await k(['get', 'configmap', 'ghost', '-n', 'writes']);
    assert.notEqual(r.code, 0);
  });

  it('client-side apply upgrades to server-side apply', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csa\n  namespace: writes\ndata:\n  a: "1"\n  b: "2"\n';
    await ok(['apply', '-f', '-'], cm);
    await ok(['apply', '--server-side', '-f', '-'], cm.replace('  b: "2"\n', ''));
    const got = await getJson(['get', 'cm', 'csa', '-n', 'writes']);
    assert.deepEqual(got.data, { a: '1' }, 'the field dropped from the applied config is removed, as after the upgrade kubectl owns it');
  });

  it('kubectl scale', async () => {
    await ok(['scale', 'deploy', 'web', '-n', 'writes', '--replicas=3']);
    assert.equal((await getJson(['get', 'deploy', 'web', '-n', 'writes'])).spec.replicas, 3);
  });

  it('field validation: strict and warn through kubectl, duplicates over HTTP', async () => {
    const unknown = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fv\n  namespace: writes\ndata:\n  k: v\nfoo: bar\n';
    const strict = await k(['apply', '--validate=strict', '-f', '-'], unknown);
    assert.notEqual(strict.code, 0);
    assert.match(strict.stderr, /ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "foo"/);
    const warn = await k(['apply', '--validate=warn', '-f', '-'], unknown);
    assert.equal(warn.code, 0, warn.stderr);
    assert.match(warn.stderr, /Warning: unknown field "foo"/);
    const stored = await getJson(['get', 'cm', 'fv', '-n', 'writes']);
    assert.equal(stored.foo, undefined, 'unknown fields are dropped');
    // kubectl re-encodes manifests, so duplicate keys only reach the server from other clients.
    const dupBody = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup","name":"dup"},"data":{"k":"1","k":"2"}}';
    const dup = await http(server, 'POST', '/api/v1/namespaces/writes/configmaps?fieldValidation=Strict', { body: dupBody });
    assert.equal(dup.status, 400);
    assert.match(dup.json.message, /strict decoding error: duplicate field "metadata\.name", duplicate field "data\.k"/);
    const dupWarn = await http(server, 'POST', '/api/v1/namespaces/writes/configmaps?fieldValidation=Warn', { body: dupBody });
    assert.equal(dupWarn.status, 201);
    // RFC 7234 warning text, quoted with backslash escapes as kube sends it.
    assert.match(String(dupWarn.headers.warning), /299 - "duplicate field \\"data\.k\\""/);
    assert.deepEqual(dupWarn.json.data, { k: '2' });
    const badType = await http(server, 'POST', '/apis/apps/v1/namespaces/writes/deployments?fieldValidation=Ignore', { body: { metadata: { name: 'bt' }, spec: { replicas: 'two' } } });
    assert.equal(badType.status, 400);
    assert.match(badType.json.message, /json: cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32/);
  });

  it('immutable fields and type validation answer 422 like kube', async () => {
    const sel = await k(['patch', 'deploy', 'web', '-n', 'writes', '--type=merge', '-p', '{"spec":{"selector":{"matchLabels":{"app":"other"}},"template":{"metadata":{"labels":{"app":"other"}}}}}']);
    assert.notEqual(sel.code, 0);
    // kube 1.33+ prints a bad value that is not a scalar as json.Marshal writes it.
    assert.match(sel.stderr, /spec\.selector: Invalid value: \{"matchLabels":\{"app":"other"\}\}: field is immutable/);
    const mismatch = DEPLOY.replace('name: web\n', 'name: mismatch\n').replace('labels: {app: web}', 'labels: {app: wrong}');
    const created = await k(['create', '-f', '-'], mismatch);
    assert.notEqual(created.code, 0);
    assert.equal(created.stderr.trim(), 'The Deployment "mismatch" is invalid: spec.template.metadata.labels: Invalid value: {"app":"wrong"}: `selector` does not match template `labels`');
    const r = await http(server, 'POST', '/api/v1/namespaces/writes/pods', { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }] } } });
    assert.equal(r.status, 422);
    assert.match(r.json.message, /spec\.containers\[0\]\.image: Required value/);
  });

  it('quantities read back in canonical form, whatever the write path', async () => {
    const pod = `apiVersion: v1
kind: Pod
metadata: {name: sized, namespace: writes}
spec:
  containers:
  - name: c
    image: nginx
    resources:
      limits: {cpu: 1000m, memory: 1.5Gi}
      requests: {cpu: 0.5}
`;
    await ok(['apply', '--server-side', '-f', '-'], pod);
    const created = await getJson(['get', 'pod', 'sized', '-n', 'writes']);
    assert.deepEqual(created.spec.containers[0].resources, { limits: { cpu: '1', memory: '1536Mi' }, requests: { cpu: '500m', memory: '1536Mi' } });
    // Applying the same configuration again changes nothing: the canonical form is stable. (A second
    // later, so a changed field set would show as a new managedFields time and resourceVersion.)
    await new Promise((r) => setTimeout(r, 1100));
    await ok(['apply', '--server-side', '-f', '-'], pod);
    assert.equal((await getJson(['get', 'pod', 'sized', '-n', 'writes'])).metadata.resourceVersion, created.metadata.resourceVersion);
    const quota = await http(server, 'POST', '/api/v1/namespaces/writes/resourcequotas', { body: { metadata: { name: 'q' }, spec: { hard: { pods: 10, 'requests.memory': '2048Mi' } } } });
    assert.equal(quota.status, 201);
    assert.deepEqual(quota.json.spec.hard, { pods: '10', 'requests.memory': '2Gi' });
    const patched = await http(server, 'PATCH', '/api/v1/namespaces/writes/resourcequotas/q', { body: { spec: { hard: { 'limits.cpu': '2000m' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(patched.json.spec.hard['limits.cpu'], '2');
  });
});
