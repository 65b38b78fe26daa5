import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SignJWT, generateKeyPair } from 'jose';
import { ApiServer } from '../../src/server/apiserver.js';
import { eventually, http, removeDir, tempDir } from '../helpers/server.js';
import { OidcProvider, probeName, RecordingAuthorizer } from '../helpers/authn.js';

/** JWT authentication against an OpenID provider served over TLS by the test: the --oidc-* flags and --authentication-config. */

interface Seen {
  status: number;
  user: unknown;
}

async function seen(server: ApiServer, authorizer: RecordingAuthorizer, token: string): Promise<Seen> {
  const name = probeName();
  const ca = server.adminKubeconfig().caPem ?? '';
  const res = await http({ url: server.url, creds: { ca, cert: '', key: '' } }, 'GET', `/api/v1/namespaces/default/configmaps/${name}`, { anonymous: true, headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, user: authorizer.users.get(name) };
}

async function metricsText(server: ApiServer): Promise<string> {
  const kc = server.adminKubeconfig();
  return (await http({ url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } }, 'GET', '/metrics')).text;
}

describe('OIDC with the --oidc-* flags', () => {
  let provider: OidcProvider;
  let server: ApiServer;
  let dir: string;
  const authorizer = new RecordingAuthorizer();

  before(async () => {
    provider = await OidcProvider.start();
    dir = tempDir();
    const caFile = join(dir, 'oidc-ca.crt');
    writeFileSync(caFile, provider.ca);
    server = new ApiServer({
      authorizers: [authorizer],
      config: {
        authnExtensions: {
          oidc: {
            issuerUrl: provider.url,
            clientId: 'capstan',
            caFile,
            usernameClaim: 'sub',
            usernamePrefix: '',
            groupsClaim: 'groups',
            groupsPrefix: 'oidc:',
            requiredClaims: { tenant: 'blue' },
            signingAlgs: ['RS256'],
          },
        },
      },
    });
    await server.start();
  });

  after(async () => {
    await server.stop();
    await provider.close();
    removeDir(dir);
  });

  it('maps sub with the issuer prefix and groups with their prefix', async () => {
    const r = await seen(server, authorizer, await provider.token({ sub: 'u123', groups: ['dev', 'ops'], tenant: 'blue' }));
    assert.equal(r.status, 404);
    assert.deepEqual(r.user, { username: `${provider.url}#u123`, groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'] });
  });

  it('a string groups claim is one group; a missing required claim or another value is 401', async () => {
    const r = await seen(server, authorizer, await provider.token({ sub: 'u1', groups: 'solo', tenant: 'blue' }));
    assert.deepEqual((r.user as { groups: string[] }).groups, ['oidc:solo', 'system:authenticated']);
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 'u1' }))).status, 401);
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 'u1', tenant: 'red' }))).status, 401);
  });

  it('refuses bad tokens with 401 and stays healthy', async () => {
    const now = Math.floor(Date.now() / 1000);
    const other = await OidcProvider.otherKey('key-1');
    const { privateKey: ecKey } = await generateKeyPair('ES256');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ iss: provider.url, aud: 'capstan', sub: 'x', tenant: 'blue', exp: now + 600 })).toString('base64url')}.`;
    const hmac = await new SignJWT({ iss: provider.url, aud: 'capstan', sub: 'x', tenant: 'blue', exp: now + 600 })
      .setProtectedHeader({ alg: 'HS256', kid: 'key-1' })
      .sign(Buffer.from(JSON.stringify(provider.keys[0]!.jwk)));
    const cases: Record<string, string> = {
      malformed: 'not.a.jwt',
      garbage: 'x'.repeat(50),
      expired: await provider.token({ sub: 'x', tenant: 'blue', exp: now - 60 }),
      'not yet valid': await provider.token({ sub: 'x', tenant: 'blue', nbf: now + 3600 }),
      'wrong audience': await provider.token({ sub: 'x', tenant: 'blue', aud: 'someone-else' }),
      'wrong issuer': await provider.token({ sub: 'x', tenant: 'blue', iss: 'https://elsewhere.example' }),
      'alg none': unsigned,
      'HS256 with the public key': hmac,
      're-signed with another key': await provider.token({ sub: 'x', tenant: 'blue' }, { key: other }),
      'algorithm not allowed': await new SignJWT({ iss: provider.url, aud: 'capstan', sub: 'x', tenant: 'blue', exp: now + 600 }).setProtectedHeader({ alg: 'ES256', kid: 'key-1' }).sign(ecKey),
      'no sub': await provider.token({ tenant: 'blue' }),
    };
    for (const [what, token] of Object.entries(cases)) {
      assert.equal((await seen(server, authorizer, token)).status, 401, what);
    }
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 'still-fine', tenant: 'blue' }))).status, 404);
  });

  it('fetches the keys again when a token names a new kid (key rotation)', async () => {
    const fetches = provider.jwksFetches;
    await provider.rotate('key-2');
    const r = await seen(server, authorizer, await provider.token({ sub: 'rotated', tenant: 'blue' }));
    assert.equal(r.status, 404);
    assert.equal((r.user as { username: string }).username, `${provider.url}#rotated`);
    assert.equal(provider.jwksFetches, fetches + 1);
  });
});

describe('OIDC with --authentication-config', () => {
  let provider: OidcProvider;
  let server: ApiServer;
  let dir: string;
  let configFile: string;
  const authorizer = new RecordingAuthorizer();

  const config = (audiences: string[], extra = ''): string => `apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${provider.url}
    certificateAuthority: |
${provider.ca.trim().split('\n').map((l) => `      ${l}`).join('\n')}
    audiences: ${JSON.stringify(audiences)}
    audienceMatchPolicy: MatchAny
  claimValidationRules:
  - claim: hd
    requiredValue: example.com
  claimMappings:
    username:
      claim: email
      prefix: "oidc:"
    groups:
      claim: roles
      prefix: ""
    uid:
      claim: sub
${extra}`;

  before(async () => {
    provider = await OidcProvider.start();
    dir = tempDir();
    configFile = join(dir, 'authn.yaml');
    writeFileSync(configFile, config(['capstan', 'other']));
    server = new ApiServer({ authorizers: [authorizer], config: { authnExtensions: { authenticationConfigFile: configFile, authenticationConfigReloadIntervalMs: 3_600_000 } } });
    await server.start();
  });

  after(async () => {
    await server.stop();
    await provider.close();
    removeDir(dir);
  });

  const reload = (): Promise<void> => (server as unknown as { tokenAuthn: { jwt: { reload(): Promise<void> } } }).tokenAuthn.jwt.reload();

  it('maps claims with their prefixes, checks the claim rule and any of the audiences', async () => {
    const r = await seen(server, authorizer, await provider.token({ sub: 's-1', email: 'ann@example.com', email_verified: true, roles: ['admin'], hd: 'example.com', aud: ['other', 'x'] }));
    assert.equal(r.status, 404);
    assert.deepEqual(r.user, { username: 'oidc:ann@example.com', uid: 's-1', groups: ['admin', 'system:authenticated'] });
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 's-1', email: 'ann@example.com', hd: 'evil.com' }))).status, 401);
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 's-1', email: 'ann@example.com', email_verified: false, hd: 'example.com' }))).status, 401);
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 's-1', email: 'ann@example.com', hd: 'example.com', aud: 'x' }))).status, 401);
  });

  it('reloads a changed file; a broken one keeps the running config and is counted', async () => {
    const onlyNew = await provider.token({ sub: 's-2', email: 'bo@example.com', hd: 'example.com', aud: 'new-aud' });
    assert.equal((await seen(server, authorizer, onlyNew)).status, 401);
    writeFileSync(configFile, config(['new-aud']).replace('    audienceMatchPolicy: MatchAny\n', ''));
    await reload();
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 's-2', email: 'bo@example.com', hd: 'example.com', aud: 'new-aud' }))).status, 404);
    let metrics = await metricsText(server);
    assert.match(metrics, /apiserver_authentication_config_controller_automatic_reloads_total\{status="success",apiserver_id_hash="sha256:[0-9a-f]{64}"\} 1/);
    assert.match(metrics, /apiserver_authentication_config_controller_last_config_info\{apiserver_id_hash="sha256:[0-9a-f]{64}",hash="sha256:[0-9a-f]{64}"\} 1/);

    // Two audiences without MatchAny: invalid, so the last good config stays.
    writeFileSync(configFile, config(['a', 'b']).replace('    audienceMatchPolicy: MatchAny\n', ''));
    await reload();
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 's-3', email: 'cy@example.com', hd: 'example.com', aud: 'new-aud' }))).status, 404);
    // Not YAML at all, and a CEL expression that does not compile: refused the same way.
    writeFileSync(configFile, 'jwt: [');
    await reload();
    writeFileSync(configFile, config(['new-aud'], '  userValidationRules:\n  - expression: "!user.username.startsWith("\n'));
    await reload();
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 's-4', email: 'di@example.com', hd: 'example.com', aud: 'new-aud' }))).status, 404);
    metrics = await metricsText(server);
    assert.match(metrics, /apiserver_authentication_config_controller_automatic_reloads_total\{status="failure",apiserver_id_hash="sha256:[0-9a-f]{64}"\} 3/);
    assert.match(metrics, /apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds\{status="failure",apiserver_id_hash="sha256:[0-9a-f]{64}"\} \d+/);
  });
  it('maps claims with CEL expressions and refuses tokens failing a CEL rule with 401', async () => {
    const ca = provider.ca.trim().split('\n').map((l) => `      ${l}`).join('\n');
    writeFileSync(configFile, `apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${provider.url}
    certificateAuthority: |
${ca}
    audiences: [capstan]
  claimValidationRules:
  - expression: "claims.hd == 'example.com'"
    message: the hd claim must be example.com
  claimMappings:
    username:
      expression: "claims.email_verified ? 'mail:' + claims.email : 'sub:' + claims.sub"
    groups:
      expression: "claims.roles.map(r, 'role:' + r)"
    uid:
      expression: "claims.sub"
    extra:
    - key: example.org/tenant
      valueExpression: "claims.?tenant.orValue('')"
  userValidationRules:
  - expression: "!user.username.startsWith('mail:root')"
    message: no root
`);
    await reload();
    const r = await seen(server, authorizer, await provider.token({ sub: 's-5', email: 'ed@example.com', email_verified: true, roles: ['dev', 'ops'], hd: 'example.com', tenant: 'blue', jti: 'tok-5' }));
    assert.equal(r.status, 404);
    assert.deepEqual(r.user, { username: 'mail:ed@example.com', uid: 's-5', groups: ['role:dev', 'role:ops', 'system:authenticated'], extra: { 'authentication.kubernetes.io/credential-id': ['JTI=tok-5'], 'example.org/tenant': ['blue'] } });
    const unverified = await seen(server, authorizer, await provider.token({ sub: 's-6', email: 'fi@example.com', email_verified: false, roles: [], hd: 'example.com' }));
    assert.equal(unverified.status, 404);
    assert.deepEqual(unverified.user, { username: 'sub:s-6', uid: 's-6', groups: ['system:authenticated'] });
    // the claim rule, the user rule, and an expression that fails to evaluate (no roles claim): 401
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 's-7', email: 'gu@example.com', email_verified: true, roles: [], hd: 'evil.com' }))).status, 401);
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 's-8', email: 'root@example.com', email_verified: true, roles: [], hd: 'example.com' }))).status, 401);
    assert.equal((await seen(server, authorizer, await provider.token({ sub: 's-9', email: 'ha@example.com', email_verified: true, hd: 'example.com' }))).status, 401);
  });
});

describe('anonymous section of --authentication-config', () => {
  it('allows anonymous requests only on the listed paths', async () => {
    const dir = tempDir();
    const file = join(dir, 'authn.yaml');
    writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n  - path: /readyz\n');
    const server = new ApiServer({ config: { authnExtensions: { authenticationConfigFile: file } } });
    await server.start();
    try {
      const c = { url: server.url, creds: { ca: server.adminKubeconfig().caPem ?? '', cert: '', key: '' } };
      assert.equal((await http(c, 'GET', '/livez', { anonymous: true })).status, 200);
      assert.equal((await http(c, 'GET', '/readyz', { anonymous: true })).status, 200);
      const version = await http(c, 'GET', '/version', { anonymous: true });
      assert.equal(version.status, 401);
      assert.equal(version.json.reason, 'Unauthorized');
    } finally {
      await server.stop();
      removeDir(dir);
    }
  });
});

describe('issuer discovery', () => {
  it('uses discoveryURL as given, and refuses tokens while the discovered issuer differs from issuer.url', async () => {
    const provider = await OidcProvider.start();
    const dir = tempDir();
    const file = join(dir, 'authn.yaml');
    const ca = provider.ca.trim().split('\n').map((l) => `      ${l}`).join('\n');
    writeFileSync(
      file,
      `apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: ${provider.url}\n    discoveryURL: ${provider.url}/other/discovery\n    certificateAuthority: |\n${ca}\n    audiences: [capstan]\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n`,
    );
    const authorizer = new RecordingAuthorizer();
    provider.reportedIssuer = 'https://impostor.example';
    const server = new ApiServer({ authorizers: [authorizer], config: { authnExtensions: { authenticationConfigFile: file } } });
    await server.start();
    try {
      assert.equal((await seen(server, authorizer, await provider.token({ sub: 'x' }))).status, 401);
      provider.reportedIssuer = undefined;
      // Discovery is tried again a moment after a failure.
      const r = await eventually(async () => {
        const s = await seen(server, authorizer, await provider.token({ sub: 'x' }));
        return s.status === 404 ? s : undefined;
      });
      assert.deepEqual(r.user, { username: 'x', groups: ['system:authenticated'] });
    } finally {
      await server.stop();
      await provider.close();
      removeDir(dir);
    }
  });
});
