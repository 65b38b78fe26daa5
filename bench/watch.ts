import type { ClientRequest, IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { startBare } from './baselines.js';
import type { BenchConfig } from './config.js';
import { CpuMeter } from './cpu.js';
import { createNamespace } from './fixtures.js';
import { jsonRequest, makeAgent, serverPids, startRequest, type Target } from './http-client.js';
import { percentile, round } from './loop.js';
import { now, type WriterInput, type WriterOutput } from './watch-writer.js';

/**
 * Watch fan-out: N concurrent HTTPS watches on one namespace's ConfigMaps
 * while a writer creates ConfigMaps at a fixed rate. Each event's delivery
 * latency is its arrival at a watcher minus the time the writer sent the
 * create (also embedded in the object as data.sentAt); every watcher must see
 * every acknowledged write exactly once. The baseline is a bare node:https
 * server holding N chunked responses and writing each posted object to all of
 * them as one event line, driven by the same writer at the same rate; once
 * writing every event separately, once batching the events of a loop turn.
 */

export interface WatchResult {
  name: string;
  watchers: number;
  /** Watch streams open (200 and headers received) when writing began. */
  connected: number;
  connectSeconds: number;
  writes: number;
  writesAcked: number;
  writesPerSec: number;
  writeAckP50ms: number;
  writeAckP99ms: number;
  /** watchers × acknowledged writes. */
  expected: number;
  delivered: number;
  lost: number;
  duplicates: number;
  /** Watchers whose stream ended before the phase closed it. */
  endedEarly: number;
  watchersComplete: number;
  eventsPerSec: number;
  p50ms: number;
  p99ms: number;
  maxMs: number;
  /** Over writing and draining: CPU of the server and of this process (watchers + writer), % of one core. */
  serverCpuPct: number;
  clientCpuPct: number;
}

const NEWLINE = 10;
const MARKER = Buffer.from('"seq":"');
const QUOTE = 34;

/** One watch stream: splits lines and records each event's arrival by seq. */
export class WatchStream {
  private rest: Buffer | undefined;
  ended = false;
  sample: string | undefined;

  constructor(
    private readonly index: number,
    private readonly state: FanoutState,
    private readonly keepSample: boolean,
  ) {}

  onData(chunk: Buffer): void {
    const at = now();
    const buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    let start = 0;
    for (;;) {
      const end = buf.indexOf(NEWLINE, start);
      if (end < 0) break;
      this.onLine(buf, start, end, at);
      start = end + 1;
    }
    this.rest = start < buf.length ? buf.subarray(start) : undefined;
  }

  private onLine(buf: Buffer, start: number, end: number, at: number): void {
    // Events are found by the marker rather than parsed: JSON.parse of 100,000
    // events/s would make this process, not the server, the bottleneck.
    const m = buf.indexOf(MARKER, start);
    if (m < 0 || m > end) return; // not one of ours (e.g. kube-root-ca.crt)
    let seq = 0;
    for (let i = m + MARKER.length; i < end && buf[i] !== QUOTE; i++) seq = seq * 10 + (buf[i]! - 48);
    if (this.keepSample && this.sample === undefined) this.sample = buf.toString('utf8', start, end);
    this.state.record(this.index, seq, at);
  }
}

export class FanoutState {
  readonly arrivals: Float64Array;
  delivered = 0;
  duplicates = 0;
  outOfRange = 0;

  constructor(
    readonly watchers: number,
    readonly total: number,
  ) {
    this.arrivals = new Float64Array(watchers * total);
  }

  record(watcher: number, seq: number, at: number): void {
    if (seq >= this.total) {
      this.outOfRange++;
      return;
    }
    const i = watcher * this.total + seq;
    if (this.arrivals[i] !== 0) {
      this.duplicates++;
      return;
    }
    this.arrivals[i] = at;
    this.delivered++;
  }
}

export interface FanoutOptions {
  name: string;
  target: Target;
  /** Collection path watched and written to. */
  path: string;
  cfg: BenchConfig;
  template: WriterInput['template'];
  keepSample: boolean;
}

/** One fan-out run: the watchers connect, the writer writes, each event's arrival is matched to its write. */
export async function fanout(o: FanoutOptions): Promise<{ result: WatchResult; sample: string | undefined }> {
  const { cfg } = o;
  const total = Math.max(1, Math.round(cfg.watchRate * cfg.watchSeconds));
  const state = new FanoutState(cfg.watchers, total);
  // Start the watches just after the collection's current revision: only new events.
  const list = await jsonRequest<{ metadata?: { resourceVersion?: string } }>(o.target, { method: 'GET', path: o.path });
  const rv = list.json?.metadata?.resourceVersion ?? '0';
  const agent = makeAgent(o.target, Infinity);
  const streams: WatchStream[] = [];
  const requests: ClientRequest[] = [];
  let connected = 0;
  const connectStart = performance.now();
  // Open the watches 50 at a time: 1,000 simultaneous TLS handshakes would
  // measure the handshake storm rather than the fan-out.
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(50, cfg.watchers) }, async () => {
      while (next < cfg.watchers) {
        const i = next++;
        const stream = new WatchStream(i, state, o.keepSample && i === 0);
        streams.push(stream);
        await new Promise<void>((resolve) => {
          const req = startRequest(agent, o.target, { method: 'GET', path: `${o.path}?watch=1&resourceVersion=${rv}` }, (res: IncomingMessage) => {
            if (res.statusCode === 200) connected++;
            res.on('data', (d: Buffer) => stream.onData(d));
            res.on('end', () => (stream.ended = true));
            res.on('error', () => (stream.ended = true));
            resolve();
          });
          req.on('error', () => {
            stream.ended = true;
            resolve();
          });
          requests.push(req);
        });
      }
    }),
  );
  const connectSeconds = (performance.now() - connectStart) / 1000;

  const cpu = new CpuMeter(serverPids([o.target]));
  const writer = await runWriter({ target: o.target, path: o.path, rate: cfg.watchRate, total, template: o.template });
  const acked = writer.status.map((s, seq) => (s === 200 || s === 201 ? seq : -1)).filter((s) => s >= 0);
  const expected = acked.length * cfg.watchers;
  // Let the last events drain (bounded), then close every stream.
  const drainUntil = performance.now() + (cfg.quick ? 5000 : 15_000);
  while (state.delivered < expected && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 100));
  const { serverPct, clientPct } = cpu.stop();
  const endedEarly = streams.filter((s) => s.ended).length;
  for (const r of requests) r.destroy();
  agent.destroy();

  const latencies = new Float64Array(state.delivered);
  let k = 0;
  let lost = 0;
  let lastArrival = 0;
  let watchersComplete = 0;
  for (let w = 0; w < cfg.watchers; w++) {
    let complete = true;
    for (const seq of acked) {
      const at = state.arrivals[w * total + seq]!;
      if (at === 0) {
        lost++;
        complete = false;
        continue;
      }
      latencies[k++] = at - writer.sentAt[seq]!;
      if (at > lastArrival) lastArrival = at;
    }
    if (complete) watchersComplete++;
  }
  const sorted = latencies.subarray(0, k).sort();
  const firstSent = writer.sentAt[0] ?? 0;
  const acks = acked.map((seq) => writer.ackAt[seq]! - writer.sentAt[seq]!).sort((a, b) => a - b);
  const result: WatchResult = {
    name: o.name,
    watchers: cfg.watchers,
    connected,
    connectSeconds: round(connectSeconds),
    writes: total,
    writesAcked: acked.length,
    writesPerSec: round(total / writer.seconds),
    writeAckP50ms: round(percentile(acks, 50)),
    writeAckP99ms: round(percentile(acks, 99)),
    expected,
    delivered: state.delivered,
    lost,
    duplicates: state.duplicates,
    endedEarly,
    watchersComplete,
    eventsPerSec: lastArrival > firstSent ? Math.round(k / ((lastArrival - firstSent) / 1000)) : 0,
    p50ms: round(percentile(sorted, 50)),
    p99ms: round(percentile(sorted, 99)),
    maxMs: round(k > 0 ? sorted[k - 1]! : 0),
    serverCpuPct: serverPct,
    clientCpuPct: clientPct,
  };
  return { result, sample: streams.find((s) => s.sample !== undefined)?.sample };
}

export function runWriter(input: WriterInput): Promise<WriterOutput> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./watch-writer.js', import.meta.url), { workerData: input });
    worker.once('message', (out: WriterOutput) => {
      resolve(out);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

export async function watchSection(cfg: BenchConfig, target: Target, dataDir: string): Promise<WatchResult[]> {
  const namespace = 'watch';
  await createNamespace(target, namespace);
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const plain = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: { app: 'bench' } }, data: { payload: 'x'.repeat(900) } };
  const label = `${cfg.watchers.toLocaleString('en-US')} watchers, ${cfg.watchRate} writes/s`;
  const results: WatchResult[] = [];
  const capstan = await fanout({ name: `Capstan (https): ${label}`, target, path, cfg, template: plain, keepSample: true });
  results.push(capstan.result);

  // The baseline writes events the size of Capstan's: the writer posts an
  // object shaped like one Capstan sent (server-set metadata included).
  let template: WriterInput['template'] = plain;
  if (capstan.sample) template = (JSON.parse(capstan.sample) as { object: WriterInput['template'] }).object;
  for (const coalesce of [false, true]) {
    const bare = await startBare('watch', 'https', target.creds, dataDir, undefined, coalesce);
    try {
      const how = coalesce ? 'events of a loop turn in one write' : 'one write per event';
      results.push((await fanout({ name: `baseline: node:https fan-out (${how}), ${label}`, target: bare.target, path, cfg, template, keepSample: false })).result);
    } finally {
      await bare.stop();
    }
  }
  return results;
}
