import { isRecord } from '../machinery/json.js';
import type { KubeObject } from '../machinery/object.js';
import type { ObjectLookup } from '../registry/object-lookup.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { podSpecOf, stringMapOf } from './pod-spec.js';

/**
 * The PodTopologyLabels admission plugin
 * (plugin/pkg/admission/podtopologylabels; feature PodTopologyLabelsAdmission,
 * beta and on since 1.35): a pod bound to a node (by a Binding, or created
 * with spec.nodeName) gets the node's topology.kubernetes.io/zone and
 * /region labels. On a Binding the labels go on the Binding, which the
 * binding subresource copies to the pod.
 */

export const TOPOLOGY_LABELS = ['topology.kubernetes.io/zone', 'topology.kubernetes.io/region'];

export class PodTopologyLabels implements AdmissionPlugin {
  readonly name = 'PodTopologyLabels';

  constructor(
    private readonly nodes: ObjectLookup,
    private readonly enabled = true,
  ) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!this.enabled) return;
    // Only pods and pods/binding: a POST to the bindings resource is not looked at (as in kube).
    if (attrs.resource.group !== '' || attrs.resource.name !== 'pods' || !isRecord(attrs.object)) return;
    const target = attrs.object;
    let nodeName: string | undefined;
    if (attrs.subresource === '') nodeName = podSpecOf(target).nodeName;
    else if (attrs.subresource === 'binding') {
      const t = target.target;
      // The scheduler sets only the kind of the target.
      if (!isRecord(t) || t.kind !== 'Node') return;
      nodeName = typeof t.name === 'string' ? t.name : undefined;
    } else return;
    if (!nodeName) return;
    const labels = await this.topologyLabels(nodeName);
    if (Object.keys(labels).length === 0) return;
    // The node's values overwrite the object's own.
    Object.assign(stringMapOf((target.metadata ??= {}) as Record<string, unknown>, 'labels'), labels);
  }

  private async topologyLabels(nodeName: string): Promise<Record<string, string>> {
    // A node that does not exist contributes nothing.
    const node: KubeObject | undefined = await this.nodes(undefined, nodeName);
    const out: Record<string, string> = {};
    for (const key of TOPOLOGY_LABELS) {
      const value = node?.metadata?.labels?.[key];
      if (typeof value === 'string') out[key] = value;
    }
    return out;
  }
}
