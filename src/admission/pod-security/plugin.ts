import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../admission.js';
import type { AdmissionPluginContext } from '../plugin-context.js';
import { AUDIT_ANNOTATION_PREFIX } from './api.js';
import { loadPodSecurityConfiguration } from './configuration.js';
import { PodSecurityEvaluator } from './evaluator.js';
import { PodSecurityMetrics, type CounterFamily } from './metrics.js';
import { PodSecurityAdmission, hasPodSpec, type PodSecuritySources } from './pod-security-admission.js';

/**
 * The PodSecurity admission plugin: a validating plugin for creates and
 * updates of namespaces, pods and pod controllers, reporting to the request
 * as kube's plugin does (Warning headers, audit annotations under
 * pod-security.kubernetes.io/, a refusal as the core's Status).
 */
export class PodSecurityPlugin implements AdmissionPlugin {
  readonly name = 'PodSecurity';

  constructor(
    readonly core: PodSecurityAdmission,
    private readonly metrics?: PodSecurityMetrics,
  ) {}

  /** pod_security_evaluations_total, pod_security_exemptions_total, pod_security_errors_total for /metrics. */
  counters(): readonly CounterFamily[] {
    return this.metrics?.families ?? [];
  }

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const { group, name } = attrs.resource;
    if (!(group === '' && name === 'namespaces') && !hasPodSpec(attrs.resource)) return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    const result = await this.core.validate({
      operation: attrs.operation,
      resource: attrs.resource,
      subresource: attrs.subresource,
      namespace: attrs.namespace,
      name: attrs.name,
      username: attrs.user?.username ?? '',
      ...(attrs.object ? { object: attrs.object } : {}),
      ...(attrs.oldObject ? { oldObject: attrs.oldObject } : {}),
    });
    for (const w of result.warnings) attrs.addWarning?.(w);
    for (const [k, v] of Object.entries(result.auditAnnotations)) attrs.addAuditAnnotation?.(AUDIT_ANNOTATION_PREFIX + k, v);
    if (!result.allowed && result.error) throw result.error;
  }
}

/** Built from the plugin context: namespaces and pods read through the watch caches. */
export function newPodSecurityPlugin(ctx: AdmissionPluginContext, metrics = new PodSecurityMetrics()): PodSecurityPlugin {
  const config = loadPodSecurityConfiguration(ctx.configuration);
  const namespaces = ctx.lookup('', 'v1', 'namespaces');
  const sources: PodSecuritySources = {
    getNamespace: (name) => namespaces(undefined, name),
    listPods: async (namespace) => {
      const pods = ctx.registry.storeFor(ctx.catalog.resource('', 'v1', 'pods')!);
      return (await pods.list({ namespace, readAt: { kind: 'any' } })).items.map((c) => c.object);
    },
  };
  return new PodSecurityPlugin(new PodSecurityAdmission(config, new PodSecurityEvaluator(), sources, metrics), metrics);
}
