import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { eventually, http, removeDir, ROOT, startServer, type TestServer } from '../test/helpers/server.js';

/**
 * `node dist/bench/garbage-collector.js [dependents]`: how long the in-process
 * garbage collector takes to collect N dependent ConfigMaps of one owner
 * (sqlite, one server): background (owner gone at once, dependents after)
 * and foreground (blockOwnerDeletion dependents first, then the owner),
 * each timed from the DELETE to the last object gone, plus the server's
 * heap after. Writes bench/results/garbage-collector.md.
 */

async function createOwnerWithDependents(server: TestServer, ns: string, n: number): Promise<void> {
  const owner = await http(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } } });
  const uid = owner.json.metadata.uid as string;
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid, blockOwnerDeletion: true };
  const batch = 50;
  for (let i = 0; i < n; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, (_, j) =>
        http(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `dep-${i + j}`, ownerReferences: [ref] } } }),
      ),
    );
  }
}

async function remaining(server: TestServer, ns: string): Promise<number> {
  const res = await http(server, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
  return (res.json.items as Array<{ metadata: { name: string } }>).filter((i) => i.metadata.name !== 'kube-root-ca.crt').length;
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 1000);
  const load = loadavg()[0]!.toFixed(1);
  const server = await startServer({ backend: 'sqlite' });
  const rows: string[] = [];
  try {
    for (const policy of ['Background', 'Foreground']) {
      const ns = `bench-gc-${policy.toLowerCase()}`;
      await http(server, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
      await createOwnerWithDependents(server, ns, n);
      const t0 = performance.now();
      await http(server, 'DELETE', `/api/v1/namespaces/${ns}/configmaps/owner`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: policy } });
      await eventually(async () => (await remaining(server, ns)) === 0, 600_000, 100);
      const ms = performance.now() - t0;
      rows.push(`| ${policy} | ${n} | ${(ms / 1000).toFixed(2)} s | ${Math.round(n / (ms / 1000))} /s |`);
    }
    const metrics = (await http(server, 'GET', '/metrics')).text;
    const heap = /^nodejs_heap_size_used_bytes (\S+)/m.exec(metrics)?.[1];
    const md = [
      '# Garbage collector',
      '',
      `\`node dist/bench/garbage-collector.js ${n}\` — one sqlite server, loopback HTTPS; load average at start ${load} (shared 2-core machine).`,
      '',
      '| propagation | dependents | DELETE to last object gone | objects collected |',
      '|---|---|---|---|',
      ...rows,
      '',
      `Server heap used after both runs: ${heap ? (Number(heap) / 1024 / 1024).toFixed(0) + ' MiB' : 'n/a'}.`,
      '',
    ].join('\n');
    writeFileSync(join(ROOT, 'bench', 'results', 'garbage-collector.md'), md);
    process.stdout.write(md);
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }
}

await main();
