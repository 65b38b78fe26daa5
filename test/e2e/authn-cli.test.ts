import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { toYaml } from '../../src/codec/codec.js';
import { http, kubectl, kubectlMissing, removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';
import { makePki, OidcProvider, startTlsServer, type TlsServer } from '../helpers/authn.js';

/**
 * `capstan serve` with the --oidc-* and --authentication-token-webhook-*
 * flags, driven by kubectl with bearer tokens: `kubectl auth whoami` shows
 * who each token is, and `--as` who an impersonated request is.
 */

const skip = kubectlMissing();

describe('capstan serve with OIDC and token webhook flags', { skip }, () => {
  let provider: OidcProvider;
  let webhook: TlsServer;
  let server: TestServer;
  let dir: string;

  before(async () => {
    dir = tempDir();
    provider = await OidcProvider.start();
    const webhookPki = await makePki('unused');
    webhook = await startTlsServer(webhookPki, (_req, res, body) => {
      const review = JSON.parse(body) as { apiVersion: string; spec: { token: string } };
      const status = review.spec.token === 'opaque-token' ? { authenticated: true, user: { username: 'hooked', groups: ['from-webhook'] } } : { authenticated: false };
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
    });
    writeFileSync(join(dir, 'oidc-ca.crt'), provider.ca);
    writeFileSync(
      join(dir, 'webhook.kubeconfig'),
      toYaml({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'w', cluster: { server: webhook.url, 'certificate-authority': 'webhook-ca.crt' } }], users: [{ name: 'w', user: {} }], contexts: [{ name: 'w', context: { cluster: 'w', user: 'w' } }], 'current-context': 'w' }),
    );
    writeFileSync(join(dir, 'webhook-ca.crt'), webhookPki.servingCa!);
    server = await startServer({
      args: [
        '--oidc-issuer-url', provider.url,
        '--oidc-client-id', 'capstan',
        '--oidc-ca-file', join(dir, 'oidc-ca.crt'),
        '--oidc-username-claim', 'email',
        '--oidc-groups-claim', 'groups',
        '--oidc-groups-prefix', 'oidc:',
        '--authentication-token-webhook-config-file', join(dir, 'webhook.kubeconfig'),
      ],
    });
  });

  after(async () => {
    await server?.stop();
    await provider?.close();
    await webhook?.close();
    removeDir(dir);
  });

  function tokenKubeconfig(name: string, token: string): string {
    const path = join(dir, `${name}.kubeconfig`);
    writeFileSync(
      path,
      toYaml({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.creds.ca).toString('base64') } }],
        users: [{ name: 'u', user: { token } }],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'c',
      }),
    );
    return path;
  }

  async function whoami(kubeconfig: string, extra: string[] = []): Promise<{ username?: string; groups?: string[] }> {
    const r = await kubectl({ kubeconfig }, ['auth', 'whoami', '-o', 'json', ...extra]);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { status: { userInfo: { username?: string; groups?: string[] } } }).status.userInfo;
  }

  it('an OIDC id token is the user its claims name (email: no issuer prefix)', async () => {
    const token = await provider.token({ sub: 's1', email: 'dana@example.com', email_verified: true, groups: ['dev'] });
    const me = await whoami(tokenKubeconfig('oidc', token));
    assert.equal(me.username, 'dana@example.com');
    assert.deepEqual(me.groups, ['oidc:dev', 'system:authenticated']);
  });

  it('a token the webhook accepts is its user; one nobody accepts is 401 and the server stays healthy', async () => {
    const me = await whoami(tokenKubeconfig('hook', 'opaque-token'));
    assert.equal(me.username, 'hooked');
    const bad = await kubectl({ kubeconfig: tokenKubeconfig('bad', 'nobody-knows-me') }, ['get', 'namespaces']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /Unauthorized|must be logged in/);
    assert.equal((await http(server, 'GET', '/readyz')).status, 200);
  });

  it('kubectl --as and --as-group as the admin', async () => {
    const me = await whoami(server.kubeconfig, ['--as', 'erin', '--as-group', 'qa']);
    assert.equal(me.username, 'erin');
    assert.deepEqual(me.groups, ['qa', 'system:authenticated']);
  });
});
