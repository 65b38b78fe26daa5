/**
 * Watchers that stop reading, end to end against the real server: each
 * watcher's queue is bounded and, as kube's cacher does, one that cannot take
 * events within the dispatch budget is closed; all watchers together hold at
 * most --max-watch-buffered-bytes, the furthest behind cut first. Cut streams
 * end cleanly (chunked terminator), healthy watchers get every event, a watch
 * resumed from a cut stream's last resourceVersion has no gap, and the
 * server's memory stays within a bound derived from those limits.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { eventually, http, removeDir, startServer, type TestServer } from '../helpers/server.js';
import { openStalledWatch, openWatch, type StreamEvent } from '../helpers/watch.js';

const MiB = 1024 * 1024;

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** The `i` of each ConfigMap event (the writes' sequence numbers). */
const seqs = (events: StreamEvent[]): number[] => events.filter((e) => e.type === 'MODIFIED').map((e) => Number(e.object.data.i));

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, k) => from + k);

/** Timeouts far off, unique per watch, so the server's log line of a cut names the watch. */
const watchTimeout = (k: number): number => 3600 + k;

interface Scenario {
  server: TestServer;
  path: string;
  agent: Agent;
  /** The object's resourceVersion before the watches start. */
  rv: string;
}

async function setUp(server: TestServer, payloadBytes: number): Promise<Scenario> {
  const path = '/api/v1/namespaces/default/configmaps';
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key });
  const created = await http(server, 'POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { i: '0', payload: 'x'.repeat(payloadBytes) } }, agent });
  assert.equal(created.status, 201);
  return { server, path, agent, rv: created.json.metadata.resourceVersion };
}

async function put(s: Scenario, i: number, payloadBytes: number): Promise<string> {
  const r = await http(s.server, 'PUT', `${s.path}/big`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { i: String(i), payload: 'x'.repeat(payloadBytes) } }, agent: s.agent });
  assert.equal(r.status, 200);
  return r.json.metadata.resourceVersion as string;
}

/** The watches the server's log says it cut (by their unique timeoutSeconds), and why. */
function cutWatches(server: TestServer): Map<number, string> {
  const out = new Map<number, string>();
  for (const m of server.output().matchAll(/Forcing configmaps watcher close(: watchers hold more| due to unresponsiveness)[^\n]*timeoutSeconds=(\d+)/g)) out.set(Number(m[2]), m[1]!.includes('unresponsiveness') ? 'unresponsive' : 'over budget');
  return out;
}

interface StalledRun {
  stalled: Array<ReturnType<typeof openStalledWatch>>;
  healthy: Array<ReturnType<typeof openWatch>>;
  writes: number;
  lastRv: string;
  peakRss: number;
  rssBefore: number;
  cuts: Map<number, string>;
}

/**
 * Opens `stalledCount` stalled and `healthyCount` healthy watches, then writes
 * until the server has cut every stalled one (at most maxWrites), resuming
 * each stalled client as soon as the log names it, so it can read its clean end.
 */
async function runStalled(s: Scenario, stalledCount: number, healthyCount: number, payloadBytes: number, maxWrites: number, parseFirst: number): Promise<StalledRun> {
  const watchPath = (k: number): string => `${s.path}?watch=1&resourceVersion=${s.rv}&timeoutSeconds=${watchTimeout(k)}`;
  const healthy = Array.from({ length: healthyCount }, (_, k) => openWatch(s.server, watchPath(stalledCount + k)));
  const stalled: StalledRun['stalled'] = [];
  for (let k = 0; k < stalledCount; k++) stalled.push(openStalledWatch(s.server, watchPath(k), k < parseFirst));
  for (const w of [...healthy.map((h) => h.status), ...stalled.map((st) => st.opened)]) assert.equal(await w, 200);

  const pid = s.server.proc.pid!;
  const rssBefore = rssBytes(pid);
  let peakRss = rssBefore;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssBytes(pid))), 100);
  const resumed = new Set<number>();
  let cuts = new Map<number, string>();
  let writes = 0;
  let lastRv = s.rv;
  try {
    while (writes < maxWrites) {
      lastRv = await put(s, ++writes, payloadBytes);
      cuts = cutWatches(s.server);
      for (const k of cuts.keys()) {
        const i = k - watchTimeout(0);
        if (i < stalledCount && !resumed.has(i)) {
          resumed.add(i);
          stalled[i]!.resume();
        }
      }
      if (resumed.size === stalledCount) break;
    }
    // A few writes after the last cut: resumed watches must reach them too.
    for (let extra = 0; extra < 3; extra++) lastRv = await put(s, ++writes, payloadBytes);
  } finally {
    clearInterval(sampler);
  }
  peakRss = Math.max(peakRss, rssBytes(pid));
  return { stalled, healthy, writes, lastRv, peakRss, rssBefore, cuts: cutWatches(s.server) };
}

async function assertHealthyComplete(run: StalledRun): Promise<void> {
  for (const h of run.healthy) {
    await h.waitFor((events) => seqs(events).includes(run.writes), 60_000);
    assert.deepEqual(seqs(h.events), range(1, run.writes), 'a healthy watcher gets every event, once, in order');
    h.close();
  }
}

/** A cut stream resumed from its last resourceVersion continues with no gap and no repeat. */
async function assertResumeWithoutGap(s: Scenario, stalled: ReturnType<typeof openStalledWatch>, writes: number): Promise<void> {
  const got = seqs(stalled.events);
  const last = stalled.events.at(-1);
  const from = last ? (last.object.metadata.resourceVersion as string) : s.rv;
  const resumed = openWatch(s.server, `${s.path}?watch=1&resourceVersion=${from}`);
  await resumed.waitFor((events) => seqs(events).includes(writes), 60_000);
  resumed.close();
  assert.deepEqual([...got, ...seqs(resumed.events)], range(1, writes), 'the cut stream and its resumption together hold every event once');
}

describe('stalled watchers', () => {
  describe('a watcher that stops reading is closed within kube\'s dispatch budget', () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ backend: 'memory', args: ['--v=1'] });
    });
    after(async () => {
      await server?.stop();
      removeDir(server?.dataDir ?? '');
    });

    it('ends each stalled stream cleanly once its queue is full, keeps healthy watchers whole, and a resumed watch has no gap', async () => {
      const payload = 256 * 1024;
      const s = await setUp(server, payload);
      const run = await runStalled(s, 3, 1, payload, 400, 3);
      assert.equal(run.stalled.length, 3);
      for (let k = 0; k < 3; k++) assert.equal(run.cuts.get(watchTimeout(k)), 'unresponsive', `stalled watch ${k} is closed as unresponsive`);
      assert.equal(run.cuts.has(watchTimeout(3)), false, 'the healthy watcher is never cut');
      for (const st of run.stalled) assert.equal(await st.ended, 'complete', 'a cut stream ends with the chunked terminator');
      await assertHealthyComplete(run);
      for (const st of run.stalled) await assertResumeWithoutGap(s, st, run.writes);
      s.agent.destroy();
    });
  });

  describe('all watchers together hold at most --max-watch-buffered-bytes', () => {
    const limit = 16 * MiB;
    let server: TestServer;
    before(async () => {
      server = await startServer({ backend: 'memory', args: ['--v=1', `--max-watch-buffered-bytes=${limit}`] });
    });
    after(async () => {
      await server?.stop();
      removeDir(server?.dataDir ?? '');
    });

    it('cuts the watchers furthest behind, cleanly, keeps memory bounded and healthy watchers whole, without a MaxListeners warning', async () => {
      const payload = 64 * 1024;
      const s = await setUp(server, payload);
      const stalledCount = 200;
      const run = await runStalled(s, stalledCount, 3, payload, 600, 2);
      for (let k = 0; k < stalledCount; k++) assert.ok(run.cuts.has(watchTimeout(k)), `stalled watch ${k} is closed`);
      for (let k = 0; k < 3; k++) assert.equal(run.cuts.has(watchTimeout(stalledCount + k)), false, 'healthy watchers are never cut');
      const outcomes = await Promise.all(run.stalled.map((st) => st.ended));
      assert.deepEqual(outcomes.filter((o) => o !== 'complete'), [], 'every cut stream ends with the chunked terminator');
      await assertHealthyComplete(run);
      for (const st of run.stalled.slice(0, 2)) await assertResumeWithoutGap(s, st, run.writes);

      // What the server may hold beyond its idle state: the watch cache's
      // history of these writes (the parsed object and its encodings, a few
      // copies each), the watchers' buffers (the limit, overshot by at most
      // one dispatch before the cut) and garbage not yet collected, whose
      // amount depends on when V8 collects (CI saw 12 MiB more than a quiet
      // machine). Buffering per watcher without a global bound holds every
      // write for each stalled watcher: 200 × writes × 64 KiB, over 2 GiB here.
      const history = run.writes * payload * 4;
      const bound = run.rssBefore + history + 4 * limit + 128 * MiB;
      assert.ok(run.peakRss < bound, `peak RSS ${Math.round(run.peakRss / MiB)} MiB stays under ${Math.round(bound / MiB)} MiB (${Math.round(run.rssBefore / MiB)} MiB before writing, ${run.writes} writes)`);
      assert.doesNotMatch(server.output(), /MaxListenersExceededWarning/);
      const metrics = (await http(server, 'GET', '/metrics')).text;
      assert.equal(Number(/^apiserver_terminated_watchers_total\{group="",resource="configmaps"\} (\d+)$/m.exec(metrics)?.[1]), run.cuts.size, 'each cut is counted in kube\'s metric');
      assert.match(metrics, /^capstan_watch_buffered_bytes \d+$/m);
      s.agent.destroy();
    });
  });
});
