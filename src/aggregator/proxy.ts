import { request } from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { writeText } from '../http/respond.js';
import type { RequestContext } from '../machinery/context.js';
import type { ServiceResolver } from '../registry/service-routing.js';
import { serviceAddress, setAuthProxyHeaders, tlsOptions, type ProxyClientCertificate, type RemoteApiService } from './extension-server.js';

/**
 * kube-aggregator's proxy handler: a request for a group-version an
 * extension API server serves goes to one of its service's endpoints, as
 * the authenticated (and authorized) user in X-Remote-* headers, with the
 * front proxy's client certificate; the answer comes back as it is,
 * streamed (watches included). An unavailable APIService or an unreachable
 * server is kube's plain-text 503.
 */

/** Hop-by-hop headers a proxy never forwards (RFC 7230 and Go's httputil.ReverseProxy). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

function forwardedHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    // The credentials were this server's to check; the identity travels in X-Remote-* instead.
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'authorization' || name.startsWith('impersonate-')) continue;
    out[name] = value;
  }
  return out;
}

/** Go's net error texts for the failures a client of the aggregator can see. */
function dialError(err: NodeJS.ErrnoException, host: string, port: number): string {
  if (err.code === 'ECONNREFUSED') return `dial tcp ${host}:${port}: connect: connection refused`;
  if (err.code === 'ETIMEDOUT') return `dial tcp ${host}:${port}: i/o timeout`;
  return err.message;
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
  const headers = forwardedHeaders(ctx.req.headers);
  setAuthProxyHeaders(headers, user);
  const path = `${ctx.url.pathname}${ctx.url.search}`;
  await new Promise<void>((resolve) => {
    const upstream = request({ ...tlsOptions(api, endpoint, client), method: ctx.req.method ?? 'GET', path, headers }, (res) => {
      const responseHeaders: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) responseHeaders[name] = value;
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
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (!ctx.res.headersSent) writeText(ctx, 503, `${dialError(err, endpoint.host, endpoint.port)}\n`);
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
