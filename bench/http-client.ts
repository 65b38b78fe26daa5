import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import type { Credentials } from '../test/helpers/server.js';
import { CpuMeter } from './cpu.js';

/**
 * The load generator's HTTP side: one request, and a closed loop of N clients
 * for a while. Targets are Capstan (HTTPS with the admin client certificate)
 * or a bare baseline server (HTTPS with the same certificates, or plain HTTP).
 * No request sends Accept-Encoding, so every body is measured uncompressed.
 */

export interface Target {
  url: string;
  creds: Credentials;
  /** The serving process, when known: its CPU use is recorded per phase. */
  pid?: number | undefined;
}

export type AnyAgent = HttpAgent | HttpsAgent;

export interface PhaseResult {
  name: string;
  clients: number;
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  mbPerSec: number;
  /** CPU seconds per wall second × 100, of the server and of this process (-1: unknown). */
  serverCpuPct: number;
  clientCpuPct: number;
}

export interface RequestSpec {
  method: string;
  path: string;
  body?: string;
  /** Content-Type of the body (default application/json). */
  contentType?: string;
}

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function isHttps(target: Target): boolean {
  return target.url.startsWith('https:');
}

export function makeAgent(target: Target, maxSockets: number): AnyAgent {
  if (!isHttps(target)) return new HttpAgent({ keepAlive: true, maxSockets });
  return new HttpsAgent({ keepAlive: true, maxSockets, ca: target.creds.ca, cert: target.creds.cert, key: target.creds.key });
}

/** Starts a request; the caller consumes the response. */
export function startRequest(agent: AnyAgent, target: Target, spec: RequestSpec, onResponse: (res: IncomingMessage) => void): ReturnType<typeof httpRequest> {
  const u = new URL(spec.path, target.url);
  const headers: Record<string, string> = spec.body ? { 'Content-Type': spec.contentType ?? 'application/json', 'Content-Length': String(Buffer.byteLength(spec.body)) } : {};
  const common = { method: spec.method, hostname: u.hostname, port: u.port, path: u.pathname + u.search, headers };
  const req = isHttps(target)
    ? httpsRequest({ ...common, agent: agent as HttpsAgent, ca: target.creds.ca, cert: target.creds.cert, key: target.creds.key }, onResponse)
    : httpRequest({ ...common, agent: agent as HttpAgent }, onResponse);
  if (spec.body) req.write(spec.body);
  req.end();
  return req;
}

export interface Response {
  status: number;
  bytes: number;
  /** Only when asked for (`collect`): lists of 50 MB are counted, not kept. */
  body?: Buffer;
}

export function oneRequest(agent: AnyAgent, target: Target, spec: RequestSpec, collect = false): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = startRequest(agent, target, spec, (res) => {
      let bytes = 0;
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        if (collect) chunks.push(d);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ...(collect ? { body: Buffer.concat(chunks) } : {}) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** A JSON request whose answer is parsed (setup only, never timed). */
export async function jsonRequest<T>(target: Target, spec: RequestSpec): Promise<{ status: number; json: T }> {
  const agent = makeAgent(target, 1);
  try {
    const r = await oneRequest(agent, target, spec, true);
    return { status: r.status, json: JSON.parse(r.body!.toString('utf8')) as T };
  } finally {
    agent.destroy();
  }
}

export interface LoopOptions {
  /** Stop once this many requests were started. */
  maxRequests?: number;
  /** Keep going past the deadline until this many requests completed (bounded by 6× the duration). */
  minRequests?: number;
  expect?: number;
}

/** Runs `next(i, client)` from `clients` concurrent keep-alive clients for `durationMs`. */
export async function closedLoop(name: string, target: Target, clients: number, durationMs: number, next: (i: number, client: number) => RequestSpec, opts: LoopOptions = {}): Promise<PhaseResult> {
  const agent = makeAgent(target, clients);
  const latencies: number[] = [];
  let counter = 0;
  let errors = 0;
  let bytes = 0;
  const cpu = new CpuMeter(target.pid);
  const started = performance.now();
  const deadline = started + durationMs;
  const hardDeadline = started + durationMs * 6;
  const more = (): boolean => {
    if (opts.maxRequests !== undefined && counter >= opts.maxRequests) return false;
    const now = performance.now();
    if (now < deadline) return true;
    return opts.minRequests !== undefined && counter < opts.minRequests && now < hardDeadline;
  };
  const worker = async (client: number): Promise<void> => {
    while (more()) {
      const spec = next(counter++, client);
      const t = performance.now();
      try {
        const res = await oneRequest(agent, target, spec);
        if (res.status !== (opts.expect ?? 200)) {
          errors++;
          if (process.env.BENCH_DEBUG) process.stderr.write(`${name}: ${spec.method} ${spec.path} → ${res.status}\n`);
        }
        bytes += res.bytes;
      } catch (err) {
        errors++;
        if (process.env.BENCH_DEBUG) process.stderr.write(`${name}: ${spec.method} ${spec.path} failed: ${(err as Error).message}\n`);
      }
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, c) => worker(c)));
  const seconds = (performance.now() - started) / 1000;
  const { serverPct, clientPct } = cpu.stop();
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    name,
    clients,
    requests: latencies.length,
    errors,
    seconds: round(seconds),
    rps: round(latencies.length / seconds),
    p50ms: round(percentile(latencies, 50)),
    p99ms: round(percentile(latencies, 99)),
    mbPerSec: round(bytes / seconds / 1e6),
    serverCpuPct: serverPct,
    clientCpuPct: clientPct,
  };
}
