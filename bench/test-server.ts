import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startTestServer } from '../src/testing/index.js';
import { removeDir, ROOT, startServer, tempDir } from '../test/helpers/server.js';

/**
 * capstan/testing's figures (issue 18): in-process start to ready (the first
 * start in a process, then later ones), beside spawning `capstan serve` to
 * its ready line in the same run; reset() with 1,000 ConfigMaps; memory per
 * idle server. `node dist/bench/test-server.js` (BENCH_TESTING_STARTS sets
 * the number of later starts, default 20) writes bench/results/test-server.md.
 */

export interface TestServerBenchResult {
  firstStartMs: number;
  laterStartMs: { p50: number; p99: number; n: number };
  spawnedStartMs: { p50: number; n: number };
  resetMs: { objects: number; ms: number };
  idleServerMiB: { heap: number; rss: number; servers: number };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

export async function testServerSection(starts = 20): Promise<TestServerBenchResult> {
  let t = performance.now();
  const first = await startTestServer();
  const firstStartMs = performance.now() - t;
  await first.stop();

  const later: number[] = [];
  for (let i = 0; i < starts; i++) {
    t = performance.now();
    const s = await startTestServer();
    later.push(performance.now() - t);
    await s.stop();
  }
  later.sort((a, b) => a - b);

  const spawned: number[] = [];
  for (let i = 0; i < 5; i++) {
    const dir = tempDir('capstan-bench-spawn-');
    t = performance.now();
    const s = await startServer({ backend: 'memory', dataDir: dir, strictRbac: true });
    spawned.push(performance.now() - t);
    await s.stop();
    removeDir(dir);
  }
  spawned.sort((a, b) => a - b);

  const server = await startTestServer();
  const objects = 1000;
  for (let i = 0; i < objects; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => server.client.create({ group: '', version: 'v1', resource: 'configmaps', namespace: 'default' }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i + j}` }, data: { k: 'v' } })));
  }
  t = performance.now();
  await server.reset();
  const resetMs = performance.now() - t;
  await server.stop();

  const servers = 10;
  global.gc?.();
  const before = process.memoryUsage();
  const idle = await Promise.all(Array.from({ length: servers }, () => startTestServer()));
  global.gc?.();
  const during = process.memoryUsage();
  await Promise.all(idle.map((s) => s.stop()));

  return {
    firstStartMs: Math.round(firstStartMs),
    laterStartMs: { p50: Math.round(percentile(later, 50)), p99: Math.round(percentile(later, 99)), n: later.length },
    spawnedStartMs: { p50: Math.round(percentile(spawned, 50)), n: spawned.length },
    resetMs: { objects, ms: round1(resetMs) },
    idleServerMiB: { heap: round1((during.heapUsed - before.heapUsed) / servers / 2 ** 20), rss: round1((during.rss - before.rss) / servers / 2 ** 20), servers },
  };
}

export function renderTestServerMarkdown(r: TestServerBenchResult): string {
  return [
    '| measure | capstan/testing (in-process) | beside |',
    '|---|---:|---|',
    `| first start to ready | ${r.firstStartMs} ms | |`,
    `| later starts, p50 / p99 (n=${r.laterStartMs.n}) | ${r.laterStartMs.p50} / ${r.laterStartMs.p99} ms | \`capstan serve\` spawned to its ready line, p50 (n=${r.spawnedStartMs.n}): ${r.spawnedStartMs.p50} ms |`,
    `| reset() with ${r.resetMs.objects} ConfigMaps | ${r.resetMs.ms} ms | |`,
    `| memory per idle server (${r.idleServerMiB.servers} at once) | heap ${r.idleServerMiB.heap} MiB, RSS ${r.idleServerMiB.rss} MiB | |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const starts = Number(process.env.BENCH_TESTING_STARTS ?? 20);
  const result = await testServerSection(starts);
  const md = `# capstan/testing\n\n${new Date().toISOString()}, Node ${process.version}\n\n${renderTestServerMarkdown(result)}\n`;
  writeFileSync(join(ROOT, 'bench', 'results', 'test-server.md'), md);
  process.stdout.write(md);
}
