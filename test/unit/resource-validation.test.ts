import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { FieldError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { strategyFor } from '../../src/registry/strategies.js';
import { validateObject, validateObjectUpdate } from '../../src/registry/validation/index.js';

/**
 * resource.k8s.io validation, case by case from kube's
 * pkg/apis/resource/validation/validation.go and its validation_*_test.go
 * (read at a master commit after 1.36: no 1.36 tag in the index). Objects are
 * in the storage (v1) shape.
 */

const G = 'resource.k8s.io';

function errs(kind: string, obj: Record<string, unknown>): FieldError[] {
  return validateObject(G, kind, { apiVersion: `${G}/v1`, kind, metadata: { name: 'x' }, ...obj } as KubeObject);
}

function brief(list: FieldError[]): string[] {
  return list.map((e) => `${e.type} ${e.field}: ${'detail' in e && e.detail ? e.detail : ''}${'value' in e ? ` <${JSON.stringify(e.value)}>` : ''}`);
}

function claim(devices: Record<string, unknown>): Record<string, unknown> {
  return { spec: { devices } };
}

const exact = (extra: Record<string, unknown> = {}) => ({ deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1, ...extra });

describe('DeviceClass', () => {
  it('a class with valid selectors and config is valid', () => {
    assert.deepEqual(errs('DeviceClass', { spec: {
      selectors: [{ cel: { expression: 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "x"' } }],
      config: [{ opaque: { driver: 'gpu.example.com', parameters: { a: 1 } } }],
    } }), []);
  });

  it('a selector without cel is Required; a CEL syntax error is Invalid with cel-go\'s "compilation failed"', () => {
    const e = errs('DeviceClass', { spec: { selectors: [{}, { cel: { expression: 'device.driver ==' } }] } });
    assert.equal(e[0]!.type, 'FieldValueRequired');
    assert.equal(e[0]!.field, 'spec.selectors[0].cel');
    assert.equal(e[1]!.type, 'FieldValueInvalid');
    assert.equal(e[1]!.field, 'spec.selectors[1].cel.expression');
    assert.match((e[1] as { detail: string }).detail, /^compilation failed: ERROR: <input>:1:/);
  });

  it('a selector that is not a bool says kube\'s "must evaluate to bool or the unknown type"', () => {
    const e = errs('DeviceClass', { spec: { selectors: [{ cel: { expression: 'device.driver' } }] } });
    assert.deepEqual(brief(e), ['FieldValueInvalid spec.selectors[0].cel.expression: must evaluate to bool or the unknown type, not string <"device.driver">']);
  });

  it('an unknown field of device fails to compile (device is kubernetes.DRADevice, not dyn)', () => {
    const e = errs('DeviceClass', { spec: { selectors: [{ cel: { expression: 'device.nosuch == "x"' } }] } });
    assert.equal(e.length, 1);
    assert.match((e[0] as { detail: string }).detail, /^compilation failed: /);
  });

  it('cel.bind (ext.Bindings, which only the DRA environment has) and bounded comprehensions compile', () => {
    assert.deepEqual(errs('DeviceClass', { spec: { selectors: [
      { cel: { expression: 'cel.bind(dra, device.attributes["dra.example.com"], dra.a && dra.b)' } },
      { cel: { expression: 'device.attributes["gpu.example.com"].exists(k, k.startsWith("x"))' } },
      { cel: { expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("10Gi")) >= 0' } },
    ] } }), []);
  });

  it('an expression over 10Ki is TooLong and not compiled; 33 selectors are TooMany alone', () => {
    const long = errs('DeviceClass', { spec: { selectors: [{ cel: { expression: `${'a'.repeat(10 * 1024)} ==` } }] } });
    assert.deepEqual(brief(long), ['FieldValueTooLong spec.selectors[0].cel.expression: may not be more than 10240 bytes']);
    const many = errs('DeviceClass', { spec: { selectors: Array.from({ length: 33 }, () => ({})) } });
    assert.deepEqual(brief(many), ['FieldValueTooMany spec.selectors: must have at most 32 items <33>']);
  });

  it('config: opaque required, driver a DNS subdomain, parameters a JSON object', () => {
    const e = errs('DeviceClass', { spec: { config: [{}, { opaque: { driver: 'Bad_Driver', parameters: [1] } }, { opaque: { driver: 'd.example.com' } }] } });
    assert.deepEqual(e.map((x) => `${x.type} ${x.field}`), [
      'FieldValueRequired spec.config[0].opaque',
      'FieldValueInvalid spec.config[1].opaque.driver',
      'FieldValueInvalid spec.config[1].opaque.parameters',
      'FieldValueRequired spec.config[2].opaque.parameters',
    ]);
    assert.equal((e[2] as { detail: string }).detail, 'must be a valid JSON object');
  });

  it('extendedResourceName must be a valid extended resource name', () => {
    const e = errs('DeviceClass', { spec: { extendedResourceName: 'cpu' } });
    assert.deepEqual(brief(e), ['FieldValueInvalid spec.extendedResourceName: must be a valid extended resource name <"cpu">']);
    assert.deepEqual(errs('DeviceClass', { spec: { extendedResourceName: 'example.com/gpu' } }), []);
  });

  it('an update leaves unchanged (stored) selectors uncompiled, and compiles changed ones', () => {
    const bad = { apiVersion: `${G}/v1`, kind: 'DeviceClass', metadata: { name: 'x' }, spec: { selectors: [{ cel: { expression: 'device.driver' } }] } } as KubeObject;
    assert.deepEqual(validateObjectUpdate(G, 'DeviceClass', bad, bad), []);
    const old = { ...bad, spec: { selectors: [] } } as KubeObject;
    assert.equal(validateObjectUpdate(G, 'DeviceClass', bad, old).length, 1);
  });
});

describe('ResourceClaim spec', () => {
  it('a claim with exactly, firstAvailable, constraints and config referencing them is valid', () => {
    assert.deepEqual(errs('ResourceClaim', claim({
      requests: [{ name: 'a', exactly: exact() }, { name: 'b', firstAvailable: [{ name: 'b1', ...exact() }, { name: 'b2', deviceClassName: 'c', allocationMode: 'All' }] }],
      constraints: [{ requests: ['a', 'b/b1'], matchAttribute: 'example.com/numa' }],
      config: [{ requests: ['b'], opaque: { driver: 'x.example.com', parameters: {} } }],
    })), []);
  });

  it('request names are DNS labels and unique; exactly one of exactly/firstAvailable', () => {
    const e = errs('ResourceClaim', claim({ requests: [{ name: 'A_b', exactly: exact() }, { name: 'r' }, { name: 'r', exactly: exact(), firstAvailable: [{ name: 's', ...exact() }] }] }));
    assert.deepEqual(brief(e).map((s) => s.replace(/: .*</, ': <')), [
      'FieldValueInvalid spec.devices.requests[0].name: <"A_b">',
      'FieldValueRequired spec.devices.requests[1]: exactly one of `exactly` or `firstAvailable` is required',
      'FieldValueInvalid spec.devices.requests[2]: <null>',
      'FieldValueDuplicate spec.devices.requests[2]: <"r">',
    ]);
    assert.equal((e[1] as { detail: string }).detail, 'exactly one of `exactly` or `firstAvailable` is required');
    assert.equal((e[2] as { detail: string }).detail, 'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set');
  });

  it('deviceClassName is required; allocationMode All takes no count, ExactCount a positive one, others NotSupported', () => {
    const e = errs('ResourceClaim', claim({ requests: [
      { name: 'a', exactly: { allocationMode: 'All', count: 2, deviceClassName: '' } },
      { name: 'b', exactly: exact({ count: 0 }) },
      { name: 'c', exactly: exact({ allocationMode: 'Some' }) },
    ] }));
    assert.deepEqual(brief(e), [
      'FieldValueRequired spec.devices.requests[0].exactly.deviceClassName: ',
      "FieldValueInvalid spec.devices.requests[0].exactly.count: must not be specified when allocationMode is 'All' <2>",
      'FieldValueInvalid spec.devices.requests[1].exactly.count: must be greater than zero <0>',
      'FieldValueNotSupported spec.devices.requests[2].exactly.allocationMode:  <"Some">',
    ]);
    assert.deepEqual((e[3] as { supported: string[] }).supported, ['All', 'ExactCount']);
  });

  it('33 requests are TooMany and nothing else is checked (bounded work)', () => {
    const requests = Array.from({ length: 33 }, () => ({ name: 'BAD' }));
    assert.deepEqual(brief(errs('ResourceClaim', claim({ requests }))), ['FieldValueTooMany spec.devices.requests: must have at most 32 items <33>']);
  });

  it('firstAvailable: at most 8, unique subrequest names', () => {
    const nine = Array.from({ length: 9 }, (_, i) => ({ name: `s${i}`, ...exact() }));
    assert.deepEqual(brief(errs('ResourceClaim', claim({ requests: [{ name: 'r', firstAvailable: nine }] }))),
      ['FieldValueTooMany spec.devices.requests[0].firstAvailable: must have at most 8 items <9>']);
    assert.deepEqual(brief(errs('ResourceClaim', claim({ requests: [{ name: 'r', firstAvailable: [{ name: 's', ...exact() }, { name: 's', ...exact() }] }] }))),
      ['FieldValueDuplicate spec.devices.requests[0].firstAvailable[1]:  <"s">']);
  });

  it('constraints reference requests, need a fully qualified matchAttribute', () => {
    const e = errs('ResourceClaim', claim({ requests: [{ name: 'a', exactly: exact() }], constraints: [{ requests: ['nope', 'a', 'a'] }, { matchAttribute: 'numa' }] }));
    assert.deepEqual(brief(e), [
      "FieldValueInvalid spec.devices.constraints[0].requests[0]: must be the name of a request in the claim or the name of a request and a subrequest separated by '/' <\"nope\">",
      'FieldValueDuplicate spec.devices.constraints[0].requests[2]:  <"a">',
      'FieldValueRequired spec.devices.constraints[0]: exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set',
      'FieldValueInvalid spec.devices.constraints[1].matchAttribute: a fully qualified name must be a domain and a name separated by a slash <"numa">',
    ]);
  });

  it('tolerations: operator Exists takes no value, unknown effects NotSupported in kube\'s sorted order', () => {
    const e = errs('ResourceClaim', claim({ requests: [{ name: 'a', exactly: exact({ tolerations: [{ operator: 'Exists', value: 'v', effect: 'Evict' }] }) }] }));
    assert.deepEqual(brief(e), [
      'FieldValueInvalid spec.devices.requests[0].exactly.tolerations[0].value: must be empty for operator `Exists` <"v">',
      'FieldValueNotSupported spec.devices.requests[0].exactly.tolerations[0].effect:  <"Evict">',
    ]);
    assert.deepEqual((e[1] as { supported: string[] }).supported, ['NoExecute', 'NoSchedule', 'None']);
  });

  it('the spec is immutable on update: kube\'s "field is immutable" at spec', () => {
    const old = { apiVersion: `${G}/v1`, kind: 'ResourceClaim', metadata: { name: 'x' }, ...claim({ requests: [{ name: 'a', exactly: exact() }] }) } as KubeObject;
    const changed = { ...old, ...claim({ requests: [{ name: 'b', exactly: exact() }] }) } as KubeObject;
    assert.deepEqual(validateObjectUpdate(G, 'ResourceClaim', old, old), []);
    const e = validateObjectUpdate(G, 'ResourceClaim', changed, old);
    assert.deepEqual(e.map((x) => [x.type, x.field, (x as { detail: string }).detail]), [['FieldValueInvalid', 'spec', 'field is immutable']]);
  });

  it('a ResourceClaimTemplate validates spec.spec and is immutable', () => {
    const e = errs('ResourceClaimTemplate', { spec: { metadata: { labels: { 'bad key!': 'v' } }, spec: { devices: { requests: [{ name: 'a' }] } } } });
    assert.deepEqual(e.map((x) => x.field), ['spec.metadata.labels', 'spec.spec.devices.requests[0]']);
  });
});

describe('ResourceClaim status', () => {
  const strategy = strategyFor(G, 'resourceclaims', 'ResourceClaim');
  const base = { apiVersion: `${G}/v1`, kind: 'ResourceClaim', metadata: { name: 'x' }, ...claim({ requests: [{ name: 'a', exactly: exact() }] }) };
  const result = { request: 'a', driver: 'd.example.com', pool: 'p', device: 'dev-0' };

  it('reservedFor without allocation is Forbidden; entries need resource, name, uid', () => {
    const obj = { ...base, status: { reservedFor: [{ resource: 'pods', name: 'p' }] } } as KubeObject;
    assert.deepEqual(brief(strategy.validateStatusUpdate!(obj, base as KubeObject)), [
      'FieldValueRequired status.reservedFor[0].uid: ',
      'FieldValueForbidden status.reservedFor: may not be specified when `allocated` is not set',
    ]);
  });

  it('reservedFor holds at most 256 (ResourceClaimReservedForMaxSize)', () => {
    const reservedFor = Array.from({ length: 257 }, (_, i) => ({ resource: 'pods', name: `p${i}`, uid: `u${i}` }));
    const obj = { ...base, status: { allocation: { devices: { results: [result] } }, reservedFor } } as KubeObject;
    assert.deepEqual(brief(strategy.validateStatusUpdate!(obj, base as KubeObject)), ['FieldValueTooMany status.reservedFor: must have at most 256 items <257>']);
  });

  it('a new allocation is validated: results reference requests; a set allocation is immutable', () => {
    const bad = { ...base, status: { allocation: { devices: { results: [{ ...result, request: 'zz' }] } } } } as KubeObject;
    assert.deepEqual(strategy.validateStatusUpdate!(bad, base as KubeObject).map((e) => e.field), ['status.allocation.devices.results[0].request']);
    const allocated = { ...base, status: { allocation: { devices: { results: [result] } } } } as KubeObject;
    assert.deepEqual(strategy.validateStatusUpdate!(allocated, base as KubeObject), []);
    const changed = { ...base, status: { allocation: { devices: { results: [{ ...result, device: 'dev-1' }] } } } } as KubeObject;
    assert.deepEqual(strategy.validateStatusUpdate!(changed, allocated).map((e) => [e.field, (e as { detail: string }).detail]), [['status.allocation', 'field is immutable']]);
  });

  it('device status must name an allocated device', () => {
    const obj = { ...base, status: { allocation: { devices: { results: [result] } }, devices: [{ driver: 'd.example.com', pool: 'p', device: 'other' }] } } as KubeObject;
    assert.deepEqual(brief(strategy.validateStatusUpdate!(obj, base as KubeObject)), ['FieldValueInvalid status.devices[0]: must be an allocated device in the claim <"d.example.com/p/other">']);
  });
});

describe('ResourceSlice', () => {
  const spec = (extra: Record<string, unknown>) => ({ spec: { driver: 'd.example.com', pool: { name: 'p', generation: 1, resourceSliceCount: 1 }, ...extra } });

  it('a node-local slice with devices is valid', () => {
    assert.deepEqual(errs('ResourceSlice', spec({ nodeName: 'node-1', devices: [{ name: 'gpu-0', attributes: { model: { string: 'a' }, 'example.com/v': { version: '1.2.3' } }, capacity: { mem: { value: '1Gi' } } }] })), []);
  });

  it('exactly one of nodeName/nodeSelector/allNodes/perDeviceNodeSelection', () => {
    assert.deepEqual(brief(errs('ResourceSlice', spec({}))), ['FieldValueRequired spec: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required']);
    assert.deepEqual(brief(errs('ResourceSlice', spec({ nodeName: 'n', allNodes: true }))),
      ['FieldValueInvalid spec: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set <"{`nodeName`, `allNodes`}">']);
  });

  it('pool: name required, resourceSliceCount > 0, generation >= 0', () => {
    const e = errs('ResourceSlice', { spec: { driver: 'd.example.com', allNodes: true, pool: { name: '', generation: -1, resourceSliceCount: 0 } } });
    assert.deepEqual(brief(e), [
      'FieldValueRequired spec.pool.name: ',
      'FieldValueInvalid spec.pool.resourceSliceCount: must be greater than zero <0>',
      'FieldValueInvalid spec.pool.generation: must be greater than or equal to zero <-1>',
    ]);
  });

  it('devices: at most 128, unique names; attribute keys are C identifiers with an optional domain; one value each', () => {
    const many = Array.from({ length: 129 }, (_, i) => ({ name: `d${i}` }));
    assert.deepEqual(brief(errs('ResourceSlice', spec({ allNodes: true, devices: many }))), ['FieldValueTooMany spec.devices: must have at most 128 items <129>']);
    const e = errs('ResourceSlice', spec({ allNodes: true, devices: [{ name: 'a', attributes: { '1bad': { int: 1 }, ok: {}, v: { version: 'x' } } }, { name: 'a' }] }));
    assert.deepEqual(e.map((x) => `${x.type} ${x.field}`), [
      'FieldValueInvalid spec.devices[0].attributes',
      'FieldValueInvalid spec.devices[0].attributes[ok]',
      'FieldValueInvalid spec.devices[0].attributes[v].version',
      'FieldValueDuplicate spec.devices[1]',
    ]);
  });

  it('nodeSelector: exactly one term; requirements as core\'s ValidateNodeSelector (label values, metadata.name fields)', () => {
    const selector = { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a b'] }], matchFields: [{ key: 'spec.x', operator: 'In', values: ['n'] }] }, {}] };
    const e = errs('ResourceSlice', spec({ nodeSelector: selector }));
    assert.deepEqual(e.map((x) => `${x.type} ${x.field}`), [
      'FieldValueInvalid spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]',
      'FieldValueInvalid spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key',
      'FieldValueInvalid spec.nodeSelector.nodeSelectorTerms',
    ]);
    assert.equal((e[1] as { detail: string }).detail, 'not a valid field selector key');
    assert.equal((e[2] as { detail: string }).detail, 'must have exactly one node selector term');
  });

  it('driver, pool name and nodeName are immutable', () => {
    const old = { apiVersion: `${G}/v1`, kind: 'ResourceSlice', metadata: { name: 'x' }, ...spec({ nodeName: 'n1' }) } as KubeObject;
    const changed = { ...old, ...spec({ nodeName: 'n2' }) } as KubeObject;
    assert.deepEqual(validateObjectUpdate(G, 'ResourceSlice', changed, old).map((e) => [e.field, (e as { detail: string }).detail]), [['spec.nodeName', 'field is immutable']]);
  });

  it('device taints: effect required or one of kube\'s effects', () => {
    const e = errs('ResourceSlice', spec({ allNodes: true, devices: [{ name: 'a', taints: [{ key: 'k', effect: 'Bad' }, { key: 'k' }] }] }));
    assert.deepEqual(e.map((x) => `${x.type} ${x.field}`), ['FieldValueNotSupported spec.devices[0].taints[0].effect', 'FieldValueRequired spec.devices[0].taints[1].effect']);
  });
});

describe('counters, binding conditions, network data', () => {
  const slice = (extra: Record<string, unknown>) => ({ spec: { driver: 'd.example.com', allNodes: true, pool: { name: 'p', resourceSliceCount: 1 }, ...extra } });

  it('a counter set needs counters named by DNS labels; a device consumes at most 2 sets, each once', () => {
    const e = errs('ResourceSlice', slice({ sharedCounters: [{ name: 'gpu', counters: {} }, { name: 'mem', counters: { Bad_Name: { value: '1' } } }] }));
    assert.deepEqual(e.map((x) => `${x.type} ${x.field}`), ['FieldValueRequired spec.sharedCounters[0].counters', 'FieldValueInvalid spec.sharedCounters[1].counters']);
    const consumes = [{ counterSet: 'a', counters: { c: {} } }, { counterSet: 'b', counters: { c: {} } }, { counterSet: 'c', counters: { c: {} } }];
    assert.deepEqual(brief(errs('ResourceSlice', slice({ devices: [{ name: 'd', consumesCounters: consumes }] }))),
      ['FieldValueTooMany spec.devices[0].consumesCounters: must have at most 2 items <3>']);
  });

  it('bindingConditions and bindingFailureConditions go together and do not overlap', () => {
    const e = errs('ResourceSlice', slice({ devices: [{ name: 'a', bindingConditions: ['ready'] }, { name: 'b', bindingConditions: ['x'], bindingFailureConditions: ['x'] }] }));
    assert.deepEqual(brief(e), [
      'FieldValueInvalid spec.devices[0].bindingFailureConditions: bindingFailureConditions are required to use bindingConditions <[]>',
      'FieldValueInvalid spec.devices[1].bindingFailureConditions[0]: bindingFailureConditions must not overlap with bindingConditions <"x">',
    ]);
  });

  it('a claim\'s device network data: interface name at most 256 bytes, at most 16 unique IPs', () => {
    const strategy = strategyFor(G, 'resourceclaims', 'ResourceClaim');
    const base = { apiVersion: `${G}/v1`, kind: 'ResourceClaim', metadata: { name: 'x' }, ...claim({ requests: [{ name: 'a', exactly: exact() }] }) };
    const result = { request: 'a', driver: 'd.example.com', pool: 'p', device: 'nic' };
    const device = { driver: 'd.example.com', pool: 'p', device: 'nic', networkData: { interfaceName: 'e'.repeat(257), ips: ['10.0.0.1/24', '10.0.0.1/24'] } };
    const obj = { ...base, status: { allocation: { devices: { results: [result] } }, devices: [device] } } as KubeObject;
    assert.deepEqual(brief(strategy.validateStatusUpdate!(obj, base as KubeObject)), [
      'FieldValueTooLong status.devices[0].networkData.interfaceName: may not be more than 256 bytes',
      'FieldValueDuplicate status.devices[0].networkData.ips[1]:  <"10.0.0.1/24">',
    ]);
  });
});

describe('consumable capacity request policies', () => {
  const device = (capacity: Record<string, unknown>, allowMultipleAllocations = true) =>
    ({ spec: { driver: 'd.example.com', allNodes: true, pool: { name: 'p', resourceSliceCount: 1 }, devices: [{ name: 'a', allowMultipleAllocations, capacity }] } });

  it('a policy needs allowMultipleAllocations', () => {
    assert.deepEqual(brief(errs('ResourceSlice', device({ mem: { value: '10Gi', requestPolicy: { default: '1Gi' } } }, false))),
      ['FieldValueForbidden spec.devices[0].capacity[mem].requestPolicy: allowMultipleAllocations must be true']);
  });

  it('validValues: sorted, within capacity, holding the default', () => {
    const e = errs('ResourceSlice', device({ mem: { value: '10Gi', requestPolicy: { default: '3Gi', validValues: ['2Gi', '1Gi', '20Gi'] } } }));
    assert.deepEqual(brief(e), [
      'FieldValueInvalid spec.devices[0].capacity[mem].requestPolicy.validValues[1]: values must be sorted in ascending order <"1Gi">',
      'FieldValueInvalid spec.devices[0].capacity[mem].requestPolicy.validValues[2]: option is larger than capacity value: 10Gi <"20Gi">',
      'FieldValueInvalid spec.devices[0].capacity[mem].requestPolicy.validValues: default value is not valid according to the requestPolicy <"3Gi">',
    ]);
  });

  it('validRange: min required, default within, step a divisor from min', () => {
    assert.deepEqual(brief(errs('ResourceSlice', device({ c: { value: '10', requestPolicy: { default: '1', validRange: {} } } }))),
      ['FieldValueRequired spec.devices[0].capacity[c].requestPolicy.validRange.min: required when validRange is defined']);
    assert.deepEqual(brief(errs('ResourceSlice', device({ c: { value: '10', requestPolicy: { default: '3', validRange: { min: '2', max: '8', step: '2' } } } }))),
      ['FieldValueInvalid spec.devices[0].capacity[c].requestPolicy.validRange.step: value is not a multiple of a given step (2) from (2) <"3">']);
    assert.deepEqual(errs('ResourceSlice', device({ c: { value: '10', requestPolicy: { default: '4', validRange: { min: '2', max: '8', step: '2' } } } })), []);
  });
});

describe('DeviceTaintRule', () => {
  it('taint key is a label name, effect required; selector names validated', () => {
    const e = errs('DeviceTaintRule', { spec: { deviceSelector: { driver: 'Bad_Driver', device: 'UPPER' }, taint: { key: '', effect: '' } } });
    assert.deepEqual(e.map((x) => `${x.type} ${x.field}`), [
      'FieldValueInvalid spec.deviceSelector.driver',
      'FieldValueInvalid spec.deviceSelector.device',
      'FieldValueInvalid spec.taint.key',
      'FieldValueInvalid spec.taint.key',
      'FieldValueRequired spec.taint.effect',
    ]);
  });

  it('/status holds at most 8 conditions', () => {
    const strategy = strategyFor(G, 'devicetaintrules', 'DeviceTaintRule');
    const old = { apiVersion: `${G}/v1beta2`, kind: 'DeviceTaintRule', metadata: { name: 'x' }, spec: { taint: { key: 'k', effect: 'NoSchedule' } } } as KubeObject;
    const conditions = Array.from({ length: 9 }, (_, i) => ({ type: `T${i}`, status: 'True', reason: 'R', lastTransitionTime: '2026-01-01T00:00:00Z' }));
    assert.deepEqual(brief(strategy.validateStatusUpdate!({ ...old, status: { conditions } } as KubeObject, old)), ['FieldValueTooMany status.conditions: must have at most 8 items <9>']);
    const bad = [{ type: 'A', status: 'Maybe', reason: '1x' }, { type: 'A', status: 'True', reason: 'R', lastTransitionTime: '2026-01-01T00:00:00Z' }];
    assert.deepEqual(brief(strategy.validateStatusUpdate!({ ...old, status: { conditions: bad } } as KubeObject, old)), [
      'FieldValueNotSupported status.conditions[0].status:  <"Maybe">',
      'FieldValueRequired status.conditions[0].lastTransitionTime: must be set',
      "FieldValueInvalid status.conditions[0].reason: a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?') <\"1x\">",
      'FieldValueDuplicate status.conditions[1].type:  <"A">',
    ]);
  });

  it('an unchanged effect is not revalidated on update', () => {
    const old = { apiVersion: `${G}/v1beta2`, kind: 'DeviceTaintRule', metadata: { name: 'x' }, spec: { taint: { key: 'k', effect: 'Old' } } } as KubeObject;
    assert.deepEqual(validateObjectUpdate(G, 'DeviceTaintRule', old, old), []);
  });
});

describe('ResourcePoolStatusRequest', () => {
  it('driver required in kube\'s words, limit within 1..1000, spec immutable', () => {
    assert.deepEqual(brief(errs('ResourcePoolStatusRequest', { spec: { limit: 1001 } })), [
      'FieldValueRequired spec.driver: driver name is required',
      'FieldValueInvalid spec.limit: must not exceed 1000 <1001>',
    ]);
    const old = { apiVersion: `${G}/v1alpha3`, kind: 'ResourcePoolStatusRequest', metadata: { name: 'x' }, spec: { driver: 'd.example.com', limit: 100 } } as KubeObject;
    assert.deepEqual(validateObjectUpdate(G, 'ResourcePoolStatusRequest', old, old), []);
    const changed = { ...old, spec: { driver: 'd.example.com', limit: 5 } } as KubeObject;
    assert.deepEqual(validateObjectUpdate(G, 'ResourcePoolStatusRequest', changed, old).map((e) => [e.field, (e as { detail: string }).detail]), [['spec', 'field is immutable']]);
  });
});
