import { badRequest } from '../machinery/errors.js';
import { isRecord } from '../machinery/json.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { listOf, podSpecOf, type Toleration } from './pod-spec.js';

/**
 * The DefaultTolerationSeconds admission plugin
 * (plugin/pkg/admission/defaulttolerationseconds): every pod tolerates the
 * node.kubernetes.io/not-ready and /unreachable NoExecute taints for
 * --default-not-ready-toleration-seconds and
 * --default-unreachable-toleration-seconds (300 each) unless it already
 * tolerates them (an empty key or effect counts).
 */

export const DEFAULT_TOLERATION_SECONDS = 300;
const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

export class DefaultTolerationSeconds implements AdmissionPlugin {
  readonly name = 'DefaultTolerationSeconds';

  constructor(
    private readonly notReadySeconds = DEFAULT_TOLERATION_SECONDS,
    private readonly unreachableSeconds = DEFAULT_TOLERATION_SECONDS,
  ) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.resource.name !== 'pods' || attrs.subresource) return;
    if (!isRecord(attrs.object)) throw badRequest('expected *api.Pod but got <nil>');
    const spec = podSpecOf(attrs.object);
    const tolerations = listOf(spec.tolerations);
    const tolerates = (key: string): boolean =>
      tolerations.some((t) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
    const added: Toleration[] = [];
    if (!tolerates(NOT_READY)) added.push({ key: NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: this.notReadySeconds });
    if (!tolerates(UNREACHABLE)) added.push({ key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: this.unreachableSeconds });
    if (added.length > 0) spec.tolerations = [...tolerations, ...added];
  }
}
