import { request, type RequestOptions } from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { ConnectionOptions } from 'node:tls';
import { escapeExtraKey } from '../authn/request-header.js';
import type { UserInfo } from '../machinery/context.js';
import type { KubeObject } from '../machinery/object.js';

/**
 * How Capstan reaches an extension API server behind an APIService (kube's
 * remote.BuildTransportConfig): TLS to the service's endpoint, verified
 * against the APIService's caBundle as `<service>.<namespace>.svc` (or not
 * at all with insecureSkipTLSVerify), presenting the front proxy's client
 * certificate, and the caller's identity in kube's X-Remote-* headers.
 */

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** An APIService that names a service (a remote one). */
export interface RemoteApiService {
  name: string;
  group: string;
  version: string;
  groupPriority: number;
  versionPriority: number;
  service: { namespace: string; name: string; port: number };
  caBundle?: string;
  insecureSkipTLSVerify: boolean;
  available: boolean;
}

/** The front proxy's client certificate (--proxy-client-cert-file / --proxy-client-key-file). */
export interface ProxyClientCertificate {
  cert: string;
  key: string;
}

/** Whether an APIService's Available condition is True; undefined while it has none. */
export function apiServiceAvailable(apiService: KubeObject): boolean | undefined {
  const conditions = Array.isArray(obj(apiService.status).conditions) ? (obj(apiService.status).conditions as unknown[]).map(obj) : [];
  const available = conditions.find((c) => c.type === 'Available');
  return available ? available.status === 'True' : undefined;
}

/** The remote APIService an object describes, or undefined for a local one (no service). */
export function remoteApiService(apiService: KubeObject): RemoteApiService | undefined {
  const spec = obj(apiService.spec);
  const service = spec.service === undefined || spec.service === null ? undefined : obj(spec.service);
  if (!service) return undefined;
  const available = apiServiceAvailable(apiService) === true;
  const caBundle = str(spec.caBundle);
  return {
    name: str(apiService.metadata?.name),
    group: str(spec.group),
    version: str(spec.version),
    groupPriority: typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0,
    versionPriority: typeof spec.versionPriority === 'number' ? spec.versionPriority : 0,
    service: { namespace: str(service.namespace), name: str(service.name), port: typeof service.port === 'number' ? service.port : 443 },
    ...(caBundle ? { caBundle: Buffer.from(caBundle, 'base64').toString('utf8') } : {}),
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
    available,
  };
}

/** Where a call goes: the `host:port` a Service resolved to (registry/service-routing.ts), split. */
export interface ServiceAddress {
  host: string;
  port: number;
}

export function serviceAddress(hostPort: string): ServiceAddress {
  const u = new URL(`https://${hostPort}`);
  return { host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(u.port || 443) };
}

/** The name an extension server's certificate must carry: its Service's DNS name. */
export function serverName(api: RemoteApiService): string {
  return `${api.service.name}.${api.service.namespace}.svc`;
}

/** TLS connection options for the extension server at `address` (a raw connection: upgrades). */
export function tlsConnection(api: RemoteApiService, address: ServiceAddress, client: ProxyClientCertificate | undefined, verify = true): ConnectionOptions {
  return {
    host: address.host,
    port: address.port,
    servername: serverName(api),
    rejectUnauthorized: verify && !api.insecureSkipTLSVerify,
    ...(api.caBundle ? { ca: api.caBundle } : {}),
    ...(client ? { cert: client.cert, key: client.key } : {}),
  };
}

/** Connection options for an HTTP request to the extension server at `address`. */
export function tlsOptions(api: RemoteApiService, address: ServiceAddress, client: ProxyClientCertificate | undefined, verify = true): RequestOptions {
  // Connections are not pooled across requests: each APIService's TLS settings differ and may change.
  return { ...tlsConnection(api, address, client, verify), agent: false };
}

/** client-go's SetAuthProxyHeaders: the caller's identity, replacing any X-Remote-* the request carried. */
export function setAuthProxyHeaders(headers: OutgoingHttpHeaders, user: UserInfo): void {
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'x-remote-user' || lower === 'x-remote-uid' || lower === 'x-remote-group' || lower.startsWith('x-remote-extra-')) delete headers[name];
  }
  headers['X-Remote-User'] = user.username;
  if (user.uid) headers['X-Remote-Uid'] = user.uid;
  if (user.groups.length > 0) headers['X-Remote-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    if (values.length > 0) headers[`X-Remote-Extra-${escapeExtraKey(key)}`] = [...values];
  }
}

/** An answer read in full. */
export interface ExtensionServerResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Discovery documents are small; an extension server cannot make us hold more. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** A GET to the extension server answered in full (discovery checks and documents, OpenAPI downloads). */
export function getFromExtensionServer(
  options: RequestOptions,
  path: string,
  user: UserInfo,
  timeoutMs: number,
  extra: { headers?: OutgoingHttpHeaders; maxBytes?: number } = {},
): Promise<ExtensionServerResponse> {
  const headers: OutgoingHttpHeaders = { Accept: 'application/json', ...extra.headers };
  setAuthProxyHeaders(headers, user);
  const maxBytes = extra.maxBytes ?? MAX_RESPONSE_BYTES;
  return new Promise((resolve, reject) => {
    const req = request({ ...options, method: 'GET', path, headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) req.destroy(new Error('response too large'));
        else chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)));
    req.on('error', reject);
    req.end();
  });
}
