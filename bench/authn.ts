import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { credentialsFrom, startServer } from '../test/helpers/server.js';
import type { BenchConfig } from './config.js';
import { configMap, createNamespace } from './fixtures.js';
import { closedLoop, jsonRequest, makeAgent, oneRequest, type Target } from './http-client.js';
import type { PhaseResult } from './loop.js';
import type { OpsResult } from './field-validation.js';
import { generateKeyPairSync } from 'node:crypto';
import { audienceAgnostic, TokenUnion } from '../src/authn/bearer-token.js';
import { JwtVerifier } from '../src/authn/jwt.js';
import type { KubeObject } from '../src/machinery/object.js';
import { ServiceAccountTokenIssuer } from '../src/authn/service-account-issuer.js';
import { verificationKey } from '../src/authn/service-account-keys.js';
import { ServiceAccountTokenAuthenticator } from '../src/authn/service-account-token.js';
import { TokenFileAuthenticator } from '../src/authn/token-file.js';
import { toYaml } from '../src/codec/codec.js';
import { makePki, OidcProvider, startTlsServer } from '../test/helpers/authn.js';

/**
 * Authenticated GETs of one ConfigMap by each authentication method, in one
 * server and one run: the client certificate (the baseline: TLS did the
 * work), a static token (a map lookup), a service account token (a JWT:
 * its signature is verified once and cached; the ServiceAccount is looked up
 * in the watch cache on every request), an OIDC id token (verified once,
 * cached 10 s), a token webhook's token (its answer cached for the webhook
 * cache TTL) and the authenticating proxy (its client certificate checked
 * once per connection, the user from X-Remote-User). The OIDC provider and
 * the webhook run in this process on loopback with their own CA. After an
 * unrecorded warm-up, three rounds, alternating, so that no method gets the
 * warmer machine.
 */
export async function authnSection(cfg: BenchConfig, dataDir: string): Promise<PhaseResult[]> {
  writeFileSync(join(dataDir, 'tokens.csv'), 'bench-static-token,bench-user,bench-uid,"bench"\n');
  const provider = await OidcProvider.start();
  const hookPki = await makePki('unused');
  const webhook = await startTlsServer(hookPki, (_req, res, body) => {
    const review = JSON.parse(body) as { apiVersion: string };
    res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: 'hooked' } } }));
  });
  const proxyPki = await makePki('front-proxy-client');
  writeFileSync(join(dataDir, 'oidc-ca.crt'), provider.ca);
  writeFileSync(join(dataDir, 'proxy-ca.crt'), proxyPki.servingCa!);
  writeFileSync(
    join(dataDir, 'webhook.kubeconfig'),
    toYaml({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'w', cluster: { server: webhook.url, 'certificate-authority-data': Buffer.from(hookPki.servingCa!).toString('base64') } }], users: [{ name: 'w', user: {} }], contexts: [{ name: 'w', context: { cluster: 'w', user: 'w' } }], 'current-context': 'w' }),
  );
  const server = await startServer({
    backend: cfg.backend,
    dataDir: join(dataDir, 'data'),
    args: [
      '--token-auth-file', join(dataDir, 'tokens.csv'),
      '--oidc-issuer-url', provider.url, '--oidc-client-id', 'capstan', '--oidc-ca-file', join(dataDir, 'oidc-ca.crt'),
      '--authentication-token-webhook-config-file', join(dataDir, 'webhook.kubeconfig'),
      '--requestheader-client-ca-file', join(dataDir, 'proxy-ca.crt'), '--requestheader-username-headers', 'X-Remote-User',
    ],
  });
  try {
    const cert: Target = { url: server.url, creds: credentialsFrom(server.kubeconfig), pid: server.proc.pid };
    await createNamespace(cert, 'bench');
    const agent = makeAgent(cert, 1);
    await oneRequest(agent, cert, { method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap('probe') });
    await oneRequest(agent, cert, { method: 'POST', path: '/api/v1/namespaces/bench/serviceaccounts', body: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bench' } }) });
    agent.destroy();
    const requested = await jsonRequest<{ status: { token: string } }>(cert, { method: 'POST', path: '/api/v1/namespaces/bench/serviceaccounts/bench/token', body: JSON.stringify({ spec: {} }) });
    if (requested.status !== 201) throw new Error(`token request failed: ${requested.status}`);
    const targets: Array<[string, Target]> = [
      ['GET ConfigMap: client certificate', cert],
      ['GET ConfigMap: static token', { ...cert, token: 'bench-static-token' }],
      ['GET ConfigMap: service account token (JWT)', { ...cert, token: requested.json.status.token }],
      ['GET ConfigMap: OIDC id token (--oidc-*)', { ...cert, token: await provider.token({ sub: 'bench' }) }],
      ['GET ConfigMap: token webhook', { ...cert, token: 'opaque-webhook-token' }],
      ['GET ConfigMap: authenticating proxy', { ...cert, creds: { ...cert.creds, cert: proxyPki.admin!.cert, key: proxyPki.admin!.key }, headers: { 'X-Remote-User': 'bench' } }],
    ];
    const results: PhaseResult[] = [];
    // Unrecorded warm-up: the first phase would otherwise also pay the JIT's and the connections' start.
    for (const [name, target] of targets) await closedLoop(name, target, cfg.concurrency, Math.min(1000, cfg.phaseMs), () => ({ method: 'GET', path: '/api/v1/namespaces/bench/configmaps/probe' }));
    for (let round = 1; round <= 3; round++) {
      for (const [name, target] of targets) {
        results.push(await closedLoop(`${name} (round ${round})`, target, cfg.concurrency, cfg.phaseMs, () => ({ method: 'GET', path: '/api/v1/namespaces/bench/configmaps/probe' })));
      }
    }
    return results;
  } finally {
    await server.stop();
    await provider.close();
    await webhook.close();
  }
}

/**
 * What one authentication costs in this process, without HTTP: a static
 * token, a service account token whose signature was verified before (the
 * cache), and one verified from scratch each time (what every request would
 * pay without the cache). Lookups are in-memory maps here (the server reads
 * its watch cache). Best of three 300 ms runs each.
 */
export async function authnCostRows(): Promise<OpsResult[]> {
  const issuerUrl = 'https://kubernetes.default.svc.cluster.local';
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = { ...verificationKey(pair.privateKey), privateKey: pair.privateKey };
  const sa: KubeObject = { metadata: { name: 'bench', namespace: 'bench', uid: 'sa-uid' } };
  const lookup = async (_ns: string | undefined, name: string) => (name === 'bench' ? sa : undefined);
  const authnWith = (verifier: JwtVerifier) =>
    new ServiceAccountTokenAuthenticator({ issuers: [issuerUrl], verifier, implicitAudiences: [issuerUrl], lookup: true, lookups: { serviceAccounts: lookup, secrets: lookup, pods: lookup, nodes: lookup } });
  const { token } = await new ServiceAccountTokenIssuer(issuerUrl, key).boundToken(sa, {}, 3600, 0, [issuerUrl]);
  const cachedAuthn = authnWith(new JwtVerifier([key]));
  const staticTokens = new TokenUnion([audienceAgnostic(TokenFileAuthenticator.fromCsv('bench-token,u,uid\n', 'bench.csv'), [issuerUrl])]);
  const rows: OpsResult[] = [];
  const row = async (name: string, fn: () => Promise<unknown>) => rows.push({ name, opsPerSec: await asyncOpsPerSecond(fn) });
  await row('static token', () => staticTokens.authenticateToken('bench-token', undefined));
  await row('service account token, signature verified before (cached)', () => cachedAuthn.authenticateToken(token, undefined));
  await row('service account token, signature verified every time (no cache)', () => authnWith(new JwtVerifier([key])).authenticateToken(token, undefined));
  return rows;
}

async function asyncOpsPerSecond(fn: () => Promise<unknown>, ms = 300): Promise<number> {
  for (let k = 0; k < 100; k++) await fn();
  let best = 0;
  for (let run = 0; run < 3; run++) {
    let n = 0;
    const start = performance.now();
    let now = start;
    while (now - start < ms) {
      for (let k = 0; k < 10; k++) await fn();
      n += 10;
      now = performance.now();
    }
    best = Math.max(best, Math.round((n * 1000) / (now - start)));
  }
  return best;
}
