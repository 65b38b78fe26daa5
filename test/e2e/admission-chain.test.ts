import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { ApiServer } from '../../src/server/apiserver.js';
import { ApiError } from '../../src/machinery/errors.js';
import { ROOT, http, kubectl, kubectlMissing, removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';

/**
 * `capstan serve` with the admission flags as an operator sets them:
 * AlwaysDeny refusing kubectl's writes (never its reads), NamespaceLifecycle
 * disabled, EventRateLimit configured through --admission-control-config-file
 * answering 429, kube's admission latency histograms on /metrics, and the
 * start refused for unusable flags or configuration.
 */

const skip = kubectlMissing();
const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');

describe('--enable-admission-plugins=AlwaysDeny', { skip }, () => {
  let server: TestServer;
  let dataDir: string;

  before(async () => {
    // kube-apiserver's own start-up writes pass admission too: the store is
    // bootstrapped by a first start, as a cluster that turns AlwaysDeny on.
    dataDir = tempDir();
    const first = await startServer({ backend: 'sqlite', dataDir, strictRbac: true });
    await first.stop();
    server = await startServer({ backend: 'sqlite', dataDir, strictRbac: true, args: ['--enable-admission-plugins=AlwaysDeny'] });
  });

  after(async () => {
    await server?.stop();
    removeDir(dataDir);
  });

  it('refuses kubectl create with kube message, and logs the deprecation', async () => {
    const r = await kubectl(server, ['create', 'configmap', 'denied', '--from-literal=a=b']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), 'error: failed to create configmap: configmaps "denied" is forbidden: admission control is denying all modifications');
    assert.match(server.output(), /W \S+ AlwaysDeny admission controller is deprecated\. Please remove this controller from your configuration files and scripts\./);
  });

  it('never runs on reads', async () => {
    const r = await kubectl(server, ['get', 'namespaces', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /namespace\/default/);
  });

  it('refuses dry-run writes too, and deletes', async () => {
    const dry = await kubectl(server, ['create', 'configmap', 'dry', '--from-literal=a=b', '--dry-run=server']);
    assert.match(dry.stderr, /configmaps "dry" is forbidden: admission control is denying all modifications/);
    const del = await kubectl(server, ['delete', 'namespace', 'kube-node-lease']);
    assert.match(del.stderr, /namespaces "kube-node-lease" is forbidden: admission control is denying all modifications/);
  });
});

describe('--disable-admission-plugins and EventRateLimit from --admission-control-config-file', { skip }, () => {
  let server: TestServer;
  let dir: string;

  before(async () => {
    dir = tempDir();
    // The plugin's configuration in its own file, named relative to the admission configuration.
    writeFileSync(join(dir, 'eventratelimit.yaml'), 'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Namespace\n  qps: 1\n  burst: 2\n');
    writeFileSync(join(dir, 'admission.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: eventratelimit.yaml\n');
    server = await startServer({
      args: ['--disable-admission-plugins=NamespaceLifecycle', '--enable-admission-plugins=EventRateLimit', `--admission-control-config-file=${join(dir, 'admission.yaml')}`],
    });
  });

  after(async () => {
    await server?.stop();
    removeDir(dir);
  });

  it('stores into a namespace that does not exist once NamespaceLifecycle is disabled', async () => {
    const r = await kubectl(server, ['create', 'configmap', 'orphan', '-n', 'no-such-namespace', '--from-literal=a=b']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'configmap/orphan created');
  });

  it('answers 429 with kube Status once the namespace bucket is empty', async () => {
    // kube's event validation: the involved object's namespace is the event's.
    const event = (i: number, namespace = 'default'): unknown => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `e${i}` },
      involvedObject: { kind: 'Pod', namespace, name: 'p' },
      reason: 'Test',
      message: 'm',
    });
    // Dry runs are not counted.
    for (let i = 0; i < 5; i++) {
      const dry = await http(server, 'POST', '/api/v1/namespaces/default/events?dryRun=All', { body: event(100 + i) });
      assert.equal(dry.status, 201, dry.text);
    }
    // Sent together: the bucket (burst 2, 1 per second) cannot hold them all.
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => http(server, 'POST', '/api/v1/namespaces/default/events', { body: event(i) })));
    const refused = answers.filter((a) => a.status === 429);
    assert.ok(refused.length > 0, `no 429 among ${answers.map((a) => a.status).join(',')}`);
    assert.ok(answers.every((a) => a.status === 201 || a.status === 429), answers.map((a) => a.status).join(','));
    assert.deepEqual(refused[0]!.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests: Too many requests: limit reached on type Namespace for key default',
      reason: 'TooManyRequests',
      code: 429,
    });
    // Other namespaces have their own bucket; other kinds are not limited.
    const ns = await http(server, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'quiet' } } });
    assert.equal(ns.status, 201, ns.text);
    const elsewhere = await http(server, 'POST', '/api/v1/namespaces/quiet/events', { body: event(99, 'quiet') });
    assert.equal(elsewhere.status, 201, elsewhere.text);
  });

  it('exposes kube admission latency histograms on /metrics', async () => {
    const r = await http(server, 'GET', '/metrics');
    assert.equal(r.status, 200);
    assert.match(r.text, /^# HELP apiserver_admission_step_admission_duration_seconds \[STABLE\] Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type \(validate or admit\)\.$/m);
    assert.match(r.text, /^# TYPE apiserver_admission_step_admission_duration_seconds histogram$/m);
    assert.match(r.text, /^apiserver_admission_step_admission_duration_seconds_bucket\{operation="CREATE",rejected="true",type="validate",le="0\.005"\} \d+$/m);
    assert.match(r.text, /^apiserver_admission_step_admission_duration_seconds_bucket\{operation="CREATE",rejected="false",type="admit",le="\+Inf"\} \d+$/m);
    assert.match(r.text, /^apiserver_admission_step_admission_duration_seconds_count\{operation="CREATE",rejected="false",type="admit"\} \d+$/m);
    assert.match(r.text, /^# HELP apiserver_admission_controller_admission_duration_seconds \[STABLE\] Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type \(validate or admit\)\.$/m);
    assert.match(r.text, /^apiserver_admission_controller_admission_duration_seconds_bucket\{name="EventRateLimit",operation="CREATE",rejected="true",type="validate",le="2\.5"\} [1-9]\d*$/m);
    assert.match(r.text, /^apiserver_admission_controller_admission_duration_seconds_sum\{name="EventRateLimit",operation="CREATE",rejected="false",type="validate"\} [\d.e-]+$/m);
    assert.doesNotMatch(r.text, /name="NamespaceLifecycle"/);
  });
});

describe('admission flags and configuration that stop the start', () => {
  const serve = (...args: string[]) => {
    const dataDir = tempDir();
    try {
      return spawnSync(process.execPath, [MAIN, 'serve', '--storage-backend', 'memory', '--secure-port', '0', '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 30_000 });
    } finally {
      removeDir(dataDir);
    }
  };

  it('exits 2 on unknown, overlapping or unbuilt plugin names', () => {
    const unknown = serve('--enable-admission-plugins=NoSuchPlugin');
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /^Error: enable-admission-plugins plugin "NoSuchPlugin" is unknown$/m);
    const both = serve('--enable-admission-plugins=AlwaysDeny', '--disable-admission-plugins=AlwaysDeny');
    assert.equal(both.status, 2);
    assert.match(both.stderr, /^Error: \[AlwaysDeny\] in enable-admission-plugins and disable-admission-plugins overlapped$/m);
    const unbuilt = serve('--enable-admission-plugins=ImagePolicyWebhook');
    assert.equal(unbuilt.status, 2);
    assert.match(unbuilt.stderr, /^Error: --enable-admission-plugins: "ImagePolicyWebhook" is not supported by this server yet \(supported: [A-Za-z, ]*EventRateLimit/m);
  });

  it('exits 1 with kube text when the configuration file or a plugin configuration is unusable', () => {
    const dir = tempDir();
    try {
      const missing = join(dir, 'missing.yaml');
      const r = serve(`--admission-control-config-file=${missing}`);
      assert.equal(r.status, 1);
      assert.match(r.stderr, new RegExp(`^Error: failed to read plugin config: unable to read admission control configuration from "${missing}" \\[open ${missing}: no such file or directory\\]$`, 'm'));
      // EventRateLimit without a configuration has no limits.
      const noLimits = serve('--enable-admission-plugins=EventRateLimit');
      assert.equal(noLimits.status, 1);
      assert.match(noLimits.stderr, /^Error: couldn't init admission plugin "EventRateLimit": limits: Invalid value: null: must not be empty$/m);
    } finally {
      removeDir(dir);
    }
  });
});

describe('the generic plugins in a running server', () => {
  let server: ApiServer;
  const quiet = { info: () => undefined, error: () => undefined, v: () => false };

  before(async () => {
    server = new ApiServer({
      config: { admission: { enablePlugins: ['NamespaceAutoProvision', 'DenyServiceExternalIPs', 'LimitPodHardAntiAffinityTopology'] } },
      logger: quiet,
    });
    await server.start();
  });

  after(async () => {
    await server?.stop();
  });

  const refusal = async (p: Promise<unknown>): Promise<ApiError['status']> => {
    try {
      await p;
    } catch (err) {
      assert.ok(err instanceof ApiError, String(err));
      return err.status;
    }
    assert.fail('the write was admitted');
  };

  it('NamespaceAutoProvision creates the namespace before NamespaceLifecycle looks for it; not on dry-run', async () => {
    const c = server.client('test');
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } };
    // A dry run provisions nothing, so NamespaceLifecycle finds no namespace.
    const dry = await refusal(c.create({ group: '', version: 'v1', resource: 'configmaps', namespace: 'dry-only' }, cm, { dryRun: true }));
    assert.equal(dry.message, 'namespaces "dry-only" not found');
    await assert.rejects(c.get({ group: '', version: 'v1', resource: 'namespaces', name: 'dry-only' }), (err: unknown) => err instanceof ApiError && err.code === 404);
    await c.create({ group: '', version: 'v1', resource: 'configmaps', namespace: 'provisioned' }, cm);
    const ns = await c.get({ group: '', version: 'v1', resource: 'namespaces', name: 'provisioned' });
    assert.equal(ns.metadata?.name, 'provisioned');
  });

  it('DenyServiceExternalIPs and LimitPodHardAntiAffinityTopology refuse with kube messages', async () => {
    const c = server.client('test');
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext' }, spec: { ports: [{ port: 80 }], externalIPs: ['192.0.2.1'] } };
    const denied = await refusal(c.create({ group: '', version: 'v1', resource: 'services', namespace: 'default' }, svc));
    assert.equal(denied.code, 403);
    assert.equal(denied.message, 'services "ext" is forbidden: Use of external IPs is denied by admission control');
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { generateName: 'spread-' },
      spec: {
        containers: [{ name: 'c', image: 'busybox' }],
        affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: { a: 'b' } } }] } },
      },
    };
    const spread = await refusal(c.create({ group: '', version: 'v1', resource: 'pods', namespace: 'default' }, pod));
    assert.equal(spread.code, 403);
    // Validating admission sees the generated name.
    assert.match(spread.message ?? '', /^pods "spread-[a-z0-9]{5}" is forbidden: affinity\.PodAntiAffinity\.RequiredDuringScheduling has TopologyKey topology\.kubernetes\.io\/zone but only key kubernetes\.io\/hostname is allowed$/);
  });
});
