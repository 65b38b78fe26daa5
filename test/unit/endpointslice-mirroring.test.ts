import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { mirrorPlan, repackSubsets, shouldMirror } from '../../src/controllers/endpointslice-mirroring/mirror-plan.js';
import { SliceTracker } from '../../src/controllers/endpointslice-mirroring/slice-tracker.js';
import type { KubeObject } from '../../src/machinery/object.js';

/** endpointslice-mirroring-controller's plan: kube's reconciler over RepackSubsets' canonical subsets. */

function endpoints(subsets: unknown[], meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'svc', namespace: 'ns', uid: 'ep-uid', ...meta }, subsets };
}

const PORT = { name: 'http', port: 80, protocol: 'TCP' };

/** A stored mirrored slice, as the plan created it. */
function stored(slice: KubeObject, name: string, rv = '10'): KubeObject {
  const { generateName: _g, ...meta } = slice.metadata!;
  return { ...slice, metadata: { ...meta, name, resourceVersion: rv } };
}

describe('RepackSubsets', () => {
  it('merges subsets with the same addresses, splits by ports, not ready wins, dedups by IP and uid', () => {
    const out = repackSubsets([
      { addresses: [{ ip: '10.0.0.2' }, { ip: '10.0.0.1' }], ports: [PORT] },
      { addresses: [{ ip: '10.0.0.1' }], notReadyAddresses: [{ ip: '10.0.0.2' }], ports: [PORT] },
      { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
    ]);
    assert.deepEqual(out, [
      { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.1' }], notReadyAddresses: [{ ip: '10.0.0.2' }], ports: [PORT] },
    ]);
    // Same addresses for both ports: one subset with both.
    assert.deepEqual(repackSubsets([{ addresses: [{ ip: '10.0.0.1' }], ports: [PORT] }, { addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'b', port: 81, protocol: 'TCP' }] }]).map((s) => s.ports?.length), [2]);
    // A subset without ports keeps its addresses.
    assert.deepEqual(repackSubsets([{ addresses: [{ ip: '10.0.0.9' }] }]), [{ addresses: [{ ip: '10.0.0.9' }] }]);
  });
});

describe('mirror plan', () => {
  it('creates one slice per port set and address family, owned by the Endpoints, with its labels and most annotations', () => {
    const ep = endpoints(
      [{ addresses: [{ ip: '10.0.0.1', hostname: 'a', nodeName: 'n1', targetRef: { kind: 'Pod', name: 'p', namespace: 'ns', uid: 'p1' } }, { ip: 'fd00::1' }], notReadyAddresses: [{ ip: '10.0.0.2' }], ports: [PORT] }],
      // over-capacity is the endpoints controller's mark; on an Endpoints written by hand it is an annotation like any other.
      { labels: { app: 'web' }, annotations: { note: 'x', 'endpoints.kubernetes.io/over-capacity': 'truncated', 'endpoints.kubernetes.io/last-change-trigger-time': 't', 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
    );
    const plan = mirrorPlan(ep, []);
    assert.equal(plan.update.length + plan.delete.length, 0);
    assert.deepEqual(
      plan.create.map((s) => s.addressType),
      ['IPv4', 'IPv6'],
    );
    const v4 = plan.create[0]!;
    assert.deepEqual(v4.metadata, {
      namespace: 'ns',
      generateName: 'svc-',
      labels: { app: 'web', 'kubernetes.io/service-name': 'svc', 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' },
      annotations: { note: 'x', 'endpoints.kubernetes.io/over-capacity': 'truncated' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Endpoints', name: 'svc', uid: 'ep-uid', controller: true, blockOwnerDeletion: true }],
    });
    assert.deepEqual(v4.ports, [{ name: 'http', port: 80, protocol: 'TCP' }]);
    assert.deepEqual(v4.endpoints, [
      { addresses: ['10.0.0.1'], conditions: { ready: true }, hostname: 'a', targetRef: { kind: 'Pod', name: 'p', namespace: 'ns', uid: 'p1' }, nodeName: 'n1' },
      { addresses: ['10.0.0.2'], conditions: { ready: false } },
    ]);
    assert.deepEqual(plan.create[1]!.endpoints, [{ addresses: ['fd00::1'], conditions: { ready: true } }]);
  });

  it('changes nothing when the slice already mirrors the Endpoints; rewrites it when addresses, readiness, labels or annotations change', () => {
    const ep = endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [PORT] }], { labels: { app: 'web' } });
    const slice = stored(mirrorPlan(ep, []).create[0]!, 'svc-abcde');
    assert.deepEqual(mirrorPlan(ep, [slice]), { create: [], update: [], delete: [], invalidAddresses: 0, skippedAddresses: 0 });
    for (const changed of [
      endpoints([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.3' }], ports: [PORT] }], { labels: { app: 'web' } }),
      endpoints([{ notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [PORT] }], { labels: { app: 'web' } }),
      endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [PORT] }], { labels: { app: 'api' } }),
      endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [PORT] }], { labels: { app: 'web' }, annotations: { a: 'b' } }),
    ]) {
      const plan = mirrorPlan(changed, [slice]);
      assert.deepEqual([plan.create.length, plan.update.length, plan.delete.length], [0, 1, 0]);
      assert.equal(plan.update[0]!.metadata?.name, 'svc-abcde');
      assert.equal(plan.update[0]!.metadata?.resourceVersion, undefined, 'written whole, as kube does');
    }
  });

  it('a new port set reuses the slice of the old one (recycleSlices); no addresses left deletes; duplicates go', () => {
    const ep = endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [PORT] }]);
    const slice = stored(mirrorPlan(ep, []).create[0]!, 'svc-aaaaa');
    const moved = mirrorPlan(endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ ...PORT, port: 8080 }] }]), [slice]);
    assert.deepEqual([moved.create.length, moved.update.length, moved.delete.length], [0, 1, 0]);
    assert.equal(moved.update[0]!.metadata?.name, 'svc-aaaaa');
    assert.deepEqual(moved.update[0]!.ports, [{ ...PORT, port: 8080 }]);
    assert.deepEqual(mirrorPlan(endpoints([]), [slice]).delete.map((s) => s.metadata?.name), ['svc-aaaaa']);
    const twin = stored(slice, 'svc-bbbbb');
    assert.deepEqual(mirrorPlan(ep, [twin, slice]).delete.map((s) => s.metadata?.name), ['svc-bbbbb']);
  });

  it('mirrors at most the limit per subset (ready first) and counts invalid and skipped addresses', () => {
    const many = Array.from({ length: 1005 }, (_, i) => ({ ip: `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}` }));
    const plan = mirrorPlan(endpoints([{ addresses: [...many.slice(0, 1003), { ip: 'not-an-ip' }], notReadyAddresses: many.slice(1003), ports: [PORT] }]), []);
    assert.equal(plan.create.length, 1);
    const mirrored = plan.create[0]!.endpoints as Array<{ conditions: { ready: boolean } }>;
    assert.equal(mirrored.length, 1000);
    assert.ok(mirrored.every((e) => e.conditions.ready));
    assert.equal(plan.skippedAddresses, 6);
    assert.equal(plan.invalidAddresses, 0, 'the invalid address came after the limit was reached');
    const few = mirrorPlan(endpoints([{ addresses: [{ ip: '10.0.0.1' }, { ip: 'bogus' }], ports: [PORT] }]), [], 1000);
    assert.deepEqual([few.invalidAddresses, few.skippedAddresses], [1, 1]);
  });

  it('skips Endpoints labelled skip-mirror and leader-election locks', () => {
    assert.equal(shouldMirror(endpoints([])), true);
    assert.equal(shouldMirror(endpoints([], { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } })), false);
    assert.equal(shouldMirror(endpoints([], { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'false' } })), true);
    assert.equal(shouldMirror(endpoints([], { annotations: { 'control-plane.alpha.kubernetes.io/leader': '{}' } })), false);
  });
});

describe('slice tracker', () => {
  const slice = (name: string, rv: string): KubeObject => ({ metadata: { name, resourceVersion: rv } });

  it('a view missing our write, or still holding what we deleted, is stale; the echo of our write needs no sync', () => {
    const t = new SliceTracker();
    t.wrote('ns/svc', slice('a', '5'));
    assert.equal(t.stale('ns/svc', []), true);
    assert.equal(t.stale('ns/svc', [slice('a', '4')]), true);
    assert.equal(t.shouldSync('ns/svc', slice('a', '5'), false), false, 'our own write');
    assert.equal(t.stale('ns/svc', [slice('a', '5')]), false);
    t.wrote('ns/svc', slice('a', '7'));
    assert.equal(t.shouldSync('ns/svc', slice('a', '9'), false), true, 'someone else wrote after us');
    t.deleted('ns/svc', slice('b', '3'));
    assert.equal(t.stale('ns/svc', [slice('b', '3')]), true);
    assert.equal(t.shouldSync('ns/svc', slice('b', '3'), true), false, 'the deletion we made');
    assert.equal(t.shouldSync('ns/svc', slice('c', '3'), true), true, 'a deletion we did not make');
  });
});
