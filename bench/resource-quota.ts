import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { credentialsFrom, removeDir, ROOT, startServer, tempDir } from '../test/helpers/server.js';
import { configMap, createNamespace } from './fixtures.js';
import { closedLoop, jsonRequest, type Target } from './http-client.js';
import { round, type PhaseResult } from './loop.js';

/**
 * What ResourceQuota admission costs a create: ConfigMap creates (32 clients,
 * HTTPS) in a namespace without a quota, then in one with a quota counting
 * them (every create is charged by a status write; the batches share them),
 * then with two quotas. `node dist/bench/resource-quota.js`; writes
 * bench/results/resource-quota.md. BENCH_PHASE_MS sets each phase's length.
 */

const CLIENTS = 32;
const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 5000);

async function quota(target: Target, ns: string, name: string, hard: Record<string, string>): Promise<void> {
  const r = await jsonRequest(target, { method: 'POST', path: `/api/v1/namespaces/${ns}/resourcequotas`, body: JSON.stringify({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard } }) });
  if (r.status !== 201) throw new Error(`quota ${name}: HTTP ${r.status}`);
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const got = await jsonRequest<{ status?: { used?: Record<string, string> } }>(target, { method: 'GET', path: `/api/v1/namespaces/${ns}/resourcequotas/${name}` });
    if (got.json.status?.used) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`quota ${name} not measured within 30 s`);
}

async function main(): Promise<void> {
  const dataDir = tempDir('capstan-bench-quota-');
  const server = await startServer({ dataDir });
  const target: Target = { url: server.url, creds: credentialsFrom(server.kubeconfig), pid: server.proc.pid };
  const load = round(loadavg()[0]!);
  const phases: PhaseResult[] = [];
  try {
    const creates = async (name: string, ns: string): Promise<void> => {
      await createNamespace(target, ns);
      await new Promise((res) => setTimeout(res, 500));
      await closedLoop('warm-up', target, CLIENTS, 1000, (i) => ({ method: 'POST', path: `/api/v1/namespaces/${ns}/configmaps`, body: configMap(`w-${i}`) }), { expect: 201 });
      phases.push(await closedLoop(name, target, CLIENTS, PHASE_MS, (i) => ({ method: 'POST', path: `/api/v1/namespaces/${ns}/configmaps`, body: configMap(`c-${i}`) }), { expect: 201 }));
    };
    await creates('create ConfigMap, no quota', 'bench-noquota');
    await createNamespace(target, 'bench-quota');
    await quota(target, 'bench-quota', 'objects', { configmaps: '1000000', 'count/configmaps': '1000000' });
    await creates('create ConfigMap, one quota counting it', 'bench-quota');
    await createNamespace(target, 'bench-quota2');
    await quota(target, 'bench-quota2', 'objects', { configmaps: '1000000' });
    await quota(target, 'bench-quota2', 'more', { 'count/configmaps': '1000000', pods: '10' });
    await creates('create ConfigMap, two quotas counting it', 'bench-quota2');
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
  const rows = phases.map((p) => `| ${p.name} | ${p.requests} | ${p.errors} | ${p.rps} | ${p.p50ms} | ${p.p99ms} | ${p.serverCpuPct} |`);
  const md = [
    '# ResourceQuota admission: cost per create',
    '',
    `\`node dist/bench/resource-quota.js\` (memory backend, ${CLIENTS} HTTPS clients, ${PHASE_MS / 1000} s per phase, load average ${load} at start; machine shared with other work).`,
    '',
    '| phase | requests | errors | req/s | p50 ms | p99 ms | server CPU % |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  writeFileSync(join(ROOT, 'bench', 'results', 'resource-quota.md'), md);
  process.stdout.write(md);
}

await main();
