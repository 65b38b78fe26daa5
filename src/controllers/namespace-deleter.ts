import { isApiError } from '../machinery/errors.js';
import { finalizeNamespace, NAMESPACE_FINALIZER } from '../registry/namespaces.js';
import { cloneObject, nowTimestamp, type KubeObject } from '../machinery/object.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { Informer, WorkQueue } from './informer.js';
import type { Controller } from './controller.js';

/**
 * kube-controller-manager's namespace controller: empties a Terminating
 * namespace (every namespaced resource type), reports progress in
 * status.conditions, then removes the `kubernetes` finalizer, which lets the
 * namespace go.
 */

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
  private readonly informer: Informer;
  private readonly queue: WorkQueue;

  constructor(
    private readonly namespaces: ResourceStore,
    /** The stores of every namespaced resource, evaluated per run (the set can change). */
    private readonly contentStores: () => ResourceStore[],
  ) {
    this.queue = new WorkQueue((name) => this.sync(name));
    this.informer = new Informer(namespaces, (type, ns) => {
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
      if (finalizers.length === 0 && !(ns.metadata.finalizers?.length)) await this.deleteNamespace(name);
      return;
    }

    const remaining = new Map<string, number>();
    const finalizersLeft = new Map<string, number>();
    const failures: string[] = [];
    for (const store of this.contentStores()) {
      const resource = store.desc.group ? `${store.desc.resource}.${store.desc.group}` : store.desc.resource;
      const listed = await store.list({ namespace: name, readAt: { kind: 'consistent' } });
      for (const { object: obj } of listed.items) {
        const objName = obj.metadata!.name!;
        if (!obj.metadata?.deletionTimestamp) {
          try {
            const r = await store.delete(name, objName, { propagationPolicy: 'Background' });
            if (r.deleted) continue;
          } catch (err) {
            if (isApiError(err, 'NotFound')) continue;
            failures.push(`${resource}: ${(err as Error).message}`);
          }
        }
        remaining.set(resource, (remaining.get(resource) ?? 0) + 1);
        for (const f of obj.metadata?.finalizers ?? []) finalizersLeft.set(f, (finalizersLeft.get(f) ?? 0) + 1);
      }
    }

    await this.setConditions(name, conditionsFor(remaining, finalizersLeft, failures));
    if (remaining.size > 0 || failures.length > 0) {
      this.queue.addAfter(name, REQUEUE_MS);
      return;
    }
    const rest = finalizers.filter((f) => f !== NAMESPACE_FINALIZER);
    await finalizeNamespace(this.namespaces, name, rest, {});
  }

  private async deleteNamespace(name: string): Promise<void> {
    try {
      await this.namespaces.delete(undefined, name);
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
    }
  }

  private async setConditions(name: string, conditions: Condition[]): Promise<void> {
    await this.namespaces.update(undefined, { name, subresource: 'status' }, (cur) => {
      const next = cloneObject(cur!);
      delete next.metadata!.resourceVersion;
      const status = (next.status ?? {}) as { conditions?: Condition[] };
      const previous = status.conditions ?? [];
      const now = nowTimestamp();
      status.conditions = conditions.map((c) => {
        const old = previous.find((p) => p.type === c.type);
        const unchanged = old && old.status === c.status && old.reason === c.reason && old.message === c.message;
        return { ...c, lastTransitionTime: unchanged ? old.lastTransitionTime! : now };
      });
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
