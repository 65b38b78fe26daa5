import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { credentialsFrom, removeDir, startServer, tempDir } from '../test/helpers/server.js';
import { Encoder, decode as cborxDecode } from 'cbor-x';
import { decodeCbor, wellFormedEnd } from '../src/codec/cbor/decode.js';
import { encodeCbor } from '../src/codec/cbor/encode.js';
import type { BenchConfig } from './config.js';
import { configMap, createMany, createNamespace } from './fixtures.js';
import { closedLoop, makeAgent, oneRequest, type Target } from './http-client.js';
import { round, type PhaseResult } from './loop.js';

/**
 * The same ConfigMaps served as JSON, protobuf and CBOR (gate
 * CBORServingAndStorage on) by one server in one run: get and list
 * throughput, bytes on the wire per answer, and a watch fan-out per encoding
 * (events delivered per second, bytes per event). Each watcher splits its
 * stream by the encoding's framing: JSON lines, protobuf length prefixes,
 * CBOR data items (RFC 8742 sequence).
 */

const ENCODINGS = [
  { name: 'JSON', accept: 'application/json' },
  { name: 'protobuf', accept: 'application/vnd.kubernetes.protobuf' },
  { name: 'CBOR', accept: 'application/cbor' },
] as const;

type EncodingName = (typeof ENCODINGS)[number]['name'];

export interface EncodingWatch {
  encoding: EncodingName;
  watchers: number;
  writes: number;
  delivered: number;
  seconds: number;
  eventsPerSec: number;
  bytesPerEvent: number;
}

/** In-process codec speed on one Pod-like object: ours beside cbor-x (the library measured for it) and JSON. */
export interface CodecRow {
  codec: string;
  bytes: number;
  encodesPerSec: number;
  decodesPerSec: number;
}

export interface EncodingsResult {
  codecs: CodecRow[];
  listSize: number;
  bytes: Array<{ encoding: EncodingName; get: number; list: number }>;
  phases: PhaseResult[];
  watch: EncodingWatch[];
}

const NS = 'bench-encodings';

const POD = {
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name: 'web-0', namespace: 'default', uid: '0f7c0a7e-1c1a-4e7b-9c59-2b7e0e2c1111', resourceVersion: '12345', creationTimestamp: '2026-01-01T00:00:00Z', labels: { app: 'web', tier: 'fe' }, annotations: { note: 'b'.repeat(40) } },
  spec: {
    containers: [{ name: 'c', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: { limits: { cpu: '500m', memory: '128Mi' } }, env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    schedulerName: 'default-scheduler',
  },
  status: { phase: 'Pending', qosClass: 'Burstable' },
};

/** Operations per second of `fn`: best of three 300 ms runs. */
function opsPerSec(fn: () => unknown): number {
  let best = 0;
  for (let run = 0; run < 3; run++) {
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < 300) {
      for (let i = 0; i < 100; i++) fn();
      n += 100;
    }
    best = Math.max(best, n / ((performance.now() - start) / 1000));
  }
  return Math.round(best);
}

function codecRows(): CodecRow[] {
  const cborx = new Encoder({ useRecords: false, variableMapSize: true });
  const ours = encodeCbor(POD);
  const theirs = cborx.encode(POD);
  const json = Buffer.from(JSON.stringify(POD));
  return [
    { codec: 'CBOR, src/codec/cbor (kube form, decode with kube checks)', bytes: ours.length, encodesPerSec: opsPerSec(() => encodeCbor(POD)), decodesPerSec: opsPerSec(() => decodeCbor(ours, 1000)) },
    { codec: 'CBOR, cbor-x 1.6.9 (useRecords:false, variableMapSize:true; no checks)', bytes: theirs.length, encodesPerSec: opsPerSec(() => cborx.encode(POD)), decodesPerSec: opsPerSec(() => cborxDecode(theirs)) },
    { codec: 'JSON.stringify / JSON.parse', bytes: json.length, encodesPerSec: opsPerSec(() => Buffer.from(JSON.stringify(POD))), decodesPerSec: opsPerSec(() => JSON.parse(json.toString('utf8'))) },
  ];
}

/** Complete events in `buf` (from `off`) for the encoding's framing; returns the offset after the last one. */
function countEvents(encoding: EncodingName, buf: Buffer, off: number): { events: number; off: number } {
  let events = 0;
  for (;;) {
    if (encoding === 'JSON') {
      const nl = buf.indexOf(0x0a, off);
      if (nl < 0) return { events, off };
      off = nl + 1;
    } else if (encoding === 'protobuf') {
      if (buf.length - off < 4) return { events, off };
      const len = buf.readUInt32BE(off);
      if (buf.length - off - 4 < len) return { events, off };
      off += 4 + len;
    } else {
      if (off >= buf.length) return { events, off };
      try {
        off = wellFormedEnd(buf, off, 1000);
      } catch {
        return { events, off }; // the rest of the item has not arrived
      }
    }
    events++;
  }
}

/** `watchers` watches of the namespace in one encoding, `writes` updates; until every watcher has every event. */
async function watchFanout(target: Target, encoding: (typeof ENCODINGS)[number], watchers: number, writes: number): Promise<EncodingWatch> {
  const name = `watched-${encoding.name.toLowerCase()}`;
  const path = `/api/v1/namespaces/${NS}-watch/configmaps?watch=1&fieldSelector=metadata.name%3D${name}`;
  const u = new URL(path, target.url);
  let bytes = 0;
  let delivered = 0;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const reqs = await Promise.all(
    Array.from({ length: watchers }, () =>
      new Promise<ReturnType<typeof httpsRequest>>((resolve, reject) => {
        const req = httpsRequest(
          { method: 'GET', hostname: u.hostname, port: u.port, path: u.pathname + u.search, headers: { Accept: encoding.accept }, ca: target.creds.ca, cert: target.creds.cert, key: target.creds.key, agent: false },
          (res) => {
            let buf: Buffer = Buffer.alloc(0);
            let seen = 0;
            res.on('data', (d: Buffer) => {
              bytes += d.length;
              buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
              const c = countEvents(encoding.name, buf, 0);
              buf = buf.subarray(c.off);
              seen += c.events;
              delivered += c.events;
              if (seen === writes + 1 && delivered === watchers * (writes + 1)) done();
            });
            resolve(req);
          },
        );
        req.on('error', reject);
        req.end();
      }),
    ),
  );
  const agent = makeAgent(target, 4);
  const started = performance.now();
  const base = `/api/v1/namespaces/${NS}-watch/configmaps`;
  await oneRequest(agent, target, { method: 'POST', path: base, body: configMap(name) });
  for (let i = 0; i < writes; i++) {
    await oneRequest(agent, target, { method: 'PUT', path: `${base}/${name}`, body: configMap(name, { seq: String(i) }) });
  }
  await Promise.race([all, new Promise((r) => setTimeout(r, 60_000))]);
  const seconds = (performance.now() - started) / 1000;
  for (const r of reqs) r.destroy();
  agent.destroy();
  return { encoding: encoding.name, watchers, writes: writes + 1, delivered, seconds: round(seconds), eventsPerSec: Math.round(delivered / seconds), bytesPerEvent: Math.round(bytes / Math.max(1, delivered)) };
}

export async function encodingsSection(cfg: BenchConfig, log: (msg: string) => void): Promise<EncodingsResult> {
  log('encodings: codecs in-process');
  const codecs = codecRows();
  const dataDir = tempDir('capstan-bench-encodings-');
  const server = await startServer({ backend: cfg.backend, dataDir, args: ['--feature-gates=CBORServingAndStorage=true'] });
  const target: Target = { url: server.url, creds: credentialsFrom(server.kubeconfig), pid: server.proc.pid };
  const listSize = cfg.quick ? 500 : 5000;
  const watchers = cfg.quick ? 20 : 200;
  const writes = cfg.quick ? 50 : 200;
  try {
    await createNamespace(target, NS);
    await createNamespace(target, `${NS}-watch`);
    await createMany(target, listSize, (i) => ({ path: `/api/v1/namespaces/${NS}/configmaps`, body: configMap(`cm-${i}`) }), 32);
    const getPath = `/api/v1/namespaces/${NS}/configmaps/cm-0`;
    const listPath = `/api/v1/namespaces/${NS}/configmaps`;
    const bytes: EncodingsResult['bytes'] = [];
    const phases: PhaseResult[] = [];
    for (const e of ENCODINGS) {
      const t: Target = { ...target, headers: { Accept: e.accept } };
      const agent = makeAgent(t, 1);
      const get = await oneRequest(agent, t, { method: 'GET', path: getPath });
      const list = await oneRequest(agent, t, { method: 'GET', path: listPath });
      agent.destroy();
      if (get.status !== 200 || list.status !== 200) throw new Error(`${e.name}: get ${get.status}, list ${list.status}`);
      bytes.push({ encoding: e.name, get: get.bytes, list: list.bytes });
      // Unrecorded warm-up: the cache's first encoding of each object in this encoding.
      await closedLoop('warm-up', t, cfg.listClients, 500, () => ({ method: 'GET', path: listPath }));
    }
    for (const e of ENCODINGS) {
      const t: Target = { ...target, headers: { Accept: e.accept } };
      log(`encodings: ${e.name} get and list`);
      phases.push(await closedLoop(`get ConfigMap, ${e.name}`, t, cfg.concurrency, cfg.phaseMs, () => ({ method: 'GET', path: getPath })));
      phases.push(await closedLoop(`list ${listSize.toLocaleString('en-US')} ConfigMaps, ${e.name}`, t, cfg.listClients, cfg.listMs, () => ({ method: 'GET', path: listPath }), { minRequests: cfg.listMinRequests }));
    }
    const watch: EncodingWatch[] = [];
    for (const e of ENCODINGS) {
      log(`encodings: ${e.name} watch, ${watchers} watchers`);
      watch.push(await watchFanout(target, e, watchers, writes));
    }
    return { codecs, listSize, bytes, phases, watch };
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
}

/** The section's markdown (report.ts puts it in the report). */
export function encodingsMarkdown(r: EncodingsResult, cpu: (p: PhaseResult) => string): string[] {
  return [
    `## Encodings: JSON, protobuf and CBOR on one server (CBORServingAndStorage on; ${r.listSize.toLocaleString('en-US')} ConfigMaps of ~1 KiB)`,
    '',
    '| codec, one Pod in-process (best of 3 × 300 ms) | bytes | encodes/s | decodes/s |',
    '|---|---:|---:|---:|',
    ...r.codecs.map((c) => `| ${c.codec} | ${c.bytes} | ${c.encodesPerSec.toLocaleString('en-US')} | ${c.decodesPerSec.toLocaleString('en-US')} |`),
    '',
    '| encoding | get bytes | list bytes |',
    '|---|---:|---:|',
    ...r.bytes.map((b) => `| ${b.encoding} | ${b.get.toLocaleString('en-US')} | ${b.list.toLocaleString('en-US')} |`),
    '',
    '| phase | clients | requests | errors | req/s | p50 ms | p99 ms | MB/s | server / client CPU % |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.phases.map((p) => `| ${p.name} | ${p.clients} | ${p.requests} | ${p.errors} | ${p.rps} | ${p.p50ms} | ${p.p99ms} | ${p.mbPerSec} | ${cpu(p)} |`),
    '',
    '| watch | watchers | events per watcher | delivered | seconds | events/s delivered | bytes per event |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...r.watch.map((w) => `| ${w.encoding} | ${w.watchers} | ${w.writes} | ${w.delivered.toLocaleString('en-US')} | ${w.seconds} | ${w.eventsPerSec.toLocaleString('en-US')} | ${w.bytesPerEvent} |`),
    '',
  ];
}
