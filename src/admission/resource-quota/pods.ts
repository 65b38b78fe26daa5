import { compareQuantities } from '../../api/quantity.js';
import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes } from '../admission.js';
import { objectCountName, type QuotaEvaluator } from './evaluator.js';
import { add, count, intersection, resourceListFromJson, type ResourceList } from './resources.js';
import { requirementMatchesValues, type ScopeRequirement } from './scopes.js';

/**
 * pkg/quota/v1/evaluator/core/pods.go: a pod's object count, and while it
 * is not at its end of life its compute (requests, limits, the cpu/memory
 * shorthands, hugepages, extended resources) and `pods`.
 */

const POD_COUNT = objectCountName('', 'pods');
const POD_RESOURCES = [
  POD_COUNT,
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
];
const POD_RESOURCE_PREFIXES = ['hugepages-', 'requests.hugepages-'];
const REQUESTS_PREFIX = 'requests.';
const DEVICE_CLASS_PREFIX = 'deviceclass.resource.kubernetes.io/';

/** Quotas on these make every container name them (kube's backward-compatibility mistake, kept). */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

interface Container {
  name?: string;
  restartPolicy?: string;
  resources?: { requests?: unknown; limits?: unknown };
}

interface PodShape {
  metadata?: { deletionTimestamp?: string; deletionGracePeriodSeconds?: number };
  spec?: {
    containers?: Container[];
    initContainers?: Container[];
    overhead?: unknown;
    resources?: { requests?: unknown; limits?: unknown };
    activeDeadlineSeconds?: number;
    priorityClassName?: string;
    affinity?: { podAffinity?: PodAffinity; podAntiAffinity?: PodAffinity };
  };
  status?: { phase?: string };
}

interface AffinityTerm {
  namespaces?: unknown[];
  namespaceSelector?: unknown;
}

interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: AffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: Array<{ podAffinityTerm?: AffinityTerm }>;
}

/** helper.IsNativeResource: no domain, or a kubernetes.io one. */
function isNative(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** isExtendedResourceNameForQuota: `requests.<extended>` (or an implicit device class). */
function isExtendedQuotaName(name: string): boolean {
  return (!isNative(name) || name.startsWith(REQUESTS_PREFIX + DEVICE_CLASS_PREFIX)) && name.startsWith(REQUESTS_PREFIX);
}

/** An extended resource a container may request (charged as `requests.<name>`). */
function isExtendedResource(name: string): boolean {
  return (!isNative(name) || name.startsWith(DEVICE_CLASS_PREFIX)) && !name.startsWith(REQUESTS_PREFIX);
}

/** podComputeUsageHelper: what one set of requests and limits is charged. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', count(1)]]);
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(r);
    if (req) {
      out.set(r, req);
      out.set(`requests.${r}`, req);
    }
    const lim = limits.get(r);
    if (lim) out.set(`limits.${r}`, lim);
  }
  for (const [name, q] of requests) {
    if (name.startsWith('hugepages-')) {
      out.set(name, q);
      out.set(REQUESTS_PREFIX + name, q);
    }
    if (isExtendedResource(name)) out.set(REQUESTS_PREFIX + name, q);
  }
  return out;
}

function maxInto(target: ResourceList, other: ResourceList): void {
  for (const [name, q] of other) {
    const have = target.get(name);
    if (!have || compareQuantities(q, have) > 0) target.set(name, q);
  }
}

/**
 * resourcehelper.PodRequests / PodLimits: containers summed, restartable init
 * containers (sidecars) running beside them, each init container's peak with
 * the sidecars started before it, the pod overhead; pod-level resources,
 * when set, decide for the resources they name.
 */
function podAggregate(pod: PodShape, which: 'requests' | 'limits'): ResourceList {
  const spec = pod.spec ?? {};
  let total: ResourceList = new Map();
  for (const c of spec.containers ?? []) total = add(total, resourceListFromJson(c?.resources?.[which]));
  let sidecars: ResourceList = new Map();
  const initPeak: ResourceList = new Map();
  for (const c of spec.initContainers ?? []) {
    const own = resourceListFromJson(c?.resources?.[which]);
    if (c?.restartPolicy === 'Always') {
      total = add(total, own);
      sidecars = add(sidecars, own);
      maxInto(initPeak, sidecars);
    } else {
      maxInto(initPeak, add(own, sidecars));
    }
  }
  maxInto(total, initPeak);
  const podLevel = resourceListFromJson(spec.resources?.[which]);
  for (const [name, q] of podLevel) if (name === 'cpu' || name === 'memory' || name.startsWith('hugepages-')) total.set(name, q);
  const overhead = resourceListFromJson(spec.overhead);
  for (const [name, q] of overhead) {
    // Limits take the overhead only for what they limit.
    if (which === 'limits' && !total.has(name)) continue;
    total = add(total, new Map([[name, q]]));
  }
  return total;
}

/** QuotaV1Pod: not terminal and not past its deletion grace period. */
export function podChargesCompute(obj: KubeObject, now: number): boolean {
  const pod = obj as PodShape;
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const meta = pod.metadata;
  if (meta?.deletionTimestamp && typeof meta.deletionGracePeriodSeconds === 'number') {
    const deadline = Date.parse(meta.deletionTimestamp) + meta.deletionGracePeriodSeconds * 1000;
    if (now > deadline) return false;
  }
  return true;
}

function podUsage(obj: KubeObject, now: number): ResourceList {
  const result: ResourceList = new Map([[POD_COUNT, count(1)]]);
  // count/pods tracks every stored pod; compute (and `pods`) only those not at their end of life.
  if (!podChargesCompute(obj, now)) return result;
  const pod = obj as PodShape;
  return add(result, computeUsage(podAggregate(pod, 'requests'), podAggregate(pod, 'limits')));
}

/** IsTerminating: an activeDeadlineSeconds of zero or more. */
export function isTerminating(obj: KubeObject | undefined): boolean {
  const d = (obj as PodShape | undefined)?.spec?.activeDeadlineSeconds;
  return typeof d === 'number' && d >= 0;
}

function hasPodLevelResources(pod: PodShape): boolean {
  const r = pod.spec?.resources;
  return resourceListFromJson(r?.requests).size > 0 || resourceListFromJson(r?.limits).size > 0;
}

/** qos.GetPodQOS == BestEffort: no cpu or memory request or limit anywhere. */
function isBestEffort(pod: PodShape): boolean {
  const spec = pod.spec ?? {};
  const lists = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].flatMap((c) => [c?.resources?.requests, c?.resources?.limits]);
  lists.push(spec.resources?.requests, spec.resources?.limits);
  return lists.every((l) => {
    const list = resourceListFromJson(l);
    return !['cpu', 'memory'].some((r) => {
      const q = list.get(r);
      return q !== undefined && q.mantissa !== 0n;
    });
  });
}

function crossNamespaceTerm(t: AffinityTerm | undefined): boolean {
  return !!t && ((Array.isArray(t.namespaces) && t.namespaces.length > 0) || (t.namespaceSelector !== undefined && t.namespaceSelector !== null));
}

function usesCrossNamespaceAffinity(pod: PodShape): boolean {
  const affinity = pod.spec?.affinity;
  return [affinity?.podAffinity, affinity?.podAntiAffinity].some(
    (a) => !!a && ((a.requiredDuringSchedulingIgnoredDuringExecution ?? []).some(crossNamespaceTerm) || (a.preferredDuringSchedulingIgnoredDuringExecution ?? []).some((w) => crossNamespaceTerm(w?.podAffinityTerm))),
  );
}

/** podMatchesScopeFunc. */
function podMatchesScope(req: ScopeRequirement, obj: KubeObject): boolean {
  const pod = obj as PodShape;
  switch (req.scopeName) {
    case 'Terminating':
      return isTerminating(obj);
    case 'NotTerminating':
      return !isTerminating(obj);
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'PriorityClass': {
      const name = pod.spec?.priorityClassName ?? '';
      if (req.operator === 'Exists') return name !== '';
      return requirementMatchesValues(req, name ? [name] : []);
    }
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespaceAffinity(pod);
    default:
      return false;
  }
}

/** Constraints: with cpu or memory quota'd, every container must name them (unless the pod sets pod-level resources). */
function podConstraints(required: readonly string[], obj: KubeObject): string | undefined {
  const pod = obj as PodShape;
  if (hasPodLevelResources(pod)) return undefined;
  const requiredSet = required.filter((r) => VALIDATION_SET.has(r));
  const missing = new Map<string, Set<string>>();
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const has = computeUsage(resourceListFromJson(c?.resources?.requests), resourceListFromJson(c?.resources?.limits));
    for (const r of requiredSet) {
      if (has.has(r)) continue;
      if (!missing.has(r)) missing.set(r, new Set());
      missing.get(r)!.add(c?.name ?? '');
    }
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

function podHandles(attrs: Pick<AdmissionAttributes, 'operation' | 'subresource' | 'object' | 'oldObject'>): boolean {
  if (attrs.subresource === '') {
    // An update that moves the pod between the Terminating scopes changes what it is charged to.
    if (attrs.operation === 'UPDATE' && attrs.object && attrs.oldObject && isTerminating(attrs.object) !== isTerminating(attrs.oldObject)) return true;
    return attrs.operation === 'CREATE';
  }
  if (attrs.subresource === 'resize') return attrs.operation === 'UPDATE';
  return false;
}

export const POD_EVALUATOR: QuotaEvaluator = {
  group: '',
  resource: 'pods',
  handles: podHandles,
  matchingResources: (input) => [
    ...intersection(input, POD_RESOURCES),
    ...input.filter((r) => POD_RESOURCE_PREFIXES.some((p) => r.startsWith(p)) || isExtendedQuotaName(r)),
  ],
  matchesScope: podMatchesScope,
  constraints: podConstraints,
  usage: podUsage,
};
