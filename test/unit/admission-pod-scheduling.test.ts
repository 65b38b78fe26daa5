import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { AlwaysPullImages } from '../../src/admission/always-pull-images.js';
import { DefaultTolerationSeconds } from '../../src/admission/default-toleration-seconds.js';
import { ExtendedResourceToleration, isExtendedResourceName } from '../../src/admission/extended-resource-toleration.js';
import { PodNodeSelector } from '../../src/admission/pod-node-selector.js';
import { PodTolerationRestriction } from '../../src/admission/pod-toleration-restriction.js';
import { PodTopologyLabels } from '../../src/admission/pod-topology-labels.js';
import { RuntimeClassAdmission } from '../../src/admission/runtime-class.js';
import { TaintNodesByCondition } from '../../src/admission/taint-nodes-by-condition.js';
import { mergeTolerations, verifyAgainstWhitelist } from '../../src/admission/tolerations.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { attrs, fixedLookup, pod, rejection } from '../helpers/admission.js';

/**
 * The smaller pod plugins (DefaultTolerationSeconds, RuntimeClass,
 * AlwaysPullImages, TaintNodesByCondition, PodNodeSelector,
 * PodTolerationRestriction, ExtendedResourceToleration, PodTopologyLabels)
 * on the cases of their upstream admission_test.go files.
 */

type Spec = Record<string, any>;
const specOf = (p: KubeObject): Spec => p.spec as Spec;
const notReady = (seconds = 300) => ({ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
const unreachable = (seconds = 300) => ({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
const namespace = (name: string, annotations?: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(annotations ? { annotations } : {}) } });

describe('DefaultTolerationSeconds', () => {
  it('adds the not-ready and unreachable NoExecute tolerations a pod lacks', async () => {
    const cases: Array<[string, unknown[], unknown[]]> = [
      ['none', [], [notReady(), unreachable()]],
      ['own not-ready kept', [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }], [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }, unreachable()]],
      ['empty effect counts', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }], [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }, notReady()]],
      ['empty key tolerates all', [{ operator: 'Exists' }], [{ operator: 'Exists' }]],
      ['NoSchedule does not count', [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }], [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }, notReady(), unreachable()]],
    ];
    for (const [name, tolerations, want] of cases) {
      const p = pod({ tolerations: [...tolerations] });
      await new DefaultTolerationSeconds().admit(attrs('', 'pods', 'CREATE', p));
      assert.deepEqual(specOf(p).tolerations, want, name);
    }
    const flagged = pod({});
    await new DefaultTolerationSeconds(10, 20).admit(attrs('', 'pods', 'CREATE', flagged));
    assert.deepEqual(specOf(flagged).tolerations, [notReady(10), unreachable(20)]);
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' } };
    await new DefaultTolerationSeconds().admit(attrs('', 'pods', 'CREATE', binding, { subresource: 'binding' }));
    assert.equal((binding as Spec).spec, undefined);
  });
});

describe('RuntimeClass', () => {
  const classes = [
    { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'plain' }, handler: 'runc' },
    {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'kata' },
      handler: 'kata',
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
      scheduling: { nodeSelector: { sandbox: 'kata' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
    },
  ];
  const plugin = new RuntimeClassAdmission(fixedLookup(classes));

  it('sets the class\'s overhead and merges its scheduling', async () => {
    const p = pod({ runtimeClassName: 'kata', nodeSelector: { zone: 'a' }, tolerations: [{ key: 'x', operator: 'Exists' }] });
    await plugin.admit(attrs('', 'pods', 'CREATE', p));
    assert.deepEqual(specOf(p).overhead, { cpu: '250m', memory: '120Mi' });
    assert.deepEqual(specOf(p).nodeSelector, { zone: 'a', sandbox: 'kata' });
    assert.deepEqual(specOf(p).tolerations, [{ key: 'x', operator: 'Exists' }, { key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }]);
    await plugin.validate(attrs('', 'pods', 'CREATE', p));
    const plain = pod({ runtimeClassName: 'plain' });
    await plugin.admit(attrs('', 'pods', 'CREATE', plain));
    assert.deepEqual(plain.spec, { runtimeClassName: 'plain' });
  });

  it('refuses unknown classes, selector conflicts and mismatched overhead with kube\'s messages', async () => {
    const cases: Array<[Spec, 'admit' | 'validate', string]> = [
      [{ runtimeClassName: 'gvisor' }, 'admit', 'pod rejected: RuntimeClass "gvisor" not found'],
      [{ runtimeClassName: 'kata', nodeSelector: { sandbox: 'other' } }, 'admit', 'conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; pod.spec.nodeSelector[sandbox] = other'],
      [{ runtimeClassName: 'kata', overhead: { cpu: '1' } }, 'admit', "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"],
      [{ runtimeClassName: 'kata', overhead: { cpu: '1' } }, 'validate', "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"],
      [{ runtimeClassName: 'plain', overhead: { cpu: '1' } }, 'validate', 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'],
      [{ overhead: { cpu: '1' } }, 'validate', 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'],
    ];
    for (const [spec, phase, why] of cases) {
      const err = await rejection(plugin[phase](attrs('', 'pods', 'CREATE', pod(spec))));
      assert.equal(err.code, 403, why);
      assert.equal(err.message, `pods "p" is forbidden: ${why}`);
    }
    // The same overhead written differently is the same quantity.
    await plugin.admit(attrs('', 'pods', 'CREATE', pod({ runtimeClassName: 'kata', overhead: { cpu: '0.25', memory: '120Mi' } })));
  });
});

describe('AlwaysPullImages', () => {
  it('sets Always on every container and image volume; updates without new images are left alone', async () => {
    const p = pod({ initContainers: [{ name: 'i', image: 'a' }], containers: [{ name: 'c', image: 'b', imagePullPolicy: 'Never' }], ephemeralContainers: [{ name: 'e', image: 'c' }], volumes: [{ name: 'v', image: { reference: 'x', pullPolicy: 'IfNotPresent' } }] });
    const plugin = new AlwaysPullImages();
    await plugin.admit(attrs('', 'pods', 'CREATE', p));
    for (const field of ['initContainers', 'containers', 'ephemeralContainers']) assert.equal(specOf(p)[field][0].imagePullPolicy, 'Always');
    assert.equal(specOf(p).volumes[0].image.pullPolicy, 'Always');
    await plugin.validate(attrs('', 'pods', 'CREATE', p));

    const old = pod({ containers: [{ name: 'c', image: 'b', imagePullPolicy: 'IfNotPresent' }] });
    const same = pod({ containers: [{ name: 'c', image: 'b', imagePullPolicy: 'IfNotPresent' }] });
    await plugin.admit(attrs('', 'pods', 'UPDATE', same, { name: 'p', oldObject: old }));
    assert.equal(specOf(same).containers[0].imagePullPolicy, 'IfNotPresent');
    const changed = pod({ containers: [{ name: 'c', image: 'new', imagePullPolicy: 'IfNotPresent' }] });
    const err = await rejection(plugin.validate(attrs('', 'pods', 'UPDATE', changed, { name: 'p', oldObject: old })));
    assert.equal(err.code, 500);
    assert.equal(err.message, 'pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"');
  });
});

describe('TaintNodesByCondition', () => {
  it('creates nodes with the not-ready NoSchedule taint, once', async () => {
    const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: { taints: [{ key: 'a', effect: 'NoExecute' }] } };
    await new TaintNodesByCondition().admit(attrs('', 'nodes', 'CREATE', node));
    assert.deepEqual(specOf(node).taints, [{ key: 'a', effect: 'NoExecute' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    await new TaintNodesByCondition().admit(attrs('', 'nodes', 'CREATE', node));
    assert.equal(specOf(node).taints.length, 2);
    const bare: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'm' } };
    await new TaintNodesByCondition().admit(attrs('', 'nodes', 'CREATE', bare));
    assert.deepEqual(specOf(bare).taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    assert.equal(new TaintNodesByCondition().handles('UPDATE'), false);
  });
});

describe('PodNodeSelector', () => {
  const namespaces = [namespace('ns', { 'scheduler.alpha.kubernetes.io/node-selector': 'env=prod' }), namespace('plain')];
  const config = { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'tier=default', ns: 'env=prod,zone=a' } };

  it('merges the namespace\'s selector (else the cluster default) and refuses conflicts and selectors outside the whitelist', async () => {
    const plugin = new PodNodeSelector(fixedLookup(namespaces), config);
    const p = pod({ nodeSelector: { zone: 'a' } });
    await plugin.admit(attrs('', 'pods', 'CREATE', p));
    assert.deepEqual(specOf(p).nodeSelector, { env: 'prod', zone: 'a' });
    const inPlain = pod({}, { name: 'q', namespace: 'plain' });
    await plugin.admit(attrs('', 'pods', 'CREATE', inPlain, { namespace: 'plain' }));
    assert.deepEqual(specOf(inPlain).nodeSelector, { tier: 'default' });

    const conflict = await rejection(plugin.admit(attrs('', 'pods', 'CREATE', pod({ nodeSelector: { env: 'dev' } }))));
    assert.equal(conflict.message, 'pods "p" is forbidden: pod node label selector conflicts with its namespace node label selector');
    const outside = await rejection(plugin.admit(attrs('', 'pods', 'CREATE', pod({ nodeSelector: { zone: 'b' } }))));
    assert.equal(outside.message, 'pods "p" is forbidden: pod node label selector labels conflict with its namespace whitelist');
  });
});

describe('PodTolerationRestriction', () => {
  const whitelisted = namespace('ns', {
    'scheduler.alpha.kubernetes.io/defaultTolerations': '[{"key":"dedicated","operator":"Equal","value":"team","effect":"NoSchedule"}]',
    'scheduler.alpha.kubernetes.io/tolerationsWhitelist': '[{"key":"dedicated","operator":"Exists"},{"key":"node.kubernetes.io/memory-pressure","operator":"Exists"}]',
  });

  it('adds namespace defaults (and memory pressure for pods that are not BestEffort) and checks the whitelist', async () => {
    const plugin = new PodTolerationRestriction(fixedLookup([whitelisted, namespace('open')]), { default: [{ key: 'cluster', operator: 'Exists' }] });
    const p = pod({ containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] });
    await plugin.admit(attrs('', 'pods', 'CREATE', p));
    assert.deepEqual(specOf(p).tolerations, [
      { key: 'dedicated', operator: 'Equal', value: 'team', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    const bestEffort = pod({ containers: [{ name: 'c' }] }, { name: 'b', namespace: 'open' });
    await plugin.admit(attrs('', 'pods', 'CREATE', bestEffort, { namespace: 'open' }));
    assert.deepEqual(specOf(bestEffort).tolerations, [{ key: 'cluster', operator: 'Exists' }]);

    const err = await rejection(plugin.admit(attrs('', 'pods', 'CREATE', pod({ containers: [{ name: 'c' }], tolerations: [{ key: 'other', operator: 'Exists' }] }))));
    assert.equal(err.code, 500);
    assert.equal(err.message, 'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');
    const cluster = new PodTolerationRestriction(fixedLookup([namespace('ns')]), { whitelist: [{ key: 'ok', operator: 'Exists' }] });
    const clusterErr = await rejection(cluster.validate(attrs('', 'pods', 'CREATE', pod({ tolerations: [{ key: 'other', operator: 'Exists' }] }))));
    assert.equal(clusterErr.message, 'pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist');
  });
});

describe('ExtendedResourceToleration', () => {
  it('tolerates the NoSchedule taint of each extended resource requested, sorted, once', async () => {
    const p = pod({
      containers: [{ name: 'c', resources: { requests: { 'example.com/gpu': '1', cpu: '1', 'kubernetes.io/x': '1' } } }],
      initContainers: [{ name: 'i', resources: { requests: { 'acme.io/fpga': '1' } } }],
      tolerations: [{ key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
    });
    await new ExtendedResourceToleration().admit(attrs('', 'pods', 'CREATE', p));
    assert.deepEqual(specOf(p).tolerations, [
      { key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'acme.io/fpga', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    assert.equal(isExtendedResourceName('cpu'), false);
    assert.equal(isExtendedResourceName('hugepages-2Mi'), false);
    assert.equal(isExtendedResourceName('requests.example.com/x'), false);
    assert.equal(isExtendedResourceName('example.com/x'), true);
  });
});

describe('PodTopologyLabels', () => {
  const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/region': 'r1', other: 'x' } } };

  it('copies the node\'s zone and region onto a Binding to it and onto a pod created on it', async () => {
    const plugin = new PodTopologyLabels(fixedLookup([node]));
    const binding: KubeObject = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } };
    await plugin.admit(attrs('', 'pods', 'CREATE', binding, { subresource: 'binding', name: 'p' }));
    assert.deepEqual(binding.metadata?.labels, { 'topology.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/region': 'r1' });
    const p = pod({ nodeName: 'n1' }, { name: 'p', namespace: 'ns', labels: { 'topology.kubernetes.io/zone': 'mine', app: 'a' } });
    await plugin.admit(attrs('', 'pods', 'CREATE', p));
    assert.deepEqual(p.metadata?.labels, { 'topology.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/region': 'r1', app: 'a' });

    const unscheduled = pod({});
    await plugin.admit(attrs('', 'pods', 'CREATE', unscheduled));
    assert.equal(unscheduled.metadata?.labels, undefined);
    const toMissing: KubeObject = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'gone' } };
    await plugin.admit(attrs('', 'pods', 'CREATE', toMissing, { subresource: 'binding', name: 'p' }));
    assert.equal(toMissing.metadata?.labels, undefined);
    const off = new PodTopologyLabels(fixedLookup([node]), false);
    const b2: KubeObject = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } };
    await off.admit(attrs('', 'pods', 'CREATE', b2, { subresource: 'binding', name: 'p' }));
    assert.equal(b2.metadata?.labels, undefined, 'feature gate off');
  });
});

describe('toleration helpers', () => {
  it('MergeTolerations keeps the wider of tolerations that cover one another', () => {
    assert.deepEqual(mergeTolerations([{ key: 'a', operator: 'Equal', value: 'x' }], [{ key: 'a', operator: 'Exists' }]), [{ key: 'a', operator: 'Exists' }]);
    assert.deepEqual(mergeTolerations([{ operator: 'Exists' }], [{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }]), [{ operator: 'Exists' }]);
    assert.deepEqual(
      mergeTolerations([{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }], [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 }]),
      [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 }],
    );
    assert.equal(verifyAgainstWhitelist([{ key: 'a', operator: 'Equal', value: 'v' }], [{ key: 'a', operator: 'Exists' }]), true);
    assert.equal(verifyAgainstWhitelist([{ key: 'b', operator: 'Exists' }], [{ key: 'a', operator: 'Exists' }]), false);
  });
});
