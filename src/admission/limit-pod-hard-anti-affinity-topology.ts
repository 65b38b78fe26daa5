import { forbidden } from '../machinery/errors.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';

const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/**
 * LimitPodHardAntiAffinityTopology: a Pod's required anti-affinity terms
 * may only use the node's hostname as topology key.
 */
export class LimitPodHardAntiAffinityTopology implements AdmissionPlugin {
  readonly name = 'LimitPodHardAntiAffinityTopology';

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource || attrs.resource.group !== '' || attrs.resource.name !== 'pods') return;
    const spec = attrs.object?.spec as { affinity?: { podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: unknown } } } | undefined;
    const terms = spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (!Array.isArray(terms)) return;
    for (const term of terms) {
      const key = (term as { topologyKey?: unknown } | null)?.topologyKey;
      const topologyKey = typeof key === 'string' ? key : '';
      if (topologyKey !== HOSTNAME_LABEL) {
        throw forbidden(
          { group: '', resource: 'pods' },
          attrs.object?.metadata?.name ?? '',
          `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${topologyKey} but only key ${HOSTNAME_LABEL} is allowed`,
        );
      }
    }
  }
}
