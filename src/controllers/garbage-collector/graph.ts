import type { KubeObject, OwnerReference } from '../../machinery/object.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../../registry/gc-finalizers.js';

/**
 * The garbage collector's dependency graph (kube's GraphBuilder): one node
 * per object uid seen in any monitored resource, plus "virtual" nodes for
 * owners referenced but not (yet) seen. Changes come in as informer events;
 * the graph tells its owner which nodes to look at (attemptToDelete) and
 * which owners want their dependents orphaned (attemptToOrphan).
 */

/** An object's coordinates: what an ownerReference names, plus the namespace. */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** '' for cluster-scoped objects (and for virtual owners of cluster-scoped dependents). */
  namespace: string;
}

export class GraphNode {
  readonly dependents = new Set<GraphNode>();
  owners: OwnerReference[] = [];
  /** Seen through an informer (false: only referenced by a dependent). */
  observed = false;
  beingDeleted = false;
  /** deletionTimestamp and the foregroundDeletion finalizer: waiting for blocking dependents. */
  deletingDependents = false;
  /** Last seen deletion state, to tell when a deletion with a GC finalizer starts. */
  waitingForOrphaning = false;

  constructor(public identity: ObjectIdentity) {}

  get virtual(): boolean {
    return !this.observed;
  }

  /** Dependents whose reference to this node has blockOwnerDeletion. */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((d) => d.owners.some((r) => r.uid === this.identity.uid && r.blockOwnerDeletion === true));
  }
}

export interface GraphEvents {
  attemptToDelete(node: GraphNode): void;
  attemptToOrphan(node: GraphNode): void;
  /** A namespaced dependent names an owner observed in another namespace (kube's OwnerRefInvalidNamespace event). */
  invalidNamespaceOwnerRef(dependent: GraphNode, ref: OwnerReference): void;
}

export function identityString(id: ObjectIdentity): string {
  return `[${id.apiVersion}/${id.kind}, namespace: ${id.namespace}, name: ${id.name}, uid: ${id.uid}]`;
}

function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

function refMatches(ref: OwnerReference, id: ObjectIdentity): boolean {
  return ref.uid === id.uid && ref.apiVersion === id.apiVersion && ref.kind === id.kind && ref.name === id.name;
}

function sameRef(a: OwnerReference, b: OwnerReference): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.controller === b.controller && a.blockOwnerDeletion === b.blockOwnerDeletion;
}

export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();

  constructor(private readonly events: GraphEvents) {}

  node(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  get size(): number {
    return this.nodes.size;
  }

  /** An object added or changed, as `apiVersion`/`kind` of its monitor. */
  upsert(apiVersion: string, kind: string, obj: KubeObject): void {
    const m = obj.metadata ?? {};
    const uid = m.uid;
    if (!uid) return;
    const identity: ObjectIdentity = { apiVersion, kind, name: m.name ?? '', uid, namespace: m.namespace ?? '' };
    let node = this.nodes.get(uid);
    if (node && !node.observed) {
      // A virtual node turns real: dependents that named it differently are checked again.
      for (const dep of node.dependents) {
        const refs = dep.owners.filter((r) => r.uid === uid);
        const wrongNamespace = identity.namespace !== '' && dep.identity.namespace !== identity.namespace;
        if (wrongNamespace) for (const r of refs) this.events.invalidNamespaceOwnerRef(dep, r);
        if (wrongNamespace || refs.some((r) => !refMatches(r, identity))) this.events.attemptToDelete(dep);
      }
      node.identity = identity;
      node.observed = true;
    }
    const owners = m.ownerReferences ?? [];
    if (!node) {
      node = new GraphNode(identity);
      node.observed = true;
      node.owners = owners;
      this.nodes.set(uid, node);
      this.addToOwners(node, owners);
    } else {
      node.identity = identity;
      const { added, removed, changed, unblocked } = this.diff(node.owners, owners);
      if (added.length || removed.length || changed) {
        // Owners waiting for this dependent may go on now.
        for (const r of [...removed.filter((x) => x.blockOwnerDeletion === true), ...unblocked]) {
          const owner = this.nodes.get(r.uid);
          if (owner) this.events.attemptToDelete(owner);
        }
        node.owners = owners;
        this.addToOwners(node, added);
        for (const r of removed) this.nodes.get(r.uid)?.dependents.delete(node);
      }
    }
    const deleting = !!m.deletionTimestamp;
    if (deleting) node.beingDeleted = true;
    // processTransitions: a deletion that starts waiting on the GC.
    const orphaning = deleting && hasFinalizer(obj, ORPHAN_FINALIZER);
    const startsOrphaning = orphaning && !node.waitingForOrphaning;
    node.waitingForOrphaning = orphaning;
    if (startsOrphaning) {
      this.events.attemptToOrphan(node);
      return;
    }
    const foreground = deleting && hasFinalizer(obj, FOREGROUND_FINALIZER);
    if (foreground && !node.deletingDependents) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.events.attemptToDelete(dep);
      this.events.attemptToDelete(node);
    } else if (!foreground) node.deletingDependents = false;
  }

  /** An object gone (observed), or a virtual owner confirmed absent. */
  remove(uid: string): void {
    const node = this.nodes.get(uid);
    if (!node) return;
    this.nodes.delete(uid);
    for (const r of node.owners) this.nodes.get(r.uid)?.dependents.delete(node);
    for (const dep of node.dependents) this.events.attemptToDelete(dep);
    for (const r of node.owners) {
      const owner = this.nodes.get(r.uid);
      if (owner?.deletingDependents) this.events.attemptToDelete(owner);
    }
  }

  private addToOwners(node: GraphNode, refs: readonly OwnerReference[]): void {
    let recheck = false;
    for (const ref of refs) {
      let owner = this.nodes.get(ref.uid);
      if (!owner) {
        owner = new GraphNode({ apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: node.identity.namespace });
        this.nodes.set(ref.uid, owner);
        owner.dependents.add(node);
        // Whether a virtual owner exists is asked of the API.
        this.events.attemptToDelete(owner);
        continue;
      }
      owner.dependents.add(node);
      const ownerNamespaced = owner.identity.namespace !== '';
      if (ownerNamespaced && owner.identity.namespace !== node.identity.namespace) {
        if (owner.observed) this.events.invalidNamespaceOwnerRef(node, ref);
        recheck = true;
      } else if (!refMatches(ref, owner.identity)) recheck = true;
      else if (!ownerNamespaced && owner.identity.namespace !== node.identity.namespace && !owner.observed) recheck = true;
    }
    if (recheck) this.events.attemptToDelete(node);
  }

  private diff(old: readonly OwnerReference[], next: readonly OwnerReference[]): { added: OwnerReference[]; removed: OwnerReference[]; changed: boolean; unblocked: OwnerReference[] } {
    const before = new Map(old.map((r) => [r.uid, r]));
    const added: OwnerReference[] = [];
    const unblocked: OwnerReference[] = [];
    let changed = false;
    for (const r of next) {
      const prev = before.get(r.uid);
      if (!prev) added.push(r);
      else {
        if (!sameRef(prev, r)) {
          changed = true;
          if (prev.blockOwnerDeletion === true && r.blockOwnerDeletion !== true) unblocked.push(r);
        }
        before.delete(r.uid);
      }
    }
    return { added, removed: [...before.values()], changed, unblocked };
  }
}
