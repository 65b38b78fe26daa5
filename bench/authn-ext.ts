import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { toYaml } from '../src/codec/codec.js';
import { removeDir, ROOT, startServer, tempDir } from '../test/helpers/server.js';
import { makePki, OidcProvider, startTlsServer } from '../test/helpers/authn.js';
import { round, runClosedLoop, type PhaseResult } from './loop.js';

/**
 * `node dist/bench/authn-ext.js`: requests/s of one authenticated GET with
 * each credential this part of authentication adds (an OIDC id token, a
 * token webhook token, the authenticating proxy) beside the client
 * certificate GET, against one `capstan serve`, in alternating rounds.
 * Verified tokens are cached (JWT 10 s, webhook --authentication-token-webhook-cache-ttl),
 * so after the first request a token costs a hash and a map lookup.
 * Writes bench/results/authn-ext.md.
 */

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PATH = '/api/v1/namespaces/default/configmaps/kube-root-ca.crt';

interface Credential {
  name: string;
  agent: Agent;
  headers: Record<string, string>;
}

function get(url: string, c: Credential): Promise<number> {
  const u = new URL(PATH, url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: u.hostname, port: u.port, path: u.pathname, agent: c.agent, headers: c.headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const dir = tempDir('capstan-bench-authn-');
  const provider = await OidcProvider.start();
  const hookPki = await makePki('unused');
  const webhook = await startTlsServer(hookPki, (_req, res, body) => {
    const review = JSON.parse(body) as { apiVersion: string };
    res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: 'hooked' } } }));
  });
  const proxyPki = await makePki('front-proxy-client');
  writeFileSync(join(dir, 'oidc-ca.crt'), provider.ca);
  writeFileSync(join(dir, 'proxy-ca.crt'), proxyPki.servingCa!);
  writeFileSync(
    join(dir, 'webhook.kubeconfig'),
    toYaml({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'w', cluster: { server: webhook.url, 'certificate-authority-data': Buffer.from(hookPki.servingCa!).toString('base64') } }], users: [{ name: 'w', user: {} }], contexts: [{ name: 'w', context: { cluster: 'w', user: 'w' } }], 'current-context': 'w' }),
  );
  const server = await startServer({
    dataDir: join(dir, 'data'),
    args: [
      '--oidc-issuer-url', provider.url, '--oidc-client-id', 'capstan', '--oidc-ca-file', join(dir, 'oidc-ca.crt'),
      '--authentication-token-webhook-config-file', join(dir, 'webhook.kubeconfig'),
      '--requestheader-client-ca-file', join(dir, 'proxy-ca.crt'), '--requestheader-username-headers', 'X-Remote-User',
    ],
  });
  const ca = server.creds.ca;
  const agent = (extra: { cert?: string; key?: string } = {}): Agent => new Agent({ keepAlive: true, maxSockets: CLIENTS, ca, ...extra });
  const credentials: Credential[] = [
    { name: 'client certificate', agent: agent({ cert: server.creds.cert, key: server.creds.key }), headers: {} },
    { name: 'OIDC id token (--oidc-*)', agent: agent(), headers: { Authorization: `Bearer ${await provider.token({ sub: 'bench' })}` } },
    { name: 'token webhook', agent: agent(), headers: { Authorization: 'Bearer opaque' } },
    { name: 'authenticating proxy', agent: agent({ cert: proxyPki.admin!.cert, key: proxyPki.admin!.key }), headers: { 'X-Remote-User': 'bench' } },
  ];
  const results = new Map<string, PhaseResult[]>();
  try {
    for (const c of credentials) {
      const status = await get(server.url, c);
      if (status !== 200) throw new Error(`${c.name}: GET answered ${status}`);
    }
    // Round 0 warms the JIT and the connections and is not recorded.
    for (let r = 0; r <= ROUNDS; r++) {
      for (const c of credentials) {
        const res = await runClosedLoop(c.name, CLIENTS, SECONDS * 1000, server.proc.pid ? [server.proc.pid] : [], async () => {
          const status = await get(server.url, c);
          return status === 200 ? { bytes: 0 } : { bytes: 0, error: String(status) };
        });
        if (r > 0) results.set(c.name, [...(results.get(c.name) ?? []), res]);
      }
    }
  } finally {
    for (const c of credentials) c.agent.destroy();
    await server.stop();
    await provider.close();
    await webhook.close();
    removeDir(dir);
  }
  const base = mean(results.get('client certificate')!.map((r) => r.rps));
  const lines = [
    '# Authenticated GET by credential',
    '',
    `\`node dist/bench/authn-ext.js\`: GET ${PATH}, ${CLIENTS} keep-alive clients, ${ROUNDS} alternating rounds of ${SECONDS} s each after a warm-up round; load average before ${round(loadavg()[0]!)}.`,
    '',
    '| Credential | req/s (mean of rounds) | vs client certificate | p50 ms | p99 ms | errors |',
    '|---|---|---|---|---|---|',
    ...[...results].map(([name, rs]) => {
      const rps = mean(rs.map((r) => r.rps));
      return `| ${name} | ${round(rps)} | ${round((rps / base) * 100, 0)} % | ${round(mean(rs.map((r) => r.p50ms)))} | ${round(mean(rs.map((r) => r.p99ms)))} | ${rs.reduce((n, r) => n + r.errors, 0)} |`;
    }),
    '',
  ];
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'authn-ext.md'), lines.join('\n'));
  process.stdout.write(lines.join('\n'));
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
