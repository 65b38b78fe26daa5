import { dayOf, isDay } from '../authn/legacy-token-tracking.js';
import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { cloneObject } from '../machinery/object.js';
import { WorkQueue, type ResourceFollower } from '../registry/informer.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';

/**
 * kube-apiserver's legacy_token_tracking_controller
 * (pkg/controlplane/controller/legacytokentracking), on every server: the
 * ConfigMap kube-system/kube-apiserver-legacy-service-account-token-tracking
 * says since which day (`since`, UTC) the servers label the legacy tokens
 * they see used; the token cleaner counts nothing as unused before then.
 * Created when missing (at most once per 30 minutes, kube's creation rate
 * limit, so servers do not fight over it), its `since` rewritten when it is
 * not a date, and otherwise left alone.
 */

export const TRACKING_CONFIGMAP = 'kube-apiserver-legacy-service-account-token-tracking';
export const TRACKING_SINCE_KEY = 'since';
const NAMESPACE = 'kube-system';
const KEY = `${NAMESPACE}/${TRACKING_CONFIGMAP}`;
const CREATION_INTERVAL_MS = 30 * 60 * 1000;
const CONFIG_MAPS = { group: '', version: 'v1', resource: 'configmaps' };

export class LegacyTokenTracking implements Controller {
  readonly name = 'legacy_token_tracking_controller';
  private readonly configMaps: ResourceFollower;
  private readonly queue: WorkQueue;
  /** When this server last created the ConfigMap (kube's rate.Limiter with a burst of one). */
  private lastCreation: number | undefined;

  constructor(
    configMaps: ResourceStore,
    private readonly client: ApiClient,
    shared: ControllerShared = {},
    private readonly now: () => number = Date.now,
  ) {
    const follow = followerFactory(shared);
    this.queue = new WorkQueue(() => this.sync(), { name: 'legacy_token_tracking_controller', ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.configMaps = follow(configMaps, (_type, cm) => {
      if (cm.metadata?.namespace === NAMESPACE && cm.metadata?.name === TRACKING_CONFIGMAP) this.queue.add(KEY);
    });
  }

  async start(): Promise<void> {
    await this.configMaps.start();
    this.queue.add(KEY);
  }

  stop(): void {
    this.configMaps.stop();
    this.queue.stop();
  }

  private async sync(): Promise<void> {
    const existing = this.configMaps.get(KEY);
    const now = this.now();
    if (!existing) {
      if (this.lastCreation !== undefined && now - this.lastCreation < CREATION_INTERVAL_MS) {
        this.queue.addAfter(KEY, this.lastCreation + CREATION_INTERVAL_MS - now);
        return;
      }
      try {
        await this.client.create({ ...CONFIG_MAPS, namespace: NAMESPACE }, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: TRACKING_CONFIGMAP, namespace: NAMESPACE },
          data: { [TRACKING_SINCE_KEY]: dayOf(now) },
        });
      } catch (err) {
        if (isApiError(err, 'AlreadyExists')) return;
        // A failed attempt does not use up the rate limit.
        throw err;
      }
      this.lastCreation = now;
      return;
    }
    const data = (existing.data ?? {}) as Record<string, string>;
    if (isDay(data[TRACKING_SINCE_KEY])) return;
    const next = cloneObject(existing);
    next.data = { ...data, [TRACKING_SINCE_KEY]: dayOf(now) };
    try {
      await this.client.update({ ...CONFIG_MAPS, namespace: NAMESPACE, name: TRACKING_CONFIGMAP }, next);
    } catch (err) {
      // Gone or changed meanwhile: the informer's event brings the key back.
      if (isApiError(err, 'NotFound') || isApiError(err, 'Conflict')) return;
      throw err;
    }
  }
}
