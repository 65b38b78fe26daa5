import { internalError, isApiError } from '../../machinery/errors.js';
import type { Logger } from '../../machinery/logger.js';
import { cloneObject, type KubeObject } from '../../machinery/object.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../admission.js';
import type { AdmissionPluginContext } from '../plugin-context.js';
import { checkRequest, type QuotaState } from './check.js';
import { parseResourceQuotaConfiguration, type ResourceQuotaConfiguration } from './configuration.js';
import { QuotaIndex, quotaState } from './quota-index.js';
import { QuotaEvaluators, quotaIgnores } from './registry.js';
import { equals, resourceListFromJson, resourceListToJson, subtract, subtractNonNegative, mask, type ResourceList } from './resources.js';

/**
 * ResourceQuota admission (kube's plugin/pkg/admission/resourcequota): a
 * create or update in a namespace with quotas is charged to every quota it
 * matches by writing the quota's status.used with a compare-and-swap
 * (resourceVersion), so that any number of servers on one
 * store never admit past a limit. As kube's quota evaluator, requests of one
 * namespace are weighed one batch at a time, a batch's charges go out in one
 * write per quota, and a lost race re-reads the quotas and tries again
 * (three times). Dry runs are weighed but never charged. A charge whose
 * object is then not stored is given back (AdmissionAttributes.onWriteFailed);
 * kube leaves that to the quota controller's next full resync.
 */

/** kube's evaluation timeout. */
const EVALUATION_TIMEOUT_MS = 10_000;
/** Attempts after a status write lost a race (kube's checkQuotas retries). */
const WRITE_RETRIES = 3;
/** Attempts of a give-back against concurrent writers. */
const GIVE_BACK_RETRIES = 16;

interface Waiter {
  readonly attrs: AdmissionAttributes;
  state: 'pending' | 'admitted' | 'refused';
  error?: unknown;
  /** Charges of this batch by quota name, not written yet. */
  readonly tentative: Map<string, ResourceList>;
  /** Charges written, by quota name. */
  readonly charged: Map<string, ResourceList>;
}

export interface ResourceQuotaAdmissionOptions {
  /** The resourcequotas store, read through its watch cache. */
  quotas: ResourceStore;
  configuration: ResourceQuotaConfiguration;
  logger?: Logger;
  shutdown?: AbortSignal;
  now?: () => number;
}

export class ResourceQuotaAdmission implements AdmissionPlugin {
  readonly name = 'ResourceQuota';
  private readonly index: QuotaIndex;
  private readonly evaluators = new QuotaEvaluators();
  /** Per namespace: the batch that has not started yet. */
  private readonly queued = new Map<string, { waiters: Waiter[]; done: Promise<void> }>();
  /** Per namespace: the tail of its work, so batches and give-backs of one namespace run one at a time. */
  private readonly tails = new Map<string, Promise<void>>();
  private readonly now: () => number;

  constructor(private readonly opts: ResourceQuotaAdmissionOptions) {
    this.index = new QuotaIndex(opts.quotas);
    this.now = opts.now ?? Date.now;
  }

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async start(): Promise<void> {
    this.opts.shutdown?.addEventListener('abort', () => this.index.stop(), { once: true });
    await this.index.start();
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const res = attrs.resource;
    // Cluster-scoped objects and namespaces themselves have no quota.
    if (!attrs.namespace || (res.group === '' && res.name === 'namespaces')) return;
    if (quotaIgnores(res.group, res.name)) return;
    const evaluator = this.evaluators.get(res.group, res.name);
    if (!evaluator.handles(attrs)) return;
    if (!this.index.has(attrs.namespace) && this.opts.configuration.limitedResources.length === 0) return;
    const waiter: Waiter = { attrs, state: 'pending', tentative: new Map(), charged: new Map() };
    await this.evaluate(waiter);
    if (waiter.state === 'refused') throw waiter.error;
    if (waiter.charged.size > 0) {
      const charges = new Map(waiter.charged);
      attrs.onWriteFailed?.(() => this.giveBack(attrs.namespace, charges));
    }
  }

  /** Joins the namespace's next batch and waits for its outcome (at most kube's 10 s). */
  private async evaluate(waiter: Waiter): Promise<void> {
    const ns = waiter.attrs.namespace;
    let batch = this.queued.get(ns);
    if (!batch) {
      const waiters: Waiter[] = [];
      // Requests that arrive while earlier work of the namespace runs join this batch.
      const done = this.exclusive(ns, async () => {
        this.queued.delete(ns);
        try {
          await this.checkAttributes(ns, waiters);
        } catch (err) {
          for (const w of waiters) if (w.state === 'pending') Object.assign(w, { state: 'refused', error: err });
        }
      });
      batch = { waiters, done };
      this.queued.set(ns, batch);
    }
    batch.waiters.push(waiter);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(internalError(new Error('resource quota evaluation timed out'))), EVALUATION_TIMEOUT_MS);
      timer.unref();
    });
    try {
      await Promise.race([batch.done, timedOut]);
    } catch (err) {
      // Timed out: a batch still weighing it skips it, and what it charged is given back.
      if (waiter.state === 'admitted' && waiter.charged.size > 0) void this.giveBack(ns, new Map(waiter.charged));
      Object.assign(waiter, { state: 'refused', error: err });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs `work` after every earlier piece of work of the namespace. */
  private exclusive(ns: string, work: () => Promise<void>): Promise<void> {
    const previous = this.tails.get(ns) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    this.tails.set(ns, tail);
    void tail.then(() => {
      if (this.tails.get(ns) === tail) this.tails.delete(ns);
    });
    return run;
  }

  private async checkAttributes(ns: string, waiters: Waiter[]): Promise<void> {
    const quotas = this.index.list(ns);
    if (quotas.length === 0 && this.opts.configuration.limitedResources.length === 0) {
      for (const w of waiters) w.state = 'admitted';
      return;
    }
    await this.checkQuotas(ns, quotas, waiters, WRITE_RETRIES);
    // Requests refused after some of their charges were written take those back.
    for (const w of waiters) {
      if (w.state === 'refused' && w.charged.size > 0) await this.applyGiveBack(ns, w.charged);
    }
  }

  /** kube's checkQuotas: weigh every pending request in turn against the running quotas, then write the quotas that changed. */
  private async checkQuotas(ns: string, original: QuotaState[], waiters: Waiter[], retries: number): Promise<void> {
    let quotas = original;
    let changed = false;
    for (const w of waiters) {
      if (w.state !== 'pending') continue;
      let next: QuotaState[];
      try {
        const res = w.attrs.resource;
        next = checkRequest(quotas, w.attrs, this.evaluators.get(res.group, res.name), this.opts.configuration.limitedResources, this.now());
      } catch (err) {
        Object.assign(w, { state: 'refused', error: err });
        continue;
      }
      if (w.attrs.dryRun) {
        w.state = 'admitted';
        continue;
      }
      let charges = false;
      next.forEach((q, i) => {
        const before = quotas[i]!;
        if (equals(before.used, q.used)) return;
        charges = true;
        w.tentative.set(q.name, subtract(q.used, before.used));
      });
      if (!charges) w.state = 'admitted';
      else changed = true;
      quotas = next;
    }
    if (!changed) return;

    const failed: string[] = [];
    let lastError: unknown;
    for (let i = 0; i < quotas.length; i++) {
      const q = quotas[i]!;
      if (equals(original[i]!.used, q.used)) continue;
      try {
        await this.writeUsed(q.object, q.used);
        for (const w of waiters) {
          const charge = w.tentative.get(q.name);
          if (charge) w.charged.set(q.name, charge);
          w.tentative.delete(q.name);
        }
      } catch (err) {
        failed.push(q.name);
        lastError = err;
        for (const w of waiters) w.tentative.delete(q.name);
      }
    }
    if (failed.length === 0) {
      for (const w of waiters) if (w.state === 'pending') w.state = 'admitted';
      return;
    }
    if (retries <= 0) {
      for (const w of waiters) if (w.state === 'pending') Object.assign(w, { state: 'refused', error: lastError });
      return;
    }
    // Lost a race (another server, the controller): weigh again on the quotas as they are now.
    const fresh: QuotaState[] = [];
    try {
      for (const name of failed) {
        const current = await this.read(ns, name);
        if (current) fresh.push(quotaState(current));
      }
    } catch {
      for (const w of waiters) if (w.state === 'pending') Object.assign(w, { state: 'refused', error: lastError });
      return;
    }
    await this.checkQuotas(ns, fresh, waiters, retries - 1);
  }

  /**
   * The quota's status written with its resourceVersion as precondition: a
   * compare-and-swap (409 Conflict when someone wrote since). Straight to the
   * store rather than through the loopback client, whose few connections the
   * requests waiting here may all hold.
   */
  private async writeUsed(quota: KubeObject, used: ResourceList): Promise<void> {
    const next = cloneObject(quota);
    next.status = { ...((next.status as Record<string, unknown> | undefined) ?? {}), used: resourceListToJson(used) };
    const written = await this.opts.quotas.update(quota.metadata?.namespace, { name: quota.metadata?.name ?? '', subresource: 'status' }, () => next);
    this.index.remember(written.object);
  }

  /** The quota as stored now; undefined when it is gone. */
  private async read(ns: string, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.opts.quotas.get(ns, name, { kind: 'consistent' });
    } catch (err) {
      if (isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
  }

  /** Takes charges back (their object was not stored), in turn with the namespace's admission work. */
  private giveBack(ns: string, charges: ReadonlyMap<string, ResourceList>): Promise<void> {
    return this.exclusive(ns, () => this.applyGiveBack(ns, charges)).catch((err: unknown) => {
      this.opts.logger?.error(`resource quota: giving back a charge in namespace ${ns} failed: ${(err as Error).message}`);
    });
  }

  private async applyGiveBack(ns: string, charges: ReadonlyMap<string, ResourceList>): Promise<void> {
    for (const [name, charge] of charges) {
      for (let attempt = 0; attempt < GIVE_BACK_RETRIES; attempt++) {
        const current = await this.read(ns, name);
        if (!current) break;
        const used = resourceListFromJson((current.status as { used?: unknown } | undefined)?.used);
        const reduced = new Map(used);
        for (const [r, q] of subtractNonNegative(mask(used, charge.keys()), charge)) reduced.set(r, q);
        if (equals(reduced, used)) break;
        try {
          await this.writeUsed(current, reduced);
          break;
        } catch (err) {
          if (!isApiError(err, 'Conflict')) throw err;
        }
      }
    }
  }
}

/** The plugin as the server builds it (ADMISSION_PLUGIN_FACTORIES). */
export function resourceQuotaPlugin(ctx: AdmissionPluginContext): ResourceQuotaAdmission {
  const info = ctx.catalog.resource('', 'v1', 'resourcequotas');
  if (!info) throw new Error('ResourceQuota admission needs the resourcequotas resource');
  return new ResourceQuotaAdmission({
    quotas: ctx.registry.storeFor(info),
    configuration: parseResourceQuotaConfiguration(ctx.configuration),
    logger: ctx.logger,
    shutdown: ctx.shutdown,
  });
}
