import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { credentialsFrom, ROOT, startServer, tempDir, removeDir, type Credentials } from '../test/helpers/server.js';

/**
 * `npm run bench`: throughput and latency of Capstan over HTTPS with 32
 * concurrent clients, beside a bare node:https server returning a cached body
 * in the same run (the ceiling of the transport on this machine).
 * Writes bench/results/latest.json and latest.md.
 */

const CONCURRENCY = 32;
const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 4000);

interface Target {
  url: string;
  creds: Credentials;
}

interface PhaseResult {
  name: string;
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  mbPerSec?: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function oneRequest(agent: Agent, target: Target, method: string, path: string, body?: string): Promise<{ status: number; bytes: number }> {
  const u = new URL(path, target.url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        method,
        hostname: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        agent,
        ca: target.creds.ca,
        cert: target.creds.cert,
        key: target.creds.key,
        headers: body ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {},
      },
      (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

/** Runs `next(i)` from CONCURRENCY clients for PHASE_MS (or until `maxRequests`). */
async function phase(name: string, target: Target, next: (i: number) => { method: string; path: string; body?: string }, opts: { maxRequests?: number; expect?: number } = {}): Promise<PhaseResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: target.creds.ca, cert: target.creds.cert, key: target.creds.key });
  const latencies: number[] = [];
  let counter = 0;
  let errors = 0;
  let bytes = 0;
  const started = performance.now();
  const deadline = started + PHASE_MS;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline && (opts.maxRequests === undefined || counter < opts.maxRequests)) {
      const r = next(counter++);
      const t = performance.now();
      try {
        const res = await oneRequest(agent, target, r.method, r.path, r.body);
        if (res.status !== (opts.expect ?? 200)) errors++;
        bytes += res.bytes;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    name,
    requests: latencies.length,
    errors,
    seconds: round(seconds),
    rps: round(latencies.length / seconds),
    p50ms: round(percentile(latencies, 50)),
    p99ms: round(percentile(latencies, 99)),
    mbPerSec: round(bytes / seconds / 1e6),
  };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** A bare node:https server answering every request with one cached body: the transport's ceiling. */
async function startBaseline(creds: Credentials, dataDir: string, body: string): Promise<{ target: Target; proc: ChildProcess }> {
  const script = `
    const https = require('node:https');
    const fs = require('node:fs');
    const body = Buffer.from(fs.readFileSync(process.argv[1]));
    const s = https.createServer({ key: fs.readFileSync(process.argv[2]), cert: fs.readFileSync(process.argv[3]), requestCert: true, rejectUnauthorized: false, ca: fs.readFileSync(process.argv[4]) }, (req, res) => {
      req.resume();
      req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length }); res.end(body); });
    });
    s.keepAliveTimeout = 65000;
    s.listen(0, '127.0.0.1', () => console.log('port ' + s.address().port));
  `;
  const bodyFile = join(dataDir, 'baseline-body.json');
  writeFileSync(bodyFile, body);
  const proc = spawn(process.execPath, ['-e', script, bodyFile, join(dataDir, 'pki', 'apiserver.key'), join(dataDir, 'pki', 'apiserver.crt'), join(dataDir, 'pki', 'ca.crt')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => {
    proc.stdout!.on('data', (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve(m[1]!);
    });
  });
  return { target: { url: `https://127.0.0.1:${port}`, creds }, proc };
}

function configMap(name: string): string {
  // ~1 KiB ConfigMaps, as the list sizes assume.
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'bench' } }, data: { payload: 'x'.repeat(900) } });
}

async function fill(target: Target, namespace: string, count: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: target.creds.ca, cert: target.creds.cert, key: target.creds.key });
  let i = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (i < count) {
        const n = i++;
        await oneRequest(agent, target, 'POST', `/api/v1/namespaces/${namespace}/configmaps`, configMap(`cm-${n}`));
      }
    }),
  );
  agent.destroy();
}

async function main(): Promise<void> {
  const backend = (process.env.BENCH_BACKEND ?? 'sqlite') as 'sqlite' | 'memory';
  const dataDir = tempDir('capstan-bench-');
  const startT = performance.now();
  const server = await startServer({ backend, dataDir });
  const startupMs = round(performance.now() - startT);
  const target: Target = { url: server.url, creds: credentialsFrom(server.kubeconfig) };
  const results: PhaseResult[] = [];
  try {
    for (const ns of ['bench', 'list1k', 'list10k']) await oneRequest(new Agent(), target, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } }));

    const getBody = await new Promise<string>((resolve) => {
      void oneRequest(new Agent(), target, 'POST', '/api/v1/namespaces/bench/configmaps', configMap('probe')).then(() => resolve(configMap('probe')));
    });
    const baseline = await startBaseline(target.creds, dataDir, getBody);
    try {
      results.push(await phase('baseline: node:https cached 1 KiB body', baseline.target, () => ({ method: 'GET', path: '/x' })));
    } finally {
      baseline.proc.kill();
    }

    results.push(await phase('create ConfigMap (1 KiB)', target, (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(`c-${i}`) }), { expect: 201 }));
    results.push(await phase('get ConfigMap', target, () => ({ method: 'GET', path: '/api/v1/namespaces/bench/configmaps/probe' })));
    await fill(target, 'list1k', 1000);
    results.push(await phase('list 1,000 ConfigMaps', target, () => ({ method: 'GET', path: '/api/v1/namespaces/list1k/configmaps' })));
    await fill(target, 'list10k', 10_000);
    results.push(await phase('list 10,000 ConfigMaps', target, () => ({ method: 'GET', path: '/api/v1/namespaces/list10k/configmaps' })));
  } finally {
    await server.stop();
    removeDir(dataDir);
  }

  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const report = {
    date: new Date().toISOString(),
    capstan: pkg.version,
    backend,
    node: process.version,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', memoryGiB: round(totalmem() / 2 ** 30) },
    concurrency: CONCURRENCY,
    phaseMs: PHASE_MS,
    startupMs,
    results,
  };
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), JSON.stringify(report, null, 2) + '\n');
  const md = [
    `# Capstan benchmark (${report.date})`,
    '',
    `Backend ${backend}, Node ${process.version}, ${report.machine.cpus} CPUs (${report.machine.cpuModel}), ${CONCURRENCY} concurrent HTTPS clients with keep-alive, ${PHASE_MS} ms per phase. Server start to ready (process spawn included): ${startupMs} ms.`,
    '',
    '| phase | requests | errors | req/s | p50 ms | p99 ms | MB/s |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map((r) => `| ${r.name} | ${r.requests} | ${r.errors} | ${r.rps} | ${r.p50ms} | ${r.p99ms} | ${r.mbPerSec ?? ''} |`),
    '',
  ].join('\n');
  writeFileSync(join(dir, 'latest.md'), md);
  process.stdout.write(md);
}

await main();
