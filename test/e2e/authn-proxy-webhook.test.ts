import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiServer } from '../../src/server/apiserver.js';
import type { ServerPki } from '../../src/server/pki.js';
import { eventually, http, removeDir, tempDir } from '../helpers/server.js';
import { makePki, probeName, RecordingAuthorizer, startTlsServer, type TlsServer } from '../helpers/authn.js';

/** The authenticating proxy (--requestheader-*) with its client certificate, the extension-apiserver-authentication ConfigMap, and the token webhook. */

type Client = { url: string; creds: { ca: string; cert: string; key: string } };

describe('authenticating proxy', () => {
  let server: ApiServer;
  let dir: string;
  let proxyPki: ServerPki;
  let strangerPki: ServerPki;
  let admin: Client;
  const authorizer = new RecordingAuthorizer();

  before(async () => {
    dir = tempDir();
    proxyPki = await makePki('front-proxy-client');
    strangerPki = await makePki('other-proxy');
    // A second proxy certificate from the same CA with a CN outside the allowed names.
    const caFile = join(dir, 'front-proxy-ca.crt');
    writeFileSync(caFile, proxyPki.servingCa!);
    server = new ApiServer({
      authorizers: [authorizer],
      config: {
        authnExtensions: {
          requestHeader: {
            usernameHeaders: ['X-Remote-User'],
            uidHeaders: ['X-Remote-Uid'],
            groupHeaders: ['X-Remote-Group'],
            extraHeaderPrefixes: ['X-Remote-Extra-'],
            clientCaFile: caFile,
            allowedNames: ['front-proxy-client'],
          },
        },
      },
    });
    await server.start();
    const kc = server.adminKubeconfig();
    admin = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
  });

  after(async () => {
    await server.stop();
    removeDir(dir);
  });

  const asProxy = (pki: ServerPki): Client => ({ url: server.url, creds: { ca: admin.creds.ca, cert: pki.admin!.cert, key: pki.admin!.key } });

  async function seen(client: Client, headers: Record<string, string | string[]>): Promise<{ status: number; user: unknown }> {
    const name = probeName();
    const res = await http(client, 'GET', `/api/v1/namespaces/default/configmaps/${name}`, { headers: headers as Record<string, string> });
    return { status: res.status, user: authorizer.users.get(name) };
  }

  it('takes user, uid, groups and percent-decoded lower-cased extras from the headers of a verified proxy', async () => {
    const r = await seen(asProxy(proxyPki), {
      'X-Remote-User': 'bob',
      'X-Remote-Uid': 'u-7',
      'X-Remote-Group': ['team-a', 'team-b'],
      'X-Remote-Extra-Acme.com%2FProject': ['p1', 'p2'],
    });
    assert.equal(r.status, 404);
    assert.deepEqual(r.user, { username: 'bob', uid: 'u-7', groups: ['team-a', 'team-b', 'system:authenticated'], extra: { 'acme.com/project': ['p1', 'p2'] } });
  });

  it('a proxy certificate without a username header is no user, and one outside the allowed names or CA is 401', async () => {
    assert.equal((await seen(asProxy(strangerPki), { 'X-Remote-User': 'bob' })).status, 401);
    const noHeader = await http(asProxy(proxyPki), 'GET', '/api/v1/namespaces/default/configmaps');
    // The front proxy's certificate is not a client certificate of this server: without headers it names nobody.
    assert.equal(noHeader.status, 401);
  });

  it('ignores the headers from a client that is not the proxy', async () => {
    const r = await seen(admin, { 'X-Remote-User': 'bob' });
    assert.equal(r.status, 404);
    assert.equal(r.user, undefined, 'the admin is system:masters, decided before the recording authorizer');
  });

  it('publishes kube-system/extension-apiserver-authentication as kube does', async () => {
    const cm = await eventually(async () => {
      const r = await http(admin, 'GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
      return r.status === 200 ? r.json : undefined;
    });
    const data = cm.data as Record<string, string>;
    assert.deepEqual(Object.keys(data).sort(), [
      'client-ca-file',
      'requestheader-allowed-names',
      'requestheader-client-ca-file',
      'requestheader-extra-headers-prefix',
      'requestheader-group-headers',
      'requestheader-uid-headers',
      'requestheader-username-headers',
    ]);
    assert.equal(data['requestheader-username-headers'], '["X-Remote-User"]');
    assert.equal(data['requestheader-group-headers'], '["X-Remote-Group"]');
    assert.equal(data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
    assert.equal(data['requestheader-allowed-names'], '["front-proxy-client"]');
    assert.equal(data['requestheader-client-ca-file']!.trim(), proxyPki.servingCa!.trim());
    assert.equal(data['client-ca-file']!.trim(), admin.creds.ca.trim());
  });
});

describe('token webhook', () => {
  let webhookPki: ServerPki;
  let webhook: TlsServer;
  const received: Array<{ apiVersion: string; spec: { token: string; audiences?: string[] } }> = [];

  before(async () => {
    webhookPki = await makePki('apiserver-webhook-client');
    webhook = await startTlsServer(webhookPki, (req, res, body) => {
      const review = JSON.parse(body) as { apiVersion: string; spec: { token: string; audiences?: string[] } };
      received.push(review);
      if (review.spec.token === 'flaky-token' && received.filter((r) => r.spec.token === 'flaky-token').length === 1) {
        res.statusCode = 503;
        res.end();
        return;
      }
      const status =
        review.spec.token === 'good-token' || review.spec.token === 'flaky-token'
          ? { authenticated: true, user: { username: 'webhook-user', uid: 'w-1', groups: ['hooked'], extra: { 'acme.com/via': ['webhook'] } } }
          : { authenticated: false, error: 'token is revoked' };
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
    });
  });

  after(() => webhook.close());

  async function serverWith(version: 'v1' | 'v1beta1', cacheTtlMs: number): Promise<{ server: ApiServer; dir: string; authorizer: RecordingAuthorizer }> {
    const dir = tempDir();
    const kubeconfig = join(dir, 'webhook.kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'hook', cluster: { server: `${webhook.url}/review`, 'certificate-authority-data': Buffer.from(webhookPki.servingCa!).toString('base64') } }],
        users: [{ name: 'apiserver', user: { 'client-certificate-data': Buffer.from(webhookPki.admin!.cert).toString('base64'), 'client-key-data': Buffer.from(webhookPki.admin!.key).toString('base64') } }],
        contexts: [{ name: 'hook', context: { cluster: 'hook', user: 'apiserver' } }],
        'current-context': 'hook',
      }),
    );
    const authorizer = new RecordingAuthorizer();
    const server = new ApiServer({ authorizers: [authorizer], config: { authnExtensions: { tokenWebhook: { configFile: kubeconfig, version, cacheTtlMs } } } });
    await server.start();
    return { server, dir, authorizer };
  }

  async function get(server: ApiServer, token: string, authorizer: RecordingAuthorizer): Promise<{ status: number; user: unknown; json: { message?: string } }> {
    const name = probeName();
    const ca = server.adminKubeconfig().caPem ?? '';
    const res = await http({ url: server.url, creds: { ca, cert: '', key: '' } }, 'GET', `/api/v1/namespaces/default/configmaps/${name}`, { anonymous: true, headers: { Authorization: `Bearer ${token}` } });
    return { status: res.status, user: authorizer.users.get(name), json: res.json };
  }

  it('v1beta1 by default: the reply names the user; answers are kept for the cache TTL; a refusal is 401 and the server stays healthy', async () => {
    const { server, dir, authorizer } = await serverWith('v1beta1', 120_000);
    try {
      const start = received.length;
      const ok = await get(server, 'good-token', authorizer);
      assert.equal(ok.status, 404);
      assert.deepEqual(ok.user, { username: 'webhook-user', uid: 'w-1', groups: ['hooked', 'system:authenticated'], extra: { 'acme.com/via': ['webhook'] } });
      assert.equal(received[start]!.apiVersion, 'authentication.k8s.io/v1beta1');
      assert.equal(received[start]!.spec.token, 'good-token');
      await get(server, 'good-token', authorizer);
      assert.equal(received.length, start + 1, 'the second request is answered from the cache');
      const bad = await get(server, 'revoked-token', authorizer);
      assert.equal(bad.status, 401);
      assert.equal(bad.json.message, 'Unauthorized');
      await get(server, 'revoked-token', authorizer);
      assert.equal(received.length, start + 2, 'refusals are kept too');
      const ca = server.adminKubeconfig().caPem ?? '';
      assert.equal((await http({ url: server.url, creds: { ca, cert: '', key: '' } }, 'GET', '/readyz', { anonymous: true })).status, 200);
    } finally {
      await server.stop();
      removeDir(dir);
    }
  });

  it('v1 when asked; with a zero TTL every request asks the webhook', async () => {
    const { server, dir, authorizer } = await serverWith('v1', 0);
    try {
      const start = received.length;
      assert.equal((await get(server, 'good-token', authorizer)).status, 404);
      assert.equal((await get(server, 'good-token', authorizer)).status, 404);
      assert.equal(received.length, start + 2);
      assert.equal(received[start]!.apiVersion, 'authentication.k8s.io/v1');
      // A 503 is tried again (kube's webhook backoff).
      assert.equal((await get(server, 'flaky-token', authorizer)).status, 404);
      assert.equal(received.filter((r) => r.spec.token === 'flaky-token').length, 2);
    } finally {
      await server.stop();
      removeDir(dir);
    }
  });

  it('asks for --api-audiences, and for a TokenReview\'s own audiences; users it names are in system:authenticated', async () => {
    const { server, dir, authorizer } = await serverWith('v1', 0);
    try {
      const start = received.length;
      const ok = await get(server, 'good-token', authorizer);
      assert.equal(ok.status, 404);
      assert.deepEqual(received[start]!.spec.audiences, ['https://kubernetes.default.svc.cluster.local']);
      const kc = server.adminKubeconfig();
      const admin = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
      const review = await http(admin, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'good-token', audiences: ['other'] } } });
      assert.equal(review.status, 201);
      assert.deepEqual(received[start + 1]!.spec.audiences, ['other']);
      const status = review.json.status as { authenticated: boolean; user: { username: string; groups: string[] }; audiences: string[] };
      assert.equal(status.authenticated, true);
      assert.deepEqual(status.user.groups, ['hooked', 'system:authenticated']);
      assert.deepEqual(status.audiences, ['other']);
    } finally {
      await server.stop();
      removeDir(dir);
    }
  });
});
