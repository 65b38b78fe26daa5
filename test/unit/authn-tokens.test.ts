import assert from 'node:assert/strict';
import { generateKeyPairSync, createPrivateKey } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SignJWT } from 'jose';

import { AuthenticationError, withAuthenticatedGroup } from '../../src/authn/authenticator.js';
import { audienceAgnostic, bearerToken, BearerTokenAuthenticator, TokenUnion } from '../../src/authn/bearer-token.js';
import { BootstrapTokenAuthenticator } from '../../src/authn/bootstrap-token.js';
import { JwtVerifier, unverifiedClaims } from '../../src/authn/jwt.js';
import type { ObjectLookup } from '../../src/registry/object-lookup.js';
import { issuerDiscovery } from '../../src/authn/service-account-discovery.js';
import { ServiceAccountTokenIssuer } from '../../src/authn/service-account-issuer.js';
import { keysFromPem, loadServiceAccountKeys, verificationKey, type SigningKey } from '../../src/authn/service-account-keys.js';
import { ServiceAccountTokenAuthenticator } from '../../src/authn/service-account-token.js';
import { TokenCache } from '../../src/authn/token-cache.js';
import { parseCsv, TokenFileAuthenticator } from '../../src/authn/token-file.js';
import { tokenReviewer } from '../../src/authn/token-review.js';
import type { KubeObject } from '../../src/machinery/object.js';
import type { RequestContext } from '../../src/machinery/context.js';
import { isApiError } from '../../src/machinery/errors.js';
import { authentication } from '../../src/server/filters/authentication.js';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';

function signingKey(type: 'rsa' | 'ec' = 'rsa'): SigningKey {
  const pair = type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...verificationKey(pair.privateKey), privateKey: pair.privateKey };
}

/** A lookup over a fixed set of objects by namespace/name. */
function lookupOf(objects: KubeObject[]): ObjectLookup & { objects: KubeObject[] } {
  const f = (async (ns: string | undefined, name: string) => f.objects.find((o) => (o.metadata?.namespace ?? undefined) === ns && o.metadata?.name === name)) as ObjectLookup & { objects: KubeObject[] };
  f.objects = objects;
  return f;
}

const sa: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: 'ci', uid: 'sa-uid' } };
const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'runner', namespace: 'ci', uid: 'pod-uid' }, spec: { serviceAccountName: 'builder', nodeName: 'n1' } };
const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'node-uid' } };

function fixture(key = signingKey(), now: () => number = Date.now) {
  const serviceAccounts = lookupOf([sa]);
  const pods = lookupOf([pod]);
  const secrets = lookupOf([]);
  const nodes = lookupOf([node]);
  const authn = new ServiceAccountTokenAuthenticator({
    issuers: [ISSUER, 'https://old.example'],
    verifier: new JwtVerifier([verificationKey(key.privateKey)], now),
    implicitAudiences: [ISSUER],
    lookup: true,
    lookups: { serviceAccounts, pods, secrets, nodes },
    now,
  });
  return { key, authn, issuer: new ServiceAccountTokenIssuer(ISSUER, key, now), serviceAccounts, pods, secrets, nodes };
}

function b64(v: unknown): string {
  return Buffer.from(JSON.stringify(v)).toString('base64url');
}

async function rejectsWith(p: Promise<unknown>, message: string | RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof AuthenticationError, `not an AuthenticationError: ${String(err)}`);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

describe('bearer tokens', () => {
  it("reads the token as kube splits the header, and fails a token nobody knows", async () => {
    assert.equal(bearerToken(undefined), undefined);
    assert.equal(bearerToken('Basic abc'), undefined);
    assert.equal(bearerToken('Bearer'), undefined);
    assert.equal(bearerToken('bearer  x'), undefined, 'an empty token between two spaces');
    assert.equal(bearerToken('  Bearer abc  '), 'abc');
    assert.equal(bearerToken('Bearer abc def'), 'abc');
    const none = new BearerTokenAuthenticator(new TokenUnion([]), undefined);
    const req = (auth?: string) => ({ headers: auth ? { authorization: auth } : {} }) as IncomingMessage;
    assert.equal(await none.authenticate(req()), undefined);
    await rejectsWith(none.authenticate(req('Bearer who')), 'invalid bearer token');
  });

  it('takes a token without audiences as meant for the API audiences only', async () => {
    const plain = { authenticateToken: async () => ({ user: { username: 'u', groups: [] } }) };
    const wrapped = audienceAgnostic(plain, ['api', 'api2']);
    assert.deepEqual((await wrapped.authenticateToken('t', undefined))?.audiences, ['api', 'api2']);
    assert.deepEqual((await wrapped.authenticateToken('t', ['api2', 'other']))?.audiences, ['api2']);
    assert.equal(await wrapped.authenticateToken('t', ['other']), undefined);
    assert.equal(audienceAgnostic(plain, []), plain);
  });

  it('adds system:authenticated as kube does', () => {
    assert.deepEqual(withAuthenticatedGroup({ username: 'a', groups: ['x'] }).groups, ['x', 'system:authenticated']);
    assert.deepEqual(withAuthenticatedGroup({ username: 'a', groups: ['system:authenticated'] }).groups, ['system:authenticated']);
    assert.deepEqual(withAuthenticatedGroup({ username: 'system:anonymous', groups: ['system:unauthenticated'] }).groups, ['system:unauthenticated']);
  });

  it('a union reports every failure as an aggregate, and stops at the first user', async () => {
    const fail = (m: string) => ({ authenticateToken: async () => Promise.reject(new AuthenticationError(m)) });
    const ok = { authenticateToken: async () => ({ user: { username: 'u', groups: [] } }) };
    await rejectsWith(new TokenUnion([fail('a'), fail('b')]).authenticateToken('t', undefined), '[a, b]');
    await rejectsWith(new TokenUnion([fail('a')]).authenticateToken('t', undefined), 'a');
    assert.equal((await new TokenUnion([fail('a'), ok]).authenticateToken('t', undefined))?.user.username, 'u');
  });
});

describe('static token file', () => {
  it('parses token,user,uid,"groups" with quotes and blank lines', async () => {
    const authn = TokenFileAuthenticator.fromCsv('t1,alice,uid-a,"dev,ops"\n\n"t,2",bob,uid-b\n,empty,x\n', 'tokens.csv');
    assert.deepEqual((await authn.authenticateToken('t1'))?.user, { username: 'alice', uid: 'uid-a', groups: ['dev', 'ops'] });
    assert.deepEqual((await authn.authenticateToken('t,2'))?.user, { username: 'bob', uid: 'uid-b', groups: [] });
    assert.equal(await authn.authenticateToken('nope'), undefined);
    assert.equal(await authn.authenticateToken(''), undefined, 'an empty token in the file names nobody');
    assert.deepEqual(parseCsv('a,"b ""q""",c\r\nd,e,f', 'x'), [['a', 'b "q"', 'c'], ['d', 'e', 'f']]);
  });

  it("refuses a file with fewer than three columns, with kube's message", () => {
    assert.throws(() => TokenFileAuthenticator.fromCsv('t1,alice\n', '/etc/tokens.csv'), { message: "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2" });
    assert.throws(() => TokenFileAuthenticator.fromCsv('"open,alice,x\n', 'f'), /extraneous or missing "/);
  });
});

describe('bootstrap tokens', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  const secret = (data: Record<string, string>, extra: Partial<KubeObject> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'bootstrap.kubernetes.io/token',
    metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    ...extra,
  });
  const good = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token', expiration: '2030-01-02T00:00:00Z' };
  const authnWith = (s: KubeObject) => new BootstrapTokenAuthenticator(lookupOf([s]), undefined, () => now);

  it('names system:bootstrap:<id> in system:bootstrappers and the extra groups', async () => {
    const result = await authnWith(secret(good)).authenticateToken('abcdef.0123456789abcdef');
    assert.deepEqual(result?.user, { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token'] });
  });

  const cases: Array<[string, KubeObject | undefined, string]> = [
    ['malformed token', secret(good), 'abcdef-0123456789abcdef'],
    ['upper case', secret(good), 'ABCDEF.0123456789abcdef'],
    ['no Secret', undefined, 'abcdef.0123456789abcdef'],
    ['wrong secret part', secret(good), 'abcdef.0123456789abcdeX'.toLowerCase().replace('x', 'z')],
    ['expired', secret({ ...good, expiration: '2029-12-31T00:00:00Z' }), 'abcdef.0123456789abcdef'],
    ['unparseable expiration', secret({ ...good, expiration: 'tomorrow' }), 'abcdef.0123456789abcdef'],
    ['without the usage flag', secret({ ...good, 'usage-bootstrap-authentication': 'false' }), 'abcdef.0123456789abcdef'],
    ['usage flag missing', secret(Object.fromEntries(Object.entries(good).filter(([k]) => k !== 'usage-bootstrap-authentication'))), 'abcdef.0123456789abcdef'],
    ['extra group outside system:bootstrappers:', secret({ ...good, 'auth-extra-groups': 'system:masters' }), 'abcdef.0123456789abcdef'],
    ['wrong type', secret(good, { type: 'Opaque' }), 'abcdef.0123456789abcdef'],
    ['token id differs', secret({ ...good, 'token-id': 'zzzzzz' }), 'abcdef.0123456789abcdef'],
    ['being deleted', secret(good, { metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system', deletionTimestamp: '2029-01-01T00:00:00Z' } }), 'abcdef.0123456789abcdef'],
  ];
  for (const [name, s, token] of cases) {
    it(`has no opinion (so the bearer token is invalid): ${name}`, async () => {
      const authn = new BootstrapTokenAuthenticator(lookupOf(s ? [s] : []), undefined, () => now);
      assert.equal(await authn.authenticateToken(token), undefined);
      await rejectsWith(new BearerTokenAuthenticator(new TokenUnion([authn]), undefined).authenticate({ headers: { authorization: `Bearer ${token}` } } as IncomingMessage), 'invalid bearer token');
    });
  }
});

describe('service account tokens', () => {
  it('issues bound tokens kube-style and authenticates them with the pod and node in extra', async () => {
    const f = fixture();
    const { token, expiresAt } = await f.issuer.boundToken(sa, { pod, node }, 3600, 0, [ISSUER]);
    const claims = unverifiedClaims(token)!;
    assert.deepEqual(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    assert.deepEqual(claims['kubernetes.io'], { namespace: 'ci', node: { name: 'n1', uid: 'node-uid' }, pod: { name: 'runner', uid: 'pod-uid' }, serviceaccount: { name: 'builder', uid: 'sa-uid' } });
    assert.equal(claims.exp, (claims.iat as number) + 3600);
    assert.equal(expiresAt, (claims.exp as number) * 1000);
    const result = await f.authn.authenticateToken(token, undefined);
    assert.deepEqual(result?.user, {
      username: 'system:serviceaccount:ci:builder',
      uid: 'sa-uid',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ci'],
      extra: {
        'authentication.kubernetes.io/pod-name': ['runner'],
        'authentication.kubernetes.io/pod-uid': ['pod-uid'],
        'authentication.kubernetes.io/credential-id': [`JTI=${String(claims.jti)}`],
        'authentication.kubernetes.io/node-name': ['n1'],
        'authentication.kubernetes.io/node-uid': ['node-uid'],
      },
    });
    assert.deepEqual(result?.audiences, [ISSUER]);
  });

  it("names a pod's node that does not exist by its name alone", async () => {
    const f = fixture();
    const { token } = await f.issuer.boundToken(sa, { pod, node: { metadata: { name: 'gone' } } }, 3600, 0, [ISSUER]);
    assert.deepEqual((unverifiedClaims(token)!['kubernetes.io'] as { node: unknown }).node, { name: 'gone' });
    const extra = (await f.authn.authenticateToken(token, undefined))?.user.extra ?? {};
    assert.deepEqual(extra['authentication.kubernetes.io/node-name'], ['gone']);
    assert.equal(extra['authentication.kubernetes.io/node-uid'], undefined);
  });

  it('verifies ECDSA keys too, and a token of a second issuer', async () => {
    const f = fixture(signingKey('ec'));
    const other = new ServiceAccountTokenIssuer('https://old.example', f.key);
    const { token } = await other.boundToken(sa, {}, 3600, 0, [ISSUER]);
    assert.equal((await f.authn.authenticateToken(token, undefined))?.user.username, 'system:serviceaccount:ci:builder');
  });

  it('caches the verified signature: a hot token is checked against the keys once', async () => {
    const key = signingKey();
    const verifier = new JwtVerifier([verificationKey(key.privateKey)]);
    const original = verifier.verify.bind(verifier);
    const token = (await new ServiceAccountTokenIssuer(ISSUER, key).boundToken(sa, {}, 3600, 0, [ISSUER])).token;
    const cache = new TokenCache<number>(2, () => 0);
    cache.set('a', 1, 10);
    cache.set('b', 2, 10);
    cache.set('c', 3, 10);
    assert.equal(cache.size, 2, 'bounded');
    assert.equal(cache.get('a'), undefined, 'the oldest went first');
    await original(token);
    // A second verification of the same token must not need the key: with the key removed it still passes from the cache.
    (verifier as unknown as { keys: unknown[] }).keys.length = 0;
    (verifier as unknown as { byKid: Map<string, unknown> }).byKid.clear();
    assert.equal((await verifier.verify(token)).sub, 'system:serviceaccount:ci:builder');
    await assert.rejects(verifier.verify(`${token}x`), AuthenticationError, 'another token needs the keys');
  });

  it('rejects every bad token of the table with a failure (a 401), never a user', async () => {
    const now = Date.now();
    const f = fixture();
    const other = signingKey();
    const sec = Math.floor(now / 1000);
    const k8s = { namespace: 'ci', serviceaccount: { name: 'builder', uid: 'sa-uid' } };
    const base = { aud: [ISSUER], iss: ISSUER, sub: 'system:serviceaccount:ci:builder', iat: sec, nbf: sec, exp: sec + 3600, 'kubernetes.io': k8s };
    const sign = (claims: Record<string, unknown>, key: SigningKey = f.key, kid = key.kid) => new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid }).sign(key.privateKey);
    const publicPem = f.key.key.export({ type: 'spki', format: 'pem' }).toString();
    const hs256 = await new SignJWT(base).setProtectedHeader({ alg: 'HS256', kid: f.key.kid }).sign(new TextEncoder().encode(publicPem));
    const none = `${b64({ alg: 'none', kid: f.key.kid })}.${b64(base)}.`;
    const good = await sign(base);
    const [h] = good.split('.');
    const reSigned = await sign(base, other, f.key.kid);
    const cases: Array<[string, string, string | RegExp | undefined]> = [
      ['expired', await sign({ ...base, exp: sec - 3600, iat: sec - 7200, nbf: sec - 7200 }), 'service account token has expired'],
      ['not yet valid', await sign({ ...base, nbf: sec + 3600 }), 'service account token is not valid yet'],
      ['wrong audience', await sign({ ...base, aud: ['https://elsewhere'] }), 'token audiences ["https://elsewhere"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]'],
      ['alg none', none, /cryptographic primitive/],
      ['HS256 signed with the public key', hs256, /cryptographic primitive/],
      ['re-signed with another key (our kid)', reSigned, /cryptographic primitive/],
      ['signed with another key (its own kid)', await sign(base, other), 'invalid signature, no keys found'],
      ['payload swapped under a good signature', `${h}.${b64({ ...base, sub: 'system:serviceaccount:ci:admin' })}.${good.split('.')[2]}`, /cryptographic primitive/],
      ['deleted ServiceAccount', await sign({ ...base, 'kubernetes.io': { ...k8s, serviceaccount: { name: 'gone', uid: 'x' } } }), 'serviceaccounts "gone" not found'],
      ['ServiceAccount recreated', await sign({ ...base, 'kubernetes.io': { ...k8s, serviceaccount: { name: 'builder', uid: 'old-uid' } } }), 'service account UID (sa-uid) does not match claim (old-uid)'],
      ['bound pod recreated with another uid', await sign({ ...base, 'kubernetes.io': { ...k8s, pod: { name: 'runner', uid: 'old-pod' } } }), 'pod UID (pod-uid) does not match service account pod ref claim (old-pod)'],
      ['bound pod deleted', await sign({ ...base, 'kubernetes.io': { ...k8s, pod: { name: 'gone', uid: 'x' } } }), 'service account token has been invalidated'],
      ['bound secret deleted', await sign({ ...base, 'kubernetes.io': { ...k8s, secret: { name: 'gone', uid: 'x' } } }), 'service account token has been invalidated'],
      ['bound node recreated', await sign({ ...base, 'kubernetes.io': { ...k8s, node: { name: 'n1', uid: 'old' } } }), 'node UID (node-uid) does not match service account node ref claim (old)'],
    ];
    for (const [name, token, message] of cases) {
      await rejectsWith(f.authn.authenticateToken(token, undefined), message!).catch((err: Error) => {
        throw new Error(`${name}: ${err.message}`);
      });
    }
    // Not ours (wrong issuer, malformed): no opinion, which the bearer authenticator turns into "invalid bearer token".
    for (const token of [await sign({ ...base, iss: 'https://evil.example' }), 'not-a-jwt', 'a.b.c', '{"iss":"x"}.a.b', `${b64({ alg: 'RS256' })}.${b64([1])}.x`]) {
      assert.equal(await f.authn.authenticateToken(token, undefined), undefined, token);
    }
    const review = tokenReviewer(new TokenUnion([f.authn]));
    assert.deepEqual(await review('garbage', undefined), { authenticated: false, error: 'invalid bearer token' });
    assert.deepEqual(await review(await sign({ ...base, exp: sec - 3600 }), undefined), { authenticated: false, error: 'service account token has expired' });
  });

  it('checks legacy tokens against their Secret and ServiceAccount', async () => {
    const f = fixture();
    const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'builder-token', namespace: 'ci', uid: 's-uid' }, data: {} };
    const token = await f.issuer.legacyToken(sa, secret);
    await rejectsWith(f.authn.authenticateToken(token, undefined), 'Token has been invalidated');
    f.secrets.objects.push({ ...secret, data: { token: Buffer.from('other').toString('base64') } });
    await rejectsWith(f.authn.authenticateToken(token, undefined), "Token does not match server's copy");
    f.secrets.objects[0] = { ...secret, data: { token: Buffer.from(token).toString('base64') } };
    const result = await f.authn.authenticateToken(token, undefined);
    assert.equal(result?.user.username, 'system:serviceaccount:ci:builder');
    assert.deepEqual(result?.audiences, [ISSUER], 'a legacy token is meant for the API audiences');
    f.serviceAccounts.objects.length = 0;
    await rejectsWith(f.authn.authenticateToken(token, undefined), 'serviceaccounts "builder" not found');
  });
});

describe('service account keys and discovery', () => {
  it('reads RSA and EC keys from PEM (private, public, several per file) and generates one into a directory once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-sa-'));
    try {
      const first = loadServiceAccountKeys({ keyFiles: [], dir });
      const again = loadServiceAccountKeys({ keyFiles: [], dir });
      assert.equal(first.signing.kid, again.signing.kid, 'the generated key is kept');
      assert.equal(first.signing.alg, 'RS256');
      // Without a directory the key lives in memory only, and is a quick one to make.
      assert.equal(loadServiceAccountKeys({ keyFiles: [] }).signing.alg, 'ES256');
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
      const pem = ec.publicKey.export({ type: 'spki', format: 'pem' }).toString() + readFileSync(join(dir, 'sa.key'), 'utf8');
      writeFileSync(join(dir, 'keys.pem'), pem);
      const loaded = loadServiceAccountKeys({ keyFiles: [join(dir, 'keys.pem')], dir });
      assert.deepEqual(loaded.verifying.map((k) => k.alg), ['ES384', 'RS256']);
      assert.equal(loaded.verifying[1]!.kid, first.signing.kid, 'a private key verifies with its public half');
      assert.equal(keysFromPem('no keys here', 'x').length, 0);
      writeFileSync(join(dir, 'empty.pem'), 'nothing');
      assert.throws(() => loadServiceAccountKeys({ keyFiles: [join(dir, 'empty.pem')], dir }), { message: 'failed to parse service-account-key-file: data does not contain any valid RSA or ECDSA public keys' });
      const ecPriv = createPrivateKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }));
      assert.equal(verificationKey(ecPriv).alg, 'ES256');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("renders kube's discovery documents, and refuses what kube refuses", () => {
    const key = signingKey('ec');
    const d = issuerDiscovery(ISSUER, '', '127.0.0.1:6443', [verificationKey(key.privateKey)]);
    assert.deepEqual(JSON.parse(d.configJson), {
      issuer: ISSUER,
      jwks_uri: 'https://127.0.0.1:6443/openid/v1/jwks',
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
    const jwk = JSON.parse(d.keysetJson).keys[0];
    assert.deepEqual(Object.keys(jwk), ['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y']);
    assert.equal(jwk.kid, key.kid);
    assert.throws(() => issuerDiscovery('kubernetes/serviceaccount', '', 'h:1', [key]), /invalid URL/);
    assert.throws(() => issuerDiscovery('http://issuer', '', 'h:1', [key]), { message: 'issuer URL must use https scheme, got: http://issuer' });
    assert.throws(() => issuerDiscovery(ISSUER, 'http://x/jwks', 'h:1', [key]), { message: 'jwksURI requires https scheme, parsed as: http://x/jwks' });
  });
});

describe('the authentication filter', () => {
  const ctxWith = (authorization?: string) =>
    ({ req: { headers: authorization ? { authorization } : {} }, logger: { v: () => false, info: () => undefined, error: () => undefined } }) as unknown as RequestContext;
  const tokens = new BearerTokenAuthenticator(
    new TokenUnion([
      {
        authenticateToken: async (t: string) => (t === 'good' ? { user: { username: 'u', groups: ['g'] }, audiences: ['api'] } : t === 'other-aud' ? { user: { username: 'u', groups: [] }, audiences: ['elsewhere'] } : undefined),
      },
    ]),
    ['api'],
  );

  it('removes the Authorization header before the request goes on, and adds system:authenticated', async () => {
    const ctx = ctxWith('Bearer good');
    let seen: string | undefined = 'not called';
    await authentication(tokens, { anonymous: true, apiAudiences: ['api'] })(ctx, async () => {
      seen = ctx.req.headers.authorization;
    });
    assert.equal(seen, undefined);
    assert.deepEqual(ctx.user, { username: 'u', groups: ['g', 'system:authenticated'] });
  });

  it('is 401 for a bad token and a token for other audiences, never anonymous; anonymous without one', async () => {
    for (const token of ['bad', 'other-aud']) {
      await assert.rejects(authentication(tokens, { anonymous: true, apiAudiences: ['api'] })(ctxWith(`Bearer ${token}`), async () => undefined), (err: unknown) => isApiError(err, 'Unauthorized'));
    }
    const ctx = ctxWith();
    await authentication(tokens, { anonymous: true })(ctx, async () => undefined);
    assert.equal(ctx.user?.username, 'system:anonymous');
    await assert.rejects(authentication(tokens, { anonymous: false })(ctxWith(), async () => undefined), (err: unknown) => isApiError(err, 'Unauthorized'));
  });
});
