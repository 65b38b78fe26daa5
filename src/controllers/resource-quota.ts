import { QuotaEvaluators } from '../admission/resource-quota/registry.js';
import { calculateUsage } from '../admission/resource-quota/registry.js';
import type { QuotaEvaluator } from '../admission/resource-quota/evaluator.js';
import { podChargesCompute } from '../admission/resource-quota/pods.js';
import { quotaServiceType } from '../admission/resource-quota/services.js';
import { equals, mask, resourceListFromJson, resourceListToJson } from '../admission/resource-quota/resources.js';
import { scopeSelectorsOf } from '../admission/resource-quota/scopes.js';
import type { ApiCatalog } from '../api/catalog.js';
import type { ResourceInfo } from '../api/types.js';
import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { cloneObject, jsonEqual, type KubeObject } from '../machinery/object.js';
import { Informer, WorkQueue } from '../registry/informer.js';
import type { Registry } from '../registry/registry.js';
import type { Controller } from './controller.js';

/**
 * kube-controller-manager's resource quota controller
 * (pkg/controller/resourcequota): keeps each ResourceQuota's status.hard
 * equal to spec.hard and status.used equal to what the namespace's objects
 * use, measured from the watch caches. A quota is measured when it is
 * created, when its spec.hard changes, when an object it counts is deleted
 * or stops using quota (a pod reaching its end, a service changing type, a
 * claim's allocation changing) and at every full resync. Creates are not
 * watched: admission charges them. Writes go through the status subresource.
 */

const QUOTAS = { group: '', version: 'v1', resource: 'resourcequotas' };
/** kube's --resource-quota-sync-period default. */
export const DEFAULT_QUOTA_RESYNC_MS = 5 * 60_000;
const CONFLICT_RETRY_MS = 100;

export interface ResourceQuotaControllerOptions {
  registry: Registry;
  catalog: ApiCatalog;
  client: ApiClient;
  resyncMs?: number;
  now?: () => number;
}

export class ResourceQuotaController implements Controller {
  readonly name = 'resourcequota-controller';
  private readonly quotas: Informer;
  private readonly queue: WorkQueue;
  private readonly evaluators = new QuotaEvaluators();
  /** Informers over the resources some quota counts, by group/resource. */
  private readonly monitors = new Map<string, Informer>();
  /** spec.hard last seen per quota: only its changes call for a new measure. */
  private readonly hardSeen = new Map<string, unknown>();
  /** What an object's quota use hangs on, per monitored object: a change of it replenishes. */
  private readonly signatures = new Map<string, string>();
  private resync: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly opts: ResourceQuotaControllerOptions) {
    this.now = opts.now ?? Date.now;
    this.queue = new WorkQueue((key) => this.sync(key));
    this.quotas = new Informer(opts.registry.storeFor(opts.catalog.resource('', 'v1', 'resourcequotas')!), (type, quota) => this.onQuota(type, quota));
  }

  async start(): Promise<void> {
    await this.quotas.start();
    await this.quotas.waitForSync();
    const period = this.opts.resyncMs ?? DEFAULT_QUOTA_RESYNC_MS;
    if (period > 0) {
      this.resync = setInterval(() => {
        for (const q of this.quotas.list()) this.queue.add(Informer.keyOf(q));
      }, period);
      this.resync.unref();
    }
  }

  stop(): void {
    if (this.resync) clearInterval(this.resync);
    this.quotas.stop();
    for (const m of this.monitors.values()) m.stop();
    this.queue.stop();
  }

  private onQuota(type: string, quota: KubeObject): void {
    const key = Informer.keyOf(quota);
    if (type === 'DELETED') {
      this.hardSeen.delete(key);
      return;
    }
    const hard = (quota.spec as { hard?: unknown } | undefined)?.hard;
    const status = (quota.status ?? {}) as { hard?: unknown; used?: unknown };
    const hardChanged = !this.hardSeen.has(key) || !jsonEqual(this.hardSeen.get(key), hard);
    this.hardSeen.set(key, hard);
    // New, changed limits, or a status nobody has filled in yet.
    if (hardChanged || status.hard === undefined || status.used === undefined) this.queue.add(key);
  }

  /** The served resource of a group-resource, if any. */
  private served(group: string, resource: string): ResourceInfo | undefined {
    return this.opts.catalog.allResources().find((r) => r.group === group && r.name === resource && r.namespaced && r.isObject && r.verbs.includes('list'));
  }

  /** The monitor of an evaluator's resource, started (and synced) on first use. */
  private async monitor(e: QuotaEvaluator): Promise<Informer | undefined> {
    const key = `${e.group}/${e.resource}`;
    let informer = this.monitors.get(key);
    if (!informer) {
      const info = this.served(e.group, e.resource);
      if (!info) return undefined;
      informer = new Informer(this.opts.registry.storeFor(info), (type, obj) => this.onCounted(e, type, obj));
      this.monitors.set(key, informer);
      void informer.start();
    }
    await informer.waitForSync();
    return informer;
  }

  /** Replenishment: a delete, or an update that lowers what the object uses, re-measures the namespace's quotas that count it. */
  private onCounted(e: QuotaEvaluator, type: string, obj: KubeObject): void {
    const objKey = `${e.group}/${e.resource}/${Informer.keyOf(obj)}`;
    const signature = this.signatureOf(e, obj);
    const before = this.signatures.get(objKey);
    if (type === 'DELETED') this.signatures.delete(objKey);
    else if (signature !== undefined) this.signatures.set(objKey, signature);
    const replenish = type === 'DELETED' || (type === 'MODIFIED' && before !== undefined && before !== signature);
    if (!replenish) return;
    const ns = obj.metadata?.namespace ?? '';
    for (const q of this.quotas.list()) {
      if (q.metadata?.namespace !== ns) continue;
      const hardNames = Object.keys(((q.status ?? {}) as { hard?: Record<string, unknown> }).hard ?? {});
      if (e.matchingResources(hardNames).length > 0) this.queue.add(Informer.keyOf(q));
    }
  }

  private signatureOf(e: QuotaEvaluator, obj: KubeObject): string | undefined {
    if (e.group !== '') return undefined;
    if (e.resource === 'pods') return String(podChargesCompute(obj, this.now()));
    if (e.resource === 'services') return quotaServiceType(obj);
    if (e.resource === 'persistentvolumeclaims') return JSON.stringify((obj.status as { allocatedResources?: unknown } | undefined)?.allocatedResources ?? null);
    return undefined;
  }

  /** syncResourceQuota: measure, and write status when hard or used differ. */
  private async sync(key: string): Promise<void> {
    const quota = this.quotas.get(key);
    if (!quota) return;
    const ns = quota.metadata?.namespace ?? '';
    const specHard = resourceListFromJson((quota.spec as { hard?: unknown } | undefined)?.hard);
    const status = (quota.status ?? {}) as { hard?: unknown; used?: unknown };
    const oldUsed = resourceListFromJson(status.used);
    const hardNames = [...specHard.keys()];
    const evaluators: QuotaEvaluator[] = [];
    const objects = new Map<QuotaEvaluator, KubeObject[]>();
    for (const e of this.evaluators.forHard(hardNames)) {
      const informer = await this.monitor(e);
      if (!informer) continue;
      evaluators.push(e);
      objects.set(e, informer.list().filter((o) => o.metadata?.namespace === ns));
    }
    const measured = calculateUsage(evaluators, hardNames, scopeSelectorsOf(quota), (e) => objects.get(e) ?? [], this.now());
    // Past observations stay for what could not be measured; nothing beyond the hard names.
    const used = mask(new Map([...oldUsed, ...measured]), hardNames);
    const dirty =
      status.hard === undefined ||
      status.used === undefined ||
      !equals(resourceListFromJson(status.hard), specHard) ||
      !equals(used, oldUsed);
    if (!dirty) return;
    const next = cloneObject(quota);
    next.apiVersion = 'v1';
    next.kind = 'ResourceQuota';
    next.status = { hard: resourceListToJson(specHard), used: resourceListToJson(used) };
    try {
      await this.opts.client.update({ ...QUOTAS, namespace: ns, name: quota.metadata?.name ?? '', subresource: 'status' }, next);
    } catch (err) {
      // Admission charged meanwhile, or the quota changed: measure again on what the cache now holds.
      if (isApiError(err, 'Conflict')) this.queue.addAfter(key, CONFLICT_RETRY_MS);
      else if (!isApiError(err, 'NotFound')) throw err;
    }
  }
}
