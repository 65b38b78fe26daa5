import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FeatureGates } from '../../src/machinery/feature-gates.js';
import { applyDefaults } from '../../src/registry/defaults/index.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { ResourceStore } from '../../src/registry/resource-store.js';
import { fieldExtractorFor } from '../../src/registry/field-selectors.js';
import { strategyFor } from '../../src/registry/strategies.js';
import { KeyLayout } from '../../src/storage/keys.js';
import { MemoryStore } from '../../src/storage/memory.js';

/**
 * resource.k8s.io defaults as kube-apiserver 1.36 applies them per version
 * (pkg/apis/resource/<version>/defaults.go, the `+default` tags of the API
 * types, and the cases of each version's defaults_test.go), and what the
 * DeviceTaintRule and ResourcePoolStatusRequest strategies do on create and
 * update (pkg/registry/resource/<kind>/strategy.go).
 */

const GROUP = 'resource.k8s.io';

function defaulted(version: string, kind: string, obj: KubeObject): any {
  const copy = structuredClone(obj);
  applyDefaults(GROUP, version, kind, copy);
  return copy;
}

/** A timestamp kube's SetDefaults_DeviceTaint would have written just now: RFC 3339 in UTC, whole seconds. */
function assertJustNow(value: unknown): void {
  assert.equal(typeof value, 'string');
  assert.match(value as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // kube's own tests allow a minute of processing delay.
  assert.ok(Math.abs(Date.now() - Date.parse(value as string)) < 60_000, `${String(value)} is not now`);
}

const claim = (requests: unknown[], status?: unknown): KubeObject => ({ spec: { devices: { requests } }, ...(status ? { status } : {}) });

describe('resource.k8s.io v1 and v1beta2 (requests under exactly)', () => {
  for (const version of ['v1', 'v1beta2']) {
    it(`${version}: an exact request gets allocationMode ExactCount and count 1; set values stay`, () => {
      assert.deepEqual(defaulted(version, 'ResourceClaim', claim([{ name: 'r', exactly: {} }])).spec.devices.requests, [
        { name: 'r', exactly: { allocationMode: 'ExactCount', count: 1 } },
      ]);
      const kept = claim([{ name: 'r', exactly: { deviceClassName: 'c', allocationMode: 'ExactCount', count: 10 } }]);
      assert.deepEqual(defaulted(version, 'ResourceClaim', kept), kept);
    });

    it(`${version}: allocationMode All gets no count; a zero count of ExactCount is defaulted`, () => {
      const got = defaulted(version, 'ResourceClaim', claim([{ name: 'a', exactly: { allocationMode: 'All' } }, { name: 'b', exactly: { count: 0 } }, { name: 'c', exactly: { allocationMode: null, count: null } }]));
      assert.deepEqual(got.spec.devices.requests, [
        { name: 'a', exactly: { allocationMode: 'All' } },
        { name: 'b', exactly: { count: 1, allocationMode: 'ExactCount' } },
        { name: 'c', exactly: { allocationMode: 'ExactCount', count: 1 } },
      ]);
    });

    it(`${version}: subrequests are defaulted and no exactly is created`, () => {
      const got = defaulted(version, 'ResourceClaim', claim([{ name: 'req-1', firstAvailable: [{ name: 'subReq-1' }, { name: 'subReq-2' }] }]));
      assert.deepEqual(got.spec.devices.requests, [
        { name: 'req-1', firstAvailable: [{ name: 'subReq-1', allocationMode: 'ExactCount', count: 1 }, { name: 'subReq-2', allocationMode: 'ExactCount', count: 1 }] },
      ]);
      const kept = claim([{ name: 'req-1', firstAvailable: [{ name: 'subReq-1', allocationMode: 'ExactCount', count: 10 }] }]);
      assert.deepEqual(defaulted(version, 'ResourceClaim', kept), kept);
    });

    it(`${version}: tolerations get operator Equal in requests, subrequests and allocation results`, () => {
      const got = defaulted(
        version,
        'ResourceClaim',
        claim(
          [
            { name: 'a', exactly: { deviceClassName: 'c', tolerations: [{ key: 'k', value: 'v' }, { key: 'x', operator: 'Exists' }, { key: 'e', operator: '' }] } },
            { name: 'b', firstAvailable: [{ name: 's', deviceClassName: 'c', tolerations: [{ key: 'k' }] }] },
          ],
          { allocation: { devices: { results: [{ request: 'a', driver: 'd', pool: 'p', device: 'x', tolerations: [{ key: 'k' }] }] } } },
        ),
      );
      assert.deepEqual(got.spec.devices.requests[0].exactly.tolerations, [
        { key: 'k', value: 'v', operator: 'Equal' },
        { key: 'x', operator: 'Exists' },
        { key: 'e', operator: 'Equal' },
      ]);
      assert.deepEqual(got.spec.devices.requests[1].firstAvailable[0].tolerations, [{ key: 'k', operator: 'Equal' }]);
      assert.deepEqual(got.status.allocation.devices.results[0].tolerations, [{ key: 'k', operator: 'Equal' }]);
    });

    it(`${version}: a ResourceClaimTemplate's claim spec gets the same defaults`, () => {
      const got = defaulted(version, 'ResourceClaimTemplate', { spec: { spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c', tolerations: [{ key: 'k' }] } }] } } } });
      assert.deepEqual(got.spec.spec.devices.requests, [{ name: 'r', exactly: { deviceClassName: 'c', tolerations: [{ key: 'k', operator: 'Equal' }], allocationMode: 'ExactCount', count: 1 } }]);
    });

    it(`${version}: a device taint without timeAdded is stamped now; allocationMultiplier defaults to 1`, () => {
      const fixed = '2006-01-02T15:04:05Z';
      const got = defaulted(version, 'ResourceSlice', {
        spec: {
          driver: 'd',
          devices: [
            {
              name: 'd0',
              taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'NoExecute', timeAdded: fixed }],
              nodeAllocatableResourceMappings: { cpu: {}, memory: { allocationMultiplier: '2Gi' }, 'hugepages-2Mi': null },
            },
          ],
        },
      });
      const device = got.spec.devices[0];
      assertJustNow(device.taints[0].timeAdded);
      assert.equal(device.taints[1].timeAdded, fixed);
      assert.deepEqual(device.nodeAllocatableResourceMappings, { cpu: { allocationMultiplier: '1' }, memory: { allocationMultiplier: '2Gi' }, 'hugepages-2Mi': { allocationMultiplier: '1' } });
    });
  }

  it('objects without requests, devices or status are left alone; DeviceClass has no defaults', () => {
    for (const [kind, obj] of [
      ['ResourceClaim', { spec: { devices: {} } }],
      ['ResourceClaim', { spec: {} }],
      ['ResourceClaimTemplate', { spec: {} }],
      ['ResourceSlice', { spec: { driver: 'd', devices: [{ name: 'x' }] } }],
      ['DeviceClass', { spec: { selectors: [{ cel: { expression: 'true' } }] } }],
    ] as const) {
      assert.deepEqual(defaulted('v1', kind, obj), obj, kind);
    }
  });
});

describe('resource.k8s.io v1beta1 (defaulted in its own shape, before the conversion to v1)', () => {
  it('a request with a deviceClassName gets allocationMode ExactCount and count 1; set values stay', () => {
    assert.deepEqual(defaulted('v1beta1', 'ResourceClaim', claim([{ deviceClassName: 'device-class' }])).spec.devices.requests, [
      { deviceClassName: 'device-class', allocationMode: 'ExactCount', count: 1 },
    ]);
    const kept = claim([{ allocationMode: 'ExactCount', count: 10 }]);
    assert.deepEqual(defaulted('v1beta1', 'ResourceClaim', kept), kept);
  });

  it('a request without deviceClassName holds subrequests: only they are defaulted', () => {
    const got = defaulted('v1beta1', 'ResourceClaim', claim([{ name: 'req-1', firstAvailable: [{ name: 'subReq-1' }, { name: 'subReq-2' }] }]));
    assert.deepEqual(got.spec.devices.requests, [
      { name: 'req-1', firstAvailable: [{ name: 'subReq-1', allocationMode: 'ExactCount', count: 1 }, { name: 'subReq-2', allocationMode: 'ExactCount', count: 1 }] },
    ]);
    assert.deepEqual(defaulted('v1beta1', 'ResourceClaim', claim([{ name: 'r', deviceClassName: '' }])).spec.devices.requests, [{ name: 'r', deviceClassName: '' }]);
  });

  it('tolerations get operator Equal; templates are defaulted too', () => {
    const got = defaulted('v1beta1', 'ResourceClaimTemplate', {
      spec: { spec: { devices: { requests: [{ name: 'r', deviceClassName: 'c', tolerations: [{ key: 'k' }] }, { name: 's', firstAvailable: [{ name: 'x', deviceClassName: 'c', tolerations: [{ key: 'k' }] }] }] } } },
    });
    assert.deepEqual(got.spec.spec.devices.requests, [
      { name: 'r', deviceClassName: 'c', tolerations: [{ key: 'k', operator: 'Equal' }], allocationMode: 'ExactCount', count: 1 },
      { name: 's', firstAvailable: [{ name: 'x', deviceClassName: 'c', tolerations: [{ key: 'k', operator: 'Equal' }], allocationMode: 'ExactCount', count: 1 }] },
    ]);
    const status = defaulted('v1beta1', 'ResourceClaim', claim([], { allocation: { devices: { results: [{ tolerations: [{ key: 'k' }] }] } } })).status;
    assert.deepEqual(status.allocation.devices.results[0].tolerations, [{ key: 'k', operator: 'Equal' }]);
  });

  it('a basic device\'s taints and node allocatable resource mappings are defaulted', () => {
    const got = defaulted('v1beta1', 'ResourceSlice', { spec: { devices: [{ name: 'd0', basic: { taints: [{ key: 'a', effect: 'NoSchedule' }], nodeAllocatableResourceMappings: { cpu: {} } } }, { name: 'd1' }] } });
    assertJustNow(got.spec.devices[0].basic.taints[0].timeAdded);
    assert.deepEqual(got.spec.devices[0].basic.nodeAllocatableResourceMappings, { cpu: { allocationMultiplier: '1' } });
    assert.deepEqual(got.spec.devices[1], { name: 'd1' });
  });
});

describe('resource.k8s.io alpha kinds', () => {
  for (const version of ['v1alpha3', 'v1beta2']) {
    it(`${version} DeviceTaintRule: the taint is stamped now, even when the request has none; a set time stays`, () => {
      assertJustNow(defaulted(version, 'DeviceTaintRule', { spec: { taint: { key: 'k', effect: 'NoExecute' } } }).spec.taint.timeAdded);
      assertJustNow(defaulted(version, 'DeviceTaintRule', {}).spec.taint.timeAdded);
      const fixed = { spec: { taint: { key: 'k', effect: 'NoExecute', timeAdded: '2006-01-02T15:04:05Z' } } };
      assert.deepEqual(defaulted(version, 'DeviceTaintRule', fixed), fixed);
    });
  }

  it('v1alpha3 ResourcePoolStatusRequest: limit defaults to 100; a set limit stays', () => {
    assert.deepEqual(defaulted('v1alpha3', 'ResourcePoolStatusRequest', { spec: { driver: 'd' } }).spec, { driver: 'd', limit: 100 });
    assert.deepEqual(defaulted('v1alpha3', 'ResourcePoolStatusRequest', { spec: { driver: 'd', limit: 5 } }).spec, { driver: 'd', limit: 5 });
    assert.deepEqual(defaulted('v1alpha3', 'ResourcePoolStatusRequest', { spec: { driver: 'd', limit: null } }).spec, { driver: 'd', limit: 100 });
  });
});

describe('resource.k8s.io strategies kube has and the generic store lacked', () => {
  const keys = new KeyLayout();
  function open(resource: string, kind: string, gates?: FeatureGates): ResourceStore {
    const store = new MemoryStore();
    const fields = fieldExtractorFor(GROUP, resource, false).extract;
    return new ResourceStore({ group: GROUP, resource, kind, namespaced: false, prefix: keys.resourcePrefix(GROUP, resource), fields }, strategyFor(GROUP, resource, kind, gates), store);
  }
  const update = (rs: ResourceStore, name: string, fn: (o: any) => void, subresource: '' | 'status' = '') =>
    rs.update(undefined, { name, subresource }, (cur) => {
      const next = structuredClone(cur!);
      fn(next);
      return next;
    });

  const rule = (effect: string, timeAdded: string): KubeObject => ({
    apiVersion: `${GROUP}/v1alpha3`,
    kind: 'DeviceTaintRule',
    metadata: { name: 'maintenance' },
    spec: { deviceSelector: { driver: 'gpu.example.com' }, taint: { key: 'maintenance', effect, timeAdded } },
    status: { conditions: [{ type: 'EvictionInProgress', status: 'True', reason: 'X', message: '', lastTransitionTime: timeAdded }] },
  });

  it('DeviceTaintRule: create drops status and sets generation 1; spec changes bump it; status goes through /status only', async () => {
    const rs = open('devicetaintrules', 'DeviceTaintRule');
    const created = await rs.create(rule('NoSchedule', '2006-01-02T15:04:05Z'), undefined);
    assert.deepEqual(created.status, {});
    assert.equal(created.metadata!.generation, 1);
    const relabelled = await update(rs, 'maintenance', (o) => {
      o.metadata.labels = { a: 'b' };
      o.status = { conditions: [] };
    });
    assert.equal(relabelled.object.metadata!.generation, 1);
    assert.deepEqual(relabelled.object.status, {});
    const retargeted = await update(rs, 'maintenance', (o) => (o.spec.deviceSelector.pool = 'p'));
    assert.equal(retargeted.object.metadata!.generation, 2);
  });

  it('DeviceTaintRule: a new effect with the old timeAdded restarts the time; a new effect with a new time keeps it', async () => {
    const rs = open('devicetaintrules', 'DeviceTaintRule');
    await rs.create(rule('NoSchedule', '2006-01-02T15:04:05Z'), undefined);
    const sameEffect = await update(rs, 'maintenance', (o) => (o.spec.taint.value = 'v'));
    assert.equal((sameEffect.object.spec as any).taint.timeAdded, '2006-01-02T15:04:05Z');
    // The same instant written in another zone is still "unchanged", as metav1.Time.Equal says.
    const evicting = await update(rs, 'maintenance', (o) => {
      o.spec.taint.effect = 'NoExecute';
      o.spec.taint.timeAdded = '2006-01-02T16:04:05+01:00';
    });
    assertJustNow((evicting.object.spec as any).taint.timeAdded);
    const chosen = await update(rs, 'maintenance', (o) => {
      o.spec.taint.effect = 'None';
      o.spec.taint.timeAdded = '2020-01-01T00:00:00Z';
    });
    assert.equal((chosen.object.spec as any).taint.timeAdded, '2020-01-01T00:00:00Z');
  });

  it('ResourcePoolStatusRequest: status is nil on create and kept by main-resource updates; no generation', async () => {
    const rs = open('resourcepoolstatusrequests', 'ResourcePoolStatusRequest');
    const created = await rs.create({ apiVersion: `${GROUP}/v1alpha3`, kind: 'ResourcePoolStatusRequest', metadata: { name: 'gpus' }, spec: { driver: 'gpu.example.com', limit: 100 }, status: { poolCount: 3 } }, undefined);
    assert.equal('status' in created, false);
    assert.equal(created.metadata!.generation, undefined);
    const filled = await update(rs, 'gpus', (o) => (o.status = { poolCount: 1 }), 'status');
    assert.deepEqual(filled.object.status, { poolCount: 1 });
    const relabelled = await update(rs, 'gpus', (o) => {
      o.metadata.labels = { a: 'b' };
      o.status = { poolCount: 9 };
    });
    assert.deepEqual(relabelled.object.status, { poolCount: 1 });
  });

  const slice = (device: Record<string, unknown>): KubeObject => ({
    apiVersion: `${GROUP}/v1`,
    kind: 'ResourceSlice',
    metadata: { name: 'node-1-cpus' },
    spec: { driver: 'cpu.example.com', nodeName: 'node-1', pool: { name: 'node-1', generation: 1, resourceSliceCount: 1 }, devices: [{ name: 'cpu-0', ...device }] },
  });
  const ALPHA_FIELDS = {
    attributes: { numa: { int: 0 }, siblings: { ints: [1, 2] }, model: { string: 'x' } },
    nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '2' } },
  };

  it('ResourceSlice: the alpha DRA device fields are dropped on create while their gates are off (1.36 default)', async () => {
    const rs = open('resourceslices', 'ResourceSlice');
    const { nodeAllocatableResourceMappings, attributes } = ALPHA_FIELDS;
    const created = await rs.create(slice({ nodeAllocatableResourceMappings, attributes: { numa: attributes.numa } }), undefined);
    assert.deepEqual((created.spec as any).devices, [{ name: 'cpu-0', attributes: { numa: { int: 0 } } }]);
    assert.equal(created.metadata!.generation, 1);
    // A list attribute loses its only value, and kube's validation then refuses the empty attribute.
    await assert.rejects(rs.create({ ...slice(ALPHA_FIELDS), metadata: { name: 'lists' } }, undefined),
      (e: Error) => e.message.endsWith('spec.devices[0].attributes[siblings]: Invalid value: "": exactly one value must be specified'));
  });

  it('ResourceSlice: with DRANodeAllocatableResources and DRAListTypeAttributes on they are kept', async () => {
    const gates = FeatureGates.parse(['DRANodeAllocatableResources=true,DRAListTypeAttributes=true']);
    const created = await open('resourceslices', 'ResourceSlice', gates).create(slice(ALPHA_FIELDS), undefined);
    assert.deepEqual((created.spec as any).devices, [{ name: 'cpu-0', ...ALPHA_FIELDS }]);
  });

  it('ResourceSlice: an update keeps the fields a stored slice already uses and drops newly added ones', async () => {
    const store = new MemoryStore();
    const fields = fieldExtractorFor(GROUP, 'resourceslices', false).extract;
    const stored = (gates?: FeatureGates) =>
      new ResourceStore({ group: GROUP, resource: 'resourceslices', kind: 'ResourceSlice', namespaced: false, prefix: keys.resourcePrefix(GROUP, 'resourceslices'), fields }, strategyFor(GROUP, 'resourceslices', 'ResourceSlice', gates), store);
    // Written while the gates were on, read back by a server with the 1.36 defaults.
    await stored(FeatureGates.parse(['DRANodeAllocatableResources=true'])).create(slice({ nodeAllocatableResourceMappings: { cpu: {} } }), undefined);
    const rs = stored();
    const kept = await update(rs, 'node-1-cpus', (o) => {
      o.spec.devices[0].nodeAllocatableResourceMappings.memory = { allocationMultiplier: '1Gi' };
    });
    const device = (kept.object.spec as any).devices[0];
    assert.deepEqual(device.nodeAllocatableResourceMappings, { cpu: {}, memory: { allocationMultiplier: '1Gi' } });
    // A newly added list attribute is dropped, leaving an attribute kube's validation refuses.
    await assert.rejects(update(rs, 'node-1-cpus', (o) => (o.spec.devices[0].attributes = { siblings: { ints: [1] } })),
      (e: Error) => e.message.endsWith('attributes[siblings]: Invalid value: "": exactly one value must be specified'));
  });
});
