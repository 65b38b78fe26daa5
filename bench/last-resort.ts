import { AsyncLocalStorage } from 'node:async_hooks';
import { ApiServer } from '../src/server/apiserver.js';
import { round } from './loop.js';

/**
 * What tying an escaped exception to its request costs (server/last-resort.ts:
 * an AsyncLocalStorage entered around each request's handling): GET and
 * create of a 1 KiB ConfigMap through an in-process server (memory store,
 * its in-memory loopback client, 8 in flight), CPU per request with no
 * AsyncLocalStorage and with one entered around each request, in alternating
 * short phases in one process (so load from elsewhere on the machine falls on
 * both alike). On Node 20 an enabled AsyncLocalStorage puts promise hooks on
 * every promise of the process (the client's too, here); from Node 24 it runs
 * on AsyncContextFrame and should cost next to nothing.
 */

export interface LastResortRow {
  operation: 'get' | 'create';
  offUs: number;
  onUs: number;
  /** Median of the per-round ratios on/off − 1, in %. */
  costPct: number;
}

const ROUNDS = 12;
const PER_PHASE = 400;

export async function lastResortSection(): Promise<LastResortRow[]> {
  const server = new ApiServer({ logger: { info: () => undefined, error: () => undefined, v: () => false }, config: { bindAddress: '127.0.0.1' } });
  await server.start();
  try {
    const client = server.client('bench-last-resort');
    const ref = { group: '', version: 'v1', resource: 'configmaps', namespace: 'default' };
    const data: Record<string, string> = {};
    for (let i = 0; i < 10; i++) data[`key-${i}`] = 'v'.repeat(90);
    await client.create(ref, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' }, data });
    let k = 0;
    const ops = {
      get: () => client.get({ ...ref, name: 'probe' }),
      create: () => client.create(ref, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `lr-${k++}` }, data }),
    };
    const scope = new AsyncLocalStorage<number>();
    const phase = async (op: () => Promise<unknown>, withScope: boolean, n: number): Promise<number> => {
      const before = process.cpuUsage();
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next++ < n) await (withScope ? scope.run(next, op) : op());
        }),
      );
      // Disabled again, the promise hooks go with it: the next phase without is clean.
      if (withScope) scope.disable();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / n;
    };
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    const rows: LastResortRow[] = [];
    for (const operation of ['get', 'create'] as const) {
      await phase(ops[operation], false, 200);
      await phase(ops[operation], true, 200);
      const off: number[] = [];
      const on: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        off.push(await phase(ops[operation], false, PER_PHASE));
        on.push(await phase(ops[operation], true, PER_PHASE));
      }
      const ratios = on.map((v, i) => v / off[i]!);
      rows.push({ operation, offUs: round(median(off), 1), onUs: round(median(on), 1), costPct: round(100 * (median(ratios) - 1), 1) });
    }
    return rows;
  } finally {
    await server.stop();
  }
}
