import type { OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { writeText } from '../http/respond.js';
import type { RequestContext } from '../machinery/context.js';
import { joinHostPort } from '../machinery/host-port.js';
import type { ServiceAddress } from './extension-server.js';
import { goTransportErrorText, type TransportError } from './go-net-errors.js';

/**
 * apimachinery's UpgradeAwareHandler.tryUpgrade, as kube-aggregator's proxy
 * uses it for upgrade requests (exec, attach, port-forward, a VM's console:
 * WebSocket or SPDY/3.1): dial the extension server, write the request with
 * the caller's identity in X-Remote-* headers, read its answer, and
 *  - 101 Switching Protocols: hand that answer to the client and copy bytes
 *    both ways until either side is done;
 *  - an error status (400 and above): pass the answer on and close;
 *  - anything else: 503 `invalid upgrade response: status code N`.
 * Failures before an answer are the responder's 503 with Go's error text.
 */

/** kube's proxy dialer gives up after 30 s (transport.DialHolder's net.Dialer). */
const DIAL_TIMEOUT_MS = 30_000;
/** What an answer's head may take before it is refused (Go's reader has no smaller bound that matters here). */
const MAX_RESPONSE_HEAD_BYTES = 1024 * 1024;
/** tryUpgrade's deadline for passing on a refusal. */
const REFUSAL_DEADLINE_MS = 10_000;

export interface UpgradeTarget {
  tls: ConnectionOptions;
  address: ServiceAddress;
  /** Path and query of the request. */
  path: string;
  headers: OutgoingHttpHeaders;
}

interface ResponseHead {
  status: number;
  /** Every byte read so far: the head and whatever followed it. */
  raw: Buffer;
  headEnd: number;
  contentLength: number | undefined;
}

/** The request as Go's Request.Write puts it on the wire (headers without a body; an upgrade has none). */
function requestBytes(method: string, target: UpgradeTarget): Buffer {
  const lines = [`${method} ${target.path} HTTP/1.1`, `Host: ${joinHostPort(target.address.host, target.address.port)}`];
  for (const [name, value] of Object.entries(target.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(v)}`);
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

function dial(target: UpgradeTarget): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ ...target.tls, ALPNProtocols: ['http/1.1'] });
    const timer = setTimeout(() => {
      const err: NodeJS.ErrnoException = new Error('connect ETIMEDOUT');
      err.code = 'ETIMEDOUT';
      socket.destroy(err);
    }, DIAL_TIMEOUT_MS);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.removeListener('error', reject);
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** http.ReadResponse's reading of a status line: the code, or its error text. */
function parseStatusLine(line: string): number | string {
  const space = line.indexOf(' ');
  if (space < 0) return `malformed HTTP response ${JSON.stringify(line)}`;
  const proto = line.slice(0, space);
  const code = line.slice(space + 1).replace(/^ +/, '').split(' ', 1)[0] ?? '';
  if (!/^\d{3}$/.test(code)) return `malformed HTTP status code ${JSON.stringify(code)}`;
  if (!/^HTTP\/\d\.\d$/.test(proto)) return `malformed HTTP version ${JSON.stringify(proto)}`;
  return Number(code);
}

/** Reads the answer's head (http.ReadResponse); rejects with Go's text when there is none. */
function readResponseHead(backend: TLSSocket): Promise<ResponseHead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (fn: () => void): void => {
      backend.removeListener('data', onData);
      backend.removeListener('end', onEnd);
      backend.removeListener('error', onError);
      backend.pause();
      fn();
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      const raw = Buffer.concat(chunks);
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) {
        if (size > MAX_RESPONSE_HEAD_BYTES) done(() => reject(new Error('net/http: response header too large')));
        return;
      }
      const head = raw.subarray(0, end).toString('latin1');
      const parsed = parseStatusLine(head.split('\r\n', 1)[0] ?? '');
      if (typeof parsed === 'string') {
        done(() => reject(new Error(parsed)));
        return;
      }
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      done(() => resolve({ status: parsed, raw, headEnd: end + 4, contentLength: length ? Number(length[1]) : undefined }));
    };
    const onEnd = (): void => done(() => reject(new Error(size === 0 ? 'EOF' : 'unexpected EOF')));
    const onError = (err: Error): void => done(() => reject(err));
    backend.on('data', onData);
    backend.once('end', onEnd);
    backend.once('error', onError);
  });
}

/** Copies bytes both ways until one side is done, then closes both, as tryUpgrade's two copiers do. */
function tunnel(client: Duplex, backend: TLSSocket): Promise<void> {
  return new Promise((resolve) => {
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      // What was written is flushed first; a peer that does not close its side is cut off soon after.
      client.end();
      backend.end();
      setTimeout(() => {
        client.destroy();
        backend.destroy();
      }, 1000).unref();
      resolve();
    };
    client.on('data', (chunk: Buffer) => {
      if (!backend.write(chunk)) client.pause();
    });
    backend.on('drain', () => client.resume());
    backend.on('data', (chunk: Buffer) => {
      if (!client.write(chunk)) backend.pause();
    });
    client.on('drain', () => backend.resume());
    for (const side of [client, backend]) {
      side.once('end', close);
      side.once('close', close);
      side.on('error', close);
    }
    client.resume();
    backend.resume();
  });
}

/** Passes an error answer on as it came (until its length, the backend's close, or the deadline), then closes. */
function passRefusal(client: Duplex, backend: TLSSocket, head: ResponseHead): Promise<void> {
  return new Promise((resolve) => {
    let remaining = head.contentLength === undefined ? Infinity : head.headEnd + head.contentLength - head.raw.length;
    client.write(head.raw.subarray(0, head.contentLength === undefined ? head.raw.length : Math.min(head.raw.length, head.headEnd + head.contentLength)));
    const finish = (): void => {
      clearTimeout(deadline);
      backend.destroy();
      client.end();
      setTimeout(() => client.destroy(), 1000).unref();
      resolve();
    };
    const deadline = setTimeout(finish, REFUSAL_DEADLINE_MS);
    if (remaining <= 0) return finish();
    backend.on('data', (chunk: Buffer) => {
      const part = chunk.subarray(0, Math.min(chunk.length, remaining));
      remaining -= part.length;
      client.write(part);
      if (remaining <= 0) finish();
    });
    backend.once('end', finish);
    backend.once('error', finish);
    client.once('close', finish);
    backend.resume();
  });
}

export async function proxyUpgrade(ctx: RequestContext, upgrade: { socket: Duplex; head: Buffer }, target: UpgradeTarget): Promise<void> {
  const serverName = typeof target.tls.servername === 'string' ? target.tls.servername : undefined;
  // The responder: Go's error text as a plain 503, as long as nothing else was written.
  const fail = (err: unknown, prefix = ''): void => {
    if (ctx.res.headersSent || ctx.hijacked) return;
    writeText(ctx, 503, `${prefix}${goTransportErrorText(err as TransportError, target.address, serverName)}\n`);
  };
  let backend: TLSSocket;
  try {
    backend = await dial(target);
  } catch (err) {
    return fail(err, 'error dialing backend: ');
  }
  // The client gave up (or the request timed out) before the extension server answered.
  const abandon = (): void => {
    if (!ctx.hijacked) backend.destroy();
  };
  upgrade.socket.once('close', abandon);
  let head: ResponseHead;
  try {
    backend.write(requestBytes(ctx.req.method ?? 'GET', target));
    // Bytes the client sent past its request's head (a body, or frames sent early) follow it.
    if (upgrade.head.length > 0) backend.write(upgrade.head);
    head = await readResponseHead(backend);
  } catch (err) {
    backend.destroy();
    return fail(err);
  } finally {
    upgrade.socket.removeListener('close', abandon);
  }
  if (head.status !== 101 && head.status < 400) {
    backend.destroy();
    return writeText(ctx, 503, `invalid upgrade response: status code ${head.status}\n`);
  }
  if (ctx.res.headersSent || upgrade.socket.destroyed) {
    backend.destroy();
    return;
  }
  // From here on the connection is the tunnel's: the response object is not used again.
  ctx.hijacked = true;
  ctx.res.statusCode = head.status;
  if (head.status !== 101) return passRefusal(upgrade.socket, backend, head);
  upgrade.socket.write(head.raw);
  return tunnel(upgrade.socket, backend);
}
