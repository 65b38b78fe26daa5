import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { builtinCatalog } from '../../src/api/catalog.js';
import { loadDefinitions } from '../../src/api/definitions.js';
import type { ResourceInfo } from '../../src/api/types.js';
import { toServedVersion, toStorageVersion } from '../../src/registry/convert.js';
import '../../src/registry/conversions/index.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { deepFreeze } from '../helpers/deep-freeze.js';

function resource(group: string, version: string, name: string): ResourceInfo {
  for (const g of builtinCatalog().groups) {
    if (g.name !== group) continue;
    for (const v of g.versions) {
      if (v.version !== version) continue;
      const r = v.resources.find((x) => x.name === name);
      if (r) return r;
    }
  }
  assert.fail(`${group}/${version}/${name} not in the catalog`);
}

const hpaV1 = resource('autoscaling', 'v1', 'horizontalpodautoscalers');
const hpaV2 = resource('autoscaling', 'v2', 'horizontalpodautoscalers');
const eventsV1 = resource('events.k8s.io', 'v1', 'events');
const coreEvents = resource('', 'v1', 'events');

function annotations(obj: KubeObject): Record<string, string> {
  return obj.metadata?.annotations ?? {};
}

const METRICS = 'autoscaling.alpha.kubernetes.io/metrics';
const CURRENT = 'autoscaling.alpha.kubernetes.io/current-metrics';
const BEHAVIOR = 'autoscaling.alpha.kubernetes.io/behavior';
const CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';

const cpu = (u: number): unknown => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: u } } });

describe('catalog', () => {
  const defs = loadDefinitions().definitions;
  // Compares definitions with descriptions dropped and references followed.
  const shape = (name: string, seen: Set<string> = new Set()): unknown => {
    if (seen.has(name)) return `<${name}>`;
    const next = new Set(seen).add(name);
    const walk = (x: unknown): unknown => {
      if (Array.isArray(x)) return x.map(walk);
      if (typeof x !== 'object' || x === null) return x;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(x)) {
        if (k === 'description' || k === 'x-kubernetes-group-version-kind') continue;
        out[k] = k === '$ref' && typeof v === 'string' ? shape(v.replace('#/definitions/', ''), next) : walk(v);
      }
      return out;
    };
    return walk(defs[name]);
  };
  /** Served group/version/kinds whose schema differs from their storage version's. */
  const differing = (enabledOnly: boolean): string[] => {
    const out: string[] = [];
    const catalog = builtinCatalog();
    for (const g of catalog.groups) {
      for (const v of g.versions) {
        if (enabledOnly && !v.enabledByDefault) continue;
        for (const r of v.resources) {
          const s = r.storage;
          if (r.virtual || (s.group === g.name && s.version === v.version && s.kind === r.kind)) continue;
          const storage = catalog.groups
            .find((x) => x.name === s.group)
            ?.versions.find((x) => x.version === s.version)
            ?.resources.find((x) => x.kind === s.kind && x.name === r.name);
          assert.ok(storage, `storage of ${g.name}/${v.version}/${r.name}`);
          if (JSON.stringify(shape(r.definition)) !== JSON.stringify(shape(storage.definition))) out.push(`${g.name}/${v.version}/${r.kind}`);
        }
      }
    }
    return out.sort();
  };

  it('has exactly two default-enabled served versions whose schema differs from storage', () => {
    assert.deepEqual(differing(true), ['autoscaling/v1/HorizontalPodAutoscaler', 'events.k8s.io/v1/Event']);
  });

  it('has, with every version enabled (api/all=true), only those, resource.k8s.io/v1beta1 and one apply-only difference', () => {
    assert.deepEqual(differing(false), [
      // Only spec.variables[] items are atomic in v1beta1 (x-kubernetes-map-type), granular in v1alpha1: a
      // merge directive apply reads from the served version's schema, the data is the same.
      'admissionregistration.k8s.io/v1alpha1/MutatingAdmissionPolicy',
      'autoscaling/v1/HorizontalPodAutoscaler',
      'events.k8s.io/v1/Event',
      'resource.k8s.io/v1beta1/ResourceClaim',
      'resource.k8s.io/v1beta1/ResourceClaimTemplate',
      'resource.k8s.io/v1beta1/ResourceSlice',
    ]);
    const variable = (version: string): unknown => shape(`io.k8s.api.admissionregistration.${version}.Variable`);
    assert.deepEqual(variable('v1beta1'), { ...(variable('v1alpha1') as object), 'x-kubernetes-map-type': 'atomic' });
  });
});

describe('autoscaling/v1 HorizontalPodAutoscaler', () => {
  const created: KubeObject = deepFreeze({
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, annotations: { note: 'kept' } },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 },
  });

  it('stores targetCPUUtilizationPercentage as a CPU Utilization metric', () => {
    const stored = toStorageVersion(created, hpaV1);
    assert.deepEqual(stored, {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, annotations: { note: 'kept' } },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 2, maxReplicas: 10, metrics: [cpu(70)] },
      status: { desiredReplicas: 0, currentMetrics: null },
    });
  });

  it('reads back what was created through v1 (v1 -> storage -> v1)', () => {
    const read = toServedVersion(toStorageVersion(created, hpaV1), hpaV1);
    assert.deepEqual(read, { ...created, status: { currentReplicas: 0, desiredReplicas: 0 } });
  });

  it('keeps v1 status fields through storage', () => {
    const withStatus = {
      ...created,
      status: { observedGeneration: 3, lastScaleTime: '2024-03-01T12:00:00Z', currentReplicas: 4, desiredReplicas: 5, currentCPUUtilizationPercentage: 65 },
    };
    const stored = toStorageVersion(withStatus, hpaV1);
    assert.deepEqual(stored['status'], {
      observedGeneration: 3,
      lastScaleTime: '2024-03-01T12:00:00Z',
      currentReplicas: 4,
      desiredReplicas: 5,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 65 } } }],
    });
    const read = toServedVersion(stored, hpaV1);
    // The current CPU metric comes back in the annotation too: it is how v1 keeps the raw values.
    assert.equal(annotations(read)[CURRENT], '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":65,"currentAverageValue":"0"}}]');
    assert.deepEqual(read['status'], withStatus.status);
    assert.deepEqual(read['spec'], created['spec']);
  });

  it('applies the v1 defaults: minReplicas 1 and the 80% CPU target', () => {
    const bare = { ...created, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3 } };
    const stored = toStorageVersion(bare, hpaV1);
    assert.deepEqual(stored['spec'], { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, metrics: [cpu(80)] });
    assert.deepEqual(toServedVersion(stored, hpaV1)['spec'], {
      scaleTargetRef: { kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 3,
      targetCPUUtilizationPercentage: 80,
    });
  });

  const v2Full: KubeObject = deepFreeze({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'full', namespace: 'default', annotations: { owner: 'me' } },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 20,
      metrics: [
        cpu(50),
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
        {
          type: 'Pods',
          pods: { metric: { name: 'packets', selector: { matchLabels: { z: '1', a: '2' } } }, target: { type: 'AverageValue', averageValue: '1k' } },
        },
        {
          type: 'Object',
          object: {
            describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main' },
            metric: { name: 'requests' },
            target: { type: 'Value', value: '10k' },
          },
        },
        { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } },
        { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } },
      ],
      behavior: {
        scaleUp: { stabilizationWindowSeconds: 30, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] },
        scaleDown: {
          stabilizationWindowSeconds: 300,
          selectPolicy: 'Min',
          policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }],
          tolerance: '50m',
        },
      },
    },
    status: {
      observedGeneration: 2,
      currentReplicas: 3,
      desiredReplicas: 4,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 45 } } },
        { type: 'External', external: { metric: { name: 'queue' }, current: { averageValue: '12' } } },
      ],
      conditions: [
        { type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-03-01T12:00:00Z', reason: 'ReadyForNewScale', message: 'ok' },
        { type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric' },
      ],
    },
  });

  it('serves a v2 object through v1 with the v2-only data in annotations', () => {
    const v1 = toServedVersion(v2Full, hpaV1);
    assert.deepEqual(v1['spec'], {
      scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      minReplicas: 1,
      maxReplicas: 20,
      targetCPUUtilizationPercentage: 50,
    });
    assert.deepEqual(v1['status'], { observedGeneration: 2, currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 45 });
    const a = annotations(v1);
    assert.deepEqual(Object.keys(a), [BEHAVIOR, CONDITIONS, CURRENT, METRICS, 'owner']);
    // Exactly the text Go's json.Marshal writes for []autoscalingv1.MetricSpec: declaration order,
    // sorted map keys, a by-value Quantity written as "0" when unset.
    assert.equal(
      a[METRICS],
      '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}},' +
        '{"type":"Pods","pods":{"metricName":"packets","targetAverageValue":"1k","selector":{"matchLabels":{"a":"2","z":"1"}}}},' +
        '{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},"metricName":"requests","targetValue":"10k"}},' +
        '{"type":"External","external":{"metricName":"queue","targetAverageValue":"30"}},' +
        '{"type":"ContainerResource","containerResource":{"name":"cpu","targetAverageUtilization":60,"container":"app"}}]',
    );
    // The internal struct has no json tags, hence the Go field names and explicit nulls.
    assert.equal(
      a[BEHAVIOR],
      '{"ScaleUp":{"StabilizationWindowSeconds":30,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":2,"PeriodSeconds":60}],"Tolerance":null},' +
        '"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Min","Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}],"Tolerance":"50m"}}',
    );
    assert.equal(
      a[CURRENT],
      '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":45,"currentAverageValue":"250m"}},' +
        '{"type":"External","external":{"metricName":"queue","currentValue":"0","currentAverageValue":"12"}}]',
    );
    assert.equal(
      a[CONDITIONS],
      '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-03-01T12:00:00Z","reason":"ReadyForNewScale","message":"ok"},' +
        '{"type":"ScalingActive","status":"False","lastTransitionTime":null,"reason":"FailedGetResourceMetric"}]',
    );
  });

  it('restores the v2-only data from the annotations (storage -> v1 -> storage)', () => {
    const back = toStorageVersion(toServedVersion(v2Full, hpaV1), hpaV1);
    const spec = v2Full['spec'] as { metrics: unknown[] };
    assert.deepEqual(back['metadata'], v2Full['metadata']);
    assert.deepEqual(back['spec'], {
      ...spec,
      // The metric from targetCPUUtilizationPercentage goes after the annotated ones.
      metrics: [
        ...spec.metrics.slice(1, 3),
        {
          type: 'Object',
          object: {
            describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' },
            target: { type: 'Value', value: '10k' },
            metric: { name: 'requests' },
          },
        },
        ...spec.metrics.slice(4),
        cpu(50),
      ],
    });
    assert.deepEqual(back['status'], {
      observedGeneration: 2,
      currentReplicas: 3,
      desiredReplicas: 4,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 45 } } },
        // v1's ExternalMetricStatus holds currentValue by value: it comes back as "0".
        { type: 'External', external: { metric: { name: 'queue' }, current: { value: '0', averageValue: '12' } } },
      ],
      conditions: [
        { type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-03-01T12:00:00Z', reason: 'ReadyForNewScale', message: 'ok' },
        // metav1.Time is a struct: Go writes the zero time as null even with omitempty.
        { type: 'ScalingActive', status: 'False', lastTransitionTime: null, reason: 'FailedGetResourceMetric' },
      ],
    });
    // A second trip changes nothing more.
    assert.deepEqual(toStorageVersion(toServedVersion(back, hpaV1), hpaV1), back);
  });

  it('fills an annotated behavior with the v2 defaults', () => {
    const v1 = { ...created, metadata: { name: 'web', annotations: { [BEHAVIOR]: '{"scaleDown":{"selectPolicy":"Disabled"}}' } } };
    const stored = toStorageVersion(v1, hpaV1);
    assert.deepEqual(stored['metadata'], { name: 'web' });
    assert.deepEqual((stored['spec'] as { behavior: unknown }).behavior, {
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: { selectPolicy: 'Disabled', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
  });

  it('drops malformed or empty round-trip annotations without failing', () => {
    const v1 = {
      ...created,
      metadata: {
        name: 'web',
        annotations: {
          keep: 'me',
          [METRICS]: 'not json',
          [BEHAVIOR]: '{}',
          [CURRENT]: '{"type":"Resource"}',
          [CONDITIONS]: '[{"type":"AbleToScale","status":"True","lastTransitionTime":"yesterday"}]',
          'autoscaling.alpha.kubernetes.io/scale-up-tolerance': '0.1',
        },
      },
    };
    const stored = toStorageVersion(v1, hpaV1);
    assert.deepEqual(stored['metadata'], { name: 'web', annotations: { keep: 'me' } });
    assert.deepEqual((stored['spec'] as { metrics: unknown }).metrics, [cpu(70)]);
    assert.equal((stored['spec'] as { behavior?: unknown }).behavior, undefined);
    assert.deepEqual(stored['status'], { desiredReplicas: 0, currentMetrics: null });
  });

  it('rejects a whole annotation on one mistyped field, as json.Unmarshal does', () => {
    const metrics = JSON.stringify([
      { type: 'Resource', resource: { name: 'memory', targetAverageUtilization: 50 } },
      { type: 'Pods', pods: { metricName: 'x', targetAverageValue: 'lots' } },
    ]);
    const stored = toStorageVersion({ ...created, metadata: { name: 'web', annotations: { [METRICS]: metrics } } }, hpaV1);
    assert.deepEqual((stored['spec'] as { metrics: unknown }).metrics, [cpu(70)]);
  });

  it('matches annotation keys case-insensitively, as encoding/json does', () => {
    const metrics = '[{"Type":"Resource","RESOURCE":{"Name":"memory","targetaverageutilization":50}}]';
    const stored = toStorageVersion({ ...created, metadata: { name: 'web', annotations: { [METRICS]: metrics } } }, hpaV1);
    assert.deepEqual((stored['spec'] as { metrics: unknown }).metrics, [
      { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 50 } } },
      cpu(70),
    ]);
  });

  it('takes the first CPU utilization target and the last CPU utilization reading', () => {
    const stored: KubeObject = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'x' },
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web' },
        maxReplicas: 3,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '300m' } } },
          cpu(70),
          cpu(90),
        ],
      },
      status: {
        desiredReplicas: 1,
        currentMetrics: [
          { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 10 } } },
          { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 20 } } },
        ],
      },
    };
    const v1 = toServedVersion(stored, hpaV1);
    assert.equal((v1['spec'] as { targetCPUUtilizationPercentage: number }).targetCPUUtilizationPercentage, 70);
    assert.equal((v1['status'] as { currentCPUUtilizationPercentage: number }).currentCPUUtilizationPercentage, 20);
    // A CPU target by value is not a utilization target: it goes to the annotation. The second
    // utilization target is lost, as in kube.
    assert.equal(annotations(v1)[METRICS], '[{"type":"Resource","resource":{"name":"cpu","targetAverageValue":"300m"}}]');
  });

  it('replaces stale round-trip annotations on the stored object and defaults missing metrics', () => {
    const stored: KubeObject = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'x', annotations: { [METRICS]: '[]', [CONDITIONS]: '[]' } },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3 },
    };
    const v1 = toServedVersion(stored, hpaV1);
    assert.deepEqual(v1['metadata'], { name: 'x' });
    assert.deepEqual(v1['spec'], { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 80 });
  });

  it('reads objects created through v2 with the v2 version untouched', () => {
    assert.deepEqual(toServedVersion(v2Full, hpaV2), v2Full);
  });

  it('does not mutate its input', () => {
    assert.doesNotThrow(() => toStorageVersion(created, hpaV1));
    assert.doesNotThrow(() => toServedVersion(v2Full, hpaV1));
  });
});

describe('events.k8s.io/v1 Event', () => {
  const newStyle: KubeObject = deepFreeze({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'web.17a', namespace: 'default' },
    eventTime: '2024-03-01T12:00:00.123456Z',
    series: { count: 3, lastObservedTime: '2024-03-01T12:05:00.000001Z' },
    reportingController: 'example.com/controller',
    reportingInstance: 'controller-1',
    action: 'Scale',
    reason: 'Scaled',
    regarding: { kind: 'Deployment', namespace: 'default', name: 'web', uid: 'u-1', apiVersion: 'apps/v1', resourceVersion: '42', fieldPath: 'spec' },
    related: { kind: 'ReplicaSet', namespace: 'default', name: 'web-1' },
    note: 'Scaled up to 3',
    type: 'Normal',
    deprecatedSource: { component: 'ctrl', host: 'node-1' },
    deprecatedFirstTimestamp: '2024-03-01T11:00:00Z',
    deprecatedLastTimestamp: '2024-03-01T12:00:00Z',
    deprecatedCount: 7,
  });

  const coreForm: KubeObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'web.17a', namespace: 'default' },
    involvedObject: { kind: 'Deployment', namespace: 'default', name: 'web', uid: 'u-1', apiVersion: 'apps/v1', resourceVersion: '42', fieldPath: 'spec' },
    reason: 'Scaled',
    message: 'Scaled up to 3',
    source: { component: 'ctrl', host: 'node-1' },
    firstTimestamp: '2024-03-01T11:00:00Z',
    lastTimestamp: '2024-03-01T12:00:00Z',
    count: 7,
    type: 'Normal',
    eventTime: '2024-03-01T12:00:00.123456Z',
    series: { count: 3, lastObservedTime: '2024-03-01T12:05:00.000001Z' },
    action: 'Scale',
    related: { kind: 'ReplicaSet', namespace: 'default', name: 'web-1' },
    reportingComponent: 'example.com/controller',
    reportingInstance: 'controller-1',
  };

  it('maps every field to core/v1 when stored', () => {
    assert.deepEqual(toStorageVersion(newStyle, eventsV1), coreForm);
  });

  it('is read through core/v1 as stored', () => {
    assert.deepEqual(toServedVersion(toStorageVersion(newStyle, eventsV1), coreEvents), coreForm);
  });

  it('round-trips events.k8s.io/v1 -> storage -> events.k8s.io/v1', () => {
    assert.deepEqual(toServedVersion(toStorageVersion(newStyle, eventsV1), eventsV1), newStyle);
  });

  it('serves a core/v1 event through events.k8s.io/v1 and back (core -> events -> core)', () => {
    assert.deepEqual(toServedVersion(coreForm, eventsV1), newStyle);
    assert.deepEqual(toStorageVersion(toServedVersion(coreForm, eventsV1), eventsV1), coreForm);
  });

  it('writes the zero values Go writes for a minimal events.k8s.io/v1 event', () => {
    const minimal = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      eventTime: '2024-03-01T12:00:00.500000Z',
      reportingController: 'c',
      reportingInstance: 'i',
      action: 'A',
      reason: 'R',
      type: 'Normal',
    };
    assert.deepEqual(toStorageVersion(minimal, eventsV1), {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: {},
      reason: 'R',
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      type: 'Normal',
      eventTime: '2024-03-01T12:00:00.500000Z',
      action: 'A',
      reportingComponent: 'c',
      reportingInstance: 'i',
    });
  });

  it('writes the zero values Go writes for a legacy core/v1 event read as events.k8s.io/v1', () => {
    const legacy = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'p.1', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
      reason: 'Pulled',
      message: 'pulled',
      source: { component: 'kubelet', host: 'n1' },
      firstTimestamp: '2024-03-01T13:00:00+01:00',
      lastTimestamp: '2024-03-01T12:30:00Z',
      count: 1,
      type: 'Normal',
      series: { count: 2 },
    };
    assert.deepEqual(toServedVersion(legacy, eventsV1), {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'p.1', namespace: 'default' },
      eventTime: null,
      // events.k8s.io/v1 EventSeries has no omitempty.
      series: { count: 2, lastObservedTime: null },
      reason: 'Pulled',
      regarding: { kind: 'Pod', namespace: 'default', name: 'p' },
      note: 'pulled',
      type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'n1' },
      // metav1.Time is written in UTC.
      deprecatedFirstTimestamp: '2024-03-01T12:00:00Z',
      deprecatedLastTimestamp: '2024-03-01T12:30:00Z',
      deprecatedCount: 1,
    });
  });

  it('writes times in UTC as Go does (seconds for Time, microseconds for MicroTime)', () => {
    const stored = toStorageVersion(
      { ...newStyle, eventTime: '2024-03-01T13:00:00.123456+01:00', deprecatedFirstTimestamp: '2024-03-01T11:00:00.75-01:30' },
      eventsV1,
    );
    assert.equal(stored['eventTime'], '2024-03-01T12:00:00.123456Z');
    assert.equal(stored['firstTimestamp'], '2024-03-01T12:30:00Z');
  });

  it('drops fields neither version has', () => {
    const stored = toStorageVersion({ ...newStyle, involvedObject: { kind: 'Pod' }, message: 'x', extra: 1 }, eventsV1);
    assert.deepEqual(stored, coreForm);
  });
});
