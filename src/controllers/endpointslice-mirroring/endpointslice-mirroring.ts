import type { ApiClient, CollectionRef } from '../../machinery/client.js';
import { isApiError } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/object.js';
import { Informer, WorkQueue, type ResourceFollower } from '../../registry/informer.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from '../controller.js';
import { ENDPOINTSLICE_MIRRORING } from '../controller-names.js';
import { EventRecorder } from '../event-recorder.js';
import { DEFAULT_MAX_ENDPOINTS_PER_SUBSET, mirroredSlice, mirrorPlan, SERVICE_NAME_LABEL, shouldMirror } from './mirror-plan.js';
import { SliceTracker } from './slice-tracker.js';

/**
 * kube-controller-manager's endpointslice-mirroring-controller
 * (pkg/controller/endpointslicemirroring): the Endpoints of a Service
 * without a selector, written by hand or by another controller, are mirrored
 * into EndpointSlices (managed-by endpointslicemirroring-controller.k8s.io),
 * which follow every change and go when the Endpoints, its Service or the
 * Service's selector-lessness goes. Endpoints labelled
 * endpointslice.kubernetes.io/skip-mirror=true (the `kubernetes` Service's,
 * which the server keeps with its own slice) and leader-election locks are
 * not mirrored.
 */

/** Retries of one Endpoints before it is dropped until its next change (maxRetries). */
const MAX_RETRIES = 15;
/** The mirroring queue's backoff: 1 s doubling up to 100 s. */
const BACKOFF = { baseMs: 1000, maxMs: 100 * 1000 };
const WORKERS = 5;
const EVENT_SOURCE = 'endpoint-slice-mirroring-controller';
const SLICES = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' } as const;

export interface MirroringStores {
  endpoints: ResourceStore;
  endpointSlices: ResourceStore;
  services: ResourceStore;
}

export class EndpointSliceMirroring implements Controller {
  readonly name = ENDPOINTSLICE_MIRRORING;
  private readonly endpoints: ResourceFollower;
  private readonly slices: ResourceFollower;
  private readonly services: ResourceFollower;
  private readonly queue: WorkQueue;
  private readonly events: EventRecorder;
  private readonly tracker = new SliceTracker();
  /** Mirrored slice key → the Endpoints key it was mirrored for (to notice a slice relabelled away), and the reverse. */
  private readonly sliceOwners = new Map<string, string>();
  private readonly slicesOf = new Map<string, Set<string>>();

  constructor(
    stores: MirroringStores,
    private readonly client: ApiClient,
    shared: ControllerShared = {},
    private readonly log: (message: string) => void = () => undefined,
    private readonly maxEndpointsPerSubset: number = DEFAULT_MAX_ENDPOINTS_PER_SUBSET,
  ) {
    const follow = followerFactory(shared);
    this.events = new EventRecorder(client, EVENT_SOURCE);
    this.queue = new WorkQueue((key) => this.syncWithBudget(key), { name: 'endpoint_slice_mirroring', workers: WORKERS, backoff: BACKOFF, ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.endpoints = follow(stores.endpoints, (_type, ep) => this.queue.add(Informer.keyOf(ep)));
    // Any change of a Service may add or remove a selector (informer events carry no old object): look again.
    this.services = follow(stores.services, (_type, svc) => this.queue.add(Informer.keyOf(svc)));
    this.slices = follow(stores.endpointSlices, (type, slice) => this.onSlice(type, slice));
  }

  async start(): Promise<void> {
    await Promise.all([this.endpoints.start(), this.slices.start(), this.services.start()]);
  }

  stop(): void {
    for (const f of [this.endpoints, this.slices, this.services]) f.stop();
    this.queue.stop();
  }

  private onSlice(type: string, slice: KubeObject): void {
    const sliceKey = Informer.keyOf(slice);
    const previous = this.sliceOwners.get(sliceKey);
    const owner = mirroredSlice(slice) && type !== 'DELETED' ? endpointsKeyOf(slice) : undefined;
    if (previous !== owner) {
      if (previous) {
        this.slicesOf.get(previous)?.delete(sliceKey);
        if (this.slicesOf.get(previous)?.size === 0) this.slicesOf.delete(previous);
      }
      if (owner) this.slicesOf.set(owner, (this.slicesOf.get(owner) ?? new Set()).add(sliceKey));
    }
    if (owner) this.sliceOwners.set(sliceKey, owner);
    else this.sliceOwners.delete(sliceKey);
    // Ours before or now (a changed service-name label or managed-by moves it): both Endpoints look again.
    for (const key of new Set([previous, owner])) {
      if (key && (mirroredSlice(slice) || previous) && this.tracker.shouldSync(key, slice, type === 'DELETED')) this.queue.add(key);
    }
  }

  /** handleErr: an Endpoints failing MAX_RETRIES times is dropped until it changes again. */
  private async syncWithBudget(key: string): Promise<void> {
    try {
      await this.sync(key);
    } catch (err) {
      if (this.queue.numRequeues(key) < MAX_RETRIES) {
        this.log(`Error mirroring EndpointSlices for Endpoints ${key}, retrying: ${(err as Error).message}`);
        throw err;
      }
      this.log(`Retry budget exceeded, dropping Endpoints ${key} out of the queue: ${(err as Error).message}`);
      this.queue.forget(key);
    }
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const endpoints = this.endpoints.get(key);
    const service = this.services.get(key);
    if (!endpoints || !shouldMirror(endpoints) || !service || hasSelector(service)) {
      await this.deleteMirrored(namespace, name, key);
      return;
    }
    const existing = this.mirroredFor(key);
    if (this.tracker.stale(key, existing)) throw new Error('EndpointSlice informer cache is out of date');
    const plan = mirrorPlan(endpoints, existing, this.maxEndpointsPerSubset);
    const subject = { apiVersion: 'v1', kind: 'Endpoints', namespace, name, ...(endpoints.metadata?.uid ? { uid: endpoints.metadata.uid } : {}) };
    if (plan.invalidAddresses > 0) await this.events.event(subject, 'Warning', 'InvalidIPAddress', `Skipped ${plan.invalidAddresses} invalid IP addresses when mirroring to EndpointSlices`);
    if (plan.skippedAddresses > plan.invalidAddresses) {
      await this.events.event(subject, 'Warning', 'TooManyAddressesToMirror', `A max of ${this.maxEndpointsPerSubset} addresses can be mirrored to EndpointSlices per Endpoints subset. ${plan.skippedAddresses} addresses were skipped`);
    }
    const collection: CollectionRef = { ...SLICES, namespace };
    // No new slices for an Endpoints on its way out.
    if (!endpoints.metadata?.deletionTimestamp) {
      for (const slice of plan.create) {
        try {
          this.tracker.wrote(key, await this.client.create(collection, slice));
        } catch (err) {
          // A terminating namespace takes no creates, and never will.
          if (isApiError(err) && err.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return;
          throw new Error(`failed to create EndpointSlice for Endpoints ${namespace}/${name}: ${(err as Error).message}`);
        }
      }
    }
    for (const slice of plan.update) {
      const sliceName = slice.metadata?.name ?? '';
      try {
        this.tracker.wrote(key, await this.client.update({ ...collection, name: sliceName }, slice));
      } catch (err) {
        throw new Error(`failed to update ${sliceName} EndpointSlice for Endpoints ${namespace}/${name}: ${(err as Error).message}`);
      }
    }
    for (const slice of plan.delete) {
      const sliceName = slice.metadata?.name ?? '';
      try {
        await this.client.delete({ ...collection, name: sliceName });
      } catch (err) {
        if (!isApiError(err, 'NotFound')) throw new Error(`failed to delete ${sliceName} EndpointSlice for Endpoints ${namespace}/${name}: ${(err as Error).message}`);
      }
      this.tracker.deleted(key, slice);
    }
  }

  /** endpointSlicesMirroredForService: the slices labelled for this Service and managed by this controller. */
  private mirroredFor(key: string): KubeObject[] {
    return [...(this.slicesOf.get(key) ?? [])].flatMap((sliceKey) => {
      const slice = this.slices.get(sliceKey);
      return slice ? [slice] : [];
    });
  }

  /** deleteMirroredSlices: every slice mirrored for the Endpoints goes. */
  private async deleteMirrored(namespace: string, name: string, key: string): Promise<void> {
    const slices = this.mirroredFor(key);
    this.tracker.forget(key);
    const errors: string[] = [];
    for (const slice of slices) {
      try {
        await this.client.delete({ ...SLICES, namespace, name: slice.metadata?.name ?? '' });
      } catch (err) {
        if (!isApiError(err, 'NotFound')) errors.push((err as Error).message);
      }
    }
    if (errors.length > 0) throw new Error(`error(s) deleting ${errors.length}/${slices.length} EndpointSlices for ${namespace}/${name} Endpoints, including: ${errors[0]}`);
  }
}

/** A Service without spec.selector is one whose Endpoints someone else writes (Go: Selector == nil). */
function hasSelector(service: KubeObject): boolean {
  const selector = (service.spec as { selector?: unknown } | undefined)?.selector;
  return selector !== undefined && selector !== null;
}

/** endpointsControllerKey: the Endpoints a slice was mirrored for. */
function endpointsKeyOf(slice: KubeObject): string | undefined {
  const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
  return service ? `${slice.metadata?.namespace}/${service}` : undefined;
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}
