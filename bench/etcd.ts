import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { findEtcd, startEtcd } from '../test/helpers/etcd.js';
import { credentialsFrom, removeDir, startServer, tempDir, type TestServer } from '../test/helpers/server.js';
import type { BenchConfig } from './config.js';
import { CpuMeter } from './cpu.js';
import { etcdClientBaseline, type BaselinePhase, type EtcdClientBaseline } from './etcd-baseline.js';
import { capstanPhases } from './etcd-phases.js';
import type { Target } from './http-client.js';
import { round, runClosedLoop, type PhaseResult } from './loop.js';

/**
 * Section `etcd`: Capstan on the etcd3 backend with one and with three
 * processes on one etcd, beside the etcd client's own put/range throughput
 * against the same etcd in the same run. Each Capstan row carries its ratio
 * to the etcd client row doing the same store operation, i.e. how much of
 * the store's throughput survives Capstan's own work.
 */

/** Objects listed by the list phase, and keys in the baseline's range. */
export const ETCD_LIST_SIZE = 1000;

export interface EtcdRow extends PhaseResult {
  /** Capstan processes serving the phase; 0 for the etcd client's own rows. */
  processes: number;
  /** etcd's CPU over the phase (CPU seconds per wall second × 100; -1: unknown). */
  etcdCpuPct: number;
  /** Capstan rows: the etcd client row doing the same store operation, and req/s Capstan ÷ req/s of that row. */
  versus?: string;
  ratio?: number;
}

export type EtcdResult =
  | { kind: 'skipped'; reason: string }
  | {
      kind: 'measured';
      etcdVersion: string;
      listSize: number;
      /** Bytes of the baseline's value (the ConfigMap body the create phase sends) and of a ConfigMap as Capstan stores it in etcd. */
      valueBytes: number;
      storedValueBytes: number;
      /** Grouped by store operation: the etcd client row, then Capstan with 1 and 3 processes. */
      rows: EtcdRow[];
    };

type Log = (msg: string) => void;

export async function etcdSection(cfg: BenchConfig, log: Log): Promise<EtcdResult> {
  if (!findEtcd()) return { kind: 'skipped', reason: 'etcd is not installed (apt-get install -y etcd-server), so Capstan on etcd was not measured.' };
  const etcd = await startEtcd();
  const servers: TestServer[] = [];
  const dataDirs: string[] = [];
  let baseline: EtcdClientBaseline | undefined;
  try {
    const etcdPid = etcd.pid();
    const measure = async (processes: number, run: () => Promise<PhaseResult>): Promise<EtcdRow> => {
      const meter = new CpuMeter(etcdPid === undefined ? [] : [etcdPid]);
      const result = await run();
      return { ...result, processes, etcdCpuPct: meter.stop().serverPct };
    };
    const n = cfg.concurrency;

    log(`etcd: the etcd client's own put/range (${n} in flight)`);
    baseline = etcdClientBaseline(etcd.endpoint, ETCD_LIST_SIZE);
    await baseline.load(n);
    const runBaseline = (phase: BaselinePhase): Promise<EtcdRow> => measure(0, () => runClosedLoop(phase.name, n, cfg.phaseMs, [], phase.op));
    const put = await runBaseline(baseline.put);
    const rangeOne = await runBaseline(baseline.rangeOne);
    const rangeMany = await runBaseline(baseline.rangeMany);

    const start = async (certDir?: string): Promise<Target> => {
      const dataDir = tempDir('capstan-bench-etcd-');
      dataDirs.push(dataDir);
      const server = await startServer({ backend: 'etcd3', dataDir, args: ['--etcd-servers', etcd.endpoint, ...(certDir ? ['--cert-dir', certDir] : [])] });
      servers.push(server);
      return { url: server.url, creds: credentialsFrom(server.kubeconfig), pid: server.proc.pid };
    };

    log('etcd: one Capstan process');
    const first = await start();
    const one = await capstanPhases(cfg, [first], 'etcd-1p', ETCD_LIST_SIZE, (run) => measure(1, run));
    const storedValueBytes = await baseline.valueBytes(one.storedKey);

    log('etcd: three Capstan processes');
    // One CA and serving certificate for all three, as behind one load balancer.
    const pki = join(servers[0]!.dataDir, 'pki');
    const targets = [first, await start(pki), await start(pki)];
    const three = await capstanPhases(cfg, targets, 'etcd-3p', ETCD_LIST_SIZE, (run) => measure(3, run));

    return {
      kind: 'measured',
      etcdVersion: etcdVersion(),
      listSize: ETCD_LIST_SIZE,
      valueBytes: Buffer.byteLength(baseline.value),
      storedValueBytes,
      rows: [
        put,
        ...versus(put, one.create, three.create),
        ...versus(put, one.update, three.update),
        rangeOne,
        ...versus(rangeOne, one.get, three.get),
        rangeMany,
        ...versus(rangeMany, one.list, three.list),
      ],
    };
  } finally {
    baseline?.close();
    await Promise.all(servers.map(stopOrKill));
    for (const dir of dataDirs) removeDir(dir);
    await etcd.destroy();
  }
}

function versus(base: EtcdRow, ...rows: EtcdRow[]): EtcdRow[] {
  return rows.map((r) => ({ ...r, versus: base.name, ratio: base.rps > 0 ? round(r.rps / base.rps, 3) : 0 }));
}

/** SIGTERM (Capstan drains and exits), SIGKILL if that takes more than 15 s: cleanup must not hang the bench. */
async function stopOrKill(server: TestServer): Promise<void> {
  const timer = setTimeout(() => void server.kill(), 15_000);
  try {
    await server.stop();
  } finally {
    clearTimeout(timer);
  }
}

function etcdVersion(): string {
  const out = spawnSync(findEtcd()!, ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return /etcd Version: (\S+)/.exec(out)?.[1] ?? 'unknown';
}

