import { isRecord } from '../machinery/json.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { admissionForbidden } from './admission-errors.js';
import { listOf } from './pod-spec.js';

/**
 * The TaintNodesByCondition admission plugin
 * (plugin/pkg/admission/nodetaint): a node is created with the
 * node.kubernetes.io/not-ready:NoSchedule taint, so nothing is scheduled to
 * it before the node lifecycle controller sees it Ready and removes it.
 */
const NOT_READY_TAINT = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

export class TaintNodesByCondition implements AdmissionPlugin {
  readonly name = 'TaintNodesByCondition';

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.resource.name !== 'nodes' || attrs.subresource) return;
    const node = attrs.object;
    if (!isRecord(node)) throw admissionForbidden(attrs, `unexpected type ${typeof node}`);
    if (!isRecord(node.spec)) node.spec = {};
    const spec = node.spec as { taints?: Array<{ key?: string; effect?: string }> };
    const taints = listOf(spec.taints);
    // Taint.MatchTaint: same key and effect.
    if (taints.some((t) => t.key === NOT_READY_TAINT.key && t.effect === NOT_READY_TAINT.effect)) return;
    spec.taints = [...taints, { ...NOT_READY_TAINT }];
  }
}
