import { performance } from 'node:perf_hooks';
import { startBare } from './baselines.js';
import type { BenchConfig } from './config.js';
import { closedLoop, makeAgent, oneRequest, type Target } from './http-client.js';
import { percentile, round, type PhaseResult } from './loop.js';

/**
 * Large lists served from the watch cache, with a few concurrent clients and
 * no Accept-Encoding, beside two baselines in the same run:
 * - a bare node:http server (plain HTTP) returning the very same list body
 *   from memory, and the same over node:https (what TLS alone costs);
 * - JSON.stringify of the same list of objects in this process (what
 *   encoding the list from objects would cost, without any cache).
 */

export interface StringifyResult {
  runs: number;
  p50ms: number;
  minMs: number;
  mbPerSec: number;
}

export interface ListResult {
  objects: number;
  namespace: string;
  bodyMB: number;
  /** The request that captured the body for the baselines (the cache's item encodings may be cold). */
  firstListMs: number;
  phases: PhaseResult[];
  stringify: StringifyResult;
}

export function listNamespace(objects: number): string {
  return objects % 1000 === 0 ? `list${objects / 1000}k` : `list${objects}`;
}

export async function listSection(cfg: BenchConfig, target: Target, dataDir: string, namespace: string, objects: number): Promise<ListResult> {
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const agent = makeAgent(target, 1);
  const t0 = performance.now();
  const first = await oneRequest(agent, target, { method: 'GET', path }, true);
  const firstListMs = performance.now() - t0;
  agent.destroy();
  if (first.status !== 200) throw new Error(`list ${path}: HTTP ${first.status}`);
  const body = first.body!;
  const label = objects.toLocaleString('en-US');
  const loop = (name: string, t: Target): Promise<PhaseResult> =>
    closedLoop(name, t, cfg.listClients, cfg.listMs, () => ({ method: 'GET', path }), { minRequests: cfg.listMinRequests });

  const phases: PhaseResult[] = [];
  phases.push(await loop(`Capstan (https): list ${label}`, target));
  for (const protocol of ['http', 'https'] as const) {
    const bare = await startBare('body', protocol, target.creds, dataDir, body);
    try {
      phases.push(await loop(`baseline: node:${protocol} same body from memory`, bare.target));
    } finally {
      await bare.stop();
    }
  }
  const stringify = timeStringify(JSON.parse(body.toString('utf8')) as unknown, cfg.quick ? 500 : 2000);
  return { objects, namespace, bodyMB: round(body.length / 1e6), firstListMs: round(firstListMs), phases, stringify };
}

/** JSON.stringify of the parsed list, repeated for about `budgetMs` (at least 3 runs). */
function timeStringify(list: unknown, budgetMs: number): StringifyResult {
  const times: number[] = [];
  let bytes = 0;
  const started = performance.now();
  while (times.length < 3 || (performance.now() - started < budgetMs && times.length < 50)) {
    const t = performance.now();
    const s = JSON.stringify(list);
    times.push(performance.now() - t);
    bytes = s.length; // ASCII: characters = bytes
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  return { runs: times.length, p50ms: round(p50), minMs: round(times[0]!), mbPerSec: round(bytes / 1e6 / (p50 / 1000)) };
}
