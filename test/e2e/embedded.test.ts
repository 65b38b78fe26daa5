import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';

import type { AuthenticationResult, Authenticator } from '../../src/authn/authenticator.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from '../../src/authz/authorizer.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../src/admission/admission.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { eventually, http, tempDir } from '../helpers/server.js';

/** Capstan embedded in another program: `new ApiServer(options)` in this very process. */

function client(server: ApiServer): { url: string; creds: { ca: string; cert: string; key: string } } {
  const kc = server.adminKubeconfig();
  return { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
}

const configMap = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/**
 * Until the controllers' first writes are through: they pass admission too
 * (as kube-controller-manager's and kube-apiserver's own writes do), so a
 * test that records what admission sees starts after them.
 */
async function controllersSettled(server: ApiServer): Promise<void> {
  const c = client(server);
  const paths = [
    ...['default', 'kube-system', 'kube-public', 'kube-node-lease'].flatMap((ns) => [`/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`, `/api/v1/namespaces/${ns}/serviceaccounts/default`]),
    '/api/v1/namespaces/default/services/kubernetes',
    '/api/v1/namespaces/default/endpoints/kubernetes',
    '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes',
  ];
  await eventually(async () => {
    for (const p of paths) if ((await http(c, 'GET', p)).status !== 200) return false;
    return true;
  });
}

/** Listening and connected sockets still open in this process. */
function liveSockets(): string[] {
  return process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP') || r === 'TLSWrap');
}

describe('embedded server', () => {
  it('runs two servers in one process that share no state, writes nothing to disk, and stops without leaking handles', async () => {
    const before = liveSockets();
    const cwdBefore = readdirSync(process.cwd()).sort();
    const a = new ApiServer();
    const b = new ApiServer();
    await Promise.all([a.start(), b.start()]);
    try {
      assert.notEqual(a.port, b.port);
      assert.equal(a.config.storageBackend, 'memory');
      const ca = client(a);
      const cb = client(b);
      assert.equal((await http(ca, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('only-in-a', { from: 'a' }) })).status, 201);
      assert.equal((await http(cb, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('only-in-b', { from: 'b' }) })).status, 201);
      assert.equal((await http(ca, 'GET', '/api/v1/namespaces/default/configmaps/only-in-b')).status, 404);
      assert.equal((await http(cb, 'GET', '/api/v1/namespaces/default/configmaps/only-in-a')).status, 404);
      assert.equal((await http(ca, 'GET', '/api/v1/namespaces/default/configmaps/only-in-a')).json.data.from, 'a');
      // Each has its own CA: a's admin certificate means nothing to b.
      assert.equal((await http({ url: b.url, creds: { ...ca.creds, ca: cb.creds.ca } }, 'GET', '/api/v1/namespaces')).status, 401);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    assert.deepEqual(readdirSync(process.cwd()).sort(), cwdBefore, 'nothing written to the working directory');
    // Sockets close a moment after the servers do.
    for (let i = 0; i < 50 && liveSockets().length > before.length; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(liveSockets(), before);
  });

  it('keeps certificates and the admin kubeconfig under a data dir only when given one', async () => {
    const dataDir = tempDir();
    const server = new ApiServer({ config: { dataDir } });
    await server.start();
    await server.stop();
    assert.deepEqual(readdirSync(dataDir).sort(), ['admin.kubeconfig', 'pki']);
    // sa.key: the generated service account signing key, beside the other keys so that processes sharing a cert dir share it.
    assert.deepEqual(readdirSync(`${dataDir}/pki`).sort(), ['admin.crt', 'admin.key', 'apiserver.crt', 'apiserver.key', 'ca.crt', 'ca.key', 'sa.key']);
  });

  it('asks the authenticators and authorizers it is given, in order, as kube-apiserver unions them', async () => {
    const tokens: Authenticator = {
      async authenticate(req: IncomingMessage): Promise<AuthenticationResult | undefined> {
        const auth = req.headers.authorization;
        if (!auth) return undefined;
        if (auth === 'Bearer alice-token') return { user: { username: 'alice', groups: ['system:authenticated'] } };
        throw new Error('invalid bearer token');
      },
    };
    const seen: AuthorizationAttributes[] = [];
    const noOpinion: Authorizer = {
      async authorize(attrs): Promise<AuthorizationDecision> {
        seen.push(attrs);
        return { decision: 'NoOpinion', reason: 'first has no rule for it' };
      },
    };
    const secretsDenied: Authorizer = {
      async authorize(attrs): Promise<AuthorizationDecision> {
        if (attrs.user.username !== 'alice') return { decision: 'Allow', reason: '' };
        if (attrs.resource === 'secrets') return { decision: 'Deny', reason: 'alice may not touch secrets' };
        if (attrs.resource === 'configmaps' || attrs.resource === 'selfsubjectaccessreviews') return { decision: 'Allow', reason: '' };
        return { decision: 'NoOpinion', reason: 'second has no rule for it' };
      },
    };
    const server = new ApiServer({ authenticators: [tokens], authorizers: [noOpinion, secretsDenied], anonymousAuth: false });
    await server.start();
    try {
      const alice = { ...client(server), creds: { ...client(server).creds, cert: '', key: '' } };
      const as = (token: string) => ({ anonymous: true, headers: { Authorization: `Bearer ${token}` } });
      assert.equal((await http(alice, 'GET', '/api/v1/namespaces/default/configmaps', as('alice-token'))).status, 200);
      const secrets = await http(alice, 'GET', '/api/v1/namespaces/default/secrets', as('alice-token'));
      assert.equal(secrets.status, 403);
      assert.equal(secrets.json.message, 'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default": alice may not touch secrets');
      const pods = await http(alice, 'GET', '/api/v1/namespaces/default/pods', as('alice-token'));
      assert.equal(pods.status, 403);
      assert.equal(
        pods.json.message,
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default": first has no rule for it\nsecond has no rule for it',
      );
      assert.equal((await http(alice, 'GET', '/api/v1/namespaces', as('wrong-token'))).status, 401);
      // No credentials and anonymous auth off: 401, not system:anonymous.
      assert.equal((await http(alice, 'GET', '/version', { anonymous: true })).status, 401);
      assert.ok(seen.some((a) => a.user.username === 'alice' && a.verb === 'list' && a.resource === 'configmaps' && a.namespace === 'default' && a.version === 'v1'));
      // The access review APIs answer from the same chain.
      const review = await http(alice, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        ...as('alice-token'),
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'secrets', namespace: 'default' } } },
      });
      assert.equal(review.status, 201);
      assert.deepEqual(review.json.status, { allowed: false, denied: true, reason: 'alice may not touch secrets' });
      const admin = client(server);
      assert.equal((await http(admin, 'GET', '/version')).status, 401, 'client certificates are not among the given authenticators');
    } finally {
      await server.stop();
    }
  });

  it('runs mutating admission before the strategy and validating admission on the fully formed object, storing nothing it refuses', async () => {
    const mutating: AdmissionAttributes[] = [];
    const validating: AdmissionAttributes[] = [];
    const copy = (a: AdmissionAttributes): AdmissionAttributes => ({ ...a, ...(a.object ? { object: structuredClone(a.object) } : {}) });
    const plugin: AdmissionPlugin = {
      name: 'TestPlugin',
      handles: (op) => op !== 'CONNECT',
      async admit(attrs) {
        mutating.push(copy(attrs));
        if (attrs.operation === 'CREATE' && attrs.object) attrs.object.metadata = { ...attrs.object.metadata, labels: { ...attrs.object.metadata?.labels, mutated: 'yes' } };
      },
      async validate(attrs) {
        validating.push(copy(attrs));
        attrs.addWarning?.('seen by TestPlugin');
        if (attrs.object?.metadata?.labels?.['refuse'] === 'yes') {
          const { ApiError } = await import('../../src/machinery/errors.js');
          throw new ApiError({ message: 'refused by TestPlugin', reason: 'Forbidden', details: {}, code: 403 });
        }
      },
    };
    const server = new ApiServer({ admissionPlugins: [plugin] });
    await server.start();
    try {
      await controllersSettled(server);
      mutating.length = 0;
      validating.length = 0;
      const admin = client(server);
      const created = await http(admin, 'POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } } });
      assert.equal(created.status, 201);
      assert.equal(created.headers['warning'], '299 - "seen by TestPlugin"');
      const name = created.json.metadata.name as string;
      assert.match(name, /^gen-[a-z0-9]{5}$/);
      assert.equal(created.json.metadata.labels.mutated, 'yes', 'a mutating plugin changes what is stored');
      const m = mutating.find((a) => a.resource.name === 'configmaps' && a.operation === 'CREATE')!;
      const v = validating.find((a) => a.resource.name === 'configmaps' && a.operation === 'CREATE')!;
      assert.equal(m.object!.metadata!.uid, undefined);
      assert.equal(m.object!.metadata!.creationTimestamp, undefined);
      assert.equal(m.object!.metadata!.name, undefined);
      assert.equal(m.name, '');
      assert.equal(v.object!.metadata!.uid, created.json.metadata.uid);
      assert.equal(v.object!.metadata!.creationTimestamp, created.json.metadata.creationTimestamp);
      assert.equal(v.object!.metadata!.name, name);
      assert.equal(v.name, name);
      assert.equal(v.user?.username, 'capstan-admin');
      assert.deepEqual(v.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldValidation: 'Warn' });

      // Updates: validating admission sees the stored object as oldObject and the new generation-bumped form.
      const put = await http(admin, 'PUT', `/api/v1/namespaces/default/configmaps/${name}`, { body: { ...created.json, data: { k: 'v' } } });
      assert.equal(put.status, 200);
      const vu = validating.find((a) => a.resource.name === 'configmaps' && a.operation === 'UPDATE')!;
      assert.equal(vu.oldObject!.metadata!.resourceVersion, created.json.metadata.resourceVersion);
      assert.deepEqual(vu.object!.data, { k: 'v' });

      // A refusal in the validating phase stores nothing and allocates nothing.
      const ipsBefore = (await http(admin, 'GET', '/apis/networking.k8s.io/v1/ipaddresses')).json.items.length as number;
      const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'refused', labels: { refuse: 'yes' } }, spec: { ports: [{ port: 80 }] } };
      const refused = await http(admin, 'POST', '/api/v1/namespaces/default/services', { body: svc });
      assert.equal(refused.status, 403);
      assert.equal(refused.json.message, 'refused by TestPlugin');
      const vs = validating.find((a) => a.resource.name === 'services' && a.operation === 'CREATE')!;
      assert.match((vs.object!.spec as { clusterIP: string }).clusterIP, /^10\./, 'validating admission sees the allocated ClusterIP');
      assert.equal((await http(admin, 'GET', '/api/v1/namespaces/default/services/refused')).status, 404);
      assert.equal((await http(admin, 'GET', '/apis/networking.k8s.io/v1/ipaddresses')).json.items.length, ipsBefore, 'no ClusterIP left allocated');

      // Deletes: admission sees the object about to go, after preconditions.
      const del = await http(admin, 'DELETE', `/api/v1/namespaces/default/configmaps/${name}`);
      assert.equal(del.status, 200);
      const vd = validating.find((a) => a.resource.name === 'configmaps' && a.operation === 'DELETE')!;
      assert.equal(vd.oldObject!.metadata!.name, name);
      assert.equal(vd.name, name);
    } finally {
      await server.stop();
    }
  });
});
