import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { DependencyGraph, type GraphNode } from '../../src/controllers/garbage-collector/graph.js';
import type { KubeObject, OwnerReference } from '../../src/machinery/object.js';

/** The garbage collector's dependency graph: what each change makes it look at. */

function recorder(): { graph: DependencyGraph; deletes: string[]; orphans: string[]; invalid: Array<[string, string]>; reset: () => void } {
  const r = {
    deletes: [] as string[],
    orphans: [] as string[],
    invalid: [] as Array<[string, string]>,
    graph: undefined as unknown as DependencyGraph,
    reset() {
      r.deletes.length = 0;
      r.orphans.length = 0;
      r.invalid.length = 0;
    },
  };
  r.graph = new DependencyGraph({
    attemptToDelete: (n: GraphNode) => r.deletes.push(n.identity.uid),
    attemptToOrphan: (n: GraphNode) => r.orphans.push(n.identity.uid),
    invalidNamespaceOwnerRef: (n: GraphNode, ref: OwnerReference) => r.invalid.push([n.identity.uid, ref.uid]),
  });
  return r;
}

function cm(name: string, uid: string, opts: { ns?: string; owners?: OwnerReference[]; finalizers?: string[]; deleting?: boolean } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      uid,
      namespace: opts.ns ?? 'default',
      ...(opts.owners ? { ownerReferences: opts.owners } : {}),
      ...(opts.finalizers ? { finalizers: opts.finalizers } : {}),
      ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
  };
}

const ref = (name: string, uid: string, block = false): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid, ...(block ? { blockOwnerDeletion: true } : {}) });

describe('dependency graph', () => {
  it('an owner not seen yet becomes a virtual node looked up through the API; seeing it makes it real', () => {
    const r = recorder();
    r.graph.upsert('v1', 'ConfigMap', cm('dep', 'd1', { owners: [ref('owner', 'o1')] }));
    assert.deepEqual(r.deletes, ['o1']);
    const owner = r.graph.node('o1')!;
    assert.equal(owner.virtual, true);
    assert.deepEqual([...owner.dependents].map((d) => d.identity.uid), ['d1']);
    r.reset();
    r.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1'));
    assert.equal(r.graph.node('o1')!.virtual, false);
    assert.deepEqual(r.deletes, [], 'a matching reference needs no second look');
  });

  it('removing an owner makes its dependents be looked at; removing a dependent wakes an owner deleting in the foreground', () => {
    const r = recorder();
    r.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1'));
    r.graph.upsert('v1', 'ConfigMap', cm('a', 'd1', { owners: [ref('owner', 'o1', true)] }));
    r.graph.upsert('v1', 'ConfigMap', cm('b', 'd2', { owners: [ref('owner', 'o1')] }));
    assert.deepEqual(r.graph.node('o1')!.blockingDependents().map((n) => n.identity.uid), ['d1']);
    r.reset();
    r.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1', { deleting: true, finalizers: ['foregroundDeletion'] }));
    assert.deepEqual(r.deletes.sort(), ['d1', 'd2', 'o1'], 'a foreground deletion looks at every dependent and the owner');
    assert.equal(r.graph.node('o1')!.deletingDependents, true);
    r.reset();
    r.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1', { deleting: true, finalizers: ['foregroundDeletion'] }));
    assert.deepEqual(r.deletes, [], 'only the start of a foreground deletion triggers');
    r.graph.remove('d1');
    assert.deepEqual(r.deletes, ['o1']);
    assert.deepEqual(r.graph.node('o1')!.blockingDependents(), []);
    r.reset();
    r.graph.remove('o1');
    assert.deepEqual(r.deletes, ['d2']);
    assert.equal(r.graph.node('o1'), undefined);
  });

  it('an orphan deletion is handed to attemptToOrphan once', () => {
    const r = recorder();
    r.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1'));
    r.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1', { deleting: true, finalizers: ['orphan'] }));
    r.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1', { deleting: true, finalizers: ['orphan'] }));
    assert.deepEqual(r.orphans, ['o1']);
    assert.deepEqual(r.deletes, []);
  });

  it('a graph built from a state in the middle of deletions resumes them (restart, new leader)', () => {
    const r = recorder();
    r.graph.upsert('v1', 'ConfigMap', cm('dep', 'd1', { owners: [ref('owner', 'o1', true)] }));
    r.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1', { deleting: true, finalizers: ['foregroundDeletion'] }));
    r.graph.upsert('v1', 'ConfigMap', cm('other', 'o2', { deleting: true, finalizers: ['orphan'] }));
    assert.ok(r.deletes.includes('d1') && r.deletes.includes('o1'));
    assert.deepEqual(r.orphans, ['o2']);
  });

  it('dropping or unblocking a blocking reference wakes the owner', () => {
    const r = recorder();
    r.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1'));
    r.graph.upsert('v1', 'ConfigMap', cm('a', 'd1', { owners: [ref('owner', 'o1', true)] }));
    r.reset();
    r.graph.upsert('v1', 'ConfigMap', cm('a', 'd1', { owners: [ref('owner', 'o1')] }));
    assert.deepEqual(r.deletes, ['o1']);
    r.graph.upsert('v1', 'ConfigMap', cm('a', 'd1', { owners: [ref('owner', 'o1', true)] }));
    r.reset();
    r.graph.upsert('v1', 'ConfigMap', cm('a', 'd1'));
    assert.deepEqual(r.deletes, ['o1']);
    assert.equal(r.graph.node('o1')!.dependents.size, 0);
  });

  it('a namespaced owner observed in another namespace is reported and its dependent looked at', () => {
    const r = recorder();
    r.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1', { ns: 'a' }));
    r.graph.upsert('v1', 'ConfigMap', cm('dep', 'd1', { ns: 'b', owners: [ref('owner', 'o1')] }));
    assert.deepEqual(r.invalid, [['d1', 'o1']]);
    assert.deepEqual(r.deletes, ['d1']);
    // The dependent seen first: reported when the owner shows up.
    const s = recorder();
    s.graph.upsert('v1', 'ConfigMap', cm('dep', 'd1', { ns: 'b', owners: [ref('owner', 'o1')] }));
    s.reset();
    s.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1', { ns: 'a' }));
    assert.deepEqual(s.invalid, [['d1', 'o1']]);
    assert.deepEqual(s.deletes, ['d1']);
  });

  it('a reference whose coordinates differ from the observed owner gets the dependent a second look', () => {
    const r = recorder();
    r.graph.upsert('v1', 'ConfigMap', cm('owner', 'o1'));
    r.graph.upsert('v1', 'ConfigMap', cm('dep', 'd1', { owners: [{ apiVersion: 'v1', kind: 'Secret', name: 'owner', uid: 'o1' }] }));
    assert.deepEqual(r.deletes, ['d1']);
    assert.deepEqual(r.invalid, []);
  });
});
