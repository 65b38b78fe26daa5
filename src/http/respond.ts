import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzip } from 'node:zlib';
import { encode } from '../codec/codec.js';
import { JSON_TYPE, type Encoding } from '../codec/media-type.js';
import { negotiatePlain } from '../codec/negotiate.js';
import type { RequestContext } from '../machinery/context.js';
import { strconvQuote } from '../machinery/go-compat.js';
import { ApiError, internalError, serviceUnavailable, type Status } from '../machinery/errors.js';
import { isStoreError, type StoreError } from '../storage/store.js';
import { warningHeaderValues } from './warnings.js';

/** Headers kube-apiserver puts on every API response. */
function commonHeaders(ctx: RequestContext): Record<string, string> {
  const h: Record<string, string> = {
    'Audit-Id': ctx.auditId,
    'Cache-Control': 'no-cache, private',
  };
  if (ctx.warnings.length > 0) {
    const values = warningHeaderValues(ctx.warnings);
    if (values.length > 0) ctx.res.setHeader('Warning', values);
  }
  return h;
}

/** kube-apiserver compresses (APIResponseCompression) responses above 128 KiB, at gzip level 1. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
const GZIP_LEVEL = 1;

function acceptsGzip(ctx: RequestContext): boolean {
  if (!ctx.compressResponses) return false;
  const header = ctx.header('accept-encoding');
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === '*') && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/** Streamed bodies go out in pieces of about this size (one TLS write each). */
const STREAM_CHUNK_BYTES = 64 * 1024;

function* coalesce(parts: Buffer[]): Generator<Buffer> {
  let pending: Buffer[] = [];
  let size = 0;
  for (const p of parts) {
    pending.push(p);
    size += p.length;
    if (size >= STREAM_CHUNK_BYTES) {
      yield pending.length === 1 ? pending[0]! : Buffer.concat(pending, size);
      pending = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(pending, size);
}

/**
 * Writes a body made of many parts (a list's cached item bytes) without
 * joining them into one buffer first: it goes out in 64 KiB pieces with
 * backpressure, so a 50 MB list neither doubles memory nor holds the event
 * loop for its whole TLS write. Compressed on the way when the client asks.
 */
export function writeParts(ctx: RequestContext, code: number, parts: Buffer[], contentType: string): void {
  const res = ctx.res;
  if (res.headersSent) return;
  const total = parts.reduce((n, p) => n + p.length, 0);
  if (total <= STREAM_CHUNK_BYTES) {
    writeBody(ctx, code, Buffer.concat(parts, total), contentType);
    return;
  }
  const headers: Record<string, string> = { ...commonHeaders(ctx), 'Content-Type': contentType };
  const zip = total > GZIP_THRESHOLD_BYTES && acceptsGzip(ctx);
  if (zip) {
    headers['Content-Encoding'] = 'gzip';
    headers['Vary'] = 'Accept-Encoding';
  } else headers['Content-Length'] = String(total);
  res.writeHead(code, headers);
  if (ctx.method === 'HEAD') {
    res.end();
    return;
  }
  const source = Readable.from(coalesce(parts), { objectMode: false });
  // A client that goes away mid-body just ends the stream.
  void (zip ? pipeline(source, createGzip({ level: GZIP_LEVEL }), res) : pipeline(source, res)).catch(() => res.destroy());
}

export function writeBody(ctx: RequestContext, code: number, body: Buffer | string, contentType: string, extraHeaders: Record<string, string> = {}): void {
  const res = ctx.res;
  if (res.headersSent) return;
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  const headers: Record<string, string> = { ...commonHeaders(ctx), 'Content-Type': contentType, ...extraHeaders };
  const send = (payload: Buffer): void => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(code, { ...headers, 'Content-Length': String(payload.length) });
    if (ctx.method === 'HEAD') res.end();
    else res.end(payload);
  };
  if (buf.length <= GZIP_THRESHOLD_BYTES || !acceptsGzip(ctx)) {
    send(buf);
    return;
  }
  // Compressed off the event loop (zlib's thread pool), so big lists do not stall other requests.
  gzip(buf, { level: GZIP_LEVEL }, (err, zipped) => {
    if (err) {
      send(buf);
      return;
    }
    headers['Content-Encoding'] = 'gzip';
    headers['Vary'] = 'Accept-Encoding';
    send(zipped);
  });
}

export function writeEncoded(ctx: RequestContext, code: number, value: unknown, encoding: Encoding, contentType: string = encoding): void {
  writeBody(ctx, code, encode(value, encoding, ctx.pretty), contentType);
}

/** Writes a value in JSON, or YAML when only YAML is acceptable (for documents without views). */
export function writePlain(ctx: RequestContext, code: number, value: unknown): void {
  // /version and discovery: kube writes these in JSON (or YAML/protobuf), never CBOR.
  const enc = negotiatePlain(ctx.header('accept'));
  writeEncoded(ctx, code, value, enc);
}

export function writeText(ctx: RequestContext, code: number, text: string): void {
  writeBody(ctx, code, text, 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff' });
}

/**
 * kube's responsewriters.InternalError: a plain-text 500 naming the request
 * URI as sent, with the characters that could read as HTML escaped.
 */
export function writeInternalErrorText(ctx: RequestContext, message: string): void {
  const text = `Internal Server Error: ${strconvQuote(ctx.req.url ?? '')}: ${message}`;
  writeText(ctx, 500, `${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}\n`);
}

/**
 * A store that cannot be reached (etcd down, the process shutting down) is a
 * 503 the client may retry, not an internal error of this server.
 */
function isStoreUnavailable(err: unknown): err is StoreError {
  return isStoreError(err, 'Unavailable') || isStoreError(err, 'Closed');
}

export function writeError(ctx: RequestContext, err: unknown): void {
  const expected = err instanceof ApiError || isStoreUnavailable(err);
  const apiErr = err instanceof ApiError ? err : isStoreUnavailable(err) ? serviceUnavailable(`storage is unavailable: ${err.message}`) : internalError(err);
  // A client that went away while sending its body is not this server's error (a controller's write cut by stop(), mostly).
  const clientGone = (err as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET' && ctx.req.destroyed;
  if (!expected && !clientGone) {
    ctx.logger.error(`${ctx.method} ${ctx.url.pathname}: ${(err as Error)?.stack ?? String(err)}`);
  }
  // A response already complete (answered by the last line of defence, say) has nothing more to tell.
  if (ctx.res.writableEnded) return;
  if (ctx.res.headersSent) {
    ctx.res.destroy();
    return;
  }
  const { body, contentType } = encodeStatus(apiErr.status, negotiatePlain(ctx.header('accept'), ctx.cbor), ctx.pretty);
  writeBody(ctx, apiErr.code, body, contentType, apiErr.headers);
}

/**
 * A Status in the client's encoding, or in JSON when that encoder fails on
 * it (js-yaml on a pathological message): an error answer must never throw.
 */
function encodeStatus(status: Status, enc: Encoding, pretty: boolean): { body: Buffer; contentType: string } {
  try {
    return { body: encode(status, enc, pretty), contentType: enc };
  } catch {
    return { body: Buffer.from(JSON.stringify(status) + '\n'), contentType: JSON_TYPE };
  }
}

/** kube's panic recovery answer (WithPanicRecovery), as plain text. */
export const PANIC_MESSAGE = 'This request caused apiserver to panic. Look in the logs for details.';

/**
 * The last line of defence for a request whose error could not be written
 * (writeError itself threw): logged with its verb and path, answered 500
 * with kube's panic text if nothing was written yet, else its connection is
 * closed (half a response must not look like a whole one). Never throws.
 */
export function writePanic(ctx: RequestContext, err: unknown): void {
  try {
    ctx.logger.error(`apiserver panic'd on ${ctx.method} ${ctx.url.pathname}: ${(err as Error)?.stack ?? String(err)}`);
  } catch {
    // Logging must not stop the answer.
  }
  const res = ctx.res;
  try {
    if (res.headersSent || res.writableEnded) {
      res.destroy();
      return;
    }
    const body = `${PANIC_MESSAGE}\n`;
    res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': String(Buffer.byteLength(body)) });
    res.end(body);
  } catch {
    res.destroy();
  }
}
