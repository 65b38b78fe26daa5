import { isRecord } from '../machinery/json.js';
import { notFound } from '../machinery/errors.js';
import type { ObjectLookup } from '../registry/object-lookup.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { plainAdmissionError } from './admission-errors.js';
import { listOf, podSpecOf, type PodSpec, type Toleration } from './pod-spec.js';
import { mergeTolerations, verifyAgainstWhitelist } from './tolerations.js';

/**
 * The PodTolerationRestriction admission plugin
 * (plugin/pkg/admission/podtolerationrestriction, default off): new pods get
 * their namespace's default tolerations (annotation
 * scheduler.alpha.kubernetes.io/defaultTolerations, else the configuration's
 * `default`), pods that are not BestEffort tolerate memory pressure, and
 * every pod's tolerations must fit the namespace's whitelist (annotation
 * scheduler.alpha.kubernetes.io/tolerationsWhitelist, else the
 * configuration's `whitelist`).
 */

export const NS_DEFAULT_TOLERATIONS = 'scheduler.alpha.kubernetes.io/defaultTolerations';
export const NS_WHITELIST_TOLERATIONS = 'scheduler.alpha.kubernetes.io/tolerationsWhitelist';

export class PodTolerationRestriction implements AdmissionPlugin {
  readonly name = 'PodTolerationRestriction';
  private readonly defaults: Toleration[];
  private readonly whitelist: Toleration[];

  constructor(
    private readonly namespaces: ObjectLookup,
    configuration?: unknown,
  ) {
    const config = isRecord(configuration) ? configuration : {};
    this.defaults = listOf(config.default as Toleration[] | undefined);
    this.whitelist = listOf(config.whitelist as Toleration[] | undefined);
  }

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!applies(attrs)) return;
    const spec = podSpecOf(attrs.object!);
    let extra: Toleration[] = [];
    if (attrs.operation === 'CREATE') extra = (await this.namespaceTolerations(attrs.namespace, NS_DEFAULT_TOLERATIONS)) ?? this.defaults;
    if (!isBestEffort(spec)) extra = [...extra, { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }];
    if (extra.length > 0) spec.tolerations = mergeTolerations(listOf(spec.tolerations), extra);
    return this.validate(attrs);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!applies(attrs)) return;
    const tolerations = listOf(podSpecOf(attrs.object!).tolerations);
    if (tolerations.length === 0) return;
    let whitelist = await this.namespaceTolerations(attrs.namespace, NS_WHITELIST_TOLERATIONS);
    let scope = 'namespace';
    if (whitelist === undefined) {
      whitelist = this.whitelist;
      scope = 'cluster';
    }
    if (whitelist.length > 0 && !verifyAgainstWhitelist(tolerations, whitelist)) {
      throw plainAdmissionError(`pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`);
    }
  }

  /** extractNSTolerations: undefined when the annotation is absent, empty when it is empty. */
  private async namespaceTolerations(name: string, key: string): Promise<Toleration[] | undefined> {
    const ns = await this.namespaces(undefined, name);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, name);
    const text = ns.metadata?.annotations?.[key];
    if (text === undefined) return undefined;
    if (text === '') return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw plainAdmissionError((err as Error).message);
    }
    if (parsed === null) return [];
    if (!Array.isArray(parsed)) throw plainAdmissionError('json: cannot unmarshal into Go value of type []v1.Toleration');
    return listOf(parsed as Toleration[]);
  }
}

function applies(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === '' && attrs.resource.name === 'pods' && !attrs.subresource && isRecord(attrs.object);
}

/** qos.GetPodQOS == BestEffort: no container (nor the pod) requests or limits cpu or memory. */
function isBestEffort(spec: PodSpec): boolean {
  const holders = [...listOf(spec.containers), ...listOf(spec.initContainers), spec].map((c) => c.resources);
  return holders.every((r) =>
    [r?.requests, r?.limits].every((list) => !isRecord(list) || !Object.keys(list).some((k) => k === 'cpu' || k === 'memory')),
  );
}
