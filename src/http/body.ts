import type { Socket } from 'node:net';
import { cannotBeHandledMessage, unrecognizedObjectMessage } from '../codec/decode-error-text.js';
import { decode, DecodeError, KindUnreadableError, TypedDecodeError } from '../codec/codec.js';
import { advertisedTypes, CBOR_TYPE, JSON_TYPE, parseMediaType, PROTOBUF_TYPE, YAML_TYPE, type Encoding } from '../codec/media-type.js';
import type { TypeInfo } from '../codec/protobuf/index.js';
import type { RequestContext } from '../machinery/context.js';
import { typeMetaUnmarshalError } from '../machinery/go-compat.js';
import { ApiError, badRequest, requestEntityTooLarge, timeout, unsupportedMediaType } from '../machinery/errors.js';

/** kube-apiserver's --max-request-body-bytes default: 3 MiB. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** The Status of a body not read by its deadline (kube's timeout filter). */
export function bodyTimeout(): ApiError {
  return timeout('request did not complete within requested timeout - context deadline exceeded', 0);
}

/**
 * Reads the request body, at most `limit` bytes whatever its framing
 * (Content-Length or chunked), and only until ctx.bodyDeadline. Past either,
 * the rest of the body is left unread: the answer (413 or 504) closes the
 * connection, which is then never reused with bytes of this body in it.
 */
export async function readBody(ctx: RequestContext, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = Number(ctx.header('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    abandonBody(ctx);
    throw requestEntityTooLarge(limit);
  }
  const req = ctx.req;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: ApiError | Error | undefined): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (timer) clearTimeout(timer);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        abandonBody(ctx);
        settle(requestEntityTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => settle(undefined);
    const onError = (err: Error): void => settle(err);
    // The client went away before the body's end: nobody is left to answer.
    const onClose = (): void => {
      if (!req.complete) settle(new Error('the client closed the connection before sending the whole request body'));
    };
    const remaining = ctx.bodyDeadline === undefined ? undefined : ctx.bodyDeadline - Date.now();
    const timer =
      remaining === undefined
        ? undefined
        : setTimeout(() => {
            abandonBody(ctx);
            settle(bodyTimeout());
          }, Math.max(0, remaining));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * Gives up on the rest of a request body: the response will close the
 * connection (Connection: close, as Go's server does after an over-limit
 * body), and what arrives meanwhile is discarded.
 */
export function abandonBody(ctx: RequestContext): void {
  ctx.res.shouldKeepAlive = false;
  ctx.req.resume();
  lingerOnClose(ctx.req.socket);
}

/** How long a closing connection still takes (and drops) what the client sends: Go's rstAvoidanceDelay. */
const CLOSE_LINGER_MS = 500;

/**
 * Node's server destroys a non-keep-alive connection as soon as its answer is
 * flushed; a client still sending the abandoned body then gets a reset, and
 * the kernel may discard the answer it had not read yet (the client sees
 * EPIPE or ECONNRESET instead of the 413). Go's server half-closes and waits
 * before closing (closeWriteAndWait): the same here, while the request
 * parser keeps consuming and dropping the rest of the body.
 */
function lingerOnClose(socket: Socket | null): void {
  if (!socket) return;
  const closing = socket as Socket & { destroySoon?: () => void };
  closing.destroySoon = () => {
    if (socket.writable) socket.end();
    setTimeout(() => socket.destroy(), CLOSE_LINGER_MS).unref();
  };
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
 * Reads and decodes an object body (POST/PUT): JSON, YAML, protobuf or (when
 * served) CBOR, else 415. `expected` is the endpoint's type, for protobuf envelopes without one.
 */
export async function readObjectBody(ctx: RequestContext, expected?: Partial<TypeInfo>): Promise<unknown> {
  const type = contentTypeOf(ctx) || JSON_TYPE;
  if (!BODY_TYPES.includes(type) && !(ctx.cbor && type === CBOR_TYPE)) {
    ctx.req.resume();
    throw unsupportedMediaType(ctx.header('content-type') ?? '', advertisedTypes(ctx.cbor));
  }
  return decodeObjectBody(await readBody(ctx), type as Encoding, expected);
}

/**
 * decode() for an object body (create, update), its failures worded as kube's
 * transformDecodeError words them: a body whose kind could not be read
 * (not JSON, JSON that is not an object, YAML that does not convert, an
 * unreadable envelope) is unrecognized, quoting its first bytes; one whose
 * kind was read "cannot be handled" (decode-error-text.ts).
 */
export function decodeObjectBody(body: Buffer, encoding: Encoding, expected?: Partial<TypeInfo>): unknown {
  try {
    const value = decode(body, encoding, expected);
    // meta.Interpret reads the kind into a struct: any JSON but an object or null fails there.
    if ((encoding === JSON_TYPE || encoding === YAML_TYPE) && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      throw new KindUnreadableError(`couldn't get version/kind; json parse error: ${typeMetaUnmarshalError(value)}`);
    }
    return value;
  } catch (err) {
    if (err instanceof DecodeError) throw objectBodyError(err, body, expected?.kind);
    throw err;
  }
}

function objectBodyError(err: DecodeError, body: Buffer, kind: string | undefined): ApiError {
  if (err instanceof KindUnreadableError && kind) return badRequest(unrecognizedObjectMessage(kind, err.message, body));
  if (err instanceof TypedDecodeError && kind) return badRequest(cannotBeHandledMessage(err.bodyKind, err.bodyVersion, kind, err.message));
  return badRequest(err.message);
}
