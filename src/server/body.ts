import { decode, DecodeError } from '../codec/codec.js';
import { ADVERTISED_TYPES, JSON_TYPE, parseMediaType, YAML_TYPE } from '../codec/media-type.js';
import type { RequestContext } from './context.js';
import { badRequest, requestEntityTooLarge, unsupportedMediaType } from './errors.js';

/** kube-apiserver's --max-request-body-bytes default: 3 MiB. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(ctx: RequestContext, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = Number(ctx.header('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    ctx.req.resume();
    throw requestEntityTooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      ctx.req.resume();
      throw requestEntityTooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The request's Content-Type without parameters, lower-cased ('' when absent). */
export function contentTypeOf(ctx: RequestContext): string {
  const raw = ctx.header('content-type');
  if (!raw) return '';
  const mt = parseMediaType(raw);
  return mt ? `${mt.type}/${mt.subtype}` : raw.toLowerCase();
}

/** Reads and decodes an object body (POST/PUT): JSON or YAML, else 415. */
export async function readObjectBody(ctx: RequestContext): Promise<unknown> {
  const type = contentTypeOf(ctx) || JSON_TYPE;
  if (type !== JSON_TYPE && type !== YAML_TYPE) {
    ctx.req.resume();
    throw unsupportedMediaType(ctx.header('content-type') ?? '', ADVERTISED_TYPES);
  }
  const body = await readBody(ctx);
  try {
    return decode(body, type);
  } catch (err) {
    if (err instanceof DecodeError) throw badRequest(err.message);
    throw err;
  }
}
