import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { credentialsFrom, startServer, type TestServer } from '../test/helpers/server.js';
import type { BenchConfig } from './config.js';
import { Filler } from './fixtures.js';
import { makeAgent, oneRequest, serverMetrics, type Target } from './http-client.js';
import { round } from './loop.js';
import { listNamespace, listSection, type ListResult } from './list.js';
import type { MemoryBaselineOutput, MemoryMode } from './memory-baseline.js';

/**
 * The second server, on its own data dir: resident memory before and after
 * loading `storeObjects` ConfigMaps and after a list warmed their encodings;
 * the big list phase; then a restart on the same data dir (start-to-ready
 * with a full store, and the first reads, which start the cache lazily).
 * Baselines: plain Node processes holding the same objects, and the start of
 * a fresh server and of a bare `node -e`.
 */

export interface MemoryPoint {
  name: string;
  rssMB: number;
  /** (RSS − RSS at ready) / objects, when objects are loaded. */
  perObjectBytes?: number;
  /** V8 heap used and external (Buffer) memory, from the server's /metrics. */
  heapMB?: number;
  externalMB?: number;
  /** (heap + external − the same when ready and empty) / objects. */
  heapPerObjectBytes?: number;
}

export interface StartupResult {
  name: string;
  /** From spawning the process to its ready line, measured here. */
  readyMs: number;
  /** What the server reports in its ready line (from its process start). */
  reportedMs?: number;
}

export interface TimedRead {
  name: string;
  ms: number;
}

export interface StoreResult {
  objects: number;
  loadSeconds: number;
  memory: MemoryPoint[];
  memoryBaselines: MemoryBaselineOutput[];
  startup: StartupResult[];
  readsAfterRestart: TimedRead[];
  list?: ListResult;
}

const MEMORY_BASELINE = fileURLToPath(new URL('./memory-baseline.js', import.meta.url));

/** VmRSS of a process, in bytes (Linux). */
function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function timed(target: Target, path: string): Promise<number> {
  const agent = makeAgent(target, 1);
  const t = performance.now();
  const r = await oneRequest(agent, target, { method: 'GET', path });
  const ms = performance.now() - t;
  agent.destroy();
  if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}`);
  return round(ms);
}

class MemoryProbe {
  readonly points: MemoryPoint[] = [];
  private base = 0;
  private heapBase: number | undefined;

  constructor(private readonly objects: number) {}

  /** Reads RSS after a short idle pause (RSS first: the scrape allocates). */
  async read(name: string, server: TestServer, target: Target, loaded: boolean): Promise<void> {
    await sleep(1000);
    const bytes = rss(server.proc.pid!);
    const [heap, external] = await serverMetrics(target, ['nodejs_heap_size_used_bytes', 'nodejs_external_memory_bytes']);
    const heapTotal = heap !== undefined && external !== undefined ? heap + external : undefined;
    if (!loaded) {
      this.base = bytes;
      this.heapBase = heapTotal;
    }
    const point: MemoryPoint = { name, rssMB: round(bytes / 1e6, 1) };
    if (loaded) point.perObjectBytes = Math.round((bytes - this.base) / this.objects);
    if (heap !== undefined) point.heapMB = round(heap / 1e6, 1);
    if (external !== undefined) point.externalMB = round(external / 1e6, 1);
    if (loaded && heapTotal !== undefined && this.heapBase !== undefined) point.heapPerObjectBytes = Math.round((heapTotal - this.heapBase) / this.objects);
    this.points.push(point);
  }
}

async function start(cfg: BenchConfig, dataDir: string, name: string, args: string[] = []): Promise<{ server: TestServer; target: Target; startup: StartupResult }> {
  const t = performance.now();
  const server = await startServer({ backend: cfg.backend, dataDir, args });
  const readyMs = round(performance.now() - t);
  const reported = /ready at \S+ in (\d+)ms/.exec(server.output());
  const startup: StartupResult = { name, readyMs };
  if (reported) startup.reportedMs = Number(reported[1]);
  return { server, target: { url: server.url, creds: credentialsFrom(server.kubeconfig), pid: server.proc.pid }, startup };
}

/** Spawn to first output line of `node -e`: the floor under any Node server's start. */
async function bareNodeStart(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await new Promise<void>((resolve) => {
      const p = spawn(process.execPath, ['-e', 'console.log("ready")'], { stdio: ['ignore', 'pipe', 'inherit'] });
      p.stdout.once('data', () => resolve());
    });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return round(times[1]!);
}

function memoryBaseline(mode: MemoryMode, count: number, templateFile: string): Promise<MemoryBaselineOutput> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--expose-gc', MEMORY_BASELINE, mode, String(count), templateFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as MemoryBaselineOutput) : reject(new Error(`memory baseline ${mode} exited with ${code}`))));
  });
}

export async function storeSection(cfg: BenchConfig, dataDir: string, withList: boolean): Promise<StoreResult> {
  const objects = cfg.storeObjects;
  const namespace = listNamespace(objects);
  const probe = new MemoryProbe(objects);
  const startup: StartupResult[] = [];
  const readsAfterRestart: TimedRead[] = [];
  let loadSeconds = 0;
  let list: ListResult | undefined;

  const first = await start(cfg, dataDir, 'Capstan: start on an empty data dir');
  startup.push(first.startup);
  try {
    // Load prom-client (it loads on the first scrape) before the first reading, so every reading includes it.
    await serverMetrics(first.target, ['nodejs_heap_size_used_bytes']);
    await probe.read('ready, empty store', first.server, first.target, false);
    const t = performance.now();
    await new Filler(first.target).ensure(namespace, objects);
    loadSeconds = round((performance.now() - t) / 1000);
    await probe.read(`after creating ${objects.toLocaleString('en-US')} ConfigMaps`, first.server, first.target, true);
    await timed(first.target, `/api/v1/namespaces/${namespace}/configmaps`);
    await probe.read('after one list (item encodings cached)', first.server, first.target, true);
    if (withList) {
      list = await listSection(cfg, first.target, dataDir, namespace, objects);
      await probe.read(`after the list phase (${cfg.listClients} clients)`, first.server, first.target, true);
    }
    // The memory baselines' object: one ConfigMap exactly as the server serves it.
    const agent = makeAgent(first.target, 1);
    const one = await oneRequest(agent, first.target, { method: 'GET', path: `/api/v1/namespaces/${namespace}/configmaps/cm-0` }, true);
    agent.destroy();
    writeFileSync(join(dataDir, 'memory-template.json'), one.body!);
  } finally {
    await first.server.stop();
  }

  if (cfg.backend === 'sqlite') {
    const stored = `${objects.toLocaleString('en-US')} stored ConfigMaps`;
    // Right after loading, the store's history (--watch-cache-history, 5m)
    // still holds every create, and a cache starting up replays it.
    const again = await start(cfg, dataDir, `Capstan: restart on ${stored}, their creates still in history`);
    startup.push(again.startup);
    try {
      await serverMetrics(again.target, ['nodejs_heap_size_used_bytes']);
      readsAfterRestart.push({ name: 'first get of one ConfigMap', ms: await timed(again.target, `/api/v1/namespaces/${namespace}/configmaps/cm-1`) });
      readsAfterRestart.push({ name: `first list of ${objects.toLocaleString('en-US')} (encodes every item)`, ms: await timed(again.target, `/api/v1/namespaces/${namespace}/configmaps`) });
      readsAfterRestart.push({ name: 'second list (cached encodings)', ms: await timed(again.target, `/api/v1/namespaces/${namespace}/configmaps`) });
      await probe.read('after restart and one list', again.server, again.target, true);
    } finally {
      await again.server.stop();
    }
    // The steady state: history compacted, as it is 5 minutes after the last
    // write. A server with a 1 s history compacts within a few seconds.
    const compactor = await start(cfg, dataDir, 'compaction pass', ['--watch-cache-history', '1s']);
    await sleep(3500);
    await compactor.server.stop();
    const compacted = await start(cfg, dataDir, `Capstan: restart on ${stored}, history compacted`);
    startup.push(compacted.startup);
    try {
      readsAfterRestart.push({ name: `(history compacted) first list of ${objects.toLocaleString('en-US')}`, ms: await timed(compacted.target, `/api/v1/namespaces/${namespace}/configmaps`) });
    } finally {
      await compacted.server.stop();
    }
  }
  startup.push({ name: 'baseline: bare `node -e` to first output', readyMs: await bareNodeStart() });

  const templateFile = join(dataDir, 'memory-template.json');
  const memoryBaselines: MemoryBaselineOutput[] = [];
  if (existsSync(templateFile)) for (const mode of ['objects', 'strings', 'objects+buffers'] as const) memoryBaselines.push(await memoryBaseline(mode, objects, templateFile));
  return { objects, loadSeconds, memory: probe.points, memoryBaselines, startup, readsAfterRestart, ...(list ? { list } : {}) };
}
