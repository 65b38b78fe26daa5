import { startBare } from './baselines.js';
import type { BenchConfig } from './config.js';
import { configMap, createNamespace, type Filler } from './fixtures.js';
import { closedLoop, makeAgent, oneRequest, type Target } from './http-client.js';
import type { PhaseResult } from './loop.js';

/**
 * The original phases: create, get and list with 32 concurrent HTTPS clients,
 * beside bare node:http and node:https servers answering every request with a cached 1 KiB body.
 */
export async function coreSection(cfg: BenchConfig, target: Target, dataDir: string, filler: Filler): Promise<PhaseResult[]> {
  const results: PhaseResult[] = [];
  const n = cfg.concurrency;
  await createNamespace(target, 'bench');
  const probe = configMap('probe');
  const agent = makeAgent(target, 1);
  await oneRequest(agent, target, { method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: probe });
  agent.destroy();

  // The bare server over plain HTTP (the transport's ceiling) and over TLS with the same certificates (what Capstan can reach).
  for (const protocol of ['http', 'https'] as const) {
    const bare = await startBare('body', protocol, target.creds, dataDir, probe);
    try {
      results.push(await closedLoop(`baseline: node:${protocol} cached 1 KiB body`, bare.target, n, cfg.phaseMs, () => ({ method: 'GET', path: '/x' })));
    } finally {
      await bare.stop();
    }
  }
  results.push(await closedLoop('create ConfigMap (1 KiB)', target, n, cfg.phaseMs, (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(`c-${i}`) }), { expect: 201 }));
  results.push(await closedLoop('get ConfigMap', target, n, cfg.phaseMs, () => ({ method: 'GET', path: '/api/v1/namespaces/bench/configmaps/probe' })));
  await filler.ensure('list1k', 1000);
  results.push(await closedLoop('list 1,000 ConfigMaps', target, n, cfg.phaseMs, () => ({ method: 'GET', path: '/api/v1/namespaces/list1k/configmaps' })));
  await filler.ensure('list10k', 10_000);
  results.push(await closedLoop('list 10,000 ConfigMaps', target, n, cfg.phaseMs, () => ({ method: 'GET', path: '/api/v1/namespaces/list10k/configmaps' })));
  return results;
}
