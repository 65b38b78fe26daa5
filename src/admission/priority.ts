import { badRequest } from '../machinery/errors.js';
import { isRecord } from '../machinery/json.js';
import type { KubeObject } from '../machinery/object.js';
import type { ObjectLookup } from '../registry/object-lookup.js';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';
import { admissionForbidden, plainAdmissionError } from './admission-errors.js';
import type { Lister } from './lister.js';
import { podSpecOf } from './pod-spec.js';

/**
 * The Priority admission plugin (plugin/pkg/admission/priority): a new pod's
 * priorityClassName is resolved to spec.priority and spec.preemptionPolicy
 * (no class: the globalDefault class, else priority 0 and
 * PreemptLowerPriority); a pod that brings its own different values is
 * refused; updates keep what create set. Of PriorityClasses only one may be
 * the globalDefault.
 */

/** DefaultPriorityWhenNoDefaultClassExists. */
const DEFAULT_PRIORITY = 0;
const PREEMPT_LOWER_PRIORITY = 'PreemptLowerPriority';

interface PriorityClass extends KubeObject {
  value?: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

export class PriorityAdmission implements AdmissionPlugin {
  readonly name = 'Priority';

  constructor(
    private readonly classes: Lister,
    private readonly lookup: ObjectLookup,
  ) {}

  start(): Promise<void> {
    return this.classes.start();
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource || attrs.resource.group !== '' || attrs.resource.name !== 'pods') return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    if (!isRecord(attrs.object)) throw badRequest('resource was marked with kind Pod but was unable to be converted');
    const spec = podSpecOf(attrs.object);
    if (attrs.operation === 'UPDATE') {
      // Create set these; validation refuses changing them, so an update that drops them keeps the old ones.
      const old = isRecord(attrs.oldObject?.spec) ? podSpecOf(attrs.oldObject) : {};
      if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
      if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    let priority: number;
    let preemptionPolicy: string | undefined;
    if (!spec.priorityClassName) {
      const dpc = this.defaultClass();
      if (dpc) {
        spec.priorityClassName = dpc.metadata?.name ?? '';
        priority = dpc.value ?? 0;
        preemptionPolicy = dpc.preemptionPolicy;
      } else {
        delete spec.priorityClassName;
        priority = DEFAULT_PRIORITY;
        preemptionPolicy = PREEMPT_LOWER_PRIORITY;
      }
    } else {
      const pc = (await this.lookup(undefined, spec.priorityClassName)) as PriorityClass | undefined;
      if (!pc) throw admissionForbidden(attrs, `no PriorityClass with name ${spec.priorityClassName} was found`);
      priority = pc.value ?? 0;
      preemptionPolicy = pc.preemptionPolicy;
    }
    if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
      throw admissionForbidden(
        attrs,
        `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
      );
    }
    spec.priority = priority;
    if (preemptionPolicy !== undefined) {
      if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== preemptionPolicy) {
        throw admissionForbidden(
          attrs,
          `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${preemptionPolicy} from the given PriorityClass name`,
        );
      }
      spec.preemptionPolicy = preemptionPolicy;
    }
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource || attrs.resource.group !== 'scheduling.k8s.io' || attrs.resource.name !== 'priorityclasses') return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    const pc = attrs.object as PriorityClass | undefined;
    if (!isRecord(pc)) throw badRequest('resource was marked with kind PriorityClass but was unable to be converted');
    if (pc.globalDefault !== true) return;
    const dpc = this.defaultClass();
    if (!dpc) return;
    if (attrs.operation === 'CREATE' || dpc.metadata?.name !== pc.metadata?.name) {
      throw admissionForbidden(attrs, `PriorityClass ${dpc.metadata?.name} is already marked as default. Only one default can exist`);
    }
  }

  /** getDefaultPriorityClass: of several (a race), the one with the lowest value. */
  private defaultClass(): PriorityClass | undefined {
    if (!this.classes.hasSynced) throw plainAdmissionError('failed to get default priority class: not yet synced');
    let found: PriorityClass | undefined;
    for (const pc of this.classes.list() as PriorityClass[]) {
      if (pc.globalDefault === true && (!found || (found.value ?? 0) > (pc.value ?? 0))) found = pc;
    }
    return found;
  }
}
