import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { credentialsFrom, startServer } from '../test/helpers/server.js';
import type { BenchConfig } from './config.js';
import { configMap, createNamespace } from './fixtures.js';
import { closedLoop, jsonRequest, makeAgent, oneRequest, type Target } from './http-client.js';
import type { PhaseResult } from './loop.js';

/**
 * Authenticated GETs of one ConfigMap by each authentication method, in one
 * server and one run: the client certificate (the baseline: TLS did the
 * work), a static token (a map lookup) and a service account token (a JWT:
 * its signature is verified once and cached; the ServiceAccount is looked up
 * in the watch cache on every request). After an unrecorded warm-up, three
 * rounds, alternating, so that no method gets the warmer machine.
 */
export async function authnSection(cfg: BenchConfig, dataDir: string): Promise<PhaseResult[]> {
  writeFileSync(join(dataDir, 'tokens.csv'), 'bench-static-token,bench-user,bench-uid,"bench"\n');
  const server = await startServer({ backend: cfg.backend, dataDir, args: ['--token-auth-file', join(dataDir, 'tokens.csv')] });
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
  }
}
