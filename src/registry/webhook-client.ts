import { createHash } from 'node:crypto';
import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import { strconvQuote } from '../machinery/go-compat.js';
import { decodeJson } from '../machinery/json-decode.js';
import type { ServiceResolver } from './service-routing.js';

/**
 * The HTTPS calls to webhooks (kube's webhook ClientManager, shared by the
 * admission webhooks and CRD conversion webhooks): a
 * `url` as written, a `service` as `https://<name>.<namespace>.svc:<port><path>`
 * dialed at the address the service resolver gives and verified for that
 * name, trusting the caBundle (else the system roots). Connections are kept
 * alive per trust bundle and server name, since every matching write makes
 * a call. Failures read as Go's net/http errors, which kube's messages quote.
 */

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port: number;
}

export interface ClientConfig {
  url?: string;
  service?: ServiceReference;
  /** PEM bundle (decoded from caBundle); absent: the system's roots. */
  caBundle?: string;
}

/** What a call needs of a webhook: where it is and how long to wait. */
export interface WebhookEndpoint {
  clientConfig: ClientConfig;
  timeoutSeconds: number;
  /** client-go's `?timeout=` on the URL (admission sets a per-call timeout); conversion calls set none. */
  timeoutInUrl?: boolean;
}

/** A stored clientConfig (admissionregistration's or apiextensions' WebhookClientConfig): base64 caBundle, service port defaulting to 443. */
export function clientConfigOf(cc: { url?: string; caBundle?: string; service?: { namespace?: string; name?: string; path?: string; port?: number } }): ClientConfig {
  const out: ClientConfig = {};
  if (cc.url) out.url = cc.url;
  if (cc.service) {
    out.service = {
      namespace: cc.service.namespace ?? '',
      name: cc.service.name ?? '',
      ...(cc.service.path !== undefined ? { path: cc.service.path } : {}),
      port: cc.service.port ?? 443,
    };
  }
  if (cc.caBundle) out.caBundle = Buffer.from(cc.caBundle, 'base64').toString('utf8');
  return out;
}

/** A failure to get an answer (kube's ErrCallingWebhook reason), with the HTTP status when the webhook answered one. */
export class CallFailure extends Error {
  constructor(message: string, readonly statusCode?: number) {
    super(message);
  }
}

export interface Answer {
  status: number;
  body: unknown;
}

const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
const MAX_AGENTS = 256;

interface Target {
  /** The URL kube names in its errors (with the timeout parameter client-go adds). */
  url: URL;
  /** host:port to connect to, when not the URL's (a service). */
  dial?: { host: string; port: number };
  servername: string;
}

export class WebhookClients {
  private readonly agents = new Map<string, Agent>();

  constructor(private readonly services: ServiceResolver) {}

  /** POSTs the review; resolves with any HTTP answer whose body is JSON, rejects with a CallFailure. */
  async post(hook: WebhookEndpoint, review: unknown): Promise<Answer> {
    const deadline = Date.now() + hook.timeoutSeconds * 1000;
    const target = this.target(hook);
    const where = `Post "${target.url.href}"`;
    let dial = target.dial;
    const service = hook.clientConfig.service;
    if (service) {
      try {
        const resolved = splitHostPort(await this.services.resolve(service.namespace, service.name, service.port));
        dial = resolved;
      } catch (err) {
        throw new CallFailure(`${where}: ${(err as Error).message}`);
      }
    }
    const body = JSON.stringify(review);
    return new Promise<Answer>((resolve, reject) => {
      const fail = (message: string, status?: number): void => reject(new CallFailure(message, status));
      const req = request(
        {
          method: 'POST',
          host: stripBrackets(dial?.host ?? target.url.hostname),
          port: dial?.port ?? (target.url.port ? Number(target.url.port) : 443),
          path: target.url.pathname + target.url.search,
          // TLS sends no server name for an IP address (RFC 6066); the certificate is then checked for the IP
          ...(isIP(target.servername) ? {} : { servername: target.servername }),
          headers: {
            Host: target.url.host,
            'Content-Type': 'application/json',
            Accept: 'application/json, */*',
            'Content-Length': String(Buffer.byteLength(body)),
          },
          agent: this.agentFor(hook.clientConfig.caBundle, target.servername),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_ANSWER_BYTES) req.destroy(new Error(`the webhook's answer is larger than ${MAX_ANSWER_BYTES} bytes`));
            else chunks.push(c);
          });
          res.on('end', () => {
            clearTimeout(timer);
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            const failure = clientGoResultError(status, res.headers['content-type'], text);
            if (failure !== undefined) return fail(failure, status);
            const parsed: unknown = JSON.parse(text);
            resolve({ status, body: parsed });
          });
          res.on('error', (e) => fail(`${where}: ${goNetError(e, target)}`));
        },
      );
      const timer = setTimeout(() => req.destroy(new DeadlineExceeded()), Math.max(0, deadline - Date.now()));
      req.on('error', (e) => {
        clearTimeout(timer);
        fail(`${where}: ${goNetError(e, target, dial)}`);
      });
      req.end(body);
    });
  }

  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  private target(hook: WebhookEndpoint): Target {
    const timeout = hook.timeoutInUrl === false ? '' : `timeout=${hook.timeoutSeconds}s`;
    const service = hook.clientConfig.service;
    if (service) {
      const servername = `${service.name}.${service.namespace}.svc`;
      const path = service.path ?? '/';
      return { url: new URL(`https://${servername}:${service.port}${path.startsWith('/') ? path : `/${path}`}${timeout ? `?${timeout}` : ''}`), servername };
    }
    const url = new URL(hook.clientConfig.url ?? '');
    url.search = timeout;
    return { url, servername: stripBrackets(url.hostname) };
  }

  private agentFor(ca: string | undefined, servername: string): Agent {
    const key = `${ca ? createHash('sha256').update(ca).digest('hex') : 'system'}|${servername}`;
    let agent = this.agents.get(key);
    if (agent) {
      // most recently used last, so that the bound below drops the oldest
      this.agents.delete(key);
      this.agents.set(key, agent);
      return agent;
    }
    agent = new Agent({ keepAlive: true, maxSockets: 64, ...(ca ? { ca } : {}) });
    this.agents.set(key, agent);
    // configurations come and go with their CA bundles: keep the agents (and their idle sockets) bounded
    if (this.agents.size > MAX_AGENTS) {
      const [oldest, old] = this.agents.entries().next().value as [string, Agent];
      this.agents.delete(oldest);
      old.destroy();
    }
    return agent;
  }
}

/** An HTTP call's deadline passing, in Go's words (http.Client's timeout, a context deadline). */
export class DeadlineExceeded extends Error {
  constructor() {
    super('context deadline exceeded');
  }
}

function stripBrackets(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}

function splitHostPort(hostPort: string): { host: string; port: number } {
  const i = hostPort.lastIndexOf(':');
  return { host: stripBrackets(hostPort.slice(0, i)), port: Number(hostPort.slice(i + 1)) };
}

/** Node's socket and TLS errors in the words of Go's net/http, crypto/tls and x509. */
function goNetError(e: Error, target: Target, dial?: { host: string; port: number }): string {
  if (e instanceof DeadlineExceeded) return e.message;
  const code = (e as { code?: string }).code ?? '';
  const addr = dial ? `${dial.host}:${dial.port}` : target.url.host;
  switch (code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${dial?.host ?? target.url.hostname}: no such host`;
    case 'ECONNRESET':
      return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': {
      const names = /altnames: (.*)$/.exec(e.message)?.[1]?.split(', ').map((n) => n.replace(/^(DNS|IP Address):/, '')) ?? [];
      return `tls: failed to verify certificate: x509: certificate is valid for ${names.join(', ')}, not ${target.servername}`;
    }
    default:
      return e.message;
  }
}

/** The Go net/http error of a failed call to `url` (client-go wraps it as `Post "<url>": <error>`). */
export function goHttpClientError(method: string, e: Error, url: URL): string {
  return `${method} "${url.href}": ${goNetError(e, { url, servername: stripBrackets(url.hostname) })}`;
}

// client-go's rest client caps the text it quotes from an unexpected answer
const MAX_UNSTRUCTURED_RESPONSE_TEXT_BYTES = 2048;

/**
 * What client-go's rest Result says of an answer (transformResponse, then
 * Into): undefined when it decodes. A non-2xx answer is its Status message
 * when the body is a failed Status in JSON, else apimachinery's
 * NewGenericServerResponse quoting the body when it is text (no type, or
 * text/*), "unknown" otherwise. A 2xx answer fails when no JSON decoder
 * serves its media type, when it is empty, or when it is not a JSON object.
 */
export function clientGoResultError(status: number, contentTypeHeader: string | undefined, body: string): string | undefined {
  // client-go assumes its own content type (application/json) for an answer that names none
  const contentType = contentTypeHeader === undefined || contentTypeHeader === '' ? 'application/json' : contentTypeHeader;
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  const decodable = media === 'application/json';
  if (status < 200 || status > 206) {
    if (decodable && body.length > 0) {
      const s = tryDecode(body);
      if (s && typeof s === 'object' && !Array.isArray(s) && (s as { kind?: unknown }).kind === 'Status' && (s as { status?: unknown }).status === 'Failure') {
        return String((s as { message?: unknown }).message ?? '');
      }
    }
    const isText = contentTypeHeader === undefined || contentTypeHeader === '' || media.startsWith('text/');
    const capped = Buffer.from(body, 'utf8').subarray(0, MAX_UNSTRUCTURED_RESPONSE_TEXT_BYTES).toString('utf8');
    return genericServerResponse(status, isText ? capped.trim() : 'unknown');
  }
  if (!decodable) return `serializer for ${contentType} doesn't exist`;
  if (body.length === 0) return `0-length response with status code: ${status} and content type: ${contentType}`;
  let value: unknown;
  try {
    value = decodeJson(body);
  } catch (e) {
    return `couldn't get version/kind; json parse error: ${(e as Error).message}`;
  }
  const s = value as { kind?: unknown; status?: unknown; message?: unknown } | null;
  if (s !== null && typeof s === 'object' && !Array.isArray(s) && s.kind === 'Status' && s.status !== 'Success') return String(s.message ?? '');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    // encoding/json into the serializer's {apiVersion, kind} probe struct
    const kind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
    if (value !== null) return `couldn't get version/kind; json parse error: json: cannot unmarshal ${kind} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
  }
  return undefined;
}

function tryDecode(body: string): unknown {
  try {
    return decodeJson(body);
  } catch {
    return undefined;
  }
}

/** apimachinery's NewGenericServerResponse message (no resource named: webhook calls name none). */
function genericServerResponse(code: number, serverMessage: string): string {
  switch (code) {
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
      return serverMessage;
    case 404:
      return 'the server could not find the requested resource';
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 406:
      return serverMessage === '' || serverMessage === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : serverMessage;
    case 409:
      return 'the server reported a conflict';
    case 415:
      return serverMessage;
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    default:
      if (code >= 500) return `an error on the server (${strconvQuote(serverMessage)}) has prevented the request from succeeding`;
      return `the server responded with the status code ${code} but did not return more information`;
  }
}
