/**
 * kube-apiserver's http.Server settings (apiserver/pkg/server/secure_serving.go)
 * in Node's terms:
 * - ReadHeaderTimeout 32 s ("just shy of requestTimeoutUpperBound"): a client
 *   still sending its request line and headers then is cut off without an
 *   answer, as Go's server closes a connection whose read timed out;
 * - IdleTimeout 90 s: a keep-alive connection waiting for its next request;
 * - MaxHeaderBytes 1 MiB, plus the 4096 bytes of bufio slop Go's server allows
 *   (http.Server.initialReadLimitSize): past it, 431.
 * Bodies have --request-timeout in readBody (a 504 Status); Node's own request
 * timeout is the backstop for a body nobody reads.
 */
export const READ_HEADER_TIMEOUT_MS = 32_000;
export const IDLE_TIMEOUT_MS = 90_000;
export const MAX_HEADER_BYTES = (1 << 20) + 4096;
/** Node's own request timeout, the backstop for bodies nobody reads: this long after readBody's deadline. */
const BODY_TIMEOUT_BACKSTOP_MS = 5000;

export interface HttpServerSettings {
  /** Node: time to receive a request's headers (never more than requestTimeout, as Node requires). */
  headersTimeout: number;
  /** Node: time to receive a whole request (0: none). */
  requestTimeout: number;
  keepAliveTimeout: number;
  maxHeaderSize: number;
  /** How often Node looks for requests past their header or body deadline. */
  connectionsCheckingInterval: number;
}

/**
 * The settings for --request-timeout `requestTimeoutMs` (0: none).
 * `readHeaderTimeoutMs` is kube's fixed 32 s; embedders' tests may shorten it.
 */
export function httpServerSettings(requestTimeoutMs: number, readHeaderTimeoutMs = READ_HEADER_TIMEOUT_MS): HttpServerSettings {
  const requestTimeout = requestTimeoutMs > 0 ? requestTimeoutMs + BODY_TIMEOUT_BACKSTOP_MS : 0;
  const headersTimeout = requestTimeout > 0 ? Math.min(readHeaderTimeoutMs, requestTimeout) : readHeaderTimeoutMs;
  // A deadline is noticed within a second of it (a quarter of it when shorter); each check is a pass over the open connections.
  const shortest = requestTimeout > 0 ? Math.min(headersTimeout, requestTimeout) : headersTimeout;
  return {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: IDLE_TIMEOUT_MS,
    maxHeaderSize: MAX_HEADER_BYTES,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(shortest / 4))),
  };
}
