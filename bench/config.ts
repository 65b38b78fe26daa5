/**
 * What `npm run bench` measures, from the environment. The defaults are the
 * full run (a few minutes on 2 cores); BENCH_QUICK=1 shrinks every phase to a
 * smoke run of well under a minute, and each knob can still be set on its own.
 */

export type Section = 'core' | 'writes' | 'authn' | 'validation' | 'cel' | 'list' | 'watch' | 'stalled' | 'memory' | 'etcd' | 'rbac' | 'crd' | 'testing' | 'admission' | 'admission-policy' | 'encodings' | 'depth' | 'last-resort';
export const SECTIONS: readonly Section[] = ['core', 'writes', 'authn', 'validation', 'cel', 'list', 'watch', 'stalled', 'memory', 'etcd', 'rbac', 'crd', 'testing', 'admission', 'admission-policy', 'encodings', 'depth', 'last-resort'];

export interface BenchConfig {
  quick: boolean;
  backend: 'sqlite' | 'memory';
  sections: Set<Section>;
  /** core (and etcd): create/get/list phases with 32 clients. */
  concurrency: number;
  phaseMs: number;
  /** writes: clients (each on its own object) for the big-object write phases. */
  writeClients: number;
  /** list: sizes listed on the first server (beside the core phases), and clients per list phase. */
  listSizes: number[];
  listClients: number;
  listMs: number;
  /** A list phase runs until listMs has passed and at least this many lists were served. */
  listMinRequests: number;
  /** memory (and the big list, and restart): objects loaded into the second server. */
  storeObjects: number;
  /** watch: concurrent watchers, writes per second, seconds of writing. */
  watchers: number;
  watchRate: number;
  watchSeconds: number;
  /** stalled: watchers that stop reading, healthy ones beside them, updates per second, seconds of writing, ConfigMap payload bytes, idle seconds before the final RSS. */
  stalledWatchers: number;
  stalledHealthy: number;
  stalledRate: number;
  stalledSeconds: number;
  stalledPayload: number;
  stalledSettleSeconds: number;
}

function num(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}=${raw}: expected a non-negative number`);
  return n;
}

function list(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw.split(',').filter(Boolean).map((s) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${name}=${raw}: expected positive integers`);
    return n;
  });
}

export function loadConfig(): BenchConfig {
  const quick = process.env.BENCH_QUICK === '1';
  const sectionNames = (process.env.BENCH_SECTIONS ?? SECTIONS.join(',')).split(',').filter(Boolean);
  for (const s of sectionNames) if (!SECTIONS.includes(s as Section)) throw new Error(`BENCH_SECTIONS: unknown section "${s}" (known: ${SECTIONS.join(', ')})`);
  const backend = process.env.BENCH_BACKEND ?? 'sqlite';
  if (backend !== 'sqlite' && backend !== 'memory') throw new Error(`BENCH_BACKEND=${backend}: expected sqlite or memory`);
  return {
    quick,
    backend,
    sections: new Set(sectionNames as Section[]),
    concurrency: 32,
    phaseMs: num('BENCH_PHASE_MS', quick ? 1000 : 4000),
    writeClients: num('BENCH_WRITE_CLIENTS', 4),
    listSizes: list('BENCH_LIST_SIZES', quick ? [1000] : [10_000]),
    // A few clients, not 32: 32 concurrent 50 MB responses would measure queueing, not serving.
    listClients: num('BENCH_LIST_CLIENTS', 4),
    listMs: num('BENCH_LIST_MS', quick ? 1000 : 5000),
    listMinRequests: num('BENCH_LIST_MIN_REQUESTS', quick ? 4 : 12),
    storeObjects: num('BENCH_STORE_OBJECTS', quick ? 5000 : 50_000),
    watchers: num('BENCH_WATCHERS', quick ? 100 : 1000),
    watchRate: num('BENCH_WATCH_RATE', quick ? 20 : 100),
    watchSeconds: num('BENCH_WATCH_SECONDS', quick ? 2 : 10),
    stalledWatchers: num('BENCH_STALLED_WATCHERS', quick ? 200 : 1000),
    stalledHealthy: num('BENCH_STALLED_HEALTHY', 10),
    stalledRate: num('BENCH_STALLED_RATE', 50),
    stalledSeconds: num('BENCH_STALLED_SECONDS', quick ? 10 : 120),
    stalledPayload: num('BENCH_STALLED_PAYLOAD', 4000),
    stalledSettleSeconds: num('BENCH_STALLED_SETTLE_SECONDS', quick ? 12 : 15),
  };
}
