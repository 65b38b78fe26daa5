import type { ApiCatalog } from '../../api/catalog.js';
import type { ResourceInfo } from '../../api/types.js';
import type { ApiClient, ObjectRef } from '../../machinery/client.js';
import { isApiError } from '../../machinery/errors.js';
import { type KubeObject, type OwnerReference } from '../../machinery/object.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../../registry/gc-finalizers.js';
import type { InformerFactory, ResourceFollower } from '../../registry/informer.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { WorkQueue } from '../../registry/work-queue.js';
import { followerFactory, type Controller, type ControllerShared } from '../controller.js';
import { EventRecorder } from '../event-recorder.js';
import { DependencyGraph, identityString, type GraphNode, type ObjectIdentity } from './graph.js';

/**
 * kube-controller-manager's garbage collector (pkg/controller/garbagecollector):
 * monitors every listable and deletable resource through informers on the
 * watch caches (custom resources as they come and go), keeps the dependency
 * graph, deletes objects whose owners are all gone (dangling references,
 * uid mismatches), deletes the dependents of foreground deletions before
 * their owner, and orphans the dependents of orphan deletions. Everything it
 * reads beyond the informers and writes goes through the API.
 */

/** Resources the garbage collector ignores (kube's DefaultIgnoredResources). */
const IGNORED = new Set(['/events', 'events.k8s.io/events']);
/** kube's ConcurrentGCSyncs default. */
const WORKERS = 20;
/** How often the set of resources is compared with the catalog (kube re-reads discovery every 30 s). */
const RESYNC_MS = 1000;
const ABSENT_OWNER_CACHE_SIZE = 500;
export const GC_EVENT_SOURCE = 'garbage-collector-controller';

/** The resources of `catalog` the garbage collector follows, one served version per stored resource. */
export type MonitoredResources = () => Array<{ info: ResourceInfo; store: ResourceStore }>;

interface Monitor {
  info: ResourceInfo;
  informer: ResourceFollower;
}

/** A virtual owner that exists but its informer has not shown it yet: looked at again, backing off. */
class NotYetObserved extends Error {}
/** A cluster-scoped dependent naming a namespaced owner: nothing a retry would fix. */
class NamespacedOwnerOfClusterScopedObject extends Error {}

export class GarbageCollector implements Controller {
  readonly name = 'garbage-collector-controller';
  private readonly graph: DependencyGraph;
  private readonly events: EventRecorder;
  private readonly attemptToDelete: WorkQueue;
  private readonly attemptToOrphan: WorkQueue;
  private readonly monitors = new Map<string, Monitor>();
  private readonly absentOwners = new Set<string>();
  private resync: NodeJS.Timeout | undefined;
  private catalogGeneration = -1;
  private stopped = false;
  private readonly follow: InformerFactory;

  constructor(
    private readonly catalog: ApiCatalog,
    private readonly resources: MonitoredResources,
    private readonly client: ApiClient,
    shared: ControllerShared = {},
    private readonly log: (message: string) => void = () => {},
  ) {
    this.events = new EventRecorder(client, GC_EVENT_SOURCE);
    this.graph = new DependencyGraph({
      attemptToDelete: (n) => this.attemptToDelete.add(n.identity.uid),
      attemptToOrphan: (n) => this.attemptToOrphan.add(n.identity.uid),
      invalidNamespaceOwnerRef: (n, ref) => void this.reportInvalidNamespaceOwnerRef(n, ref),
    });
    this.follow = followerFactory(shared);
    const m = shared.metrics ? { metrics: shared.metrics } : {};
    const onError = (key: string, err: unknown): void => {
      if (!(err instanceof NotYetObserved)) this.log(`garbage collector: ${key}: ${(err as Error).message}`);
    };
    this.attemptToDelete = new WorkQueue((uid) => this.attemptToDeleteWorker(uid), { name: 'garbage_collector_attempt_to_delete', workers: WORKERS, onError, ...m });
    this.attemptToOrphan = new WorkQueue((uid) => this.attemptToOrphanWorker(uid), { name: 'garbage_collector_attempt_to_orphan', workers: WORKERS, onError, ...m });
  }

  /**
   * Starts the monitors and returns without waiting for them: the API
   * server's readiness does not wait for the collector (kube-apiserver's does
   * not wait for kube-controller-manager). `synced` resolves once the graph
   * holds every monitor's initial state.
   */
  async start(): Promise<void> {
    this.synced = this.syncMonitors();
    this.resync = setInterval(() => void this.syncMonitors(), RESYNC_MS);
    this.resync.unref();
  }

  synced: Promise<void> = Promise.resolve();

  stop(): void {
    this.stopped = true;
    if (this.resync) clearInterval(this.resync);
    for (const m of this.monitors.values()) m.informer.stop();
    this.monitors.clear();
    this.attemptToDelete.stop();
    this.attemptToOrphan.stop();
  }

  /** The graph, for tests and debugging. */
  get dependencyGraph(): DependencyGraph {
    return this.graph;
  }

  /** Starts monitors for new resources and stops those of removed ones (kube's resyncMonitors). */
  private async syncMonitors(): Promise<void> {
    if (this.stopped || this.catalog.generation === this.catalogGeneration) return;
    this.catalogGeneration = this.catalog.generation;
    const wanted = new Map<string, { info: ResourceInfo; store: ResourceStore }>();
    for (const r of this.resources()) {
      if (!IGNORED.has(`${r.info.group}/${r.info.name}`)) wanted.set(`${r.info.group}/${r.info.name}`, r);
    }
    for (const [id, m] of this.monitors) {
      if (!wanted.has(id)) {
        m.informer.stop();
        this.monitors.delete(id);
      }
    }
    const started: ResourceFollower[] = [];
    for (const [id, { info, store }] of wanted) {
      if (this.monitors.has(id)) continue;
      const apiVersion = info.group ? `${info.group}/${info.version}` : info.version;
      const informer = this.follow(store, (type, obj) => {
        if (type === 'DELETED') this.graph.remove(obj.metadata?.uid ?? '');
        else this.graph.upsert(apiVersion, info.kind, obj);
      });
      this.monitors.set(id, { info, informer });
      started.push(informer);
    }
    await Promise.all(started.map((i) => i.start()));
  }

  private coordinates(apiVersion: string, kind: string): ResourceInfo {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    const info = this.catalog.resourceForKind(group, version, kind) ?? this.catalog.allResources().find((r) => r.group === group && r.kind === kind && r.isObject);
    if (!info) throw new Error(`unable to get REST mapping for ${apiVersion}/${kind}`);
    return info;
  }

  private refOf(id: ObjectIdentity): ObjectRef {
    const info = this.coordinates(id.apiVersion, id.kind);
    return { group: info.group, version: info.version, resource: info.name, name: id.name, ...(info.namespaced ? { namespace: id.namespace } : {}) };
  }

  private async getObject(id: ObjectIdentity): Promise<KubeObject | undefined> {
    try {
      return await this.client.get(this.refOf(id));
    } catch (err) {
      if (isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
  }

  private async attemptToDeleteWorker(uid: string): Promise<void> {
    const node = this.graph.node(uid);
    if (!node) return;
    await this.attemptToDeleteItem(node).catch((err: unknown) => {
      if (err instanceof NamespacedOwnerOfClusterScopedObject) return;
      throw err;
    });
    // An owner not yet seen by its informer is looked at again until it is.
    if (node.virtual && this.graph.node(uid) === node) throw new NotYetObserved(uid);
  }

  private async attemptToDeleteItem(item: GraphNode): Promise<void> {
    if (item.beingDeleted && !item.deletingDependents) return;
    const latest = await this.getObject(item.identity);
    if (!latest || latest.metadata?.uid !== item.identity.uid) {
      // Absent (or replaced by a namesake): gone from the graph, its dependents looked at.
      this.graph.remove(item.identity.uid);
      return;
    }
    if (item.deletingDependents) return this.processDeletingDependents(item);
    const refs = latest.metadata?.ownerReferences ?? [];
    if (refs.length === 0) return;
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const owner = await this.liveOwner(ref, item);
      if (!owner) dangling.push(ref);
      else if (owner.metadata?.deletionTimestamp && owner.metadata.finalizers?.includes(FOREGROUND_FINALIZER)) waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // References to owners gone or deleting in the foreground are dropped, so those owners are not held up.
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await this.patchOwnerReferences(item, latest, refs.filter((r) => !drop.has(r.uid)));
      return;
    }
    let policy: 'Background' | 'Foreground' | 'Orphan';
    if (waiting.length > 0 && item.dependents.size > 0) {
      // Its owner waits for it and it has dependents of its own: it goes in the foreground too.
      if ([...item.dependents].some((d) => d.deletingDependents)) {
        // Cycle guard: its references stop blocking before it is deleted.
        await this.patchOwnerReferences(item, latest, refs.map((r) => (r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r)));
      }
      policy = 'Foreground';
    } else if (latest.metadata?.finalizers?.includes(ORPHAN_FINALIZER)) policy = 'Orphan';
    else if (latest.metadata?.finalizers?.includes(FOREGROUND_FINALIZER)) policy = 'Foreground';
    else policy = 'Background';
    this.log(`garbage collector: deleting ${identityString(item.identity)} with propagation ${policy}`);
    await this.deleteObject(item.identity, policy);
  }

  /** The owner named by `ref` if it exists with that uid (kube's isDangling, inverted). */
  private async liveOwner(ref: OwnerReference, item: GraphNode): Promise<KubeObject | undefined> {
    const info = this.coordinates(ref.apiVersion, ref.kind);
    if (info.namespaced && item.identity.namespace === '') throw new NamespacedOwnerOfClusterScopedObject();
    // Absence is remembered per place looked in: a namespaced owner may exist in another namespace.
    const absentKey = `${ref.uid}|${info.namespaced ? item.identity.namespace : ''}`;
    if (this.absentOwners.has(absentKey)) return undefined;
    let owner: KubeObject | undefined;
    try {
      owner = await this.client.get({ group: info.group, version: info.version, resource: info.name, name: ref.name, ...(info.namespaced ? { namespace: item.identity.namespace } : {}) });
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
    }
    if (!owner || owner.metadata?.uid !== ref.uid) {
      this.rememberAbsent(absentKey);
      return undefined;
    }
    return owner;
  }

  private rememberAbsent(key: string): void {
    if (this.absentOwners.size >= ABSENT_OWNER_CACHE_SIZE) this.absentOwners.delete(this.absentOwners.values().next().value as string);
    this.absentOwners.add(key);
  }

  /** A foreground deletion: its finalizer goes once no dependent blocks it; blocking dependents are deleted first. */
  private async processDeletingDependents(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      await this.removeFinalizer(item, FOREGROUND_FINALIZER);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.attemptToDelete.add(dep.identity.uid);
  }

  private async attemptToOrphanWorker(uid: string): Promise<void> {
    const owner = this.graph.node(uid);
    if (!owner) return;
    await Promise.all(
      [...owner.dependents].map(async (dep) => {
        const latest = await this.getObject(dep.identity);
        if (!latest || latest.metadata?.uid !== dep.identity.uid) return;
        const refs = latest.metadata?.ownerReferences ?? [];
        if (!refs.some((r) => r.uid === uid)) return;
        await this.patchOwnerReferences(dep, latest, refs.filter((r) => r.uid !== uid));
      }),
    );
    await this.removeFinalizer(owner, ORPHAN_FINALIZER);
  }

  /** A JSON merge patch of the whole list, guarded by the resourceVersion read (kube's deleteOwnerRefJSONMergePatch). */
  private async patchOwnerReferences(node: GraphNode, latest: KubeObject, refs: OwnerReference[]): Promise<void> {
    try {
      await this.client.patch(this.refOf(node.identity), 'merge', {
        metadata: { ownerReferences: refs.length > 0 ? refs : null, resourceVersion: latest.metadata?.resourceVersion, uid: node.identity.uid },
      });
    } catch (err) {
      if (isApiError(err, 'NotFound')) return;
      throw err;
    }
  }

  private async removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    for (;;) {
      const latest = await this.getObject(node.identity);
      if (!latest || latest.metadata?.uid !== node.identity.uid) return;
      const finalizers = latest.metadata?.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return;
      try {
        await this.client.patch(this.refOf(node.identity), 'merge', {
          metadata: { finalizers: finalizers.filter((f) => f !== finalizer), resourceVersion: latest.metadata?.resourceVersion, uid: node.identity.uid },
        });
        return;
      } catch (err) {
        if (isApiError(err, 'NotFound')) return;
        if (!isApiError(err, 'Conflict')) throw err;
      }
    }
  }

  private async deleteObject(id: ObjectIdentity, policy: 'Background' | 'Foreground' | 'Orphan'): Promise<void> {
    try {
      await this.client.delete(this.refOf(id), { preconditions: { uid: id.uid }, propagationPolicy: policy });
    } catch (err) {
      // Gone already, or replaced by an object of the same name (uid precondition): nothing to collect.
      if (isApiError(err, 'NotFound')) return;
      if (isApiError(err, 'Conflict')) {
        this.graph.remove(id.uid);
        return;
      }
      throw err;
    }
  }

  /** kube's Warning event OwnerRefInvalidNamespace on the dependent (repeats counted, as client-go's recorder does). */
  private async reportInvalidNamespaceOwnerRef(dependent: GraphNode, ref: OwnerReference): Promise<void> {
    const d = dependent.identity;
    const invalid: ObjectIdentity = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: d.namespace };
    try {
      await this.events.event(d, 'Warning', 'OwnerRefInvalidNamespace', `ownerRef ${identityString(invalid)} does not exist in namespace "${d.namespace}"`);
    } catch (err) {
      this.log(`garbage collector: event for ${identityString(d)}: ${(err as Error).message}`);
    }
  }
}
