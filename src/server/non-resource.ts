import { apiGroup, apiResourceList, DiscoveryService } from '../api/discovery.js';
import { OpenApiService, type AggregatedOpenApiSource, type OpenApiHttpResponse } from '../api/openapi.js';
import type { ApiCatalog } from '../api/catalog.js';
import type { HealthChecks, HealthEndpoint } from '../observability/health.js';
import type { Metrics } from '../observability/metrics.js';
import type { RequestContext } from '../machinery/context.js';
import { notAcceptable } from '../machinery/errors.js';
import { splitPath } from '../machinery/request-info.js';
import { writeBody, writePlain, writeText } from '../http/respond.js';
import { versionInfo } from './version.js';
import { DISCOVERY_MAX_AGE_SECONDS, JWKS_PATH, OPENID_CONFIG_PATH, type IssuerDiscovery } from '../authn/service-account-discovery.js';

/** What the aggregator adds to /openapi: the extension servers' documents, and a way to reach those they serve. */
export interface OpenApiAggregationRoutes {
  documents: AggregatedOpenApiSource;
  /** Proxies a request for the v3 document `key` to the extension server serving it; undefined when none does. */
  proxyV3(ctx: RequestContext, key: string): Promise<void> | undefined;
}

/**
 * Everything outside resource paths: health, version and discovery.
 * Unknown paths get kube-apiserver's plain-text 404.
 */
export class NonResourceRoutes {
  private readonly discovery: DiscoveryService;
  private readonly openapi: OpenApiService;

  constructor(
    private readonly catalog: ApiCatalog,
    private readonly health: HealthChecks,
    private readonly metrics: Metrics,
    serverAddress: string,
    /** The service account issuer's discovery documents, when served. */
    private readonly issuerDiscovery?: IssuerDiscovery,
    /** kube-aggregator's part of the OpenAPI documents. */
    private readonly aggregation?: OpenApiAggregationRoutes,
  ) {
    this.discovery = new DiscoveryService(catalog, serverAddress);
    this.openapi = new OpenApiService(catalog, { gitVersion: versionInfo().gitVersion, ...(aggregation ? { aggregated: aggregation.documents } : {}) });
  }

  async serve(ctx: RequestContext): Promise<void> {
    const parts = splitPath(ctx.url.pathname) ?? [];
    const [first, second, third] = parts;
    const readOnly = ctx.method === 'GET' || ctx.method === 'HEAD';
    if (first === 'livez' || first === 'readyz' || first === 'healthz') {
      if (!readOnly || parts.length > 2) return notFound(ctx);
      const r = await this.health.serve(first as HealthEndpoint, second, ctx.query);
      if (!r) return notFound(ctx);
      ctx.warnings.push(...r.warnings);
      return writeText(ctx, r.code, r.body);
    }
    if (!readOnly) return notFound(ctx);
    if (first === 'version' && parts.length === 1) return writePlain(ctx, 200, versionInfo());
    if (this.issuerDiscovery && (ctx.url.pathname === OPENID_CONFIG_PATH || ctx.url.pathname === JWKS_PATH)) {
      const jwks = ctx.url.pathname === JWKS_PATH;
      return writeBody(ctx, 200, jwks ? this.issuerDiscovery.keysetJson : this.issuerDiscovery.configJson, jwks ? 'application/jwk-set+json' : 'application/json', {
        'Cache-Control': `public, max-age=${DISCOVERY_MAX_AGE_SECONDS}`,
      });
    }
    if (first === 'metrics' && parts.length === 1) {
      const m = await this.metrics.scrape();
      return writeBody(ctx, 200, m.body, m.contentType);
    }
    if (first === 'openapi' && second === 'v2' && parts.length === 2) return this.writeOpenApi(ctx, this.openapi.respondV2(this.openApiRequest(ctx)));
    if (first === 'openapi' && second === 'v3') {
      // A document an extension server serves itself is proxied to it (kube-aggregator's specProxier).
      const key = parts.slice(2).join('/');
      if (key !== '' && this.aggregation && !this.openapi.v3Document(key)) {
        const proxied = this.aggregation.proxyV3(ctx, key);
        if (proxied) return proxied;
      }
      return this.writeOpenApi(ctx, this.openapi.respondV3(this.openApiRequest(ctx)));
    }
    if ((first === 'api' || first === 'apis') && parts.length === 1) return this.serveDiscoveryRoot(ctx, first);
    if (first === 'api' && parts.length === 2) {
      const list = apiResourceList(this.catalog, '', second!);
      return list ? writePlain(ctx, 200, list) : notFound(ctx);
    }
    if (first === 'apis' && parts.length === 2) {
      const group = apiGroup(this.catalog, second!);
      return group ? writePlain(ctx, 200, group) : notFound(ctx);
    }
    if (first === 'apis' && parts.length === 3) {
      const list = apiResourceList(this.catalog, second!, third!);
      return list ? writePlain(ctx, 200, list) : notFound(ctx);
    }
    return notFound(ctx);
  }

  private openApiRequest(ctx: RequestContext): { path: string; hash: string | undefined; accept: string | undefined; ifNoneMatch: string | undefined; ifModifiedSince: string | undefined } {
    return {
      path: ctx.url.pathname,
      hash: ctx.query.get('hash') ?? undefined,
      accept: ctx.header('accept'),
      ifNoneMatch: ctx.header('if-none-match'),
      ifModifiedSince: ctx.header('if-modified-since'),
    };
  }

  private writeOpenApi(ctx: RequestContext, r: OpenApiHttpResponse): void {
    if (r.status === 404) return notFound(ctx);
    if (r.status === 406) throw notAcceptable(['application/json', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf']);
    if (r.status !== 200 || !r.body) {
      ctx.res.writeHead(r.status, r.headers).end();
      return;
    }
    const { 'Content-Type': contentType, ...rest } = r.headers;
    writeBody(ctx, 200, r.body, contentType ?? 'application/json', rest);
  }

  private serveDiscoveryRoot(ctx: RequestContext, scope: 'api' | 'apis'): void {
    const r = this.discovery.respond(scope, ctx.header('accept'), ctx.header('if-none-match'));
    if (r.status === 406) throw notAcceptable(['application/json', 'application/yaml']);
    if (r.status === 304) {
      ctx.res.writeHead(304, r.headers).end();
      return;
    }
    if (r.object && r.headers['Content-Type'] !== 'application/json') return writePlain(ctx, 200, r.object);
    const { 'Content-Type': contentType, ...rest } = r.headers;
    writeBody(ctx, 200, r.body!, contentType ?? 'application/json', rest);
  }
}

function notFound(ctx: RequestContext): void {
  writeText(ctx, 404, '404 page not found\n');
}
