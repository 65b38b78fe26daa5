import { forbidden, notFound } from '../machinery/errors.js';
import { isRecord } from '../machinery/json.js';
import type { KubeObject } from '../machinery/object.js';
import { isQualifiedName, isValidLabelValue } from '../machinery/name-validation.js';
import type { ObjectLookup } from '../registry/object-lookup.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { plainAdmissionError } from './admission-errors.js';
import { podSpecOf } from './pod-spec.js';

/**
 * The PodNodeSelector admission plugin (plugin/pkg/admission/podnodeselector,
 * default off): a namespace's scheduler.alpha.kubernetes.io/node-selector
 * annotation (else the configuration's clusterDefaultNodeSelector) is merged
 * into its pods' nodeSelector, which must not conflict with it; the
 * configuration may also whitelist, per namespace, the only labels pods may
 * select.
 *
 * Configuration (--admission-control-config-file):
 * `podNodeSelectorPluginConfig: {clusterDefaultNodeSelector: "k=v", <namespace>: "k=v"}`.
 */

export const NAMESPACE_NODE_SELECTOR_ANNOTATION = 'scheduler.alpha.kubernetes.io/node-selector';

export class PodNodeSelector implements AdmissionPlugin {
  readonly name = 'PodNodeSelector';
  private readonly selectors: Record<string, string>;

  constructor(
    private readonly namespaces: ObjectLookup,
    configuration?: unknown,
  ) {
    const section = isRecord(configuration) ? configuration.podNodeSelectorPluginConfig : undefined;
    this.selectors = isRecord(section) ? Object.fromEntries(Object.entries(section).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
  }

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!applies(attrs)) return;
    const pod = attrs.object!;
    const spec = podSpecOf(pod);
    const nsSelector = await this.namespaceSelector(attrs.namespace);
    const podSelector = isRecord(spec.nodeSelector) ? spec.nodeSelector : {};
    if (conflicts(nsSelector, podSelector)) throw conflict(attrs, pod, 'pod node label selector conflicts with its namespace node label selector');
    // The pod's own values win over the namespace's.
    const merged = { ...nsSelector, ...podSelector };
    if (Object.keys(merged).length > 0 || spec.nodeSelector !== undefined) spec.nodeSelector = merged;
    return this.validate(attrs);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!applies(attrs)) return;
    const pod = attrs.object!;
    const spec = podSpecOf(pod);
    const podSelector = isRecord(spec.nodeSelector) ? spec.nodeSelector : {};
    if (conflicts(await this.namespaceSelector(attrs.namespace), podSelector)) {
      throw conflict(attrs, pod, 'pod node label selector conflicts with its namespace node label selector');
    }
    const whitelist = selectorToLabels(this.selectors[attrs.namespace] ?? '');
    if (!isSubset(podSelector, whitelist)) throw conflict(attrs, pod, 'pod node label selector labels conflict with its namespace whitelist');
  }

  /** getNamespaceNodeSelectorMap: the namespace's annotation, else the cluster default. */
  private async namespaceSelector(name: string): Promise<Record<string, string>> {
    const ns = await this.namespaces(undefined, name);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, name);
    const annotation = ns.metadata?.annotations?.[NAMESPACE_NODE_SELECTOR_ANNOTATION];
    if (annotation !== undefined) return selectorToLabels(annotation);
    return selectorToLabels(this.selectors.clusterDefaultNodeSelector ?? '');
  }
}

function applies(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === '' && attrs.resource.name === 'pods' && !attrs.subresource && isRecord(attrs.object);
}

/** errors.NewForbidden on the pod's own name (the plugin does not use admission.NewForbidden). */
function conflict(attrs: AdmissionAttributes, pod: KubeObject, why: string): Error {
  return forbidden({ group: attrs.resource.group, resource: attrs.resource.name }, pod.metadata?.name ?? '', why);
}

/** labels.Conflicts: a key both have with different values. */
function conflicts(a: Record<string, string>, b: Record<string, string>): boolean {
  return Object.entries(a).some(([k, v]) => Object.hasOwn(b, k) && b[k] !== v);
}

function isSubset(subset: Record<string, string>, superset: Record<string, string>): boolean {
  if (Object.keys(superset).length === 0) return true;
  return Object.entries(subset).every(([k, v]) => Object.hasOwn(superset, k) && superset[k] === v);
}

/** labels.ConvertSelectorToLabelsMap: "k=v,k2=v2"; anything else is the plugin's error. */
export function selectorToLabels(selector: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (selector === '') return out;
  for (const label of selector.split(',')) {
    const parts = label.split('=');
    if (parts.length !== 2) throw plainAdmissionError(`invalid selector: [${parts.join(' ')}]`);
    const key = parts[0]!.trim();
    const value = parts[1]!.trim();
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length > 0) throw plainAdmissionError(`key: Invalid value: "${key}": ${keyErrs.join('; ')}`);
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length > 0) throw plainAdmissionError(`value: Invalid value: "${value}": ${valueErrs.join('; ')}`);
    out[key] = value;
  }
  return out;
}
