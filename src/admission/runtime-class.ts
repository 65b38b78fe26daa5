import { badRequest } from '../machinery/errors.js';
import { isRecord } from '../machinery/json.js';
import { jsonEqual, type KubeObject } from '../machinery/object.js';
import type { ObjectLookup } from '../registry/object-lookup.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { admissionForbidden } from './admission-errors.js';
import { canonicalQuantityJson } from '../api/quantity.js';
import { listOf, podSpecOf, type PodSpec, type Toleration } from './pod-spec.js';
import { mergeTolerations } from './tolerations.js';

/**
 * The RuntimeClass admission plugin (plugin/pkg/admission/runtimeclass): a
 * new pod naming a RuntimeClass gets its overhead (spec.overhead) and its
 * scheduling (nodeSelector merged, tolerations merged); a pod naming one
 * that does not exist is refused, and a pod overhead that does not match
 * its class is refused.
 */

interface RuntimeClass extends KubeObject {
  overhead?: { podFixed?: Record<string, unknown> };
  scheduling?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
}

export class RuntimeClassAdmission implements AdmissionPlugin {
  readonly name = 'RuntimeClass';

  constructor(private readonly runtimeClasses: ObjectLookup) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const prepared = await this.prepare(attrs);
    if (!prepared) return;
    const { spec, runtimeClass } = prepared;
    if (!runtimeClass) return;
    const podFixed = runtimeClass.overhead?.podFixed;
    if (isRecord(podFixed)) {
      if (isRecord(spec.overhead) && Object.keys(spec.overhead).length > 0 && !sameResources(podFixed, spec.overhead)) {
        throw admissionForbidden(attrs, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      }
      spec.overhead = { ...podFixed };
    }
    const scheduling = runtimeClass.scheduling;
    if (!isRecord(scheduling)) return;
    const classSelector = isRecord(scheduling.nodeSelector) ? scheduling.nodeSelector : undefined;
    if (!isRecord(spec.nodeSelector)) {
      if (classSelector) spec.nodeSelector = { ...classSelector };
    } else if (classSelector) {
      for (const [key, value] of Object.entries(classSelector)) {
        const podValue = spec.nodeSelector[key];
        if (podValue !== undefined && podValue !== value) {
          throw admissionForbidden(attrs, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${value}; pod.spec.nodeSelector[${key}] = ${podValue}`);
        }
        spec.nodeSelector[key] = value;
      }
    }
    const merged = mergeTolerations(listOf(spec.tolerations), listOf(scheduling.tolerations));
    if (merged.length > 0) spec.tolerations = merged;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const prepared = await this.prepare(attrs);
    if (!prepared) return;
    const { spec, runtimeClass } = prepared;
    const podFixed = runtimeClass?.overhead?.podFixed;
    if (isRecord(podFixed)) {
      if (!isRecord(spec.overhead) || !sameResources(podFixed, spec.overhead)) {
        throw admissionForbidden(attrs, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      }
    } else if (spec.overhead !== undefined && spec.overhead !== null) {
      throw admissionForbidden(attrs, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
    }
  }

  private async prepare(attrs: AdmissionAttributes): Promise<{ spec: PodSpec; runtimeClass?: RuntimeClass } | undefined> {
    if (attrs.subresource || attrs.resource.group !== '' || attrs.resource.name !== 'pods') return undefined;
    if (!isRecord(attrs.object)) throw badRequest('Resource was marked with kind Pod but was unable to be converted');
    const spec = podSpecOf(attrs.object);
    if (typeof spec.runtimeClassName !== 'string') return { spec };
    const runtimeClass = (await this.runtimeClasses(undefined, spec.runtimeClassName)) as RuntimeClass | undefined;
    if (!runtimeClass) throw admissionForbidden(attrs, `pod rejected: RuntimeClass "${spec.runtimeClassName}" not found`);
    return { spec, runtimeClass };
  }
}

/** apiequality.Semantic.DeepEqual of two resource lists: quantities compare by value. */
function sameResources(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const canonical = (r: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, canonicalQuantityJson(v)]));
  return jsonEqual(canonical(a), canonical(b));
}
