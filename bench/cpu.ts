import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * CPU used by the server under test and by this process over a phase, so a
 * gap to the baseline can be read as "the server burns more CPU" versus
 * "both are limited by the shared cores or the client".
 */

/** Linux USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces), from field 3 on.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime, stime
  } catch {
    return Number.NaN; // not Linux, or the process is gone
  }
}

export interface CpuUse {
  /** CPU seconds per wall second × 100 (200 = both of 2 cores). */
  serverPct: number;
  clientPct: number;
}

/** CPU seconds of several processes together (NaN when any is unknown, or none is given). */
function totalCpuSecondsOf(pids: readonly number[]): number {
  return pids.length === 0 ? Number.NaN : pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
}

export class CpuMeter {
  private readonly server0: number;
  private readonly client0 = process.cpuUsage();
  private readonly t0 = performance.now();

  /** `serverPids`: the server's processes (several Capstan processes on one etcd count together). */
  constructor(private readonly serverPids: readonly number[]) {
    this.server0 = totalCpuSecondsOf(serverPids);
  }

  stop(): CpuUse {
    const wall = (performance.now() - this.t0) / 1000;
    const server = totalCpuSecondsOf(this.serverPids) - this.server0;
    const c = process.cpuUsage(this.client0);
    const client = (c.user + c.system) / 1e6;
    const pct = (s: number): number => (Number.isFinite(s) && wall > 0 ? Math.round((s / wall) * 100) : -1);
    return { serverPct: pct(server), clientPct: pct(client) };
  }
}
