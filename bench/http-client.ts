import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Credentials } from '../test/helpers/server.js';
import { runClosedLoop, type LoopOptions, type PhaseResult } from './loop.js';

/**
 * The load generator's HTTP side: one request, and a closed loop (loop.ts) of
 * N clients for a while, against one target or spread over several. Targets
 * are Capstan (HTTPS with the admin client certificate) or a bare baseline
 * server (HTTPS with the same certificates, or plain HTTP).
 * No request sends Accept-Encoding, so every body is measured uncompressed.
 */

export interface Target {
  url: string;
  creds: Credentials;
  /** The serving process, when known: its CPU use is recorded per phase. */
  pid?: number | undefined;
  /** A bearer token to authenticate with instead of the client certificate (which is then not sent). */
  token?: string | undefined;
  /** Headers sent with every request (e.g. an authenticating proxy's X-Remote-User). */
  headers?: Record<string, string> | undefined;
}

/** The client certificate, unless the target authenticates with a token. */
function clientCert(target: Target): { cert?: string; key?: string } {
  return target.token ? {} : { cert: target.creds.cert, key: target.creds.key };
}

export type AnyAgent = HttpAgent | HttpsAgent;

export interface RequestSpec {
  method: string;
  path: string;
  body?: string;
  /** Content-Type of the body (default application/json). */
  contentType?: string;
}

export function isHttps(target: Target): boolean {
  return target.url.startsWith('https:');
}

export function makeAgent(target: Target, maxSockets: number): AnyAgent {
  if (!isHttps(target)) return new HttpAgent({ keepAlive: true, maxSockets });
  return new HttpsAgent({ keepAlive: true, maxSockets, ca: target.creds.ca, ...clientCert(target) });
}

/** Starts a request; the caller consumes the response. */
export function startRequest(agent: AnyAgent, target: Target, spec: RequestSpec, onResponse: (res: IncomingMessage) => void): ReturnType<typeof httpRequest> {
  const u = new URL(spec.path, target.url);
  const headers: Record<string, string> = spec.body ? { 'Content-Type': spec.contentType ?? 'application/json', 'Content-Length': String(Buffer.byteLength(spec.body)) } : {};
  if (target.token) headers.Authorization = `Bearer ${target.token}`;
  if (target.headers) Object.assign(headers, target.headers);
  const common = { method: spec.method, hostname: u.hostname, port: u.port, path: u.pathname + u.search, headers };
  const req = isHttps(target)
    ? httpsRequest({ ...common, agent: agent as HttpsAgent, ca: target.creds.ca, ...clientCert(target) }, onResponse)
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

/** Samples of the server's /metrics (prom-client's text), from one scrape on a connection of its own. */
export async function serverMetrics(target: Target, names: readonly string[]): Promise<Array<number | undefined>> {
  const agent = makeAgent(target, 1);
  const r = await oneRequest(agent, target, { method: 'GET', path: '/metrics' }, true);
  agent.destroy();
  const text = r.body?.toString('utf8') ?? '';
  return names.map((name) => {
    const m = new RegExp(`^${name} (\\S+)`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  });
}

export interface HttpLoopOptions extends LoopOptions {
  /** The status every answer must have (default 200); others count as errors. */
  expect?: number;
  /** Gets each answer with the expected status (its body is kept only when this is set), e.g. to read the new resourceVersion. */
  onBody?: (body: Buffer, client: number) => void;
}

/** The processes serving some targets, for the CPU column. */
export function serverPids(targets: readonly Target[]): number[] {
  return targets.flatMap((t) => (t.pid === undefined ? [] : [t.pid]));
}

/**
 * Runs `next(i, client)` from `clients` concurrent keep-alive clients for
 * `durationMs`. With several targets (processes behind one etcd), client c
 * always talks to target c mod n, so the clients spread round-robin.
 */
export async function closedLoop(name: string, target: Target | readonly Target[], clients: number, durationMs: number, next: (i: number, client: number) => RequestSpec, opts: HttpLoopOptions = {}): Promise<PhaseResult> {
  const targets: readonly Target[] = 'url' in target ? [target] : target;
  const agents = targets.map((t) => makeAgent(t, Math.ceil(clients / targets.length)));
  const expect = opts.expect ?? 200;
  try {
    return await runClosedLoop(name, clients, durationMs, serverPids(targets), async (i, client) => {
      const spec = next(i, client);
      const t = client % targets.length;
      const res = await oneRequest(agents[t]!, targets[t]!, spec, opts.onBody !== undefined).catch((err: Error) => err);
      if (res instanceof Error) return { bytes: 0, error: `${spec.method} ${spec.path} failed: ${res.message}` };
      if (res.status !== expect) return { bytes: res.bytes, error: `${spec.method} ${spec.path} → ${res.status}` };
      opts.onBody?.(res.body!, client);
      return { bytes: res.bytes };
    }, opts);
  } finally {
    for (const agent of agents) agent.destroy();
  }
}
