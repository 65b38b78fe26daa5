import type { KubeObject } from '../../machinery/object.js';
import { addQuantities, compareQuantities, quantityFromJson, quantitySign, type Quantity } from '../../api/quantity.js';
import { defaultPodSpec } from './pod-spec.js';
import { defaultPtr, ensureObject, isObject, objectAt, objectsAt, type JsonObject } from './util.js';

/**
 * Pod-only defaulting (SetDefaults_Pod, run before the pod spec defaults) and
 * the pod registry's PrepareForCreate status.
 */

export function defaultPod(pod: KubeObject): void {
  const spec = ensureObject(pod, 'spec');
  // Requests default to limits per container, only on Pods: templates keep
  // what the user wrote so that controllers see the template unchanged.
  for (const key of ['containers', 'initContainers']) {
    for (const c of objectsAt(spec, key)) {
      const resources = objectAt(c, 'resources');
      const limits = resources && objectAt(resources, 'limits');
      if (!resources || !limits) continue;
      const requests = ensureObject(resources, 'requests');
      for (const [name, value] of Object.entries(limits)) if (!(name in requests)) requests[name] = value;
    }
  }
  defaultPtr(spec, 'enableServiceLinks', true);
  if (spec.hostNetwork === true) {
    // With host networking every container port is also a host port.
    for (const key of ['containers', 'initContainers']) {
      for (const c of objectsAt(spec, key)) {
        for (const port of objectsAt(c, 'ports')) {
          if (port.hostPort === undefined || port.hostPort === null || port.hostPort === 0) port.hostPort = port.containerPort;
        }
      }
    }
  }
  defaultPodSpec(spec);
}

export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = ['cpu', 'memory'];

function addPositive(total: Map<string, Quantity>, list: unknown, found?: Set<string>): void {
  if (!isObject(list)) return;
  for (const [name, raw] of Object.entries(list)) {
    if (!QOS_RESOURCES.includes(name)) continue;
    const q = quantityFromJson(raw);
    if (!q || quantitySign(q) <= 0) continue;
    found?.add(name);
    const prev = total.get(name);
    total.set(name, prev ? addQuantities(prev, q) : q);
  }
}

/** True when spec.resources names cpu or memory (pod-level resources take over QoS then). */
function podLevelResourcesSet(spec: JsonObject): boolean {
  const resources = objectAt(spec, 'resources');
  if (!resources) return false;
  const names = [...Object.keys(objectAt(resources, 'requests') ?? {}), ...Object.keys(objectAt(resources, 'limits') ?? {})];
  return names.some((n) => QOS_RESOURCES.includes(n));
}

/**
 * qos.ComputePodQOS: BestEffort without any positive cpu/memory request or
 * limit; Guaranteed when every container (or the pod level, when set) limits
 * both cpu and memory and the summed requests equal the summed limits;
 * Burstable otherwise. Ephemeral containers do not count.
 */
export function computePodQOS(pod: KubeObject): PodQOSClass {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  if (podLevelResourcesSet(spec)) {
    const resources = objectAt(spec, 'resources')!;
    addPositive(requests, resources.requests);
    const limitList = objectAt(resources, 'limits');
    if (limitList && Object.keys(limitList).length > 0) {
      const found = new Set<string>();
      addPositive(limits, limitList, found);
      if (!QOS_RESOURCES.every((n) => found.has(n))) guaranteed = false;
    }
  } else {
    for (const c of [...objectsAt(spec, 'containers'), ...objectsAt(spec, 'initContainers')]) {
      const resources = objectAt(c, 'resources') ?? {};
      addPositive(requests, resources.requests);
      const found = new Set<string>();
      addPositive(limits, resources.limits, found);
      if (!QOS_RESOURCES.every((n) => found.has(n))) guaranteed = false;
    }
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (!lim || compareQuantities(lim, req) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/**
 * The pod registry's PrepareForCreate after defaulting: a fresh status
 * ({phase: Pending, qosClass}), the SchedulingGated condition for gated pods,
 * and matchLabelKeys/mismatchLabelKeys folded into the affinity selectors.
 */
export function preparePodForCreate(pod: KubeObject): void {
  const status: JsonObject = { phase: 'Pending', qosClass: computePodQOS(pod) };
  const spec = isObject(pod.spec) ? pod.spec : {};
  if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) {
    status.conditions = [
      {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: null,
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
      },
    ];
  }
  pod.status = status;
  mutatePodAffinity(pod);
  mutateTopologySpreadConstraints(pod);
}

function podLabels(pod: KubeObject): Record<string, string> {
  const labels = pod.metadata?.labels;
  return isObject(labels) ? (labels as Record<string, string>) : {};
}

/** matchLabelKeys / mismatchLabelKeys become In / NotIn requirements on the pod's own label values. */
function mutatePodAffinity(pod: KubeObject): void {
  const affinity = objectAt(isObject(pod.spec) ? pod.spec : {}, 'affinity');
  if (!affinity) return;
  const labels = podLabels(pod);
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = objectAt(affinity, kind);
    if (!a) continue;
    const terms = [
      ...objectsAt(a, 'requiredDuringSchedulingIgnoredDuringExecution'),
      ...objectsAt(a, 'preferredDuringSchedulingIgnoredDuringExecution').map((w) => objectAt(w, 'podAffinityTerm')).filter(isObject),
    ];
    for (const term of terms) {
      const match = Array.isArray(term.matchLabelKeys) ? (term.matchLabelKeys as unknown[]) : [];
      const mismatch = Array.isArray(term.mismatchLabelKeys) ? (term.mismatchLabelKeys as unknown[]) : [];
      const add: JsonObject[] = [];
      for (const key of match) if (typeof key === 'string' && key in labels) add.push({ key, operator: 'In', values: [labels[key]] });
      for (const key of mismatch) if (typeof key === 'string' && key in labels) add.push({ key, operator: 'NotIn', values: [labels[key]] });
      if (add.length === 0) continue;
      const selector = ensureObject(term, 'labelSelector');
      selector.matchExpressions = [...(Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []), ...add];
    }
  }
}

/** topologySpreadConstraints matchLabelKeys are merged into the labelSelector as In requirements. */
function mutateTopologySpreadConstraints(pod: KubeObject): void {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const labels = podLabels(pod);
  for (const c of objectsAt(spec, 'topologySpreadConstraints')) {
    const keys = Array.isArray(c.matchLabelKeys) ? (c.matchLabelKeys as unknown[]) : [];
    const selector = objectAt(c, 'labelSelector');
    if (!selector || keys.length === 0) continue;
    const add: JsonObject[] = [];
    for (const key of keys) if (typeof key === 'string' && key in labels) add.push({ key, operator: 'In', values: [labels[key]] });
    if (add.length === 0) continue;
    selector.matchExpressions = [...(Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []), ...add];
  }
}
