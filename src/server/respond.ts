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

export function writeBody(ctx: RequestContext, code: number, body: Buffer | string, contentType: string, extraHeaders: Record<string, string> = {}): void {
  const res = ctx.res;
  if (res.headersSent) return;
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  const headers = { ...commonHeaders(ctx), 'Content-Type': contentType, 'Content-Length': String(buf.length), ...extraHeaders };
  res.writeHead(code, headers);
  if (ctx.method === 'HEAD') res.end();
  else res.end(buf);
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
