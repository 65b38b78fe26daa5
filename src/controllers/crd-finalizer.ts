import type { ApiClient, GroupVersionResource } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { cloneObject, type KubeObject } from '../machinery/object.js';
import { CLEANUP_FINALIZER, conditionTrue, crdSpec, crdVersions, CRD_GROUP, CRD_RESOURCE, hasFinalizer, setCondition, type CrdCondition } from '../apiextensions/crd.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';
import { WorkQueue, type ResourceFollower } from '../registry/informer.js';

/**
 * kube's CRDFinalizer (apiextensions-apiserver pkg/controller/finalizer), on
 * the leader: a CRD marked for deletion gets Terminating=True
 * InstanceDeletionInProgress, all its custom resources are deleted (per
 * namespace), and once none is left (waiting up to a minute for their own
 * finalizers) the condition says so and the cleanup finalizer goes, which
 * lets the CRD go; its serving controller then removes the API.
 */

const POLL_MS = 1000;
const POLL_LIMIT_MS = 60_000;

export class CrdFinalizer implements Controller {
  readonly name = 'crd-finalizer';
  private readonly informer: ResourceFollower;
  private readonly queue: WorkQueue;

  constructor(
    crds: ResourceStore,
    private readonly client: ApiClient,
    shared: ControllerShared = {},
  ) {
    const follow = followerFactory(shared);
    this.queue = new WorkQueue((name) => this.sync(name), { name: 'crd_finalizer', backoff: { baseMs: 5000, maxMs: 5000 }, ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.informer = follow(crds, (type, crd) => {
      if (type !== 'DELETED' && crd.metadata?.deletionTimestamp && hasFinalizer(crd, CLEANUP_FINALIZER)) this.queue.add(crd.metadata.name!);
    });
  }

  async start(): Promise<void> {
    await this.informer.start();
  }

  stop(): void {
    this.informer.stop();
    this.queue.stop();
  }

  private writeStatus(crd: KubeObject): Promise<KubeObject> {
    return this.client.update({ group: CRD_GROUP, version: 'v1', resource: CRD_RESOURCE, name: crd.metadata!.name!, subresource: 'status' }, crd);
  }

  private async sync(name: string): Promise<void> {
    const cached = this.informer.get(name);
    if (!cached?.metadata?.deletionTimestamp || !hasFinalizer(cached, CLEANUP_FINALIZER)) return;
    let crd = cloneObject(cached);
    setCondition(crd, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
    try {
      crd = await this.writeStatus(crd);
    } catch (err) {
      if (isApiError(err, 'NotFound')) return;
      throw err;
    }
    crd = cloneObject(crd);
    if (conditionTrue(crd, 'Established')) {
      const { condition, failed } = await this.deleteInstances(crd);
      setCondition(crd, condition);
      if (failed) {
        await this.writeStatus(crd).catch(() => undefined);
        throw failed;
      }
    } else {
      setCondition(crd, { type: 'Terminating', status: 'False', reason: 'NeverEstablished', message: 'resource was never established' });
    }
    crd.metadata!.finalizers = (crd.metadata!.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
    await this.writeStatus(crd);
  }

  private async deleteInstances(crd: KubeObject): Promise<{ condition: CrdCondition; failed?: Error }> {
    const spec = crdSpec(crd);
    // The storage version when it is served: its instances need no conversion (a conversion webhook may be gone already).
    const served = crdVersions(crd).find((v) => v.served && v.storage) ?? crdVersions(crd).find((v) => v.served) ?? crdVersions(crd).find((v) => v.storage);
    const plural = spec.names?.plural ?? '';
    const gvr: GroupVersionResource = { group: spec.group ?? '', version: served?.name ?? '', resource: plural };
    const failedWith = (reason: string, message: string, err: Error): { condition: CrdCondition; failed: Error } => ({
      condition: { type: 'Terminating', status: 'True', reason, message },
      failed: err,
    });
    let items: KubeObject[];
    try {
      items = (await this.client.list(gvr)).items;
    } catch (err) {
      return failedWith('InstanceDeletionFailed', `could not list instances: unable to find a custom resource client for ${plural}.${spec.group}: ${(err as Error).message}`, err as Error);
    }
    const errors: string[] = [];
    for (const item of items) {
      try {
        await this.client.delete({ ...gvr, ...(item.metadata?.namespace ? { namespace: item.metadata.namespace } : {}), name: item.metadata!.name! });
      } catch (err) {
        if (!isApiError(err, 'NotFound')) errors.push((err as Error).message);
      }
    }
    if (errors.length > 0) {
      const message = errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
      return failedWith('InstanceDeletionFailed', `could not issue all deletes: ${message}`, new Error(message));
    }
    const deadline = Date.now() + POLL_LIMIT_MS;
    for (;;) {
      const left = (await this.client.list(gvr)).items.length;
      if (left === 0) break;
      if (Date.now() >= deadline) {
        return failedWith('InstanceDeletionCheck', 'could not confirm zero CustomResources remaining: timed out waiting for the condition', new Error(`${left} instances left`));
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return { condition: { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' } };
  }
}
