import type { AdmissionPlugin } from '../admission.js';
import type { AdmissionPluginContext } from '../plugin-context.js';
import { AdmissionMatcher } from '../matching/matcher.js';
import { WebhookClients } from './client.js';
import { MutatingWebhookPlugin } from './mutating.js';
import { ClusterIpServiceResolver, EndpointServiceResolver, type ServiceResolver } from '../../registry/service-routing.js';
import { WebhookSource } from './source.js';
import { ValidatingWebhookPlugin } from './validating.js';

/**
 * The two webhook plugins as ADMISSION_PLUGIN_FACTORIES builds them: each
 * follows its configuration kind through the watch cache and reads
 * namespaces and services through lookups. Services resolve to their cluster
 * IP, as kube-apiserver does by default, or to an EndpointSlice endpoint
 * when the context asks for aggregator routing (--enable-aggregator-routing).
 */

function parts(ctx: AdmissionPluginContext, resource: string): { source: WebhookSource; matcher: AdmissionMatcher; clients: WebhookClients } {
  const info = ctx.catalog.resource('admissionregistration.k8s.io', 'v1', resource);
  if (!info) throw new Error(`admissionregistration.k8s.io/v1 ${resource} is not served`);
  const namespaces = ctx.lookup('', 'v1', 'namespaces');
  const services = ctx.lookup('', 'v1', 'services');
  const resolver: ServiceResolver = ctx.enableAggregatorRouting
    ? new EndpointServiceResolver(services, () => ctx.registry.storeFor(ctx.catalog.resource('discovery.k8s.io', 'v1', 'endpointslices')!))
    : new ClusterIpServiceResolver(services);
  return {
    source: new WebhookSource(ctx.registry.storeFor(info), ctx.authorizer),
    matcher: new AdmissionMatcher(ctx.catalog, (name) => namespaces(undefined, name)),
    clients: new WebhookClients(resolver, ctx.metrics?.webhooks),
  };
}

export function mutatingWebhookPlugin(ctx: AdmissionPluginContext): AdmissionPlugin {
  const p = parts(ctx, 'mutatingwebhookconfigurations');
  return new MutatingWebhookPlugin(p.source, p.matcher, p.clients, ctx.shutdown, (info, obj) => {
    const descriptor = ctx.registry.descriptorFor(info);
    descriptor.defaults(info, obj);
    descriptor.canonicalize(info, obj);
  });
}

export function validatingWebhookPlugin(ctx: AdmissionPluginContext): AdmissionPlugin {
  const p = parts(ctx, 'validatingwebhookconfigurations');
  return new ValidatingWebhookPlugin(p.source, p.matcher, p.clients, ctx.shutdown);
}
