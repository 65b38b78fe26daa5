import type { KubeObject } from '../machinery/object.js';
import { forbidden, notFound } from '../machinery/errors.js';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

/**
 * NamespaceLifecycle: no new content in a namespace that does not exist or is
 * being terminated, and the system namespaces can never be deleted.
 */

/**
 * Namespaces kube-apiserver refuses to delete. kube-node-lease is not among
 * them upstream (it is recreated by the system-namespaces controller instead).
 */
export const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

/** Review types that are namespaced but never stored: allowed whatever the namespace's state. */
const EXEMPT_RESOURCES = new Set(['authorization.k8s.io/localsubjectaccessreviews']);

export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = 'NamespaceLifecycle';

  constructor(private readonly getNamespace: (name: string) => Promise<KubeObject | undefined>) {}

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const res = attrs.resource;
    if (attrs.operation === 'DELETE' && res.group === '' && res.name === 'namespaces' && !attrs.subresource) {
      if (IMMORTAL_NAMESPACES.has(attrs.name)) {
        throw forbidden({ group: '', resource: 'namespaces' }, attrs.name, 'this namespace may not be deleted');
      }
      return;
    }
    if (attrs.operation !== 'CREATE' || !res.namespaced || !attrs.namespace) return;
    if (EXEMPT_RESOURCES.has(`${res.group}/${res.name}`)) return;
    const ns = await this.getNamespace(attrs.namespace);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
    const phase = (ns.status as { phase?: string } | undefined)?.phase;
    if (phase === 'Terminating' || ns.metadata?.deletionTimestamp) {
      // Subresource creates (e.g. evictions, tokens) of existing objects stay possible.
      if (attrs.subresource) return;
      throw forbidden(
        { group: res.group, resource: res.name },
        attrs.name,
        `unable to create new content in namespace ${attrs.namespace} because it is being terminated`,
        [{ reason: 'NamespaceTerminating', message: `namespace ${attrs.namespace} is being terminated`, field: 'metadata.namespace' }],
      );
    }
  }
}
