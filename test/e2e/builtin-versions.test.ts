import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';
import { openWatch } from '../helpers/watch.js';

/**
 * Built-in versions whose schema differs from the storage version, with the
 * version enabled as a user would (--runtime-config): resource.k8s.io/v1beta1
 * objects written with kubectl and HTTP read back identically in v1beta1 and
 * in v1's shape, and writes through either version show in the other —
 * including watches, lists, merge patches and server-side apply.
 */

const BETA = '/apis/resource.k8s.io/v1beta1';
const V1 = '/apis/resource.k8s.io/v1';

const CEL = { cel: { expression: 'device.driver == "gpu.example.com"' } };
const TOLERATION = { key: 'maintenance', operator: 'Exists', effect: 'NoSchedule' };

/** What a v1beta1 client sends and reads back. */
const BETA_REQUESTS = [
  { name: 'gpu', deviceClassName: 'gpu.example.com', selectors: [CEL], allocationMode: 'ExactCount', count: 2, tolerations: [TOLERATION] },
  { name: 'alt', firstAvailable: [{ name: 'big', deviceClassName: 'big.example.com', allocationMode: 'ExactCount', count: 1 }] },
];
/** The same requests as v1 holds them. */
const V1_REQUESTS = [
  { name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', selectors: [CEL], allocationMode: 'ExactCount', count: 2, tolerations: [TOLERATION] } },
  BETA_REQUESTS[1],
];

const CLAIM_YAML = `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: gpu-claim
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      selectors:
      - cel:
          expression: device.driver == "gpu.example.com"
      allocationMode: ExactCount
      count: 2
      tolerations:
      - key: maintenance
        operator: Exists
        effect: NoSchedule
    - name: alt
      firstAvailable:
      - name: big
        deviceClassName: big.example.com
        allocationMode: ExactCount
        count: 1
`;

/** Subrequests, the same in both versions: defaulted to ExactCount and 1 unless they say All. */
const ALT_REQUEST = { name: 'alt', firstAvailable: [{ name: 'big', deviceClassName: 'big.example.com' }, { name: 'all', deviceClassName: 'small.example.com', allocationMode: 'All' }] };
const DEFAULTED_ALT_REQUEST = {
  name: 'alt',
  firstAvailable: [
    { name: 'big', deviceClassName: 'big.example.com', allocationMode: 'ExactCount', count: 1 },
    { name: 'all', deviceClassName: 'small.example.com', allocationMode: 'All' },
  ],
};

const DEFAULTS_BETA_YAML = `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: defaults-beta
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      tolerations:
      - key: maintenance
        effect: NoSchedule
    - name: alt
      firstAvailable:
      - name: big
        deviceClassName: big.example.com
      - name: all
        deviceClassName: small.example.com
        allocationMode: All
`;

const SLICE_YAML = (count: string): string => `apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata:
  name: node-1-gpus
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool:
    name: node-1
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: gpu-0
    basic:
      attributes:
        model:
          string: a100
      capacity:
        memory:
          value: ${count}
`;

describe('built-in API versions converted to and from storage (resource.k8s.io/v1beta1)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ args: ['--runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1alpha3=true', '--feature-gates=DRANodeAllocatableResources=true'] });
  });
  after(async () => {
    await server?.stop();
    removeDir(server?.dataDir);
  });

  const requestsOf = (obj: any): unknown => obj.spec.devices.requests;

  it('serves v1beta1 next to v1 when enabled with --runtime-config', async () => {
    const r = await http(server, 'GET', BETA);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.resources.map((x: { name: string }) => x.name).filter((n: string) => !n.includes('/')).sort(), [
      'deviceclasses',
      'resourceclaims',
      'resourceclaimtemplates',
      'resourceslices',
    ]);
  });

  it('a ResourceClaim created in v1beta1 with kubectl reads back in v1beta1 as written and in v1 under exactly', { skip: kubectlMissing() }, async () => {
    const created = await kubectl(server, ['create', '-f', '-'], CLAIM_YAML);
    assert.equal(created.code, 0, created.stderr);
    const beta = await http(server, 'GET', `${BETA}/namespaces/default/resourceclaims/gpu-claim`);
    assert.equal(beta.status, 200, beta.text);
    assert.equal(beta.json.apiVersion, 'resource.k8s.io/v1beta1');
    assert.deepEqual(requestsOf(beta.json), BETA_REQUESTS);
    const v1 = await http(server, 'GET', `${V1}/namespaces/default/resourceclaims/gpu-claim`);
    assert.equal(v1.status, 200, v1.text);
    assert.equal(v1.json.apiVersion, 'resource.k8s.io/v1');
    assert.deepEqual(requestsOf(v1.json), V1_REQUESTS);
    assert.equal(v1.json.metadata.resourceVersion, beta.json.metadata.resourceVersion);
    // kubectl reads it through v1beta1 as well.
    const got = await kubectl(server, ['get', 'resourceclaims.v1beta1.resource.k8s.io', 'gpu-claim', '-n', 'default', '-o', 'json']);
    assert.equal(got.code, 0, got.stderr);
    assert.deepEqual(requestsOf(JSON.parse(got.stdout)), BETA_REQUESTS);
  });

  it('kubectl shows kube\'s 422 for an invalid ResourceClaim and DeviceClass (resource.k8s.io validation)', { skip: kubectlMissing() }, async () => {
    const claim = `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: bad-claim
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: ExactCount
        count: -1
    constraints:
    - requests: [nope]
      matchAttribute: gpu.example.com/numa
`;
    const refusedClaim = await kubectl(server, ['create', '-f', '-'], claim);
    assert.notEqual(refusedClaim.code, 0);
    assert.match(refusedClaim.stderr, /The ResourceClaim "bad-claim" is invalid: \n/);
    assert.ok(refusedClaim.stderr.includes('* spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero'), refusedClaim.stderr);
    assert.ok(refusedClaim.stderr.includes(`* spec.devices.constraints[0].requests[0]: Invalid value: "nope": must be the name of a request in the claim or the name of a request and a subrequest separated by '/'`), refusedClaim.stderr);
    const deviceClass = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: bad-class
spec:
  selectors:
  - cel:
      expression: device.driver
`;
    const refusedClass = await kubectl(server, ['create', '-f', '-'], deviceClass);
    assert.notEqual(refusedClass.code, 0);
    assert.ok(refusedClass.stderr.includes('The DeviceClass "bad-class" is invalid: spec.selectors[0].cel.expression: Invalid value: "device.driver": must evaluate to bool or the unknown type, not string'), refusedClass.stderr);
    const missing = await http(server, 'GET', '/apis/resource.k8s.io/v1/deviceclasses/bad-class');
    assert.equal(missing.status, 404);
  });

  it('a ResourceClaim created in v1 without allocationMode or count reads back with kube\'s defaults', async () => {
    const body = {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: 'defaults-v1' },
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', tolerations: [{ key: 'maintenance', effect: 'NoSchedule' }] } }, ALT_REQUEST] } },
    };
    const created = await http(server, 'POST', `${V1}/namespaces/default/resourceclaims`, { body });
    assert.equal(created.status, 201, created.text);
    const expected = [
      { name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1, tolerations: [{ key: 'maintenance', operator: 'Equal', effect: 'NoSchedule' }] } },
      DEFAULTED_ALT_REQUEST,
    ];
    assert.deepEqual(requestsOf(created.json), expected);
    assert.deepEqual(created.json.status, {});
    const got = await http(server, 'GET', `${V1}/namespaces/default/resourceclaims/defaults-v1`);
    assert.deepEqual(requestsOf(got.json), expected);
  });

  it('a ResourceClaim created in v1beta1 with kubectl without allocationMode or count is defaulted in v1beta1, then stored in v1\'s shape', { skip: kubectlMissing() }, async () => {
    const created = await kubectl(server, ['create', '-f', '-'], DEFAULTS_BETA_YAML);
    assert.equal(created.code, 0, created.stderr);
    const got = await kubectl(server, ['get', 'resourceclaims.v1beta1.resource.k8s.io', 'defaults-beta', '-n', 'default', '-o', 'json']);
    assert.equal(got.code, 0, got.stderr);
    assert.deepEqual(requestsOf(JSON.parse(got.stdout)), [
      { name: 'gpu', deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1, tolerations: [{ key: 'maintenance', operator: 'Equal', effect: 'NoSchedule' }] },
      DEFAULTED_ALT_REQUEST,
    ]);
    const v1 = await http(server, 'GET', `${V1}/namespaces/default/resourceclaims/defaults-beta`);
    assert.equal(v1.status, 200, v1.text);
    assert.deepEqual(requestsOf(v1.json), [
      { name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1, tolerations: [{ key: 'maintenance', operator: 'Equal', effect: 'NoSchedule' }] } },
      DEFAULTED_ALT_REQUEST,
    ]);
  });

  it('a v1alpha3 DeviceTaintRule is stamped with timeAdded and generation 1, and a new effect restarts timeAdded', async () => {
    const ALPHA = '/apis/resource.k8s.io/v1alpha3';
    const body = {
      apiVersion: 'resource.k8s.io/v1alpha3',
      kind: 'DeviceTaintRule',
      metadata: { name: 'maintenance' },
      spec: { deviceSelector: { driver: 'gpu.example.com' }, taint: { key: 'maintenance', effect: 'NoSchedule' } },
      status: { conditions: [{ type: 'EvictionInProgress', status: 'True', reason: 'Forged', message: '', lastTransitionTime: '2006-01-02T15:04:05Z' }] },
    };
    const created = await http(server, 'POST', `${ALPHA}/devicetaintrules`, { body });
    assert.equal(created.status, 201, created.text);
    assert.match(created.json.spec.taint.timeAdded, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(created.json.metadata.generation, 1);
    assert.deepEqual(created.json.status, {});
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const dated = await http(server, 'PATCH', `${ALPHA}/devicetaintrules/maintenance`, { body: { spec: { taint: { timeAdded: '2006-01-02T15:04:05Z' } } }, headers: merge });
    assert.equal(dated.status, 200, dated.text);
    assert.equal(dated.json.spec.taint.timeAdded, '2006-01-02T15:04:05Z');
    const evicting = await http(server, 'PATCH', `${ALPHA}/devicetaintrules/maintenance`, { body: { spec: { taint: { effect: 'NoExecute' } } }, headers: merge });
    assert.equal(evicting.status, 200, evicting.text);
    assert.notEqual(evicting.json.spec.taint.timeAdded, '2006-01-02T15:04:05Z');
    assert.equal(evicting.json.metadata.generation, 3);

    const pools = await http(server, 'POST', `${ALPHA}/resourcepoolstatusrequests`, {
      body: { apiVersion: 'resource.k8s.io/v1alpha3', kind: 'ResourcePoolStatusRequest', metadata: { name: 'gpus' }, spec: { driver: 'gpu.example.com' }, status: { poolCount: 7 } },
    });
    assert.equal(pools.status, 201, pools.text);
    assert.deepEqual(pools.json.spec, { driver: 'gpu.example.com', limit: 100 });
    assert.equal(pools.json.status, undefined);
  });

  it('an update through v1 is watched in v1beta1 and listed in both versions', async () => {
    const current = await http(server, 'GET', `${V1}/namespaces/default/resourceclaims/gpu-claim`);
    assert.equal(current.status, 200, current.text);
    const watch = openWatch(server, `${BETA}/namespaces/default/resourceclaims?watch=true&resourceVersion=${current.json.metadata.resourceVersion}`);
    try {
      assert.equal(await watch.status, 200);
      const updated = structuredClone(current.json);
      // The spec is immutable (kube's ValidateResourceClaimUpdate): labels are what an update can change.
      updated.metadata.labels = { tier: 'gpu' };
      const put = await http(server, 'PUT', `${V1}/namespaces/default/resourceclaims/gpu-claim`, { body: updated });
      assert.equal(put.status, 200, put.text);
      await watch.waitFor((events) => events.some((e) => e.type === 'MODIFIED'));
      const event = watch.events.find((e) => e.type === 'MODIFIED')!;
      assert.equal(event.object.apiVersion, 'resource.k8s.io/v1beta1');
      assert.deepEqual(event.object.metadata.labels, { tier: 'gpu' });
      assert.equal(event.object.spec.devices.requests[0].count, 2);
      assert.equal(event.object.spec.devices.requests[0].exactly, undefined);
    } finally {
      watch.close();
    }
    const betaList = await http(server, 'GET', `${BETA}/namespaces/default/resourceclaims`);
    assert.equal(betaList.status, 200, betaList.text);
    assert.equal(betaList.json.kind, 'ResourceClaimList');
    assert.equal(betaList.json.apiVersion, 'resource.k8s.io/v1beta1');
    const named = (list: any) => list.items.find((item: any) => item.metadata.name === 'gpu-claim');
    assert.deepEqual(requestsOf(named(betaList.json)), BETA_REQUESTS);
    const v1List = await http(server, 'GET', `${V1}/namespaces/default/resourceclaims`);
    assert.deepEqual(named(v1List.json).metadata.labels, { tier: 'gpu' });
    assert.equal(named(v1List.json).spec.devices.requests[0].exactly.count, 2);
  });

  it('a merge patch through v1beta1 that changes the spec is refused with kube\'s "field is immutable"', async () => {
    const patch = { spec: { devices: { requests: [{ name: 'gpu', deviceClassName: 'other.example.com', count: 4 }] } } };
    const r = await http(server, 'PATCH', `${BETA}/namespaces/default/resourceclaims/gpu-claim`, { body: patch, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.message, 'ResourceClaim.resource.k8s.io "gpu-claim" is invalid: spec: Invalid value: resource.ResourceClaimSpec{...}: field is immutable');
    assert.deepEqual(r.json.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: resource.ResourceClaimSpec{...}: field is immutable', field: 'spec' }]);
  });

  it('validates fields against the requested version\'s schema (strict field validation)', async () => {
    const betaBody = { apiVersion: 'resource.k8s.io/v1beta1', kind: 'ResourceClaim', metadata: { name: 'strict' }, spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c' } }] } } };
    const beta = await http(server, 'POST', `${BETA}/namespaces/default/resourceclaims?fieldValidation=Strict`, { body: betaBody });
    assert.equal(beta.status, 400, beta.text);
    assert.equal(beta.json.message, 'ResourceClaim in version "v1beta1" cannot be handled as a ResourceClaim: strict decoding error: unknown field "spec.devices.requests[0].exactly"');
    const v1Body = { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'strict' }, spec: { devices: { requests: [{ name: 'r', deviceClassName: 'c' }] } } };
    const v1 = await http(server, 'POST', `${V1}/namespaces/default/resourceclaims?fieldValidation=Strict`, { body: v1Body });
    assert.equal(v1.status, 400, v1.text);
    assert.equal(v1.json.message, 'ResourceClaim in version "v1" cannot be handled as a ResourceClaim: strict decoding error: unknown field "spec.devices.requests[0].deviceClassName"');
  });

  it('a ResourceClaimTemplate created over HTTP in v1beta1 is stored in v1\'s shape', async () => {
    const body = {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceClaimTemplate',
      metadata: { name: 'gpu-template' },
      spec: { metadata: { labels: { app: 'inference' } }, spec: { devices: { requests: BETA_REQUESTS } } },
    };
    const created = await http(server, 'POST', `${BETA}/namespaces/default/resourceclaimtemplates`, { body });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.spec, body.spec);
    const v1 = await http(server, 'GET', `${V1}/namespaces/default/resourceclaimtemplates/gpu-template`);
    assert.equal(v1.status, 200, v1.text);
    assert.deepEqual(v1.json.spec, { metadata: { labels: { app: 'inference' } }, spec: { devices: { requests: V1_REQUESTS } } });
  });

  it('a ResourceSlice applied server-side in v1beta1 is flattened in v1, and apply conflicts span both versions', { skip: kubectlMissing() }, async () => {
    const applied = await kubectl(server, ['apply', '--server-side', '--field-manager=driver', '-f', '-'], SLICE_YAML('40Gi'));
    assert.equal(applied.code, 0, applied.stderr);
    const beta = await http(server, 'GET', `${BETA}/resourceslices/node-1-gpus`);
    assert.equal(beta.status, 200, beta.text);
    assert.deepEqual(beta.json.spec.devices, [{ name: 'gpu-0', basic: { attributes: { model: { string: 'a100' } }, capacity: { memory: { value: '40Gi' } } } }]);
    const entry = beta.json.metadata.managedFields.find((e: { manager: string }) => e.manager === 'driver');
    assert.deepEqual({ operation: entry.operation, apiVersion: entry.apiVersion }, { operation: 'Apply', apiVersion: 'resource.k8s.io/v1beta1' });
    const v1 = await http(server, 'GET', `${V1}/resourceslices/node-1-gpus`);
    assert.deepEqual(v1.json.spec, {
      driver: 'gpu.example.com',
      nodeName: 'node-1',
      pool: { name: 'node-1', generation: 1, resourceSliceCount: 1 },
      devices: [{ name: 'gpu-0', attributes: { model: { string: 'a100' } }, capacity: { memory: { value: '40Gi' } } }],
    });

    // Another manager changes the devices through v1 ...
    const updated = structuredClone(v1.json);
    updated.spec.devices[0].capacity.memory.value = '80Gi';
    const put = await http(server, 'PUT', `${V1}/resourceslices/node-1-gpus?fieldManager=admin`, { body: updated });
    assert.equal(put.status, 200, put.text);
    // ... so the driver's next apply in v1beta1 conflicts with that v1 manager, as kube's field manager does.
    const conflict = await kubectl(server, ['apply', '--server-side', '--field-manager=driver', '-f', '-'], SLICE_YAML('48Gi'));
    assert.notEqual(conflict.code, 0);
    assert.ok(conflict.stderr.includes('conflict with "admin" using resource.k8s.io/v1: .spec.devices'), conflict.stderr);
    const forced = await kubectl(server, ['apply', '--server-side', '--force-conflicts', '--field-manager=driver', '-f', '-'], SLICE_YAML('48Gi'));
    assert.equal(forced.code, 0, forced.stderr);
    const after = await eventually(async () => {
      const r = await http(server, 'GET', `${V1}/resourceslices/node-1-gpus`);
      return r.json.spec.devices[0].capacity.memory.value === '48Gi' ? r : undefined;
    });
    assert.deepEqual(
      after.json.metadata.managedFields.map((e: { manager: string; operation: string; apiVersion: string }) => [e.manager, e.operation, e.apiVersion]),
      [['driver', 'Apply', 'resource.k8s.io/v1beta1']],
    );
  });

  it('a v1beta1 ResourceSlice\'s device taints and resource mappings are defaulted before the conversion; a disabled alpha list attribute is dropped and the emptied attribute refused', async () => {
    const body = {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceSlice',
      metadata: { name: 'node-2-cpus' },
      spec: {
        driver: 'cpu.example.com',
        nodeName: 'node-2',
        pool: { name: 'node-2', resourceSliceCount: 1 },
        devices: [
          {
            name: 'cpu-0',
            basic: {
              // DRANodeAllocatableResources is on here.
              attributes: { numa: { int: 0 } },
              nodeAllocatableResourceMappings: { cpu: {} },
              taints: [{ key: 'maintenance', effect: 'NoSchedule' }],
            },
          },
        ],
      },
    };
    const created = await http(server, 'POST', `${BETA}/resourceslices`, { body });
    assert.equal(created.status, 201, created.text);
    const v1 = await http(server, 'GET', `${V1}/resourceslices/node-2-cpus`);
    assert.equal(v1.status, 200, v1.text);
    const device = v1.json.spec.devices[0];
    assert.deepEqual(device.attributes, { numa: { int: 0 } });
    assert.deepEqual(device.nodeAllocatableResourceMappings, { cpu: { allocationMultiplier: '1' } });
    assert.match(device.taints[0].timeAdded, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(created.json.spec.devices[0].basic.taints, device.taints);
    // DRAListTypeAttributes is off (1.36's default): the list value goes, and kube's validation refuses the empty attribute.
    const lists = structuredClone(body);
    lists.metadata.name = 'node-3-cpus';
    (lists.spec.devices[0]!.basic.attributes as Record<string, unknown>).siblings = { ints: [1, 2] };
    const refused = await http(server, 'POST', `${BETA}/resourceslices`, { body: lists });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.json.message, 'ResourceSlice.resource.k8s.io "node-3-cpus" is invalid: spec.devices[0].attributes[siblings]: Invalid value: "": exactly one value must be specified');
  });

  it('stores v1beta1\'s unset nodeName and false allNodes as absent v1 pointers', async () => {
    const body = {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceSlice',
      metadata: { name: 'network' },
      spec: { driver: 'net.example.com', nodeName: '', allNodes: true, pool: { name: 'net', resourceSliceCount: 1 }, devices: [{ name: 'nic-0' }] },
    };
    const created = await http(server, 'POST', `${BETA}/resourceslices`, { body });
    assert.equal(created.status, 201, created.text);
    const v1 = await http(server, 'GET', `${V1}/resourceslices/network`);
    assert.deepEqual(v1.json.spec, { driver: 'net.example.com', pool: { name: 'net', generation: 0, resourceSliceCount: 1 }, allNodes: true, devices: [{ name: 'nic-0' }] });
    const beta = await http(server, 'GET', `${BETA}/resourceslices/network`);
    assert.deepEqual(beta.json.spec.devices, [{ name: 'nic-0', basic: {} }]);
  });
});
