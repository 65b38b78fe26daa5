/**
 * resource.k8s.io/v1beta1 <-> its storage version v1 (src/registry/conversions/resource.ts).
 * The first cases are kube's pkg/apis/resource/v1beta1/conversion_test.go
 * (1.36), written as JSON; the rest pin kube's hand-written conversion
 * where a JSON value meets Go's notion of "set"; the last round-trips the
 * upstream fixtures (../shared/k8s-api/testdata) through the other version.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { builtinCatalog } from '../../src/api/catalog.js';
import type { ResourceInfo } from '../../src/api/types.js';
import { goJsonText } from '../../src/codec/go-json.js';
import { toServedVersion, toStorageVersion } from '../../src/registry/convert.js';
import '../../src/registry/conversions/index.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { FIXTURE_DIR, sharedOrSkip } from '../helpers/shared.js';
import { deepFreeze } from '../helpers/deep-freeze.js';

function resource(version: string, name: string): ResourceInfo {
  const r = builtinCatalog()
    .groups.find((g) => g.name === 'resource.k8s.io')
    ?.versions.find((v) => v.version === version)
    ?.resources.find((x) => x.name === name);
  assert.ok(r, `resource.k8s.io/${version}/${name} not in the catalog`);
  return r;
}

const claimsV1beta1 = resource('v1beta1', 'resourceclaims');
const templatesV1beta1 = resource('v1beta1', 'resourceclaimtemplates');
const slicesV1beta1 = resource('v1beta1', 'resourceslices');
const claimsV1beta2 = resource('v1beta2', 'resourceclaims');

const CEL = { cel: { expression: 'device.attributes["driver-a"].exists' } };
const META = { name: 'claim', namespace: 'default' };

function claim(apiVersion: string, requests: unknown[], extra: Record<string, unknown> = {}): KubeObject {
  return deepFreeze({ apiVersion, kind: 'ResourceClaim', metadata: META, spec: { devices: { requests } }, ...extra });
}

describe('resource.k8s.io/v1beta1 ResourceClaim (kube conversion_test.go)', () => {
  const flatBeta = claim('resource.k8s.io/v1beta1', [
    { name: 'foo', deviceClassName: 'class-a', selectors: [CEL], allocationMode: 'ExactCount', count: 2, capacity: { requests: { cap: '1' } } },
  ]);
  const exactV1 = claim('resource.k8s.io/v1', [
    { name: 'foo', exactly: { deviceClassName: 'class-a', selectors: [CEL], allocationMode: 'ExactCount', count: 2, capacity: { requests: { cap: '1' } } } },
  ]);
  const subRequests = [
    { name: 'sub-1', deviceClassName: 'class-a', selectors: [CEL], allocationMode: 'ExactCount', count: 2 },
    { name: 'sub-2', deviceClassName: 'class-a', selectors: [CEL], allocationMode: 'ExactCount', count: 1 },
  ];

  it('v1beta1 to v1 without alternatives: the request fields move under exactly', () => {
    assert.deepEqual(toStorageVersion(flatBeta, claimsV1beta1), exactV1);
  });

  it('v1 to v1beta1 without alternatives: exactly is flattened onto the request', () => {
    assert.deepEqual(toServedVersion(exactV1, claimsV1beta1), flatBeta);
  });

  it('v1beta1 to v1 and back with alternatives: firstAvailable is the same in both', () => {
    const beta = claim('resource.k8s.io/v1beta1', [{ name: 'foo', firstAvailable: subRequests }]);
    const v1 = claim('resource.k8s.io/v1', [{ name: 'foo', firstAvailable: subRequests }]);
    assert.deepEqual(toStorageVersion(beta, claimsV1beta1), v1);
    assert.deepEqual(toServedVersion(v1, claimsV1beta1), beta);
  });
});

describe('resource.k8s.io/v1beta1 ResourceClaim: what counts as set (hasAnyMainRequestFieldsSet)', () => {
  const stored = (request: Record<string, unknown>): unknown => {
    const out = toStorageVersion(claim('resource.k8s.io/v1beta1', [request]), claimsV1beta1);
    return (out.spec as { devices: { requests: unknown[] } }).devices.requests[0];
  };

  it('moves tolerations, adminAccess and capacity with the rest', () => {
    const tolerations = [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }];
    assert.deepEqual(stored({ name: 'r', deviceClassName: 'c', adminAccess: true, tolerations, capacity: { requests: { mem: '1Gi' } } }), {
      name: 'r',
      exactly: { deviceClassName: 'c', adminAccess: true, tolerations, capacity: { requests: { mem: '1Gi' } } },
    });
  });

  it('creates exactly for a non-nil empty slice or a false pointer, as Go does', () => {
    assert.deepEqual(stored({ name: 'r', selectors: [] }), { name: 'r', exactly: { selectors: [] } });
    assert.deepEqual(stored({ name: 'r', tolerations: [] }), { name: 'r', exactly: { tolerations: [] } });
    assert.deepEqual(stored({ name: 'r', adminAccess: false }), { name: 'r', exactly: { adminAccess: false } });
  });

  it('keeps a zero field beside a set one, and creates no exactly from zero values and nulls alone', () => {
    assert.deepEqual(stored({ name: 'r', deviceClassName: 'c', count: 0 }), { name: 'r', exactly: { deviceClassName: 'c', count: 0 } });
    assert.deepEqual(stored({ name: 'r', deviceClassName: '', allocationMode: '', count: 0, selectors: null, adminAccess: null, capacity: null }), { name: 'r' });
  });

  it('keeps both exactly and firstAvailable when a request has both (validation rejects it, not the conversion)', () => {
    const sub = [{ name: 's', deviceClassName: 'c' }];
    assert.deepEqual(stored({ name: 'r', deviceClassName: 'c', firstAvailable: sub }), { name: 'r', firstAvailable: sub, exactly: { deviceClassName: 'c' } });
  });

  it('serves a v1 request without exactly as the bare request', () => {
    const served = toServedVersion(claim('resource.k8s.io/v1', [{ name: 'r', exactly: null }, { name: 's' }]), claimsV1beta1);
    assert.deepEqual((served.spec as { devices: { requests: unknown[] } }).devices.requests, [{ name: 'r' }, { name: 's' }]);
  });

  it('passes the status (allocation results, devices) and the other spec fields through unchanged', () => {
    const status = {
      allocation: {
        devices: {
          results: [{ request: 'foo', driver: 'd', pool: 'p', device: 'dev', adminAccess: true, tolerations: [{ key: 'k', operator: 'Equal', value: 'v' }], consumedCapacity: { mem: '1Gi' } }],
          config: [{ source: 'FromClaim', requests: ['foo'], opaque: { driver: 'd', parameters: { a: 1 } } }],
        },
        nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n'] }] }] },
      },
      reservedFor: [{ resource: 'pods', name: 'p', uid: 'u' }],
      devices: [{ driver: 'd', pool: 'p', device: 'dev', conditions: [], networkData: { interfaceName: 'eth0', ips: ['10.0.0.1/24'] } }],
    };
    const constraints = [{ requests: ['foo'], matchAttribute: 'dra.example.com/numa' }];
    const beta = deepFreeze({ ...claim('resource.k8s.io/v1beta1', [{ name: 'foo', deviceClassName: 'c' }]), status });
    const withConstraints = deepFreeze({ ...beta, spec: { devices: { requests: [{ name: 'foo', deviceClassName: 'c' }], constraints } } });
    const stored = toStorageVersion(withConstraints, claimsV1beta1);
    assert.deepEqual(stored.status, status);
    assert.deepEqual((stored.spec as { devices: { constraints: unknown } }).devices.constraints, constraints);
    assert.deepEqual(toServedVersion(stored, claimsV1beta1), withConstraints);
  });

  it('leaves v1beta2, whose schema is v1\'s, to the apiVersion rewrite', () => {
    const v1 = claim('resource.k8s.io/v1', [{ name: 'foo', exactly: { deviceClassName: 'c' } }]);
    assert.deepEqual(toServedVersion(v1, claimsV1beta2), { ...v1, apiVersion: 'resource.k8s.io/v1beta2' });
  });
});

describe('resource.k8s.io/v1beta1 ResourceClaimTemplate', () => {
  it('converts the requests of the template\'s claim spec (spec.spec)', () => {
    const template = (apiVersion: string, request: unknown): KubeObject =>
      deepFreeze({ apiVersion, kind: 'ResourceClaimTemplate', metadata: META, spec: { metadata: { labels: { a: 'b' } }, spec: { devices: { requests: [request] } } } });
    const beta = template('resource.k8s.io/v1beta1', { name: 'gpu', deviceClassName: 'gpu.example.com', count: 1, allocationMode: 'ExactCount' });
    const v1 = template('resource.k8s.io/v1', { name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1 } });
    assert.deepEqual(toStorageVersion(beta, templatesV1beta1), v1);
    assert.deepEqual(toServedVersion(v1, templatesV1beta1), beta);
  });
});

describe('resource.k8s.io/v1beta1 ResourceSlice', () => {
  const slice = (apiVersion: string, spec: Record<string, unknown>): KubeObject => deepFreeze({ apiVersion, kind: 'ResourceSlice', metadata: { name: 'test-slice' }, spec });
  const pool = { name: 'test-pool', resourceSliceCount: 1 };

  it('kube conversion_test.go: basic\'s fields (node allocatable resource mappings too) move onto the device, and back', () => {
    const basic = { attributes: { cpu_per_instance: { int: 2 } }, nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '1' } } };
    const beta = slice('resource.k8s.io/v1beta1', { nodeName: 'test-node', driver: 'test-driver', pool, devices: [{ name: 'test-device', basic }] });
    const v1 = slice('resource.k8s.io/v1', { nodeName: 'test-node', driver: 'test-driver', pool, devices: [{ name: 'test-device', ...basic }] });
    assert.deepEqual(toStorageVersion(beta, slicesV1beta1), v1);
    assert.deepEqual(toServedVersion(v1, slicesV1beta1), beta);
  });

  it('moves every BasicDevice field', () => {
    const basic = {
      attributes: { model: { string: 'a100' }, ids: { ints: [1, 2] } },
      capacity: { mem: { value: '40Gi', requestPolicy: { default: '1Gi', validRange: { min: '1Gi', step: '1Gi' } } } },
      consumesCounters: [{ counterSet: 'gpu-0', counters: { mem: { value: '10Gi' } } }],
      nodeName: 'n1',
      nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Exists' }] }] },
      allNodes: true,
      taints: [{ key: 'k', value: 'v', effect: 'NoExecute', timeAdded: '2025-01-01T00:00:00Z' }],
      bindsToNode: true,
      bindingConditions: ['ready'],
      bindingFailureConditions: ['failed'],
      allowMultipleAllocations: true,
      nodeAllocatableResourceMappings: { memory: { capacityKey: 'mem', allocationMultiplier: '2' } },
    };
    const beta = slice('resource.k8s.io/v1beta1', { driver: 'd', pool, perDeviceNodeSelection: true, devices: [{ name: 'dev', basic }] });
    const stored = toStorageVersion(beta, slicesV1beta1);
    assert.deepEqual(stored.spec, { driver: 'd', pool, perDeviceNodeSelection: true, devices: [{ name: 'dev', ...basic }] });
    assert.deepEqual(toServedVersion(stored, slicesV1beta1), beta);
  });

  it('writes basic for every v1 device, empty or not, and a v1beta1 device without basic is just its name', () => {
    const served = toServedVersion(slice('resource.k8s.io/v1', { driver: 'd', pool, allNodes: true, devices: [{ name: 'a' }] }), slicesV1beta1);
    assert.deepEqual((served.spec as { devices: unknown }).devices, [{ name: 'a', basic: {} }]);
    const stored = toStorageVersion(slice('resource.k8s.io/v1beta1', { driver: 'd', pool, allNodes: true, devices: [{ name: 'a' }, { name: 'b', basic: null }] }), slicesV1beta1);
    assert.deepEqual((stored.spec as { devices: unknown }).devices, [{ name: 'a' }, { name: 'b' }]);
  });

  it('stores v1beta1\'s zero nodeName and allNodes as unset v1 pointers', () => {
    const stored = toStorageVersion(slice('resource.k8s.io/v1beta1', { driver: 'd', pool, nodeName: '', allNodes: false, nodeSelector: { nodeSelectorTerms: [] } }), slicesV1beta1);
    assert.deepEqual(stored.spec, { driver: 'd', pool, nodeSelector: { nodeSelectorTerms: [] } });
    const served = toServedVersion(slice('resource.k8s.io/v1', { driver: 'd', pool, nodeName: '', allNodes: false }), slicesV1beta1);
    assert.deepEqual(served.spec, { driver: 'd', pool });
  });

  it('does not mutate its input', () => {
    const beta = slice('resource.k8s.io/v1beta1', { driver: 'd', pool, allNodes: true, devices: [{ name: 'a', basic: { attributes: { x: { bool: true } } } }] });
    const stored = deepFreeze(toStorageVersion(beta, slicesV1beta1));
    assert.doesNotThrow(() => toServedVersion(stored, slicesV1beta1));
  });
});

describe('upstream fixtures through the other version', () => {
  for (const [kind, info] of [
    ['ResourceClaim', claimsV1beta1],
    ['ResourceClaimTemplate', templatesV1beta1],
    ['ResourceSlice', slicesV1beta1],
  ] as const) {
    it(`${kind}: a fully populated v1beta1 object reads back identically after storage, and a v1 one after v1beta1`, (t) => {
      if (!sharedOrSkip(t, FIXTURE_DIR)) return;
      const read = (version: string): KubeObject => JSON.parse(readFileSync(join(FIXTURE_DIR, `resource.k8s.io.${version}.${kind}.json`), 'utf8')) as KubeObject;
      const beta = deepFreeze(read('v1beta1'));
      const stored = toStorageVersion(beta, info);
      // Compared as Go writes each version: field order, omitempty.
      assert.equal(goJsonText(toServedVersion(stored, info)), goJsonText(beta));
      const v1 = deepFreeze(read('v1'));
      const served = toServedVersion(v1, info);
      assert.equal(goJsonText(toStorageVersion(served, info)), goJsonText(v1));
      // The data really changed shape on the way (the checks above would also pass for no conversion at all).
      const storedText = goJsonText(stored) ?? '';
      const servedText = goJsonText(served) ?? '';
      if (kind === 'ResourceSlice') {
        assert.ok(!storedText.includes('"basic"') && servedText.includes('"basic"'));
      } else {
        assert.ok(storedText.includes('"exactly"') && !servedText.includes('"exactly"'));
      }
    });
  }
});
