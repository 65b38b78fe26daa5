import { performance } from 'node:perf_hooks';
import { CpuMeter } from './cpu.js';

/**
 * The load generator's closed loop: N concurrent clients, each starting its
 * next operation when the last one finished, for a while. What an operation
 * is (an HTTPS request in http-client.ts, an etcd client call in
 * etcd-baseline.ts) is the caller's; timing, percentiles and CPU are here,
 * so every row of the report is measured the same way.
 */

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
  /** CPU seconds per wall second × 100, of the server(s) and of this process (-1: unknown). */
  serverCpuPct: number;
  clientCpuPct: number;
}

export interface LoopOptions {
  /** Stop once this many requests were started. */
  maxRequests?: number;
  /** Keep going past the deadline until this many requests completed (bounded by 6× the duration). */
  minRequests?: number;
}

/** How one operation went: `error` (for BENCH_DEBUG) when it did not. */
export interface Outcome {
  bytes: number;
  error?: string;
}

/** Operation number `i` (counted over all clients), run by client `client`. */
export type Operation = (i: number, client: number) => Promise<Outcome>;

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Runs `op` from `clients` concurrent clients for `durationMs`. `serverPids`
 * are the processes whose CPU the row reports as the server's (summed).
 */
export async function runClosedLoop(name: string, clients: number, durationMs: number, serverPids: readonly number[], op: Operation, opts: LoopOptions = {}): Promise<PhaseResult> {
  const latencies: number[] = [];
  let counter = 0;
  let errors = 0;
  let bytes = 0;
  const cpu = new CpuMeter(serverPids);
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
      const i = counter++;
      const t = performance.now();
      let outcome: Outcome;
      try {
        outcome = await op(i, client);
      } catch (err) {
        outcome = { bytes: 0, error: `failed: ${(err as Error).message}` };
      }
      latencies.push(performance.now() - t);
      bytes += outcome.bytes;
      if (outcome.error !== undefined) {
        errors++;
        if (process.env.BENCH_DEBUG) process.stderr.write(`${name}: ${outcome.error}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, c) => worker(c)));
  const seconds = (performance.now() - started) / 1000;
  const { serverPct, clientPct } = cpu.stop();
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
