import { addQuantities, compareQuantities, formatQuantity, quantityFromJson, type Quantity } from '../api/quantity.js';
import { isRecord } from '../machinery/json.js';
import type { KubeObject } from '../machinery/object.js';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';
import { admissionForbidden, aggregateMessage } from './admission-errors.js';
import type { Lister } from './lister.js';
import { listOf, podSpecOf, type Container, type PodSpec, type ResourceList } from './pod-spec.js';

/**
 * The LimitRanger admission plugin (plugin/pkg/admission/limitranger): on
 * pod create, the Container-type default limits and requests of every
 * LimitRange in the namespace fill what containers and init containers
 * leave out (recorded in the kubernetes.io/limit-ranger annotation); then
 * each range's min, max and maxLimitRequestRatio hold for every container
 * (type Container), for the pod as a whole (type Pod) and for a
 * PersistentVolumeClaim's storage request (type PersistentVolumeClaim).
 */

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

interface LimitRangeItem {
  type?: string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

/** How long a namespace's live lookup stands in for the informer when it holds no ranges there (kube's liveTTL). */
const LIVE_LOOKUP_TTL_MS = 30_000;

export class LimitRanger implements AdmissionPlugin {
  readonly name = 'LimitRanger';
  /** Live lists of namespaces the informer had no ranges for, so a range created a moment ago applies at once. */
  private readonly liveLookups = new Map<string, { expiry: number; items: Promise<KubeObject[]> }>();

  constructor(
    private readonly limitRanges: Lister,
    private readonly now: () => number = Date.now,
  ) {}

  start(): Promise<void> {
    return this.limitRanges.start();
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const range of await this.rangesFor(attrs)) {
      if (kindOf(attrs) === 'pods') mutatePod(attrs.object!, range);
    }
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const range of await this.rangesFor(attrs)) {
      const errs = kindOf(attrs) === 'pods' ? validatePod(range, podSpecOf(attrs.object!)) : validateClaim(range, attrs.object!);
      if (errs.length > 0) throw admissionForbidden(attrs, aggregateMessage(errs));
    }
  }

  /** SupportsAttributes, then the namespace's ranges; nothing for objects being deleted. */
  private async rangesFor(attrs: AdmissionAttributes): Promise<LimitRangeItem[][]> {
    const kind = kindOf(attrs);
    if (!kind || !isRecord(attrs.object)) return [];
    // Containers cannot change after create, so pod updates are not checked again, except resizes (in-place vertical scaling).
    if (kind === 'pods' && attrs.operation !== 'CREATE' && !(attrs.operation === 'UPDATE' && attrs.subresource === 'resize')) return [];
    if (kind === 'persistentvolumeclaims' && attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return [];
    if (attrs.oldObject?.metadata?.deletionTimestamp) return [];
    let ranges = this.limitRanges.list(attrs.namespace);
    if (ranges.length === 0) ranges = await this.liveLookup(attrs);
    return ranges.map((lr) => listOf((lr.spec as { limits?: LimitRangeItem[] } | undefined)?.limits));
  }

  /** GetLimitRanges' live lookup: one store list per namespace and TTL, shared by concurrent requests (kube's singleflight). */
  private async liveLookup(attrs: AdmissionAttributes): Promise<KubeObject[]> {
    const cached = this.liveLookups.get(attrs.namespace);
    if (cached && cached.expiry > this.now()) return cached.items;
    const items = this.limitRanges.liveList(attrs.namespace);
    const entry = { expiry: this.now() + LIVE_LOOKUP_TTL_MS, items };
    this.liveLookups.set(attrs.namespace, entry);
    try {
      return await items;
    } catch (err) {
      if (this.liveLookups.get(attrs.namespace) === entry) this.liveLookups.delete(attrs.namespace);
      throw admissionForbidden(attrs, err instanceof Error ? err.message : String(err));
    }
  }
}

function kindOf(attrs: AdmissionAttributes): 'pods' | 'persistentvolumeclaims' | undefined {
  if (attrs.resource.group !== '') return undefined;
  if (attrs.subresource === 'resize' && attrs.resource.name === 'pods') return 'pods';
  if (attrs.subresource) return undefined;
  return attrs.resource.name === 'pods' || attrs.resource.name === 'persistentvolumeclaims' ? attrs.resource.name : undefined;
}

function resourceMap(v: unknown): ResourceList {
  return isRecord(v) ? v : {};
}

/** PodMutateLimitFunc: the range's Container defaults into every container that lacks them, and the annotation saying what was set. */
export function mutatePod(pod: KubeObject, items: LimitRangeItem[]): void {
  const defaults = { limits: {} as ResourceList, requests: {} as ResourceList };
  for (const item of items) {
    if (item.type !== 'Container') continue;
    Object.assign(defaults.requests, resourceMap(item.defaultRequest));
    Object.assign(defaults.limits, resourceMap(item.default));
  }
  const spec = podSpecOf(pod);
  const notes: string[] = [];
  for (const c of listOf(spec.containers)) notes.push(...mergeContainerResources(c, defaults, 'container'));
  for (const c of listOf(spec.initContainers)) notes.push(...mergeContainerResources(c, defaults, 'init container'));
  if (notes.length === 0) return;
  const meta = (pod.metadata ??= {});
  meta.annotations = { ...(meta.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
}

function mergeContainerResources(c: Container, defaults: { limits: ResourceList; requests: ResourceList }, prefix: string): string[] {
  const resources = isRecord(c.resources) ? c.resources : (c.resources = {});
  const set = (field: 'limits' | 'requests'): string[] => {
    const current = resourceMap(resources[field]);
    const added = Object.keys(defaults[field]).filter((k) => !Object.hasOwn(current, k));
    if (added.length === 0) return added;
    resources[field] = { ...current, ...Object.fromEntries(added.map((k) => [k, defaults[field][k]])) };
    return added.sort();
  };
  const requests = set('requests');
  const limits = set('limits');
  const notes: string[] = [];
  if (requests.length > 0) notes.push(`${requests.join(', ')} request for ${prefix} ${c.name ?? ''}`);
  if (limits.length > 0) notes.push(`${limits.join(', ')} limit for ${prefix} ${c.name ?? ''}`);
  return notes;
}

/** PodValidateLimitFunc: each container (Container type) and the pod's total (Pod type) against min, max and ratio. */
export function validatePod(items: LimitRangeItem[], spec: PodSpec): string[] {
  const errs: string[] = [];
  for (const item of items) {
    const type = item.type ?? '';
    const check = (requests: Quantities, limits: Quantities): void => {
      for (const [k, v] of quantityEntries(item.min)) push(errs, minConstraint(type, k, v, requests, limits));
      for (const [k, v] of quantityEntries(item.max)) push(errs, maxConstraint(type, k, v, requests, limits));
      for (const [k, v] of quantityEntries(item.maxLimitRequestRatio)) push(errs, limitRequestRatioConstraint(type, k, v, requests, limits));
    };
    if (type === 'Container') {
      for (const c of [...listOf(spec.containers), ...listOf(spec.initContainers)]) check(quantities(c.resources?.requests), quantities(c.resources?.limits));
    }
    if (type === 'Pod') check(podTotal(spec, 'requests'), podTotal(spec, 'limits'));
  }
  return errs;
}

/** PersistentVolumeClaimValidateLimitFunc: the storage request against min and max (claims have no limits). */
export function validateClaim(items: LimitRangeItem[], pvc: KubeObject): string[] {
  const errs: string[] = [];
  const requests = quantities((pvc.spec as { resources?: { requests?: ResourceList } } | undefined)?.resources?.requests);
  for (const item of items) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of quantityEntries(item.min)) push(errs, minConstraint(item.type, k, v, requests, new Map()));
    for (const [k, v] of quantityEntries(item.max)) push(errs, maxRequestConstraint(item.type, k, v, requests));
  }
  return errs;
}

type Quantities = Map<string, Quantity>;

function push(errs: string[], err: string | undefined): void {
  if (err) errs.push(err);
}

function quantityEntries(list: ResourceList | undefined): Array<[string, Quantity]> {
  return [...quantities(list)];
}

function quantities(list: unknown): Quantities {
  const out: Quantities = new Map();
  for (const [k, v] of Object.entries(resourceMap(list))) {
    const q = quantityFromJson(v);
    if (q) out.set(k, q);
  }
  return out;
}

const ZERO: Quantity = { mantissa: 0n, exponent: 0, format: 'DecimalSI' };
const MAX_INT64 = (1n << 63n) - 1n;
const MAX_MILLI_VALUE = MAX_INT64 / 1000n;

/** Quantity.ScaledValue rounded up: the value in units of 10^scale. */
function scaledValue(q: Quantity, scale: number): bigint {
  const shift = q.exponent - scale;
  if (shift >= 0) return q.mantissa * 10n ** BigInt(shift);
  const div = 10n ** BigInt(-shift);
  const quotient = q.mantissa / div;
  return q.mantissa % div === 0n || q.mantissa < 0n ? quotient : quotient + 1n;
}

/** requestLimitEnforcedValues: the three at milli precision unless that would overflow. */
function comparable(req: Quantity, lim: Quantity, enforced: Quantity): [bigint, bigint, bigint] {
  const values: [bigint, bigint, bigint] = [scaledValue(req, 0), scaledValue(lim, 0), scaledValue(enforced, 0)];
  if (values.every((v) => v <= MAX_MILLI_VALUE)) return [scaledValue(req, -3), scaledValue(lim, -3), scaledValue(enforced, -3)];
  return values;
}

function minConstraint(type: string, name: string, enforced: Quantity, requests: Quantities, limits: Quantities): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req ?? ZERO, lim ?? ZERO, enforced);
  const min = formatQuantity(enforced);
  if (!req) return `minimum ${name} usage per ${type} is ${min}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${min}, but request is ${formatQuantity(req)}`;
  if (lim && l < e) return `minimum ${name} usage per ${type} is ${min}, but limit is ${formatQuantity(lim)}`;
  return undefined;
}

function maxRequestConstraint(type: string, name: string, enforced: Quantity, requests: Quantities): string | undefined {
  const req = requests.get(name);
  const [r, , e] = comparable(req ?? ZERO, ZERO, enforced);
  const max = formatQuantity(enforced);
  if (!req) return `maximum ${name} usage per ${type} is ${max}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${max}, but request is ${formatQuantity(req)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, requests: Quantities, limits: Quantities): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req ?? ZERO, lim ?? ZERO, enforced);
  const max = formatQuantity(enforced);
  if (!lim) return `maximum ${name} usage per ${type} is ${max}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${max}, but limit is ${formatQuantity(lim)}`;
  if (req && r > e) return `maximum ${name} usage per ${type} is ${max}, but request is ${formatQuantity(req)}`;
  return undefined;
}

function limitRequestRatioConstraint(type: string, name: string, enforced: Quantity, requests: Quantities, limits: Quantities): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = comparable(req ?? ZERO, lim ?? ZERO, enforced);
  const ratio = formatQuantity(enforced);
  if (!req || r === 0n) return `${name} max limit to request ratio per ${type} is ${ratio}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${name} max limit to request ratio per ${type} is ${ratio}, but no limit is specified or limit is 0`;
  const observed = Number(l) / Number(r);
  let compared = observed;
  let allowed = Number(scaledValue(enforced, 0));
  if (scaledValue(enforced, 0) <= MAX_MILLI_VALUE) {
    compared = observed * 1000;
    allowed = Number(scaledValue(enforced, -3));
  }
  if (compared > allowed) return `${name} max limit to request ratio per ${type} is ${ratio}, but provided ratio is ${observed.toFixed(6)}`;
  return undefined;
}

/**
 * resourcehelper.PodRequests / PodLimits: the containers' sum, at least the
 * largest init container (with the restartable ones started before it), the
 * pod-level values where set, plus the RuntimeClass overhead (limits: only
 * where a limit is set).
 */
export function podTotal(spec: PodSpec, field: 'requests' | 'limits'): Quantities {
  const total: Quantities = new Map();
  const add = (into: Quantities, list: Quantities): void => {
    for (const [k, q] of list) into.set(k, into.has(k) ? addQuantities(into.get(k)!, q) : q);
  };
  const max = (into: Quantities, list: Quantities): void => {
    for (const [k, q] of list) if (!into.has(k) || compareQuantities(q, into.get(k)!) > 0) into.set(k, q);
  };
  for (const c of listOf(spec.containers)) add(total, quantities(c.resources?.[field]));
  const sidecars: Quantities = new Map();
  const initMax: Quantities = new Map();
  for (const c of listOf(spec.initContainers)) {
    const own = quantities(c.resources?.[field]);
    if (c.restartPolicy === 'Always') {
      add(total, own);
      add(sidecars, own);
      max(initMax, sidecars);
    } else {
      const running = new Map(own);
      add(running, sidecars);
      max(initMax, running);
    }
  }
  max(total, initMax);
  for (const [k, q] of quantities(spec.resources?.[field])) if (k === 'cpu' || k === 'memory' || k.startsWith('hugepages-')) total.set(k, q);
  for (const [k, q] of quantities(spec.overhead)) {
    if (field === 'requests') add(total, new Map([[k, q]]));
    else if (total.has(k)) total.set(k, addQuantities(total.get(k)!, q));
  }
  return total;
}
