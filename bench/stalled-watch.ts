import type { ClientRequest, IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { credentialsFrom, removeDir, startServer, tempDir, type TestServer } from '../test/helpers/server.js';
import type { BenchConfig } from './config.js';
import { createNamespace } from './fixtures.js';
import { jsonRequest, makeAgent, oneRequest, serverMetrics, startRequest, type Target } from './http-client.js';
import { percentile, round } from './loop.js';
import { FanoutState, runWriter, WatchStream } from './watch.js';

/**
 * Stalled watchers: many watches on one namespace's ConfigMaps that read
 * their response headers and then stop reading (a misbehaving or wedged
 * client), beside a few healthy watchers, while a writer updates ~4 KiB
 * ConfigMaps at a fixed rate. Each run gets a fresh server, so its RSS is its
 * own: once with the stalled watchers, once without (the same healthy
 * watchers, writer and GET probe). Reported: the server's peak RSS and its
 * RSS after the writes stop and a settle pause; healthy delivery latency and
 * completeness; latency of a GET of one ConfigMap during the run; the PUT
 * rate the server sustained; how many watchers the server cut.
 */

export interface StalledResult {
  name: string;
  stalled: number;
  healthy: number;
  seconds: number;
  payloadBytes: number;
  rssStartMB: number;
  rssPeakMB: number;
  /** After the writes stopped and settleSeconds passed. */
  rssFinalMB: number;
  settleSeconds: number;
  /** The server's V8 heap used and total, and external (Buffer) memory, when the final RSS is read. */
  finalHeapUsedMB: number;
  finalHeapTotalMB: number;
  finalExternalMB: number;
  /** Peak of the kernel's TCP buffer memory in the server's network namespace (both ends of every connection: this process's too). */
  tcpMemPeakMB: number;
  putsPerSec: number;
  putsAcked: number;
  puts: number;
  putAckP99ms: number;
  healthyExpected: number;
  healthyDelivered: number;
  healthyP50ms: number;
  healthyP99ms: number;
  healthyMaxMs: number;
  getP50ms: number;
  getP99ms: number;
  gets: number;
  /** "Forcing … watcher close" lines in the server's log. */
  cut: number;
  /** When the stalled clients read again at the end (for up to 30 s): streams that ended with the chunked terminator, were reset, or stayed open. */
  stalledEndedClean: number;
  stalledReset: number;
  stalledOpen: number;
}

const OBJECTS = 50;

function rssMB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Pages of TCP buffer memory the kernel holds (the "mem" of /proc/net/sockstat), in MB. */
function tcpMemMB(pid: number): number {
  try {
    const m = /^TCP:.* mem (\d+)/m.exec(readFileSync(`/proc/${pid}/net/sockstat`, 'utf8'));
    return m ? (Number(m[1]) * 4096) / 1e6 : 0;
  } catch {
    return 0;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Stalled {
  req: ClientRequest;
  res?: IncomingMessage;
  outcome: 'open' | 'clean' | 'reset';
}

async function run(cfg: BenchConfig, stalledCount: number, log: (msg: string) => void): Promise<StalledResult> {
  const dataDir = tempDir('capstan-bench-stalled-');
  const server: TestServer = await startServer({ backend: cfg.backend, dataDir, args: ['--v=1'] });
  const target: Target = { url: server.url, creds: credentialsFrom(server.kubeconfig), pid: server.proc.pid };
  const pid = server.proc.pid!;
  try {
    const namespace = 'stalled';
    await createNamespace(target, namespace);
    const path = `/api/v1/namespaces/${namespace}/configmaps`;
    const payload = 'x'.repeat(cfg.stalledPayload);
    const setup = makeAgent(target, 8);
    for (let i = 0; i < OBJECTS; i++) {
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `w-${i}` }, data: { seq: '-1', payload } });
      const r = await oneRequest(setup, target, { method: 'POST', path, body });
      if (r.status !== 201) throw new Error(`creating w-${i}: HTTP ${r.status}`);
    }
    setup.destroy();
    const list = await jsonRequest<{ metadata?: { resourceVersion?: string } }>(target, { method: 'GET', path });
    const rv = list.json?.metadata?.resourceVersion ?? '0';
    const watchPath = `${path}?watch=1&resourceVersion=${rv}`;

    const total = Math.max(1, Math.round(cfg.stalledRate * cfg.stalledSeconds));
    const state = new FanoutState(cfg.stalledHealthy, total);
    const healthyAgent = makeAgent(target, Infinity);
    const healthyReqs: ClientRequest[] = [];
    for (let i = 0; i < cfg.stalledHealthy; i++) {
      const stream = new WatchStream(i, state, false);
      await new Promise<void>((resolve) => {
        const req = startRequest(healthyAgent, target, { method: 'GET', path: watchPath }, (res) => {
          res.on('data', (d: Buffer) => stream.onData(d));
          res.on('error', () => undefined);
          resolve();
        });
        req.on('error', () => resolve());
        healthyReqs.push(req);
      });
    }

    // Stalled watchers: headers read, then the response is paused, so the
    // client stops reading its socket once Node's small buffers are full.
    const stalledAgent = makeAgent(target, Infinity);
    const stalled: Stalled[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(50, stalledCount) }, async () => {
        while (next < stalledCount) {
          next++;
          await new Promise<void>((resolve) => {
            const s: Stalled = { req: undefined as unknown as ClientRequest, outcome: 'open' };
            s.req = startRequest(stalledAgent, target, { method: 'GET', path: watchPath }, (res) => {
              s.res = res;
              res.pause();
              res.on('end', () => (s.outcome = 'clean'));
              res.on('aborted', () => (s.outcome = 'reset'));
              res.on('error', () => (s.outcome = s.outcome === 'open' ? 'reset' : s.outcome));
              resolve();
            });
            s.req.on('error', () => {
              if (s.outcome === 'open') s.outcome = 'reset';
              resolve();
            });
            stalled.push(s);
          });
        }
      }),
    );

    const rssStart = rssMB(pid);
    let rssPeak = rssStart;
    let tcpPeak = tcpMemMB(pid);
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssMB(pid));
      tcpPeak = Math.max(tcpPeak, tcpMemMB(pid));
    }, 250);

    // GET of one ConfigMap, one at a time on a kept-alive connection, every 100 ms.
    const gets: number[] = [];
    let probing = true;
    const probeAgent = makeAgent(target, 1);
    const probe = (async () => {
      while (probing) {
        const t = performance.now();
        const r = await oneRequest(probeAgent, target, { method: 'GET', path: `${path}/w-0` }).catch(() => undefined);
        if (r?.status === 200) gets.push(performance.now() - t);
        await sleep(Math.max(0, 100 - (performance.now() - t)));
      }
    })();

    log(`stalled watchers: ${stalledCount} stalled + ${cfg.stalledHealthy} healthy, ${cfg.stalledRate} updates/s for ${cfg.stalledSeconds} s`);
    const writer = await runWriter({ target, path, rate: cfg.stalledRate, total, template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, data: { payload } }, update: { objects: OBJECTS } });
    const acked = writer.status.map((s, seq) => (s === 200 ? seq : -1)).filter((s) => s >= 0);
    const expected = acked.length * cfg.stalledHealthy;
    const drainUntil = performance.now() + 15_000;
    while (state.delivered < expected && performance.now() < drainUntil) await sleep(100);
    probing = false;
    await probe;
    probeAgent.destroy();

    // Idle: cut watchers' sockets are destroyed after their grace, memory is released.
    await sleep(cfg.stalledSettleSeconds * 1000);
    clearInterval(sampler);
    const rssFinal = rssMB(pid);
    rssPeak = Math.max(rssPeak, rssFinal);
    const mb = (v: number | undefined): number => round((v ?? 0) / 1e6);
    const [heapUsed, heapTotal, external] = await serverMetrics(target, ['nodejs_heap_size_used_bytes', 'nodejs_heap_size_total_bytes', 'nodejs_external_memory_bytes']);
    const finalHeapUsedMB = mb(heapUsed);
    const finalHeapTotalMB = mb(heapTotal);
    const finalExternalMB = mb(external);

    // The stalled clients read again: a cut stream ends (cleanly or not), a live one stays open.
    for (const s of stalled) s.res?.resume();
    // Each holds what its socket buffers took (MiBs): give the reads time, bounded.
    const readUntil = performance.now() + 30_000;
    while (stalled.some((s) => s.outcome === 'open') && performance.now() < readUntil) await sleep(200);

    const latencies: number[] = [];
    for (let w = 0; w < cfg.stalledHealthy; w++) {
      for (const seq of acked) {
        const at = state.arrivals[w * total + seq]!;
        if (at !== 0) latencies.push(at - writer.sentAt[seq]!);
      }
    }
    latencies.sort((a, b) => a - b);
    gets.sort((a, b) => a - b);
    const acks = acked.map((seq) => writer.ackAt[seq]! - writer.sentAt[seq]!).sort((a, b) => a - b);
    for (const r of healthyReqs) r.destroy();
    for (const s of stalled) s.req.destroy();
    healthyAgent.destroy();
    stalledAgent.destroy();
    const cut = (server.output().match(/Forcing \S+ watcher close/g) ?? []).length;
    return {
      name: stalledCount > 0 ? `${stalledCount.toLocaleString('en-US')} stalled + ${cfg.stalledHealthy} healthy watchers` : `no stalled, ${cfg.stalledHealthy} healthy watchers`,
      stalled: stalledCount,
      healthy: cfg.stalledHealthy,
      seconds: cfg.stalledSeconds,
      payloadBytes: cfg.stalledPayload,
      rssStartMB: round(rssStart),
      rssPeakMB: round(rssPeak),
      rssFinalMB: round(rssFinal),
      settleSeconds: cfg.stalledSettleSeconds,
      finalHeapUsedMB,
      finalHeapTotalMB,
      finalExternalMB,
      tcpMemPeakMB: round(tcpPeak),
      puts: total,
      putsAcked: acked.length,
      putsPerSec: round(acked.length / writer.seconds),
      putAckP99ms: round(percentile(acks, 99)),
      healthyExpected: expected,
      healthyDelivered: latencies.length,
      healthyP50ms: round(percentile(latencies, 50)),
      healthyP99ms: round(percentile(latencies, 99)),
      healthyMaxMs: round(latencies.length > 0 ? latencies[latencies.length - 1]! : 0),
      getP50ms: round(percentile(gets, 50)),
      getP99ms: round(percentile(gets, 99)),
      gets: gets.length,
      cut,
      stalledEndedClean: stalled.filter((s) => s.outcome === 'clean').length,
      stalledReset: stalled.filter((s) => s.outcome === 'reset').length,
      stalledOpen: stalled.filter((s) => s.outcome === 'open').length,
    };
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
}

export async function stalledSection(cfg: BenchConfig, log: (msg: string) => void): Promise<StalledResult[]> {
  return [await run(cfg, 0, log), await run(cfg, cfg.stalledWatchers, log)];
}
