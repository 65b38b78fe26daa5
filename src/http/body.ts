import { decode, DecodeError } from '../codec/codec.js';
import { ADVERTISED_TYPES, JSON_TYPE, parseMediaType, PROTOBUF_TYPE, YAML_TYPE, type Encoding } from '../codec/media-type.js';
import type { TypeInfo } from '../codec/protobuf/index.js';
import type { RequestContext } from '../machinery/context.js';
import { badRequest, requestEntityTooLarge, unsupportedMediaType } from '../machinery/errors.js';

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

const BODY_TYPES: readonly string[] = [JSON_TYPE, YAML_TYPE, PROTOBUF_TYPE];

/**
 * Reads and decodes an object body (POST/PUT): JSON, YAML or protobuf, else
 * 415. `expected` is the endpoint's type, for protobuf envelopes without one.
 */
export async function readObjectBody(ctx: RequestContext, expected?: Partial<TypeInfo>): Promise<unknown> {
  const type = contentTypeOf(ctx) || JSON_TYPE;
  if (!BODY_TYPES.includes(type)) {
    ctx.req.resume();
    throw unsupportedMediaType(ctx.header('content-type') ?? '', ADVERTISED_TYPES);
  }
  const body = await readBody(ctx);
  try {
    return decode(body, type as Encoding, expected);
  } catch (err) {
    if (err instanceof DecodeError) throw badRequest(err.message);
    throw err;
  }
}
