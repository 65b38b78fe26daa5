import { gzip } from 'node:zlib';
import { encode } from '../codec/codec.js';
import type { Encoding } from '../codec/media-type.js';
import { negotiatePlain } from '../codec/negotiate.js';
import type { RequestContext } from './context.js';
import { ApiError, internalError } from './errors.js';

/** Headers kube-apiserver puts on every API response. */
function commonHeaders(ctx: RequestContext): Record<string, string> {
  const h: Record<string, string> = {
    'Audit-Id': ctx.auditId,
    'Cache-Control': 'no-cache, private',
  };
  if (ctx.warnings.length > 0) {
    // One Warning header per message, in RFC 7234 form with code 299.
    ctx.res.setHeader('Warning', ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`));
  }
  return h;
}

/** kube-apiserver compresses (APIResponseCompression) responses above 128 KiB, at gzip level 1. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
const GZIP_LEVEL = 1;

function acceptsGzip(ctx: RequestContext): boolean {
  const header = ctx.header('accept-encoding');
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === '*') && (q === undefined || Number(q.slice(2)) > 0);
  });
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
  const enc = negotiatePlain(ctx.header('accept'));
  writeEncoded(ctx, code, value, enc);
}

export function writeText(ctx: RequestContext, code: number, text: string): void {
  writeBody(ctx, code, text, 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff' });
}

export function writeError(ctx: RequestContext, err: unknown): void {
  const apiErr = err instanceof ApiError ? err : internalError(err);
  if (!(err instanceof ApiError)) {
    process.stderr.write(`E ${new Date().toISOString()} ${ctx.method} ${ctx.url.pathname}: ${(err as Error)?.stack ?? String(err)}\n`);
  }
  if (ctx.res.headersSent) {
    ctx.res.destroy();
    return;
  }
  const enc = negotiatePlain(ctx.header('accept'));
  writeBody(ctx, apiErr.code, encode(apiErr.status, enc, ctx.pretty), enc, apiErr.headers);
}
