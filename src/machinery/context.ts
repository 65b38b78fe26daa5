import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RequestInfo } from './request-info.js';
import { stderrLogger, type Logger } from './logger.js';

const DEFAULT_LOGGER = stderrLogger();

/** Who made the request, as authentication established it. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Everything a handler needs about one request; created once per request. */
export class RequestContext {
  readonly url: URL;
  readonly query: URLSearchParams;
  readonly auditId: string;
  readonly started = process.hrtime.bigint();
  user: UserInfo | undefined;
  /** The user authentication named, when impersonation replaced `user` with another (audit records both). */
  authenticatedUser: UserInfo | undefined;
  /** Warning header values to send with the response. */
  readonly warnings: string[] = [];
  /** Audit annotations the request's handlers and admission add (key → value). */
  readonly auditAnnotations = new Map<string, string>();

  /** Whether a response may be gzipped for Accept-Encoding (kube's APIResponseCompression gate). */
  compressResponses = true;

  logger: Logger = DEFAULT_LOGGER;
  /** When reading the request's body must have finished (Date.now() ms; --request-timeout); undefined: no deadline. */
  bodyDeadline: number | undefined;
  /** The server reads and writes CBOR (feature gate CBORServingAndStorage). */
  cbor = false;
  /**
   * An HTTP upgrade request (WebSocket, SPDY): its connection, which the
   * server's 'upgrade' event handed over, and the bytes read past its headers.
   * `res` writes to that connection and closes it when it ends.
   */
  upgrade: { socket: Duplex; head: Buffer } | undefined;
  /** The connection now carries another protocol: nothing may be written through `res` any more. */
  hijacked = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly info: RequestInfo,
    url: URL,
  ) {
    this.url = url;
    this.query = url.searchParams;
    this.auditId = randomUUID();
  }

  get method(): string {
    return (this.req.method ?? 'GET').toUpperCase();
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  /** `pretty` query parameter (kube also pretty-prints for browsers; we keep to the parameter). */
  get pretty(): boolean {
    const p = this.query.get('pretty');
    return p !== null && p !== '0' && p.toLowerCase() !== 'false';
  }
}
