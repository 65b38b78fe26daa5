import fc from 'fast-check';
import { Agent, request, type RequestOptions } from 'node:https';
import { load } from 'js-yaml';
import { ApiServer } from '../../src/server/apiserver.js';
import type { Logger } from '../../src/machinery/logger.js';
import { PANIC_MESSAGE } from '../../src/patch/errors.js';
import { RESOURCE_TYPES, SCRATCH_NAMESPACE, SEEDED_NAMES, SEEDED_NAMESPACE, requestArb, toJson, type FuzzRequest } from './generators.js';

/**
 * Runs generated requests against an in-process server, IN_FLIGHT at a time,
 * and checks what any client may rely on: an answer within LATENCY_BOUND_MS,
 * no 5xx but kube's own, every error a well-formed Status in the negotiated
 * encoding, memory bounded, and seeded objects unchanged. fast-check drives
 * generation (deterministic per seed) and shrinks a failing batch.
 */

export const IN_FLIGHT = 4;
export const LATENCY_BOUND_MS = 10_000;
export const RSS_BOUND_BYTES = 1.5 * 1024 ** 3;

export interface FuzzOptions {
  cases: number;
  seed: number;
  /** Called now and then with the cases run so far. */
  progress?: (cases: number) => void;
}

export interface FuzzSummary {
  cases: number;
  seed: number;
  byClass: Record<string, number>;
  allowed5xx: number;
  maxLatencyMs: number;
  peakRssBytes: number;
  serverErrorsLogged: number;
  elapsedMs: number;
}

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
  latencyMs: number;
}

interface Client {
  url: string;
  agent: Agent;
  tls: Pick<RequestOptions, 'ca' | 'cert' | 'key'>;
}

function send(client: Client, req: FuzzRequest): Promise<Answer> {
  const started = performance.now();
  const u = new URL(client.url);
  const headers: Record<string, string> = { ...req.headers };
  if (req.body !== undefined && !req.chunked) headers['Content-Length'] = String(Buffer.byteLength(req.body));
  return new Promise((resolve, reject) => {
    const r = request(
      // A body without Content-Length goes unframed where Node's client does not chunk (DELETE, GET):
      // its bytes then read as the next request on that connection, which the server answers and
      // closes, as Go's does. Such a request gets a connection of its own so the pool never reuses it.
      { method: req.method, hostname: u.hostname, port: u.port, path: req.path, headers, agent: req.chunked ? false : client.agent, ...client.tls },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks), latencyMs: performance.now() - started }),
        );
        res.on('error', reject);
      },
    );
    r.setTimeout(LATENCY_BOUND_MS, () => r.destroy(new Error(`no answer within ${LATENCY_BOUND_MS} ms`)));
    r.on('error', reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

// ---- Status checks ----

interface StatusView {
  kind?: unknown;
  apiVersion?: unknown;
  status?: unknown;
  code?: unknown;
  reason?: unknown;
  message?: unknown;
}

function readVarint(b: Buffer, at: { i: number }): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (at.i >= b.length) throw new Error('truncated varint');
    const byte = b[at.i++] as number;
    result += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7;
  }
}

/** Fields of one protobuf message: number → last value (varint as number, length-delimited as Buffer). */
function protoFields(b: Buffer): Map<number, number | Buffer> {
  const out = new Map<number, number | Buffer>();
  const at = { i: 0 };
  while (at.i < b.length) {
    const key = readVarint(b, at);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) out.set(field, readVarint(b, at));
    else if (wire === 2) {
      const len = readVarint(b, at);
      out.set(field, b.subarray(at.i, at.i + len));
      at.i += len;
    } else if (wire === 1) at.i += 8;
    else if (wire === 5) at.i += 4;
    else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** runtime.Unknown envelope {typeMeta{apiVersion, kind}, raw=Status{status=2, message=3, reason=4, code=6}}. */
function statusFromProtobuf(body: Buffer): StatusView {
  if (!body.subarray(0, 4).equals(PROTOBUF_MAGIC)) throw new Error('protobuf body without the k8s envelope');
  const env = protoFields(body.subarray(4));
  const typeMeta = protoFields((env.get(1) as Buffer | undefined) ?? Buffer.alloc(0));
  const raw = protoFields((env.get(2) as Buffer | undefined) ?? Buffer.alloc(0));
  const str = (v: number | Buffer | undefined): string | undefined => (Buffer.isBuffer(v) ? v.toString('utf8') : undefined);
  return {
    apiVersion: str(typeMeta.get(1)),
    kind: str(typeMeta.get(2)),
    status: str(raw.get(2)),
    message: str(raw.get(3)),
    reason: str(raw.get(4)),
    code: raw.get(6),
  };
}

function parseStatus(a: Answer): StatusView {
  const ct = a.contentType.split(';')[0]!.trim();
  if (ct === 'application/json') return JSON.parse(a.body.toString('utf8')) as StatusView;
  if (ct === 'application/yaml') return load(a.body.toString('utf8')) as StatusView;
  if (ct === 'application/vnd.kubernetes.protobuf') return statusFromProtobuf(a.body);
  throw new Error(`error body of content type ${JSON.stringify(a.contentType)}`);
}

/**
 * 5xx answers kube-apiserver 1.36 gives too (checked against upstream):
 * - 504 Timeout "Too large resource version" (the cacher's wait for a future revision);
 * - 500 without a reason for errors its patch engines return untyped
 *   (strategicpatch's "unknown patch type", "does not contain declared merge key", ...,
 *   and the field manager's "failed to create typed patch object"), which
 *   responsewriters.ErrorToAPIStatus turns into a reason-less 500;
 * - 500 where the patch libraries panic (kube's panic recovery; Capstan
 *   answers it as a Status with kube's text, see src/patch/errors.ts).
 */
const UNTYPED_PATCH_ERRORS = [
  /^unknown patch type: /,
  /^map: .* does not contain declared merge key: /s,
  /^merging lists cannot yet be specified in the patch$/,
  /^cannot merge lists without merge key for /,
  /^expected a (map\[string\]interface \{\}|\[\]interface \{\}), but received a /,
  /^no elements in any of the given slices$/,
  /^list element types are not identical: /,
  /^The order in patch list:/,
  /^value for key \d+ is not a map$/,
  /^unexpected patch strategy: /,
  /^failed to create typed patch object \(/,
  /^failed to create typed live object \(/,
];

function isKube5xx(req: FuzzRequest, a: Answer, s: StatusView): boolean {
  if (a.status === 504) return s.reason === 'Timeout' && typeof s.message === 'string' && s.message.startsWith('Timeout: Too large resource version');
  if (a.status !== 500 || s.reason !== undefined && s.reason !== '') return false;
  const ct = req.headers['Content-Type'] ?? '';
  if (req.method !== 'PATCH' || typeof s.message !== 'string') return false;
  // evanphx/json-patch panics where upstream does (a nil list element under "test").
  if (ct.startsWith('application/json-patch+json')) return s.message === PANIC_MESSAGE;
  if (!/^application\/(strategic-merge-patch\+json|apply-patch\+yaml)/.test(ct)) return false;
  return s.message === PANIC_MESSAGE || UNTYPED_PATCH_ERRORS.some((re) => re.test(s.message as string));
}

export class FuzzFailure extends Error {}

/** Throws FuzzFailure describing what is wrong with an answer; returns whether it was one of kube's 5xx. */
function checkAnswer(req: FuzzRequest, a: Answer): boolean {
  const fail = (why: string): never => {
    throw new FuzzFailure(`${why}\n  answer: ${a.status} ${a.contentType} ${a.body.subarray(0, 600).toString('utf8')}`);
  };
  if (a.latencyMs > LATENCY_BOUND_MS) fail(`answered after ${Math.round(a.latencyMs)} ms`);
  if (a.status < 400) return false;
  let s: StatusView;
  try {
    s = parseStatus(a);
  } catch (err) {
    return fail(`error body is not a Status: ${(err as Error).message}`);
  }
  if (s.kind !== 'Status' || s.apiVersion !== 'v1' || s.status !== 'Failure') fail('error body is not a v1 Status with status Failure');
  if (s.code !== a.status) fail(`Status code ${String(s.code)} differs from HTTP status ${a.status}`);
  if (a.status >= 500) {
    if (isKube5xx(req, a, s)) return true;
    fail('5xx where kube-apiserver answers otherwise');
  }
  if (typeof s.reason !== 'string' || s.reason === '') fail('4xx Status without a reason');
  return false;
}

// ---- the run ----

function quietLogger(counter: { errors: number }): Logger {
  return { info: () => undefined, error: () => void counter.errors++, v: () => false };
}

async function must(client: Client, req: FuzzRequest, expect: number[]): Promise<Answer> {
  const a = await send(client, req);
  if (!expect.includes(a.status)) throw new Error(`setup ${req.method} ${req.path}: ${a.status} ${a.body.toString('utf8')}`);
  return a;
}

function seededPaths(): string[] {
  const paths: string[] = [];
  for (const t of RESOURCE_TYPES) {
    for (const n of SEEDED_NAMES) {
      paths.push(t.namespaced ? `${t.groupVersion}/namespaces/${SEEDED_NAMESPACE}/${t.resource}/${n}` : `${t.groupVersion}/${t.resource}/fuzz-${n}`);
    }
  }
  return paths;
}

async function seed(client: Client): Promise<Map<string, string>> {
  const json = { 'Content-Type': 'application/json' };
  for (const ns of [SEEDED_NAMESPACE, SCRATCH_NAMESPACE]) {
    await must(client, { method: 'POST', path: '/api/v1/namespaces', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), seeded: false }, [201]);
  }
  for (const t of RESOURCE_TYPES) {
    for (const n of SEEDED_NAMES) {
      const name = t.namespaced ? n : `fuzz-${n}`;
      const path = t.namespaced ? `${t.groupVersion}/namespaces/${SEEDED_NAMESPACE}/${t.resource}` : `${t.groupVersion}/${t.resource}`;
      await must(client, { method: 'POST', path, headers: json, body: toJson(t.template(name)), seeded: false }, [201]);
    }
  }
  return snapshot(client);
}

async function snapshot(client: Client): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const p of seededPaths()) out.set(p, (await must(client, { method: 'GET', path: p, headers: {}, seeded: true }, [200])).body.toString('utf8'));
  return out;
}

export function describeRequest(r: FuzzRequest): string {
  const body = r.body === undefined ? '' : `\n  body (${r.body.length} bytes): ${r.body.length > 2000 ? r.body.slice(0, 2000) + '…' : r.body}`;
  return `${r.method} ${r.path}\n  headers: ${JSON.stringify(r.headers)}${body}`;
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzSummary> {
  const logged = { errors: 0 };
  const server = new ApiServer({ logger: quietLogger(logged) });
  await server.start();
  const kc = server.adminKubeconfig();
  const tls = { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem };
  const client: Client = { url: server.url, agent: new Agent({ keepAlive: true, maxSockets: IN_FLIGHT, ...tls }), tls };
  const summary: FuzzSummary = { cases: 0, seed: opts.seed, byClass: {}, allowed5xx: 0, maxLatencyMs: 0, peakRssBytes: process.memoryUsage.rss(), serverErrorsLogged: 0, elapsedMs: 0 };
  const started = performance.now();
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown): void => void uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  try {
    const before = await seed(client);
    const runOne = async (req: FuzzRequest): Promise<void> => {
      let a: Answer;
      try {
        a = await send(client, req);
      } catch (err) {
        throw new FuzzFailure(`no answer: ${(err as Error).message}\n  request: ${req.method} ${req.path}${req.chunked ? ' (chunked)' : ''}\n  headers: ${JSON.stringify(req.headers)}\n  body (${req.body === undefined ? 0 : Buffer.byteLength(req.body)} bytes): ${req.body?.slice(0, 200) ?? ''}`);
      }
      summary.cases++;
      if (process.env.FUZZ_TRACE === '1') process.stdout.write(`${a.status} ${req.method} ${req.path} ${req.body?.slice(0, 200) ?? ''}\n`);
      const cls = `${Math.floor(a.status / 100)}xx`;
      summary.byClass[cls] = (summary.byClass[cls] ?? 0) + 1;
      summary.maxLatencyMs = Math.max(summary.maxLatencyMs, a.latencyMs);
      try {
        if (checkAnswer(req, a)) summary.allowed5xx++;
      } catch (err) {
        if (err instanceof FuzzFailure) throw new FuzzFailure(`${err.message}\n  request: ${describeRequest(req)}`);
        throw err;
      }
    };
    let batches = 0;
    const property = fc.asyncProperty(fc.array(requestArb, { minLength: IN_FLIGHT, maxLength: IN_FLIGHT }), async (batch) => {
      const seen = uncaught.length;
      await Promise.all(batch.map(runOne));
      // Without the handlers above such an error would have ended the process.
      if (uncaught.length > seen) throw new FuzzFailure(`uncaught in the server process (it would have exited): ${String(uncaught[seen])}`);
      if (++batches % 25 === 0) {
        const rss = process.memoryUsage.rss();
        summary.peakRssBytes = Math.max(summary.peakRssBytes, rss);
        if (rss > RSS_BOUND_BYTES) throw new FuzzFailure(`RSS ${rss} bytes exceeds ${RSS_BOUND_BYTES}`);
        opts.progress?.(summary.cases);
      }
    });
    // fc.check rather than fc.assert: fast-check's own report stringifies the failing values
    // (recursively, and a generated body can be any size); ours prints each request as text.
    const details = await fc.check(property, { seed: opts.seed, numRuns: Math.ceil(opts.cases / IN_FLIGHT) });
    if (details.failed) throw new FuzzFailure(describeRun(details));
    opts.progress?.(summary.cases);
    const after = await snapshot(client);
    for (const [path, body] of before) {
      if (after.get(path) !== body) throw new FuzzFailure(`seeded object changed: ${path}\n  before: ${body}\n  after:  ${after.get(path)}`);
    }
  } finally {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    summary.peakRssBytes = Math.max(summary.peakRssBytes, process.memoryUsage.rss());
    summary.elapsedMs = performance.now() - started;
    summary.serverErrorsLogged = logged.errors;
    client.agent.destroy();
    await server.stop();
  }
  return summary;
}

/** A failed run: how to replay it, the shrunk batch as request texts, and the failed check. */
function describeRun(details: fc.RunDetails<[FuzzRequest[]]>): string {
  const batch = details.counterexample?.[0] ?? [];
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance ?? '');
  return [
    `property failed after ${details.numRuns} batches (seed ${details.seed}, path "${details.counterexamplePath ?? ''}", shrunk ${details.numShrinks} times)`,
    ...batch.map((r, i) => `batch request ${i + 1}: ${describeRequest(r)}`),
    error,
  ].join('\n');
}

export function formatSummary(s: FuzzSummary): string {
  const classes = Object.entries(s.byClass)
    .sort()
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return [
    `fuzz: ${s.cases} cases, seed ${s.seed}, ${(s.elapsedMs / 1000).toFixed(1)} s`,
    `  statuses: ${classes} (5xx that kube answers too: ${s.allowed5xx})`,
    `  max latency ${Math.round(s.maxLatencyMs)} ms, peak RSS ${Math.round(s.peakRssBytes / 1024 / 1024)} MiB, server errors logged ${s.serverErrorsLogged}`,
  ].join('\n');
}
