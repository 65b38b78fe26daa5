import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { checkRequest, type CheckAttributes, type QuotaState } from '../../src/admission/resource-quota/check.js';
import { parseResourceQuotaConfiguration } from '../../src/admission/resource-quota/configuration.js';
import { quotaMatches } from '../../src/admission/resource-quota/evaluator.js';
import { POD_EVALUATOR } from '../../src/admission/resource-quota/pods.js';
import { PVC_EVALUATOR } from '../../src/admission/resource-quota/pvcs.js';
import { quotaState } from '../../src/admission/resource-quota/quota-index.js';
import { calculateUsage, groupResourceOfCount, QuotaEvaluators, quotaIgnores } from '../../src/admission/resource-quota/registry.js';
import { prettyPrint, resourceListFromJson, resourceListToJson } from '../../src/admission/resource-quota/resources.js';
import { formatScopes, scopeSelectorsOf } from '../../src/admission/resource-quota/scopes.js';
import { SERVICE_EVALUATOR } from '../../src/admission/resource-quota/services.js';
import { ApiCatalog } from '../../src/api/catalog.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';

const catalog = ApiCatalog.load();
const NOW = Date.parse('2026-01-01T00:00:00Z');
const evaluators = new QuotaEvaluators();

function usage(obj: KubeObject, evaluator = POD_EVALUATOR): Record<string, string> {
  return resourceListToJson(evaluator.usage(obj, NOW));
}

function pod(spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec, ...extra };
}

function container(name: string, requests?: Record<string, string>, limits?: Record<string, string>, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, image: 'x', resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) }, ...more };
}

function quota(name: string, hard: Record<string, string>, used?: Record<string, string>, spec: Record<string, unknown> = {}): QuotaState {
  return quotaState({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name, namespace: 'ns', resourceVersion: '5' },
    spec: { hard, ...spec },
    status: { hard, ...(used ? { used } : {}) },
  });
}

function attrs(resource: string, object: KubeObject, operation: 'CREATE' | 'UPDATE' = 'CREATE', oldObject?: KubeObject): CheckAttributes {
  const info = catalog.resource('', 'v1', resource)!;
  return { operation, subresource: '', object, ...(oldObject ? { oldObject } : {}), resource: info, namespace: 'ns' };
}

function refusal(fn: () => unknown): { code: number; message: string; reason?: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return { code: err.code, message: err.status.message ?? '', ...(err.reason ? { reason: err.reason } : {}) };
  }
  assert.fail('expected a refusal');
}

describe('resource quota evaluators', () => {
  it('counts any resource as count/<resource>[.<group>], with the legacy names for configmaps, secrets, replicationcontrollers and resourcequotas', () => {
    const cm = evaluators.get('', 'configmaps');
    assert.deepEqual(usage({ metadata: { name: 'x' } }, cm), { configmaps: '1', 'count/configmaps': '1' });
    const deploy = evaluators.get('apps', 'deployments');
    assert.deepEqual(usage({ metadata: { name: 'x' } }, deploy), { 'count/deployments.apps': '1' });
    const widgets = evaluators.get('example.com', 'widgets');
    assert.deepEqual(widgets.matchingResources(['count/widgets.example.com', 'pods']), ['count/widgets.example.com']);
    assert.equal(cm.handles({ operation: 'UPDATE', subresource: '' }), false);
    assert.equal(cm.handles({ operation: 'CREATE', subresource: '' }), true);
    assert.deepEqual(groupResourceOfCount('count/widgets.example.com'), { group: 'example.com', resource: 'widgets' });
    assert.deepEqual(groupResourceOfCount('count/pods'), { group: '', resource: 'pods' });
    assert.equal(groupResourceOfCount('pods'), undefined);
    // Events and virtual resources are never counted.
    assert.deepEqual(evaluators.forHard(['count/events', 'count/events.events.k8s.io', 'count/tokenreviews.authentication.k8s.io']), []);
    assert.equal(quotaIgnores('', 'events'), true);
  });

  it("sums a pod's container requests and limits, takes init containers' peak and sidecars, and charges hugepages and extended resources", () => {
    const p = pod({
      containers: [
        container('a', { cpu: '100m', memory: '64Mi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '1' }, { cpu: '200m', memory: '128Mi' }),
        container('b', { cpu: '300m', memory: '64Mi' }, { cpu: '1' }),
      ],
      initContainers: [
        container('init', { cpu: '2', memory: '32Mi' }),
        container('sidecar', { cpu: '50m' }, undefined, { restartPolicy: 'Always' }),
      ],
    });
    assert.deepEqual(usage(p), {
      'count/pods': '1',
      cpu: '2',
      'hugepages-2Mi': '4Mi',
      'limits.cpu': '1200m',
      'limits.memory': '128Mi',
      memory: '128Mi',
      pods: '1',
      'requests.cpu': '2',
      'requests.example.com/gpu': '1',
      'requests.hugepages-2Mi': '4Mi',
      'requests.memory': '128Mi',
    });
  });

  it('charges a terminal pod, or one past its deletion grace period, only its object count', () => {
    const spec = { containers: [container('a', { cpu: '1' })] };
    assert.deepEqual(usage(pod(spec, { status: { phase: 'Succeeded' } })), { 'count/pods': '1' });
    assert.deepEqual(usage(pod(spec, { status: { phase: 'Failed' } })), { 'count/pods': '1' });
    const deleting = pod(spec, { metadata: { name: 'p', deletionTimestamp: '2025-12-31T23:59:00Z', deletionGracePeriodSeconds: 30 } });
    assert.deepEqual(usage(deleting), { 'count/pods': '1' });
    const graceful = pod(spec, { metadata: { name: 'p', deletionTimestamp: '2025-12-31T23:59:50Z', deletionGracePeriodSeconds: 30 } });
    assert.equal(usage(graceful)['requests.cpu'], '1');
  });

  it("refuses pods missing cpu or memory that a quota tracks with kube's message", () => {
    const p = pod({ containers: [container('b', { memory: '1Gi' }), container('a')], initContainers: [container('i', { cpu: '1', memory: '1Gi' }, { cpu: '1' })] });
    assert.equal(
      POD_EVALUATOR.constraints(['requests.cpu', 'limits.cpu', 'requests.memory', 'pods', 'requests.storage'], p),
      'must specify limits.cpu for: a,b; requests.cpu for: a,b; requests.memory for: a',
    );
    assert.equal(POD_EVALUATOR.constraints(['pods', 'requests.ephemeral-storage'], p), undefined);
  });

  it('matches pod scopes: Terminating, BestEffort, PriorityClass (In, NotIn, Exists, DoesNotExist), CrossNamespacePodAffinity', () => {
    const bestEffort = pod({ containers: [container('a')] });
    const burstable = pod({ containers: [container('a', { cpu: '1' })], activeDeadlineSeconds: 10, priorityClassName: 'high' });
    const match = (scopeName: string, operator: string, obj: KubeObject, values?: string[]) =>
      POD_EVALUATOR.matchesScope({ scopeName, operator, ...(values ? { values } : {}) }, obj);
    assert.equal(match('Terminating', 'Exists', burstable), true);
    assert.equal(match('NotTerminating', 'Exists', burstable), false);
    assert.equal(match('BestEffort', 'Exists', bestEffort), true);
    assert.equal(match('NotBestEffort', 'Exists', bestEffort), false);
    assert.equal(match('NotBestEffort', 'Exists', burstable), true);
    assert.equal(match('PriorityClass', 'In', burstable, ['high', 'low']), true);
    assert.equal(match('PriorityClass', 'In', bestEffort, ['high']), false);
    assert.equal(match('PriorityClass', 'NotIn', burstable, ['high']), false);
    assert.equal(match('PriorityClass', 'NotIn', bestEffort, ['high']), true);
    assert.equal(match('PriorityClass', 'Exists', burstable), true);
    assert.equal(match('PriorityClass', 'DoesNotExist', bestEffort), true);
    assert.equal(match('PriorityClass', 'DoesNotExist', burstable), false);
    const cross = pod({ containers: [container('a')], affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { namespaceSelector: {}, topologyKey: 'x' } }] } } });
    assert.equal(match('CrossNamespacePodAffinity', 'Exists', cross), true);
    assert.equal(match('CrossNamespacePodAffinity', 'Exists', bestEffort), false);
    // A quota applies when it tracks a pod resource and every scope holds.
    const scoped = quotaState({ metadata: { name: 'q' }, spec: { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] }, scopes: ['Terminating'] } });
    assert.equal(quotaMatches(POD_EVALUATOR, ['pods'], scoped.scopes, burstable), true);
    assert.equal(quotaMatches(POD_EVALUATOR, ['pods'], scoped.scopes, bestEffort), false);
    assert.equal(quotaMatches(POD_EVALUATOR, ['services'], [], burstable), false);
  });

  it('charges claims their storage (rounded up to whole bytes), per storage class too, and matches the VolumeAttributesClass scope', () => {
    const claim: KubeObject = {
      metadata: { name: 'c' },
      spec: { storageClassName: 'gold', volumeAttributesClassName: 'fast', resources: { requests: { storage: '1500m' } } },
      status: { allocatedResources: { storage: '1' } },
    };
    assert.deepEqual(usage(claim, PVC_EVALUATOR), {
      'count/persistentvolumeclaims': '1',
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      'gold.storageclass.storage.k8s.io/requests.storage': '2',
      persistentvolumeclaims: '1',
      'requests.storage': '2',
    });
    assert.deepEqual(PVC_EVALUATOR.matchingResources(['gold.storageclass.storage.k8s.io/requests.storage', 'pods', 'requests.storage']), [
      'gold.storageclass.storage.k8s.io/requests.storage',
      'requests.storage',
    ]);
    assert.equal(PVC_EVALUATOR.matchesScope({ scopeName: 'VolumeAttributesClass', operator: 'In', values: ['fast'] }, claim), true);
    assert.equal(PVC_EVALUATOR.matchesScope({ scopeName: 'VolumeAttributesClass', operator: 'NotIn', values: ['fast'] }, claim), false);
    assert.equal(PVC_EVALUATOR.matchesScope({ scopeName: 'VolumeAttributesClass', operator: 'DoesNotExist' }, { metadata: {}, spec: {} }), true);
  });

  it('charges services their node ports and load balancers', () => {
    const lb = { metadata: { name: 's' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }, { port: 443 }] } };
    assert.deepEqual(usage(lb, SERVICE_EVALUATOR), { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '2' });
    const noAlloc = { metadata: { name: 's' }, spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 80, nodePort: 30001 }, { port: 443 }] } };
    assert.equal(usage(noAlloc, SERVICE_EVALUATOR)['services.nodeports'], '1');
    assert.deepEqual(usage({ metadata: { name: 's' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } }, SERVICE_EVALUATOR)['services.nodeports'], '0');
  });

  it('measures a namespace inside the quota scopes, every tracked resource starting at zero', () => {
    const pods = [
      pod({ containers: [container('a', { cpu: '1' })] }),
      pod({ containers: [container('a')] }),
      pod({ containers: [container('a', { cpu: '500m' })] }, { status: { phase: 'Succeeded' } }),
    ];
    const hard = ['pods', 'requests.cpu', 'configmaps', 'count/widgets.example.com'];
    const all = calculateUsage(evaluators.forHard(hard), hard, [], (e) => (e.resource === 'pods' ? pods : []), NOW);
    assert.deepEqual(resourceListToJson(all), { configmaps: '0', 'count/widgets.example.com': '0', pods: '2', 'requests.cpu': '1' });
    const bestEffort = calculateUsage(evaluators.forHard(['pods']), ['pods'], [{ scopeName: 'BestEffort', operator: 'Exists' }], () => pods, NOW);
    assert.deepEqual(resourceListToJson(bestEffort), { pods: '1' });
  });
});

describe('resource quota admission checks', () => {
  const cm = (name = 'cm'): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } });

  it("charges a create to every matching quota and refuses one over a limit with kube's message", () => {
    const quotas = [quota('q', { configmaps: '5', 'count/configmaps': '10' }, { configmaps: '4', 'count/configmaps': '4' }), quota('other', { pods: '1' }, { pods: '0' })];
    const out = checkRequest(quotas, attrs('configmaps', cm()), evaluators.get('', 'configmaps'), [], NOW);
    assert.deepEqual(resourceListToJson(out[0]!.used), { configmaps: '5', 'count/configmaps': '5' });
    assert.equal(out[1], quotas[1]);
    const refused = refusal(() => checkRequest(out, attrs('configmaps', cm('cm-6')), evaluators.get('', 'configmaps'), [], NOW));
    assert.deepEqual(refused, {
      code: 403,
      reason: 'Forbidden',
      message: 'configmaps "cm-6" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=5, limited: configmaps=5',
    });
  });

  it('names a pod refused for compute after its generateName when it has no name yet', () => {
    const p = pod({ containers: [container('c', { cpu: '2' }, { cpu: '2' })] }, { metadata: { generateName: 'web-', namespace: 'ns' } });
    const quotas = [quota('compute', { 'requests.cpu': '1', 'limits.cpu': '4' }, { 'requests.cpu': '0', 'limits.cpu': '0' })];
    assert.equal(
      refusal(() => checkRequest(quotas, attrs('pods', p), POD_EVALUATOR, [], NOW)).message,
      'pods "web-" is forbidden: exceeded quota: compute, requested: requests.cpu=2, used: requests.cpu=0, limited: requests.cpu=1',
    );
    const noRequests = pod({ containers: [container('c')] });
    assert.equal(
      refusal(() => checkRequest(quotas, attrs('pods', noRequests), POD_EVALUATOR, [], NOW)).message,
      'pods "p" is forbidden: failed quota: compute: must specify limits.cpu for: c; requests.cpu for: c',
    );
  });

  it('refuses while a matching quota has no usage yet, and charges nothing to quotas of other resources', () => {
    const fresh = [quota('q', { configmaps: '5', secrets: '1' })];
    assert.equal(
      refusal(() => checkRequest(fresh, attrs('configmaps', cm()), evaluators.get('', 'configmaps'), [], NOW)).message,
      'configmaps "cm" is forbidden: status unknown for quota: q, resources: configmaps',
    );
    const podsOnly = [quota('p', { pods: '1' })];
    assert.deepEqual(checkRequest(podsOnly, attrs('configmaps', cm()), evaluators.get('', 'configmaps'), [], NOW), podsOnly);
  });

  it('charges an update only what it adds (a service becoming a load balancer)', () => {
    const old: KubeObject = { metadata: { name: 's', namespace: 'ns', resourceVersion: '3' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } };
    const next: KubeObject = { metadata: { name: 's', namespace: 'ns', resourceVersion: '3' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } };
    const quotas = [quota('q', { services: '2', 'services.loadbalancers': '1' }, { services: '2', 'services.loadbalancers': '0' })];
    const out = checkRequest(quotas, attrs('services', next, 'UPDATE', old), SERVICE_EVALUATOR, [], NOW);
    assert.deepEqual(resourceListToJson(out[0]!.used), { services: '2', 'services.loadbalancers': '1' });
  });

  it("refuses what the configuration's limitedResources require a covering quota for", () => {
    const config = parseResourceQuotaConfiguration({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'Configuration',
      limitedResources: [{ resource: 'pods', matchContains: ['cpu'], matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] }],
    });
    const p = pod({ containers: [container('c', { cpu: '1' })] });
    assert.equal(refusal(() => checkRequest([], attrs('pods', p), POD_EVALUATOR, config.limitedResources, NOW)).message, 'pods "p" is forbidden: insufficient quota to consume: cpu,requests.cpu');
    const covered = [quota('q', { 'requests.cpu': '4', cpu: '4' }, { 'requests.cpu': '0', cpu: '0' })];
    assert.equal(checkRequest(covered, attrs('pods', p), POD_EVALUATOR, config.limitedResources, NOW)[0]!.used.size, 2);
    const critical = pod({ containers: [container('c')], priorityClassName: 'cluster-services' });
    // kube returns a plain error here, which reaches the client as a 500 without a reason.
    assert.deepEqual(refusal(() => checkRequest([], attrs('pods', critical), POD_EVALUATOR, config.limitedResources, NOW)), {
      code: 500,
      message: 'insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]',
    });
    const scoped = [quota('crit', { pods: '10' }, { pods: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] } })];
    assert.equal(resourceListToJson(checkRequest(scoped, attrs('pods', critical), POD_EVALUATOR, config.limitedResources, NOW)[0]!.used).pods, '1');
    assert.throws(() => parseResourceQuotaConfiguration({ limitedResources: [{ apiGroup: '' }] }), /limitedResources\[0\]\.resource: Required value/);
  });

  it('prints lists and scopes as kube does', () => {
    assert.equal(prettyPrint(resourceListFromJson({ 'requests.memory': '1Gi', cpu: '500m', pods: 3 })), 'cpu=500m,pods=3,requests.memory=1Gi');
    assert.equal(formatScopes(scopeSelectorsOf({ spec: { scopes: ['BestEffort'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'NotIn', values: ['a', 'b'] }] } } })), '[{BestEffort Exists []} {PriorityClass NotIn [a b]}]');
  });
});
