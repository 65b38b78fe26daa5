import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { ApiServer } from '../../src/server/apiserver.js';
import { writeKubeconfig } from '../../src/server/kubeconfig.js';
import { ensurePki } from '../../src/server/pki.js';
import { eventually, http, kubectl, kubectlMissing, removeDir, tempDir } from '../helpers/server.js';

/**
 * Admission webhooks end to end: webhook servers on loopback with their own
 * CA (trusted through caBundle), configurations created through the API and
 * followed by the server's informers, calls with AdmissionReview v1 and
 * v1beta1, JSONPatch mutations and reinvocation, denials, timeouts under
 * both failure policies, matchConditions, a custom resource, a webhook
 * reached through a Service and its EndpointSlice, and kubectl's view of a
 * denial and of warnings.
 */

type Review = { apiVersion: string; request: { uid: string; object?: { metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> } }; dryRun?: boolean; kind: { kind: string }; resource: { resource: string }; requestResource: { resource: string }; operation: string; userInfo: { username: string } } };

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64');

describe('admission webhooks', () => {
  let server: ApiServer;
  let hooks: Server;
  let hookPort = 0;
  let caBundle = '';
  let dir: string;
  let kubeconfig = '';
  const calls = new Map<string, Review[]>();
  const c = (): { url: string; creds: { ca: string; cert: string; key: string } } => {
    const kc = server.adminKubeconfig();
    return { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
  };

  /** What each path of the webhook server answers. */
  function answer(path: string, review: Review): Record<string, unknown> | 'hang' {
    const req = review.request;
    const labels = req.object?.metadata?.labels ?? {};
    const ok = { uid: req.uid, allowed: true };
    switch (path) {
      case '/label': {
        const patch = req.object?.metadata?.labels
          ? [{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }]
          : [{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }];
        return { ...ok, patchType: 'JSONPatch', patch: b64(patch) };
      }
      case '/annotate': {
        const seen = labels['mutated'] ?? 'none';
        const patch = req.object?.metadata?.annotations
          ? [{ op: 'add', path: '/metadata/annotations/seen', value: seen }]
          : [{ op: 'add', path: '/metadata/annotations', value: { seen } }];
        return { ...ok, patchType: 'JSONPatch', patch: b64(patch) };
      }
      case '/deny':
        if (labels['deny'] === 'yes') return { uid: req.uid, allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no thanks' } };
        return { ...ok, warnings: ['be careful with this one'], auditAnnotations: { checked: 'true' } };
      case '/deny-all':
        return { uid: req.uid, allowed: false, status: { message: 'guarded objects are refused' } };
      case '/slow':
        return 'hang';
      default:
        return ok;
    }
  }

  before(async () => {
    dir = tempDir('capstan-webhooks-');
    const pki = await ensurePki({ servingNames: ['hooks.webhook-svc.svc'], adminUser: 'unused', adminGroups: [] });
    caBundle = Buffer.from(pki.servingCa!).toString('base64');
    hooks = createServer({ key: pki.serving.key, cert: pki.serving.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'https://x').pathname;
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
        calls.set(path, [...(calls.get(path) ?? []), review]);
        const response = answer(path, review);
        if (response === 'hang') return void setTimeout(() => res.destroy(), 3000).unref();
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response }));
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    hookPort = (hooks.address() as AddressInfo).port;
    server = new ApiServer({ config: { enableAggregatorRouting: true } });
    await server.start();
    kubeconfig = join(dir, 'admin.kubeconfig');
    writeKubeconfig(kubeconfig, server.adminKubeconfig());
    assert.equal((await http(c(), 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wh', labels: { 'webhook-test': 'true' } } } })).status, 201);
  });

  after(async () => {
    await server?.stop();
    hooks?.closeAllConnections();
    await new Promise<void>((r) => (hooks ? hooks.close(() => r()) : r()));
    removeDir(dir);
  });

  const url = (path: string): string => `https://127.0.0.1:${hookPort}${path}`;
  const selectorFor = (scenario: string) => ({ namespaceSelector: { matchLabels: { 'webhook-test': 'true' } }, objectSelector: { matchLabels: { scenario } } });
  const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
  const hook = (name: string, path: string, scenario: string, extra: Record<string, unknown> = {}) => ({
    name, clientConfig: { url: url(path), caBundle }, rules, sideEffects: 'None', admissionReviewVersions: ['v1'], ...selectorFor(scenario), ...extra,
  });

  async function configure(kind: 'Mutating' | 'Validating', name: string, webhooks: unknown[]): Promise<void> {
    const resource = kind === 'Mutating' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
    const res = await http(c(), 'POST', `/apis/admissionregistration.k8s.io/v1/${resource}`, {
      body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks },
    });
    assert.equal(res.status, 201, res.text);
  }

  async function remove(kind: 'Mutating' | 'Validating', name: string): Promise<void> {
    const resource = kind === 'Mutating' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
    assert.equal((await http(c(), 'DELETE', `/apis/admissionregistration.k8s.io/v1/${resource}/${name}`)).status, 200);
  }

  let seq = 0;
  const configMap = (scenario: string, labels: Record<string, string> = {}, name = `cm-${scenario}-${++seq}`) => ({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { scenario, ...labels } }, data: { a: 'b' },
  });
  const create = (body: unknown, query = '') => http(c(), 'POST', `/api/v1/namespaces/wh/configmaps${query}`, { body });

  it('a mutating webhook adds a label and an IfNeeded webhook before it is called again to see it', async () => {
    await configure('Mutating', 'a-reinvoked', [hook('reinvoked.example.com', '/annotate', 'mutate', { reinvocationPolicy: 'IfNeeded' })]);
    await configure('Mutating', 'b-labeler', [hook('labeler.example.com', '/label', 'mutate', { admissionReviewVersions: ['v1beta1'] })]);
    const created = await eventually(async () => {
      const res = await create(configMap('mutate'));
      assert.equal(res.status, 201, res.text);
      return res.json.metadata.labels.mutated === 'yes' && res.json.metadata.annotations?.seen ? res.json : undefined;
    });
    assert.equal(created.metadata.annotations.seen, 'yes', 'the reinvoked webhook saw the label the later one added');
    const name = created.metadata.name as string;
    const annotateCalls = (calls.get('/annotate') ?? []).filter((r) => r.request.object?.metadata?.name === name);
    assert.equal(annotateCalls.length, 2, 'called once, then once more after the label was added');
    const labelCalls = (calls.get('/label') ?? []).filter((r) => r.request.object?.metadata?.name === name);
    assert.equal(labelCalls.length, 1, 'a webhook without IfNeeded runs once');
    assert.equal(labelCalls[0]!.apiVersion, 'admission.k8s.io/v1beta1', 'AdmissionReview in the version the webhook accepts');
    const first = annotateCalls[0]!.request;
    assert.equal(first.operation, 'CREATE');
    assert.equal(first.kind.kind, 'ConfigMap');
    assert.equal(first.resource.resource, 'configmaps');
    assert.equal(first.userInfo.username, server.adminKubeconfig().user);
    // stored as mutated
    const stored = await http(c(), 'GET', `/api/v1/namespaces/wh/configmaps/${name}`);
    assert.equal(stored.json.metadata.labels.mutated, 'yes');
    // a dry run reaches webhooks without side effects, and stores nothing
    const dry = await create(configMap('mutate'), '?dryRun=All');
    assert.equal(dry.status, 201);
    assert.equal(dry.json.metadata.labels.mutated, 'yes');
    assert.equal((calls.get('/label') ?? []).at(-1)!.request.dryRun, true);
    await remove('Mutating', 'a-reinvoked');
    await remove('Mutating', 'b-labeler');
    await eventually(async () => ((await create(configMap('mutate'))).json.metadata.labels.mutated === undefined ? true : undefined));
  });

  it('a validating webhook denies with its message, and kubectl shows the denial and the warnings', async (t) => {
    await configure('Validating', 'deny', [hook('deny.example.com', '/deny', 'deny')]);
    const denied = await eventually(async () => {
      const res = await create(configMap('deny', { deny: 'yes' }));
      return res.status === 403 ? res : undefined;
    });
    assert.equal(denied.json.message, 'admission webhook "deny.example.com" denied the request: no thanks');
    assert.equal(denied.json.reason, 'Forbidden');
    const allowed = await create(configMap('deny'));
    assert.equal(allowed.status, 201);
    assert.match(String(allowed.headers['warning']), /299 - "be careful with this one"/);
    const metrics = await http(c(), 'GET', '/metrics');
    assert.match(metrics.text, /apiserver_admission_webhook_rejection_count\{error_type="no_error",name="deny\.example\.com",operation="CREATE",rejection_code="403",type="validating"\} 1/);
    assert.match(metrics.text, /apiserver_admission_webhook_request_total\{code="200",name="deny\.example\.com",operation="CREATE",rejected="false",type="validating"\} 1/);
    assert.match(metrics.text, /apiserver_admission_webhook_admission_duration_seconds_count\{name="deny\.example\.com",operation="CREATE",rejected="true",type="validating"\} 1/);
    const skip = kubectlMissing();
    if (skip) return void t.skip(skip);
    const yaml = (labels: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kubectl-${labels.replace(/\W/g, '')}\n  namespace: wh\n  labels: {scenario: deny, ${labels}}\ndata: {a: b}\n`;
    const refused = await kubectl({ kubeconfig }, ['apply', '-f', '-'], yaml('deny: "yes"'));
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /admission webhook "deny\.example\.com" denied the request: no thanks/);
    const warned = await kubectl({ kubeconfig }, ['create', '-f', '-'], yaml('other: "x"'));
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, /Warning: be careful with this one/);
    await remove('Validating', 'deny');
  });

  it('a webhook that does not answer in time is skipped under Ignore and fails the request under Fail', async () => {
    await configure('Validating', 'slow-ignore', [hook('slow-ignore.example.com', '/slow', 'slow-ignore', { timeoutSeconds: 1, failurePolicy: 'Ignore' })]);
    await configure('Validating', 'slow-fail', [hook('slow-fail.example.com', '/slow', 'slow-fail', { timeoutSeconds: 1, failurePolicy: 'Fail' })]);
    await eventually(async () => ((calls.get('/slow') ?? []).length > 0 || (await create(configMap('slow-ignore'))).status !== 201 ? true : undefined), 15_000);
    const ignored = await create(configMap('slow-ignore'));
    assert.equal(ignored.status, 201, ignored.text);
    const failed = await eventually(async () => {
      const res = await create(configMap('slow-fail'));
      return res.status === 500 ? res : undefined;
    }, 15_000);
    assert.equal(failed.json.reason, 'InternalError');
    assert.equal(failed.json.message, `Internal error occurred: failed calling webhook "slow-fail.example.com": failed to call webhook: Post "https://127.0.0.1:${hookPort}/slow?timeout=1s": context deadline exceeded`);
    const metrics = await http(c(), 'GET', '/metrics');
    assert.match(metrics.text, /apiserver_admission_webhook_fail_open_count\{name="slow-ignore\.example\.com",type="validating"\} [1-9]/);
    await remove('Validating', 'slow-ignore');
    await remove('Validating', 'slow-fail');
  });

  it('matchConditions decide which requests reach the webhook', async () => {
    await configure('Validating', 'guard', [hook('guard.example.com', '/deny-all', 'guard', {
      matchConditions: [
        { name: 'guarded-names', expression: "object.metadata.name.startsWith('guarded-')" },
        { name: 'not-by-nobody', expression: "request.userInfo.username != 'nobody'" },
      ],
    })]);
    const denied = await eventually(async () => {
      const res = await create(configMap('guard', {}, `guarded-${++seq}`));
      return res.status === 400 ? res : undefined;
    });
    assert.equal(denied.json.message, 'admission webhook "guard.example.com" denied the request: guarded objects are refused');
    const before = (calls.get('/deny-all') ?? []).length;
    assert.equal((await create(configMap('guard', {}, `free-${++seq}`))).status, 201);
    assert.equal((calls.get('/deny-all') ?? []).length, before, 'a false condition means no call');
    await remove('Validating', 'guard');
  });

  it('refuses a configuration kube refuses, with its message', async () => {
    const res = await http(c(), 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bad' }, webhooks: [hook('bad.example.com', '/deny', 'bad', { timeoutSeconds: 31 })] },
    });
    assert.equal(res.status, 422);
    assert.equal(res.json.message, 'ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds');
  });

  it('a webhook on a custom resource', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
      },
    };
    assert.equal((await http(c(), 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    await configure('Mutating', 'widgets', [{
      ...hook('widgets.example.com', '/label', 'widget'),
      rules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['*'], resources: ['widgets'] }],
    }]);
    const widget = await eventually(async () => {
      const res = await http(c(), 'POST', '/apis/example.com/v1/namespaces/wh/widgets', {
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: `w-${++seq}`, labels: { scenario: 'widget' } }, spec: { size: 3 } },
      });
      return res.status === 201 && res.json.metadata.labels.mutated === 'yes' ? res.json : undefined;
    }, 20_000);
    assert.equal(widget.spec.size, 3);
    const review = (calls.get('/label') ?? []).find((r) => r.request.object?.metadata?.name === widget.metadata.name);
    assert.equal(review?.request.kind.kind, 'Widget');
    await remove('Mutating', 'widgets');
  });

  it('a webhook reached through a Service and its EndpointSlice', async () => {
    assert.equal((await http(c(), 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'webhook-svc' } } })).status, 201);
    const svc = await http(c(), 'POST', '/api/v1/namespaces/webhook-svc/services', {
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks' }, spec: { ports: [{ name: 'https', port: 443, targetPort: hookPort }] } },
    });
    assert.equal(svc.status, 201, svc.text);
    const slice = await http(c(), 'POST', '/apis/discovery.k8s.io/v1/namespaces/webhook-svc/endpointslices', {
      body: {
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'hooks-1', labels: { 'kubernetes.io/service-name': 'hooks' } },
        addressType: 'IPv4', ports: [{ name: 'https', port: hookPort, protocol: 'TCP' }], endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
      },
    });
    assert.equal(slice.status, 201, slice.text);
    await configure('Mutating', 'by-service', [{
      ...hook('by-service.example.com', '/label', 'service'),
      clientConfig: { service: { namespace: 'webhook-svc', name: 'hooks', path: '/label', port: 443 }, caBundle },
    }]);
    const created = await eventually(async () => {
      const res = await create(configMap('service'));
      assert.equal(res.status, 201, res.text);
      return res.json.metadata.labels.mutated === 'yes' ? res.json : undefined;
    });
    assert.equal(created.metadata.labels.mutated, 'yes');
    // a service port the Service does not have: the call fails, with kube's words
    await remove('Mutating', 'by-service');
    await configure('Mutating', 'bad-port', [{
      ...hook('bad-port.example.com', '/label', 'bad-port'),
      clientConfig: { service: { namespace: 'webhook-svc', name: 'hooks', path: '/label', port: 8443 }, caBundle },
    }]);
    const failed = await eventually(async () => {
      const res = await create(configMap('bad-port'));
      return res.status === 500 ? res : undefined;
    });
    assert.equal(failed.json.message, 'Internal error occurred: failed calling webhook "bad-port.example.com": failed to call webhook: Post "https://hooks.webhook-svc.svc:8443/label?timeout=10s": no service port 8443 found for service "hooks"');
    await remove('Mutating', 'bad-port');
  });
});
