import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';

import { verificationKey, type SigningKey } from '../../src/authn/service-account-keys.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { writeKubeconfig } from '../../src/server/kubeconfig.js';
import { ensurePki } from '../../src/server/pki.js';
import { credentialCommand, kubeconfigCommand } from '../../src/cli/credential.js';
import { defaultConfig } from '../../src/server/options.js';
import { eventually, http, removeDir, tempDir } from '../helpers/server.js';

/**
 * Token authentication end to end, in one embedded server: a static token
 * file, bootstrap tokens and service account tokens (TokenRequest, legacy
 * token Secrets), the bad-input table (each a 401 with kube's Status, the
 * server healthy after), TokenReview, and the issuer's discovery documents.
 */

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

describe('token authentication', () => {
  const dir = tempDir('capstan-authn-');
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key: SigningKey = { ...verificationKey(pair.privateKey), privateKey: pair.privateKey };
  writeFileSync(join(dir, 'sa.key'), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(join(dir, 'tokens.csv'), 'static-token,alice,uid-alice,"dev,ops"\n');
  let server: ApiServer;
  let admin: { url: string; creds: { ca: string; cert: string; key: string } };
  const bearer = (token: string) => ({ anonymous: true, headers: { Authorization: `Bearer ${token}` } });
  const whoami = async (token: string) => http(admin, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { ...bearer(token), body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
  const tokenFor = async (ns: string, name: string, spec: Record<string, unknown> = {}) => {
    const r = await http(admin, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec } });
    assert.equal(r.status, 201, r.text);
    return r.json.status.token as string;
  };

  before(async () => {
    const defaults = defaultConfig();
    server = new ApiServer({
      config: {
        tokenAuthn: {
          ...defaults.tokenAuthn,
          tokenAuthFile: join(dir, 'tokens.csv'),
          enableBootstrapTokenAuth: true,
          serviceAccountSigningKeyFile: join(dir, 'sa.key'),
          serviceAccountMaxTokenExpiration: 2 * 3600_000,
        },
      },
    });
    await server.start();
    await server.controllersSynced;
    const kc = server.adminKubeconfig();
    admin = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
    for (const [kind, path, body] of [
      ['ServiceAccount', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'builder' } }],
      ['ServiceAccount', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'doomed' } }],
      ['Pod', '/api/v1/namespaces/default/pods', { metadata: { name: 'runner' }, spec: { serviceAccountName: 'builder', containers: [{ name: 'c', image: 'busybox' }] } }],
      ['Node', '/api/v1/nodes', { metadata: { name: 'n1' } }],
    ] as const) {
      const r = await http(admin, 'POST', path, { body: { apiVersion: 'v1', kind, ...body } });
      assert.equal(r.status, 201, r.text);
    }
  });

  after(async () => {
    await server?.stop();
    removeDir(dir);
  });

  it('authenticates a static token with its uid and groups, plus system:authenticated', async () => {
    const r = await whoami('static-token');
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.status.userInfo, { username: 'alice', uid: 'uid-alice', groups: ['dev', 'ops', 'system:authenticated'] });
  });

  it('issues tokens on serviceaccounts/<name>/token within kube\'s bounds', async () => {
    const path = '/api/v1/namespaces/default/serviceaccounts/builder/token';
    const request = (spec: Record<string, unknown>) => http(admin, 'POST', path, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec } });
    const plain = await request({});
    assert.equal(plain.status, 201);
    assert.equal(plain.json.spec.expirationSeconds, 3600);
    assert.deepEqual(plain.json.spec.audiences, [ISSUER]);
    assert.equal(plain.json.spec.boundObjectRef, undefined, 'a nil pointer with omitempty, as Go writes it');
    assert.deepEqual([plain.json.metadata.name, plain.json.metadata.namespace], ['builder', 'default']);
    assert.equal(plain.json.metadata.uid, (await http(admin, 'GET', '/api/v1/namespaces/default/serviceaccounts/builder')).json.metadata.uid);
    assert.equal(Date.parse(plain.json.status.expirationTimestamp) - Date.parse(plain.json.metadata.creationTimestamp), 3600_000);
    const short = await request({ expirationSeconds: 599 });
    assert.equal(short.status, 422);
    assert.equal(short.json.message, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes');
    const long = await request({ expirationSeconds: 2 ** 32 + 1 });
    assert.equal(long.status, 422);
    assert.match(long.json.message, /may not specify a duration larger than 2\^32 seconds/);
    const capped = await request({ expirationSeconds: 3 * 3600 });
    assert.equal(capped.json.spec.expirationSeconds, 7200, '--service-account-max-token-expiration');
    assert.match(String(capped.headers.warning), /requested expiration of 10800 seconds shortened to 7200 seconds/);
    const missing = await http(admin, 'POST', '/api/v1/namespaces/default/serviceaccounts/nobody/token', { body: { spec: {} } });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.message, 'serviceaccounts "nobody" not found');
    const wrongKind = await request({ boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } });
    assert.equal(wrongKind.status, 400);
    assert.equal(wrongKind.json.message, 'cannot bind token to object of type /v1, Kind=ConfigMap');
    const wrongUid = await request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner', uid: 'not-it' } });
    assert.equal(wrongUid.status, 409);
    assert.equal(wrongUid.json.message, 'Operation cannot be fulfilled on Pod "runner": the UID in the bound object reference (not-it) does not match the UID in record. The object might have been deleted and then recreated');
    const otherSa = await http(admin, 'POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { body: { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner' } } } });
    assert.equal(otherSa.status, 400);
    assert.equal(otherSa.json.message, 'cannot bind token for serviceaccount "default" to pod running with different serviceaccount name.');
  });

  it('names the service account, with the bound node, and checks the bound object', async () => {
    const token = await tokenFor('default', 'builder', { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } });
    const r = await whoami(token);
    assert.equal(r.status, 201, r.text);
    const info = r.json.status.userInfo;
    assert.equal(info.username, 'system:serviceaccount:default:builder');
    assert.deepEqual(info.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    assert.deepEqual(info.extra['authentication.kubernetes.io/node-name'], ['n1']);
    assert.match(info.extra['authentication.kubernetes.io/credential-id'][0], /^JTI=/);
  });

  it('answers every bad credential of the table with 401 and kube\'s Status, and stays healthy', async () => {
    const sec = Math.floor(Date.now() / 1000);
    const saUid = (await http(admin, 'GET', '/api/v1/namespaces/default/serviceaccounts/builder')).json.metadata.uid;
    const base = { aud: [ISSUER], iss: ISSUER, sub: 'system:serviceaccount:default:builder', iat: sec, nbf: sec, exp: sec + 3600, 'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'builder', uid: saUid } } };
    const sign = (claims: Record<string, unknown>, k: SigningKey = key) => new SignJWT(claims).setProtectedHeader({ alg: k.alg, kid: key.kid }).sign(k.privateKey);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    assert.equal((await whoami(await sign(base))).status, 201, 'the hand-made token is good before it is spoiled');

    // A deleted ServiceAccount; a bound pod recreated with another uid.
    const doomed = await tokenFor('default', 'doomed');
    assert.equal((await whoami(doomed)).status, 201);
    assert.equal((await http(admin, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/doomed')).status, 200);
    const podBound = await tokenFor('default', 'builder', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner' } });
    assert.equal((await whoami(podBound)).status, 201);
    assert.equal((await http(admin, 'DELETE', '/api/v1/namespaces/default/pods/runner?gracePeriodSeconds=0')).status, 200);
    const recreated = await http(admin, 'POST', '/api/v1/namespaces/default/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'runner' }, spec: { serviceAccountName: 'builder', containers: [{ name: 'c', image: 'busybox' }] } } });
    assert.equal(recreated.status, 201, recreated.text);

    // Bootstrap tokens: expired, and without the usage flag.
    const bootstrap = async (id: string, data: Record<string, string>) => {
      const r = await http(admin, 'POST', '/api/v1/namespaces/kube-system/secrets', {
        body: { apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.kubernetes.io/token', metadata: { name: `bootstrap-token-${id}` }, stringData: { 'token-id': id, 'token-secret': '0123456789abcdef', ...data } },
      });
      assert.equal(r.status, 201, r.text);
      return `${id}.0123456789abcdef`;
    };
    const goodBootstrap = await bootstrap('aaaaaa', { 'usage-bootstrap-authentication': 'true', 'auth-extra-groups': 'system:bootstrappers:worker' });
    const boot = await eventually(async () => {
      const r = await whoami(goodBootstrap);
      return r.status === 201 && r;
    });
    assert.deepEqual(boot.json.status.userInfo, { username: 'system:bootstrap:aaaaaa', groups: ['system:bootstrappers', 'system:bootstrappers:worker', 'system:authenticated'] });

    const table: Array<[string, string]> = [
      ['malformed', 'not a token at all'],
      ['unknown static token', 'static-token-2'],
      ['expired', await sign({ ...base, exp: sec - 3600, iat: sec - 7200, nbf: sec - 7200 })],
      ['not yet valid', await sign({ ...base, nbf: sec + 3600 })],
      ['wrong audience', await sign({ ...base, aud: ['https://elsewhere'] })],
      ['wrong issuer', await sign({ ...base, iss: 'https://evil.example' })],
      ['alg none', `${b64({ alg: 'none', kid: key.kid })}.${b64(base)}.`],
      ['HS256 signed with the public key', await new SignJWT(base).setProtectedHeader({ alg: 'HS256', kid: key.kid }).sign(new TextEncoder().encode(key.key.export({ type: 'spki', format: 'pem' }).toString()))],
      ['re-signed with another key', await sign(base, { ...verificationKey(other.privateKey), privateKey: other.privateKey })],
      ['deleted ServiceAccount', doomed],
      ['bound pod recreated with another uid', podBound],
      ['bootstrap token expired', await bootstrap('bbbbbb', { 'usage-bootstrap-authentication': 'true', expiration: '2020-01-01T00:00:00Z' })],
      ['bootstrap token without the usage flag', await bootstrap('cccccc', {})],
    ];
    for (const [name, token] of table) {
      const r = await http(admin, 'GET', '/api/v1/namespaces/default/configmaps', bearer(token));
      assert.equal(r.status, 401, `${name}: ${r.text}`);
      assert.deepEqual(r.json, UNAUTHORIZED, name);
    }
    // Even with a valid client certificate, an invalid token is not overruled into anonymity: the certificate wins (kube's order).
    assert.equal((await http(admin, 'GET', '/api/v1/namespaces', { headers: { Authorization: 'Bearer nonsense' } })).status, 200);
    assert.equal((await http(admin, 'GET', '/readyz', { anonymous: true })).status, 200);
    assert.equal((await whoami('static-token')).status, 201, 'good tokens still work');
    assert.equal((await whoami(await tokenFor('default', 'builder'))).status, 201);
  });

  it('reviews tokens (TokenReview) with the audiences asked for', async () => {
    const token = await tokenFor('default', 'builder', { audiences: ['vault'] });
    const review = (spec: Record<string, unknown>) => http(admin, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec } });
    const ok = await review({ token, audiences: ['vault'] });
    assert.equal(ok.status, 201);
    assert.equal(ok.json.status.authenticated, true);
    assert.equal(ok.json.status.user.username, 'system:serviceaccount:default:builder');
    assert.deepEqual(ok.json.status.audiences, ['vault']);
    const wrong = await review({ token });
    assert.deepEqual(wrong.json.status, { user: {}, error: `token audiences ["vault"] is invalid for the target audiences ["${ISSUER}"]` });
    assert.deepEqual((await review({ token: 'static-token' })).json.status, { authenticated: true, user: { username: 'alice', uid: 'uid-alice', groups: ['dev', 'ops', 'system:authenticated'] }, audiences: [ISSUER] });
    // A token that names no audience is good for the API's audiences only (kube's audience-agnostic wrapper).
    assert.deepEqual((await review({ token: 'static-token', audiences: ['vault'] })).json.status, { user: {}, error: 'invalid bearer token' });
    assert.deepEqual((await review({ token: 'nope' })).json.status, { user: {}, error: 'invalid bearer token' });
    const empty = await review({});
    assert.equal(empty.status, 400);
    assert.equal(empty.json.message, 'token is required for TokenReview in authentication');
    // A token for another audience is 401 on the API itself.
    assert.equal((await http(admin, 'GET', '/api/v1/namespaces', bearer(token))).status, 401);
  });

  it('fills legacy token Secrets, whose tokens authenticate until the account goes', async () => {
    assert.equal((await http(admin, 'POST', '/api/v1/namespaces/default/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'legacy' } } })).status, 201);
    const created = await http(admin, 'POST', '/api/v1/namespaces/default/secrets', {
      body: { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: 'legacy-token', annotations: { 'kubernetes.io/service-account.name': 'legacy' } } },
    });
    assert.equal(created.status, 201, created.text);
    const secret = await eventually(async () => {
      const r = await http(admin, 'GET', '/api/v1/namespaces/default/secrets/legacy-token');
      return r.json.data?.token && r.json;
    });
    assert.equal(Buffer.from(secret.data.namespace, 'base64').toString(), 'default');
    assert.ok(Buffer.from(secret.data['ca.crt'], 'base64').toString().includes('BEGIN CERTIFICATE'));
    const token = Buffer.from(secret.data.token, 'base64').toString();
    const r = await whoami(token);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.status.userInfo.username, 'system:serviceaccount:default:legacy');
    assert.equal((await http(admin, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/legacy')).status, 200);
    await eventually(async () => (await http(admin, 'GET', '/api/v1/namespaces/default/secrets/legacy-token')).status === 404);
    assert.equal((await whoami(token)).status, 401);
  });

  it('prints ExecCredentials of the version kubectl asks for (capstan credential)', async () => {
    const adminPath = join(dir, 'admin.kubeconfig');
    writeKubeconfig(adminPath, server.adminKubeconfig());
    for (const apiVersion of ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']) {
      const env = { KUBERNETES_EXEC_INFO: JSON.stringify({ kind: 'ExecCredential', apiVersion, spec: { interactive: false } }) };
      const out = JSON.parse(await credentialCommand(['--kubeconfig', adminPath, '--service-account', 'default/builder', '--duration', '15m'], env, dir));
      assert.equal(out.apiVersion, apiVersion);
      assert.equal(out.kind, 'ExecCredential');
      const left = Date.parse(out.status.expirationTimestamp) - Date.now();
      assert.ok(left > 13 * 60_000 && left <= 15 * 60_000 + 1000, String(out.status.expirationTimestamp));
      assert.equal((await whoami(out.status.token)).json.status.userInfo.username, 'system:serviceaccount:default:builder');
    }
    // provideClusterInfo: the token is requested from the cluster kubectl names.
    const cluster = { server: server.url, 'certificate-authority-data': Buffer.from(admin.creds.ca).toString('base64') };
    const env = { KUBERNETES_EXEC_INFO: JSON.stringify({ kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1', spec: { interactive: true, cluster } }) };
    const out = JSON.parse(await credentialCommand(['--kubeconfig', adminPath, '--service-account', 'default/builder'], env, dir));
    assert.equal(out.spec.interactive, true);
    await assert.rejects(credentialCommand(['--kubeconfig', adminPath, '--service-account', 'default/nobody'], {}, dir), /token request for default\/nobody failed \(404\): serviceaccounts "nobody" not found/);
    await assert.rejects(credentialCommand(['--kubeconfig', adminPath, '--service-account', 'nobody'], {}, dir), /--service-account must be namespace\/name/);
    const { text } = kubeconfigCommand(['--kubeconfig', adminPath, '--service-account', 'default/builder'], dir, { node: '/usr/bin/node', main: '/opt/capstan/main.js' });
    assert.match(text, /exec:\n\s+apiVersion: client.authentication.k8s.io\/v1\n\s+args:\n\s+- \/opt\/capstan\/main.js\n\s+- credential/);
    assert.match(text, /interactiveMode: Never/);
  });

  it('serves the issuer discovery documents', async () => {
    const config = await http(admin, 'GET', '/.well-known/openid-configuration');
    assert.equal(config.status, 200);
    assert.equal(config.headers['content-type'], 'application/json');
    assert.equal(config.headers['cache-control'], 'public, max-age=3600');
    assert.equal(config.json.issuer, ISSUER);
    assert.equal(config.json.jwks_uri, `https://127.0.0.1:${server.port}/openid/v1/jwks`);
    const jwks = await http(admin, 'GET', '/openid/v1/jwks');
    assert.equal(jwks.headers['content-type'], 'application/jwk-set+json');
    assert.deepEqual(jwks.json.keys.map((k: { kid: string }) => k.kid), [key.kid]);
    // Anonymous readers need the issuer-discovery role (authorization's part): forbidden until then.
    assert.equal((await http(admin, 'GET', '/openid/v1/jwks', { anonymous: true })).status, 403);
  });
});

describe('--anonymous-auth=false', () => {
  it('answers a request without credentials with 401', async () => {
    const server = new ApiServer({ config: { anonymousAuth: false } });
    await server.start();
    try {
      const kc = server.adminKubeconfig();
      const c = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
      const r = await http(c, 'GET', '/version', { anonymous: true });
      assert.equal(r.status, 401);
      assert.deepEqual(r.json, UNAUTHORIZED);
      assert.equal((await http(c, 'GET', '/version')).status, 200);
    } finally {
      await server.stop();
    }
  });
});

describe('client certificates from several CAs (--client-ca-file bundle)', () => {
  it('authenticates a certificate of each authority in the bundle, CN as user and O as groups', async () => {
    const dir = tempDir('capstan-two-cas-');
    try {
      // A second authority with its own client certificate (bob in team-b), as another cluster's PKI would be.
      const other = await ensurePki({ certDir: join(dir, 'other'), servingNames: [], adminUser: 'bob', adminGroups: ['team-b'] });
      const own = await ensurePki({ certDir: join(dir, 'own'), servingNames: [], adminUser: 'capstan-admin', adminGroups: ['system:masters'] });
      writeFileSync(join(dir, 'bundle.crt'), readFileSync(join(dir, 'own', 'ca.crt'), 'utf8') + readFileSync(join(dir, 'other', 'ca.crt'), 'utf8'));
      const server = new ApiServer({ config: { certDir: join(dir, 'own'), clientCaFile: join(dir, 'bundle.crt') } });
      await server.start();
      try {
        const ca = own.servingCa ?? '';
        const as = (cert: string, key: string) => ({ url: server.url, creds: { ca, cert, key } });
        const review = { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } };
        const bob = await http(as(other.admin!.cert, other.admin!.key), 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review);
        assert.equal(bob.status, 201, bob.text);
        assert.deepEqual(bob.json.status.userInfo, { username: 'bob', groups: ['team-b', 'system:authenticated'] });
        const adminUser = await http(as(own.admin!.cert, own.admin!.key), 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review);
        assert.equal(adminUser.json.status.userInfo.username, 'capstan-admin');
        // A certificate of an authority outside the bundle fails (401), it is not anonymous.
        const stranger = await ensurePki({ certDir: join(dir, 'stranger'), servingNames: [], adminUser: 'eve', adminGroups: [] });
        const eve = await http(as(stranger.admin!.cert, stranger.admin!.key), 'GET', '/version');
        assert.equal(eve.status, 401);
        assert.deepEqual(eve.json, UNAUTHORIZED);
      } finally {
        await server.stop();
      }
    } finally {
      removeDir(dir);
    }
  });
});
