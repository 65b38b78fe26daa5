import { dayOf, INVALID_SINCE_LABEL, isDay, LAST_USED_LABEL, labelPatch, nextDay } from '../authn/legacy-token-tracking.js';
import { podReferences } from '../authz/node/graph.js';
import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/object.js';
import type { ResourceFollower } from '../registry/informer.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';
import { SERVICE_ACCOUNT_TOKEN_TYPE } from './legacy-token-secrets.js';
import { TRACKING_CONFIGMAP, TRACKING_SINCE_KEY } from './legacy-token-tracking.js';

/**
 * kube-controller-manager's legacy-serviceaccount-token-cleaner-controller
 * (pkg/controller/serviceaccount/legacy_serviceaccount_token_cleaner.go),
 * leader-only: once a day it looks at every auto-generated legacy token
 * Secret (one its ServiceAccount lists in `secrets`) and, when the token has
 * gone unused for --legacy-service-account-token-clean-up-period (one year by
 * default) and no pod mounts it, labels it
 * kubernetes.io/legacy-token-invalid-since (the authenticator then refuses
 * it); one invalid for that long again is deleted. Nothing happens until
 * tracking (the kube-apiserver-legacy-service-account-token-tracking
 * ConfigMap's `since`) has run for a whole period.
 */

export const DEFAULT_CLEAN_UP_PERIOD_MS = 365 * 24 * 60 * 60 * 1000;
/** kube's DefaultCleanerSyncInterval. */
export const DEFAULT_SYNC_INTERVAL_MS = 24 * 60 * 60 * 1000;

const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
const SA_UID_ANNOTATION = 'kubernetes.io/service-account.uid';

/** What the cleaner does with one Secret, and why (kube's order of checks). */
export type LegacyTokenDecision =
  | { action: 'keep'; why: 'not-a-token' | 'too-new' | 'terminating' | 'last-used-unparsable' | 'recently-used' | 'not-auto-generated' | 'mounted' | 'recently-invalidated' }
  | { action: 'mark'; invalidSince: string }
  | { action: 'delete'; lastUsed: string | undefined; invalidSince: string };

export interface LegacyTokenFacts {
  /** The ServiceAccount the Secret's annotations name (uid matching when the Secret records one); undefined when there is none. */
  serviceAccount: KubeObject | undefined;
  /** The Secrets the pods of the Secret's namespace refer to (volumes, env, imagePullSecrets). */
  mountedSecrets: () => ReadonlySet<string>;
}

/** Whether tracking has run long enough: from the day after `since` (00:00 UTC) plus one period. */
export function trackedLongEnough(since: string, now: number, periodMs: number): boolean {
  return now >= Date.parse(`${nextDay(since)}T00:00:00Z`) + periodMs;
}

/** The decision for one Secret at `now` (the evaluation's instant), given a clean-up period. */
export function decideLegacyToken(secret: KubeObject, facts: LegacyTokenFacts, now: number, periodMs: number): LegacyTokenDecision {
  if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return { action: 'keep', why: 'not-a-token' };
  const preserveCreatedOnOrAfter = now - periodMs;
  const preserveUsedOnOrAfter = dayOf(now - periodMs);
  const created = Date.parse(secret.metadata?.creationTimestamp ?? '');
  if (!(created < preserveCreatedOnOrAfter)) return { action: 'keep', why: 'too-new' };
  if (secret.metadata?.deletionTimestamp) return { action: 'keep', why: 'terminating' };
  const labels = secret.metadata?.labels ?? {};
  const lastUsed = labels[LAST_USED_LABEL];
  // No label: unused since tracking began.
  if (lastUsed !== undefined) {
    if (!isDay(lastUsed)) return { action: 'keep', why: 'last-used-unparsable' };
    if (lastUsed >= preserveUsedOnOrAfter) return { action: 'keep', why: 'recently-used' };
  }
  const sa = facts.serviceAccount;
  const refs = ((sa as { secrets?: Array<{ name?: string }> } | undefined)?.secrets ?? []).map((r) => r.name);
  if (!sa || !refs.includes(secret.metadata?.name)) return { action: 'keep', why: 'not-auto-generated' };
  if (facts.mountedSecrets().has(secret.metadata?.name ?? '')) return { action: 'keep', why: 'mounted' };
  const invalidSince = labels[INVALID_SINCE_LABEL];
  if (!isDay(invalidSince)) return { action: 'mark', invalidSince: dayOf(now) };
  if (invalidSince >= preserveUsedOnOrAfter) return { action: 'keep', why: 'recently-invalidated' };
  return { action: 'delete', lastUsed, invalidSince };
}

export interface LegacyTokenCleanerOptions {
  /** --legacy-service-account-token-clean-up-period. */
  cleanUpPeriodMs: number;
  /** How often the Secrets are looked at (kube: a day). */
  syncIntervalMs?: number;
  now?: () => number;
  log?: (message: string) => void;
}

export class LegacyTokenCleaner implements Controller {
  readonly name = 'legacy-serviceaccount-token-cleaner-controller';
  private readonly secrets: ResourceFollower;
  private readonly serviceAccounts: ResourceFollower;
  private readonly pods: ResourceFollower;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(
    stores: { secrets: ResourceStore; serviceAccounts: ResourceStore; pods: ResourceStore },
    private readonly client: ApiClient,
    private readonly opts: LegacyTokenCleanerOptions,
    shared: ControllerShared = {},
  ) {
    if (!(opts.cleanUpPeriodMs > 0)) throw new Error(`invalid CleanUpPeriod: ${opts.cleanUpPeriodMs}`);
    const follow = followerFactory(shared);
    // Informers only feed the listers: the work is a periodic sweep, as in kube.
    const ignore = (): void => undefined;
    this.secrets = follow(stores.secrets, ignore);
    this.serviceAccounts = follow(stores.serviceAccounts, ignore);
    this.pods = follow(stores.pods, ignore);
    this.now = opts.now ?? Date.now;
  }

  async start(): Promise<void> {
    await Promise.all([this.secrets.start(), this.serviceAccounts.start(), this.pods.start()]);
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.secrets.stop();
    this.serviceAccounts.stop();
    this.pods.stop();
  }

  /** wait.Until: the next sweep an interval after the last one ended. */
  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.evaluate()
        .catch((err: unknown) => this.opts.log?.(`legacy token cleaner: ${(err as Error).message}`))
        .finally(() => this.schedule(this.opts.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS));
    }, ms);
    this.timer.unref?.();
  }

  /** One sweep (kube's evaluateSATokens). */
  async evaluate(): Promise<void> {
    const now = this.now();
    const since = await this.trackedSince();
    if (since === undefined || !trackedLongEnough(since, now, this.opts.cleanUpPeriodMs)) return;
    const mountedByNamespace = new Map<string, Set<string>>();
    const mounted = (namespace: string): Set<string> => {
      let names = mountedByNamespace.get(namespace);
      if (!names) {
        names = new Set();
        for (const pod of this.pods.list()) {
          if (pod.metadata?.namespace !== namespace) continue;
          for (const [type, name] of podReferences(pod)) if (type === 'secret') names.add(name);
        }
        mountedByNamespace.set(namespace, names);
      }
      return names;
    };
    for (const secret of this.secrets.list()) {
      if (this.stopped) return;
      const namespace = secret.metadata?.namespace ?? '';
      const decision = decideLegacyToken(secret, { serviceAccount: this.serviceAccountOf(secret), mountedSecrets: () => mounted(namespace) }, now, this.opts.cleanUpPeriodMs);
      await this.act(secret, decision);
    }
  }

  private serviceAccountOf(secret: KubeObject): KubeObject | undefined {
    const annotations = secret.metadata?.annotations ?? {};
    const name = annotations[SA_NAME_ANNOTATION];
    if (!name) return undefined;
    const sa = this.serviceAccounts.get(`${secret.metadata?.namespace ?? ''}/${name}`);
    const uid = annotations[SA_UID_ANNOTATION];
    return sa && (!uid || uid === sa.metadata?.uid) ? sa : undefined;
  }

  private async act(secret: KubeObject, decision: LegacyTokenDecision): Promise<void> {
    const m = secret.metadata!;
    const ref = { group: '', version: 'v1', resource: 'secrets', namespace: m.namespace!, name: m.name! };
    if (decision.action === 'mark') {
      this.opts.log?.(`Mark the auto-generated service account token as invalid invalidSince="${decision.invalidSince}" secret="${m.namespace}/${m.name}"`);
      try {
        await this.client.patch(ref, 'merge', labelPatch({ name: m.name!, namespace: m.namespace!, uid: m.uid ?? '' }, { [INVALID_SINCE_LABEL]: decision.invalidSince }));
      } catch (err) {
        this.opts.log?.(`Failed to label legacy service account token secret with invalid since date: ${(err as Error).message}`);
      }
    } else if (decision.action === 'delete') {
      this.opts.log?.(`Delete auto-generated service account token secret="${m.namespace}/${m.name}" creationTime="${m.creationTimestamp}" lastUsed="${decision.lastUsed ?? ''}" invalidSince="${decision.invalidSince}"`);
      try {
        await this.client.delete(ref, { preconditions: { resourceVersion: m.resourceVersion! } });
      } catch (err) {
        if (!isApiError(err, 'Conflict') && !isApiError(err, 'NotFound')) this.opts.log?.(`Deleting legacy service account token: ${(err as Error).message}`);
      }
    }
  }

  /** The tracking ConfigMap's `since`, read fresh (as kube does); undefined (logged) when missing or not a date. */
  private async trackedSince(): Promise<string | undefined> {
    let cm: KubeObject;
    try {
      cm = await this.client.get({ group: '', version: 'v1', resource: 'configmaps', namespace: 'kube-system', name: TRACKING_CONFIGMAP });
    } catch (err) {
      this.opts.log?.(`Getting lastest possible tracked_since time: ${(err as Error).message}`);
      return undefined;
    }
    const since = ((cm.data ?? {}) as Record<string, string>)[TRACKING_SINCE_KEY];
    if (since === undefined) {
      this.opts.log?.('Getting lastest possible tracked_since time: configMap does not have since label');
      return undefined;
    }
    if (!isDay(since)) {
      this.opts.log?.(`Getting lastest possible tracked_since time: error parsing trackedSince time: ${since}`);
      return undefined;
    }
    return since;
  }
}
