import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import type { ApiClient, CollectionRef, DeleteOptions, ListOptions, ObjectList, ObjectRef, PatchOptions, PatchType, WriteOptions } from '../machinery/client.js';
import { resourcePath } from '../machinery/client.js';
import { ApiError, serviceUnavailable, type Status } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/object.js';
import { versionInfo } from './version.js';

/**
 * kube-apiserver's loopback client without a network: HTTP/1.1 over
 * in-memory socket pairs into the server's own request handler, so the
 * server's own writes take the whole filter chain (authentication with the
 * loopback token, authorization, admission, the handlers and their field
 * manager) exactly as a request from outside does. Usable as soon as the
 * handler can serve resources, before (and without) any listener.
 */

/** One end of an in-memory connection; what one end writes, the other reads. */
class MemorySocket extends Duplex {
  peer!: MemorySocket;
  /** The write waiting for the peer's reader to want more (backpressure). */
  private blocked: (() => void) | undefined;
  // What node:http calls on a net.Socket; nothing to tune in memory.
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  constructor() {
    super({ allowHalfOpen: false });
  }

  static pair(): [MemorySocket, MemorySocket] {
    const a = new MemorySocket();
    const b = new MemorySocket();
    a.peer = b;
    b.peer = a;
    return [a, b];
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    if (this.peer.destroyed) return done();
    if (this.peer.push(chunk)) done();
    else this.peer.blocked = done;
  }

  override _read(): void {
    const resume = this.blocked;
    this.blocked = undefined;
    resume?.();
  }

  override _final(done: (err?: Error | null) => void): void {
    if (!this.peer.destroyed) this.peer.push(null);
    done();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.blocked?.();
    this.blocked = undefined;
    if (!this.peer.destroyed) this.peer.destroy();
    done(err);
  }
}

/** Keep-alive connections kept per transport: controllers write a few objects at a time. */
const MAX_CONNECTIONS = 8;

/** node:http's connection pool, dialing in memory. */
class MemoryAgent extends Agent {
  constructor(private readonly dial: () => Duplex) {
    super({ keepAlive: true, maxSockets: MAX_CONNECTIONS, maxFreeSockets: MAX_CONNECTIONS });
  }

  override createConnection(): Duplex {
    return this.dial();
  }
}

export class LoopbackTransport {
  private readonly server: Server;
  private readonly agent: MemoryAgent;
  private readonly sockets = new Set<MemorySocket>();
  /** Requests the handler is still working on: stop() lets them finish before the store closes. */
  private readonly inflight = new Set<Promise<void>>();
  private closed = false;

  /**
   * `handle` is the server's request handler (its whole filter chain);
   * `token` the loopback bearer token its LoopbackAuthenticator knows.
   */
  constructor(
    handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
    private readonly token: string,
  ) {
    this.server = createServer((req, res) => {
      const done = handle(req, res).finally(() => this.inflight.delete(done));
      this.inflight.add(done);
    });
    // As the HTTPS listener: kube's own timeouts end long requests, not Node's.
    this.server.requestTimeout = 0;
    this.server.headersTimeout = 0;
    this.server.keepAliveTimeout = 0;
    this.agent = new MemoryAgent(() => this.connect());
  }

  /** A client whose requests name `component` in their User-Agent, so its writes show that manager (kube derives it from the agent). */
  client(component: string): ApiClient {
    const v = versionInfo();
    return new LoopbackClient(this, `${component}/${v.gitVersion} (${v.platform}) kubernetes/${v.gitCommit.slice(0, 7)}`);
  }

  /**
   * Refuses new requests (503), lets those in the handler finish (at most
   * `drainMs`, as the HTTPS listener's close waits for its requests), then
   * ends every in-memory connection.
   */
  async close(drainMs = 5000): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, drainMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...this.inflight]), timeout]);
    clearTimeout(timer);
    this.agent.destroy();
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  private connect(): Duplex {
    const [client, server] = MemorySocket.pair();
    this.sockets.add(server);
    server.once('close', () => this.sockets.delete(server));
    this.server.emit('connection', server);
    return client;
  }

  async send(method: string, path: string, userAgent: string, body?: { contentType: string; data: unknown }): Promise<{ status: number; json: unknown }> {
    if (this.closed) throw serviceUnavailable('the server is shutting down');
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body.data));
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': userAgent,
      authorization: `Bearer ${this.token}`,
    };
    if (payload) {
      headers['content-type'] = body!.contentType;
      headers['content-length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = request({ method, path, headers, agent: this.agent, host: 'loopback' }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      });
      req.on('error', (err) => reject(this.closed ? serviceUnavailable('the server is shutting down') : err));
      req.end(payload);
    });
  }
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  // JSON is YAML: client-go sends apply configurations this way too.
  apply: 'application/apply-patch+yaml',
};

class LoopbackClient implements ApiClient {
  constructor(
    private readonly transport: LoopbackTransport,
    private readonly userAgent: string,
  ) {}

  get(ref: ObjectRef): Promise<KubeObject> {
    return this.call('GET', resourcePath(ref));
  }

  list(ref: CollectionRef, opts: ListOptions = {}): Promise<ObjectList> {
    const q = new URLSearchParams();
    if (opts.labelSelector) q.set('labelSelector', opts.labelSelector);
    if (opts.fieldSelector) q.set('fieldSelector', opts.fieldSelector);
    if (opts.resourceVersion !== undefined) q.set('resourceVersion', opts.resourceVersion);
    return this.call('GET', withQuery(resourcePath(ref), q));
  }

  create(ref: CollectionRef, obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    return this.call('POST', withQuery(resourcePath(ref), writeQuery(opts)), { contentType: 'application/json', data: obj });
  }

  update(ref: ObjectRef, obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    return this.call('PUT', withQuery(resourcePath(ref), writeQuery(opts)), { contentType: 'application/json', data: obj });
  }

  patch(ref: ObjectRef, type: PatchType, patch: unknown, opts: PatchOptions = {}): Promise<KubeObject> {
    const q = writeQuery(opts);
    if (opts.force !== undefined) q.set('force', String(opts.force));
    return this.call('PATCH', withQuery(resourcePath(ref), q), { contentType: PATCH_CONTENT_TYPES[type], data: patch });
  }

  delete(ref: ObjectRef, opts: DeleteOptions = {}): Promise<KubeObject> {
    const { dryRun, ...rest } = opts;
    const body = { kind: 'DeleteOptions', apiVersion: 'v1', ...rest, ...(dryRun ? { dryRun: ['All'] } : {}) };
    return this.call('DELETE', resourcePath(ref), { contentType: 'application/json', data: body });
  }

  private async call<T>(method: string, path: string, body?: { contentType: string; data: unknown }): Promise<T> {
    const { status, json } = await this.transport.send(method, path, this.userAgent, body);
    if (status >= 200 && status < 300) return json as T;
    throw toApiError(status, json);
  }
}

/** A failed response as the ApiError it came from (client-go's errors.FromObject), or a generic one for a body that is no Status. */
function toApiError(code: number, body: unknown): ApiError {
  const s = body as Partial<Status> | undefined;
  if (s?.kind === 'Status') {
    return new ApiError({
      code: s.code ?? code,
      ...(s.message !== undefined ? { message: s.message } : {}),
      ...(s.reason !== undefined ? { reason: s.reason } : {}),
      ...(s.details !== undefined ? { details: s.details } : {}),
    });
  }
  return new ApiError({ code, reason: code >= 500 ? 'InternalError' : 'BadRequest', message: `the server responded with status ${code}` });
}

function writeQuery(opts: WriteOptions): URLSearchParams {
  const q = new URLSearchParams();
  if (opts.fieldManager) q.set('fieldManager', opts.fieldManager);
  if (opts.dryRun) q.set('dryRun', 'All');
  return q;
}

function withQuery(path: string, q: URLSearchParams): string {
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
