import type { ApiClient, GroupVersionResource } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { NAMESPACE_FINALIZER } from '../registry/namespaces.js';
import { cloneObject, jsonEqual, nowTimestamp, type KubeObject } from '../machinery/object.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { WorkQueue, type ResourceFollower } from '../registry/informer.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';
import { readModifyWrite } from './writes.js';

/**
 * kube-controller-manager's namespace controller: empties a Terminating
 * namespace (every namespaced resource type), reports progress in
 * status.conditions, then removes the `kubernetes` finalizer, which lets the
 * namespace go. It watches namespaces through an informer and does
 * everything else through the API, as kube-controller-manager does.
 */

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

/** How soon to look again while content with finalizers or grace periods remains. */
const REQUEUE_MS = 1000;

export class NamespaceDeleter implements Controller {
  readonly name = 'namespace';
  private readonly informer: ResourceFollower;
  private readonly queue: WorkQueue;

  constructor(
    private readonly namespaces: ResourceStore,
    private readonly client: ApiClient,
    /** Every namespaced resource that can be listed and deleted, one version each; asked per run (the set can change). */
    private readonly contentResources: () => GroupVersionResource[],
    shared: ControllerShared = {},
  ) {
    const follow = followerFactory(shared);
    this.queue = new WorkQueue((name) => this.sync(name), { name: 'namespace', backoff: { baseMs: 1000, maxMs: 1000 }, ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.informer = follow(namespaces, (type, ns) => {
      if (type !== 'DELETED' && ns.metadata?.deletionTimestamp) this.queue.add(ns.metadata.name!);
    });
  }

  async start(): Promise<void> {
    await this.informer.start();
  }

  stop(): void {
    this.informer.stop();
    this.queue.stop();
  }

  private async sync(name: string): Promise<void> {
    let ns: KubeObject;
    try {
      ns = await this.namespaces.get(undefined, name);
    } catch (err) {
      if (isApiError(err, 'NotFound')) return;
      throw err;
    }
    if (!ns.metadata?.deletionTimestamp) return;
    const finalizers = ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).slice();
    if (!finalizers.includes(NAMESPACE_FINALIZER)) {
      // Someone else's finalizer (or none): the namespace goes once they are all gone.
      if (finalizers.length === 0 && !(ns.metadata.finalizers?.length)) await this.deleteNamespace(ns);
      return;
    }

    const remaining = new Map<string, number>();
    const finalizersLeft = new Map<string, number>();
    const failures: string[] = [];
    for (const gvr of this.contentResources()) {
      const resource = gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource;
      const ref = { ...gvr, namespace: name };
      const listed = await this.client.list(ref);
      if (listed.items.length === 0) continue;
      for (const obj of listed.items) {
        if (obj.metadata?.deletionTimestamp) continue;
        try {
          await this.client.delete({ ...ref, name: obj.metadata!.name! }, { propagationPolicy: 'Background' });
        } catch (err) {
          if (!isApiError(err, 'NotFound')) failures.push(`${resource}: ${(err as Error).message}`);
        }
      }
      // What the deletes left (finalizers, grace periods), as kube's namespace controller lists again to tell.
      for (const obj of (await this.client.list(ref)).items) {
        remaining.set(resource, (remaining.get(resource) ?? 0) + 1);
        for (const f of obj.metadata?.finalizers ?? []) finalizersLeft.set(f, (finalizersLeft.get(f) ?? 0) + 1);
      }
    }

    await this.setConditions(name, conditionsFor(remaining, finalizersLeft, failures));
    if (remaining.size > 0 || failures.length > 0) {
      this.queue.addAfter(name, REQUEUE_MS);
      return;
    }
    // PUT …/finalize: only spec.finalizers changes; the namespace goes once none is left.
    const finalized = cloneObject(ns);
    delete finalized.metadata!.resourceVersion;
    finalized.spec = { ...((ns.spec as object | undefined) ?? {}), finalizers: finalizers.filter((f) => f !== NAMESPACE_FINALIZER) };
    await this.client.update({ ...NAMESPACES, name, subresource: 'finalize' }, finalized);
  }

  private async deleteNamespace(ns: KubeObject): Promise<void> {
    try {
      await this.client.delete({ ...NAMESPACES, name: ns.metadata!.name! }, { preconditions: { uid: ns.metadata!.uid! } });
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
    }
  }

  /** Writes the conditions when they changed (a condition keeps its lastTransitionTime while it stays the same). */
  private async setConditions(name: string, conditions: Condition[]): Promise<void> {
    await readModifyWrite(this.client, { ...NAMESPACES, name, subresource: 'status' }, (cur) => {
      if (!cur) return undefined;
      const next = cloneObject(cur);
      const status = (next.status ?? {}) as { conditions?: Condition[] };
      const previous = status.conditions ?? [];
      const now = nowTimestamp();
      const updated = conditions.map((c) => {
        const old = previous.find((p) => p.type === c.type);
        const unchanged = old && old.status === c.status && old.reason === c.reason && old.message === c.message;
        return { ...c, lastTransitionTime: unchanged ? old.lastTransitionTime! : now };
      });
      if (jsonEqual(updated, previous)) return undefined;
      status.conditions = updated;
      next.status = status;
      return next;
    });
  }
}

function conditionsFor(remaining: Map<string, number>, finalizers: Map<string, number>, failures: string[]): Condition[] {
  const sorted = (m: Map<string, number>): [string, number][] => [...m].sort(([a], [b]) => a.localeCompare(b));
  return [
    { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    failures.length > 0
      ? { type: 'NamespaceDeletionContentFailure', status: 'True', reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${failures.length} remaining: ${failures.join(', ')}` }
      : { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    remaining.size > 0
      ? {
          type: 'NamespaceContentRemaining',
          status: 'True',
          reason: 'SomeResourcesRemain',
          message: `Some resources are remaining: ${sorted(remaining).map(([r, n]) => `${r} has ${n} resource instances`).join(', ')}`,
        }
      : { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' },
    finalizers.size > 0
      ? {
          type: 'NamespaceFinalizersRemaining',
          status: 'True',
          reason: 'SomeFinalizersRemain',
          message: `Some content in the namespace has finalizers remaining: ${sorted(finalizers).map(([f, n]) => `${f} in ${n} resource instances`).join(', ')}`,
        }
      : { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
  ];
}
