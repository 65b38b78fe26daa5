import { request } from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { writeText } from '../http/respond.js';
import type { RequestContext } from '../machinery/context.js';
import type { ServiceResolver } from '../registry/service-routing.js';
import { serverName, serviceAddress, setAuthProxyHeaders, tlsConnection, tlsOptions, type ProxyClientCertificate, type RemoteApiService } from './extension-server.js';
import { goTransportErrorText, type TransportError } from './go-net-errors.js';
import { proxyUpgrade } from './upgrade-proxy.js';

/**
 * kube-aggregator's proxy handler (handler_proxy.go): a request for a
 * group-version an extension API server serves goes to one of its service's
 * endpoints, as the authenticated (and authorized) user in X-Remote-*
 * headers, with the front proxy's client certificate; the answer comes back
 * as it is, streamed (watches included). An upgrade request (exec, attach,
 * port-forward, a console: WebSocket or SPDY) becomes a tunnel to the
 * extension server (upgrade-proxy.ts). An unavailable APIService or an
 * unreachable server is kube's plain-text 503.
 */

/** Hop-by-hop headers a proxy never forwards (RFC 7230 and Go's httputil.ReverseProxy). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

/** CORS headers kube's proxy transport removes from the extension server's answers (corsRemovingTransport). */
const CORS = new Set(['access-control-allow-credentials', 'access-control-allow-headers', 'access-control-allow-methods', 'access-control-allow-origin']);

/**
 * The request's headers as they go on: credentials and impersonation were
 * this server's to check (the identity travels in X-Remote-* instead), and
 * the client's address is appended to X-Forwarded-For as Go's proxies do.
 * An upgrade keeps its Connection and Upgrade headers: they are what asks
 * the extension server to switch protocols.
 */
function forwardedHeaders(ctx: RequestContext, upgrade: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(ctx.req.headers as IncomingHttpHeaders)) {
    if (value === undefined || name === 'authorization' || name.startsWith('impersonate-') || name === 'x-forwarded-for') continue;
    if (name === 'host' || (!upgrade && HOP_BY_HOP.has(name))) continue;
    out[name] = value;
  }
  // Go reports an IPv4 client of a dual-stack listener without the IPv6 mapping.
  const client = ctx.req.socket.remoteAddress?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  if (client) {
    const prior = ctx.req.headers['x-forwarded-for'];
    out['x-forwarded-for'] = prior ? `${prior}, ${client}` : client;
  }
  return out;
}

export async function proxyToExtensionServer(ctx: RequestContext, api: RemoteApiService, resolver: ServiceResolver, client: ProxyClientCertificate | undefined): Promise<void> {
  if (!api.available) return writeText(ctx, 503, 'service unavailable\n');
  let endpoint;
  try {
    endpoint = serviceAddress(await resolver.resolve(api.service.namespace, api.service.name, api.service.port));
  } catch (err) {
    ctx.logger?.error(`error resolving ${api.service.namespace}/${api.service.name}: ${(err as Error).message}`);
    return writeText(ctx, 503, 'service unavailable\n');
  }
  const user = ctx.user;
  if (!user) return writeText(ctx, 500, 'missing user\n');
  const headers = forwardedHeaders(ctx, ctx.upgrade !== undefined);
  setAuthProxyHeaders(headers, user);
  const path = `${ctx.url.pathname}${ctx.url.search}`;
  if (ctx.upgrade) return proxyUpgrade(ctx, ctx.upgrade, { tls: tlsConnection(api, endpoint, client), address: endpoint, path, headers });
  await new Promise<void>((resolve) => {
    const upstream = request({ ...tlsOptions(api, endpoint, client), method: ctx.req.method ?? 'GET', path, headers }, (res) => {
      const responseHeaders: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined && !HOP_BY_HOP.has(name) && !CORS.has(name)) responseHeaders[name] = value;
      ctx.res.writeHead(res.statusCode ?? 502, responseHeaders);
      // Each chunk goes out as it comes: a watch's events must not wait in a buffer.
      ctx.res.flushHeaders();
      res.pipe(ctx.res);
      res.on('end', resolve);
      res.on('error', () => {
        ctx.res.destroy();
        resolve();
      });
    });
    upstream.on('error', (err: TransportError) => {
      // The responder's http.Error: Go's transport error as plain text.
      if (!ctx.res.headersSent) writeText(ctx, 503, `${goTransportErrorText(err, endpoint, serverName(api))}\n`);
      else ctx.res.destroy();
      resolve();
    });
    // A client that goes away ends the upstream request (a watch, mostly).
    ctx.res.on('close', () => {
      if (!ctx.res.writableFinished) upstream.destroy();
      resolve();
    });
    ctx.req.pipe(upstream);
  });
}
