import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ApiCatalog } from '../../src/api/catalog.js';
import type { ResourceInfo } from '../../src/api/types.js';
import type { AdmissionAttributes } from '../../src/admission/admission.js';
import { admissionRequest } from '../../src/admission/matching/admission-request.js';
import { MatchConditions, validateMatchConditions } from '../../src/admission/matching/match-conditions.js';
import { AdmissionMatcher, VersionedObjects } from '../../src/admission/matching/matcher.js';
import { isExemptAdmissionConfigurationResource, ruleMatches, ruleTarget } from '../../src/admission/matching/rules.js';
import type { Authorizer } from '../../src/authz/authorizer.js';
import { ApiError } from '../../src/machinery/errors.js';
import '../../src/registry/conversions/index.js';
import type { KubeObject } from '../../src/machinery/object.js';

const catalog = ApiCatalog.load();

function res(group: string, version: string, name: string): ResourceInfo {
  const r = catalog.resource(group, version, name);
  assert.ok(r, `${group}/${version}/${name}`);
  return r;
}

const pods = res('', 'v1', 'pods');
const namespaces = res('', 'v1', 'namespaces');
const nodes = res('', 'v1', 'nodes');

function attrs(over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return { operation: 'CREATE', resource: pods, subresource: '', namespace: 'team-a', name: 'p', dryRun: false, ...over };
}

const namespaceObjects: Record<string, KubeObject> = {
  'team-a': { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { env: 'prod' } } },
  'team-b': { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b', labels: { env: 'dev' } } },
};
const matcher = new AdmissionMatcher(catalog, async (name) => namespaceObjects[name]);

describe('admission matching: rules', () => {
  const match = (rule: Parameters<typeof ruleMatches>[0], a: AdmissionAttributes): boolean => ruleMatches(rule, ruleTarget(a));
  const all = { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'] };

  it('matches operations, groups and versions, with * as a wildcard', () => {
    assert.equal(match({ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }, attrs()), true);
    assert.equal(match({ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }, attrs()), false);
    assert.equal(match({ operations: ['*'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['pods'] }, attrs()), false);
    assert.equal(match({ operations: ['*'], apiGroups: [''], apiVersions: ['v2'], resources: ['pods'] }, attrs()), false);
    assert.equal(match({ ...all, resources: ['pods'] }, attrs({ operation: 'DELETE' })), true);
    assert.equal(match({ ...all, resources: ['pods'], operations: [] }, attrs()), false);
  });

  it('reads resources with subresources as kube does', () => {
    const status = attrs({ operation: 'UPDATE', subresource: 'status' });
    assert.equal(match({ ...all, resources: ['pods'] }, status), false);
    assert.equal(match({ ...all, resources: ['pods/status'] }, status), true);
    assert.equal(match({ ...all, resources: ['pods/*'] }, status), true);
    assert.equal(match({ ...all, resources: ['pods/*'] }, attrs()), true, 'pods/* includes the main resource');
    assert.equal(match({ ...all, resources: ['*'] }, status), false, '* is every resource without subresource');
    assert.equal(match({ ...all, resources: ['*'] }, attrs()), true);
    assert.equal(match({ ...all, resources: ['*/*'] }, status), true);
    assert.equal(match({ ...all, resources: ['*/status'] }, status), true);
    assert.equal(match({ ...all, resources: ['*/status'] }, attrs()), false);
    assert.equal(match({ ...all, resources: ['*/scale'] }, status), false);
  });

  it('scopes: a namespace object is cluster-scoped although its requests carry its name', () => {
    const nsUpdate = attrs({ resource: namespaces, namespace: '', name: 'team-a', operation: 'UPDATE' });
    const node = attrs({ resource: nodes, namespace: '', name: 'n1' });
    for (const [scope, pod, ns, n] of [['Namespaced', true, false, false], ['Cluster', false, true, true], ['*', true, true, true], [undefined, true, true, true]] as const) {
      const rule = { ...all, resources: ['*'], ...(scope ? { scope } : {}) };
      assert.equal(match(rule, attrs()), pod, `${scope} pod`);
      assert.equal(match(rule, nsUpdate), ns, `${scope} namespace`);
      assert.equal(match(rule, node), n, `${scope} node`);
    }
  });

  it('exempts the admission configuration objects', () => {
    assert.equal(isExemptAdmissionConfigurationResource({ resource: res('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations') }), true);
    assert.equal(isExemptAdmissionConfigurationResource({ resource: res('admissionregistration.k8s.io', 'v1', 'mutatingadmissionpolicies') }), true);
    assert.equal(isExemptAdmissionConfigurationResource({ resource: pods }), false);
  });
});

describe('admission matching: selectors', () => {
  const rules = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }];

  it('namespaceSelector reads the request namespace\'s labels', async () => {
    const criteria = { rules, namespaceSelector: { matchLabels: { env: 'prod' } } };
    assert.ok(await matcher.matchWebhook(criteria, attrs()));
    assert.equal(await matcher.matchWebhook(criteria, attrs({ namespace: 'team-b' })), undefined);
    const expr = { rules, namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] } };
    assert.equal(await matcher.matchWebhook(expr, attrs()), undefined);
    assert.ok(await matcher.matchWebhook(expr, attrs({ namespace: 'team-b' })));
  });

  it('cluster-scoped objects other than namespaces always pass the namespaceSelector', async () => {
    const criteria = { rules, namespaceSelector: { matchLabels: { env: 'prod' } } };
    assert.ok(await matcher.matchWebhook(criteria, attrs({ resource: nodes, namespace: '' })));
  });

  it('a namespace created or updated is matched by its own new labels, a deleted one by its stored labels', async () => {
    const criteria = { rules, namespaceSelector: { matchLabels: { env: 'prod' } } };
    const created = (labels: Record<string, string>): AdmissionAttributes => attrs({ resource: namespaces, namespace: '', name: 'new', object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new', labels } } });
    assert.ok(await matcher.matchWebhook(criteria, created({ env: 'prod' })));
    assert.equal(await matcher.matchWebhook(criteria, created({ env: 'dev' })), undefined);
    const deleting = attrs({ resource: namespaces, namespace: '', name: 'team-a', operation: 'DELETE', oldObject: namespaceObjects['team-a'] });
    assert.ok(await matcher.matchWebhook(criteria, deleting));
  });

  it('a namespace that cannot be read fails the request only when the rules match', async () => {
    const criteria = { rules, namespaceSelector: { matchLabels: { env: 'prod' } } };
    await assert.rejects(matcher.matchWebhook(criteria, attrs({ namespace: 'gone' })), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 500);
      assert.equal(e.status.message, 'Internal error occurred: namespaces "gone" not found');
      return true;
    });
    const other = { rules: [{ ...rules[0]!, apiGroups: ['apps'] }], namespaceSelector: { matchLabels: { env: 'prod' } } };
    assert.equal(await matcher.matchWebhook(other, attrs({ namespace: 'gone' })), undefined);
  });

  it('objectSelector matches the new or the old object\'s labels', async () => {
    const criteria = { rules, objectSelector: { matchLabels: { app: 'web' } } };
    const web = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'web' } } };
    const db = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'db' } } };
    assert.ok(await matcher.matchWebhook(criteria, attrs({ object: web })));
    assert.equal(await matcher.matchWebhook(criteria, attrs({ object: db })), undefined);
    assert.ok(await matcher.matchWebhook(criteria, attrs({ operation: 'UPDATE', object: db, oldObject: web })));
    assert.ok(await matcher.matchWebhook(criteria, attrs({ operation: 'DELETE', oldObject: web })));
    assert.ok(await matcher.matchWebhook({ rules, objectSelector: {} }, attrs({ object: db })), 'an empty selector selects everything');
  });
});

describe('admission matching: policies\' matchResources', () => {
  it('excludeResourceRules win over resourceRules, resourceNames narrow a rule', async () => {
    const rule = { operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };
    assert.ok(await matcher.matchResources({ resourceRules: [rule] }, attrs()));
    assert.equal(await matcher.matchResources({ resourceRules: [rule], excludeResourceRules: [rule] }, attrs()), undefined);
    assert.ok(await matcher.matchResources({ resourceRules: [rule], excludeResourceRules: [{ ...rule, resourceNames: ['other'] }] }, attrs()));
    assert.equal(await matcher.matchResources({ resourceRules: [{ ...rule, resourceNames: ['other'] }] }, attrs()), undefined);
    assert.ok(await matcher.matchResources({ resourceRules: [{ ...rule, resourceNames: ['p'] }] }, attrs()));
    assert.ok(await matcher.matchResources({}, attrs()), 'no resourceRules: every request');
  });
});

describe('admission matching: matchPolicy', () => {
  const hpaV1 = res('autoscaling', 'v1', 'horizontalpodautoscalers');
  const v2Rule = { operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] };
  const hpa: KubeObject = {
    apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'team-a' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
  };
  const request = attrs({ resource: hpaV1, name: 'h', object: hpa });

  it('Exact matches only the request\'s own group and version', async () => {
    assert.equal(await matcher.matchWebhook({ rules: [v2Rule], matchPolicy: 'Exact' }, request), undefined);
  });

  it('Equivalent matches another version of the same objects and converts the request to it', async () => {
    const m = await matcher.matchWebhook({ rules: [v2Rule], matchPolicy: 'Equivalent' }, request);
    assert.ok(m);
    assert.equal(m.resource.version, 'v2');
    assert.deepEqual(m.kind, { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
    const versioned = new VersionedObjects(request).of(m);
    assert.equal(versioned.object?.apiVersion, 'autoscaling/v2');
    const spec = versioned.object?.spec as { metrics?: unknown[]; targetCPUUtilizationPercentage?: number };
    assert.equal(spec.targetCPUUtilizationPercentage, undefined);
    assert.equal(spec.metrics?.length, 1);
    assert.equal(hpa.apiVersion, 'autoscaling/v1', 'the request\'s object is not changed');
    const review = admissionRequest(request, versioned, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' }, 'u1');
    assert.deepEqual(review.resource, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' });
    assert.deepEqual(review.requestResource, { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' });
    assert.equal(review.requestKind.version, 'v1');
  });

  it('events in core v1 and events.k8s.io/v1 are the same objects', async () => {
    const rule = { operations: ['*'], apiGroups: ['events.k8s.io'], apiVersions: ['v1'], resources: ['events'] };
    const m = await matcher.matchResources({ resourceRules: [rule], matchPolicy: 'Equivalent' }, attrs({ resource: res('', 'v1', 'events') }));
    assert.equal(m?.resource.group, 'events.k8s.io');
    assert.equal(await matcher.matchResources({ resourceRules: [rule], matchPolicy: 'Exact' }, attrs({ resource: res('', 'v1', 'events') })), undefined);
  });
});

describe('admission matching: matchConditions', () => {
  const user = { username: 'alice', groups: ['dev', 'system:authenticated'] };
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'team-a', labels: { app: 'web' } } };
  const input = (a: AdmissionAttributes) => ({
    attrs: a,
    request: admissionRequest(a, { resource: a.resource, kind: { group: '', version: 'v1', kind: 'Pod' }, ...(a.object ? { object: a.object } : {}) }, { group: '', version: 'v1', kind: 'Pod' }, 'uid-1'),
  });
  const a = attrs({ object: pod, user });

  it('all true matches; any false skips, naming the condition', async () => {
    const c = new MatchConditions([
      { name: 'is-web', expression: "object.metadata.labels['app'] == 'web'" },
      { name: 'by-alice', expression: "request.userInfo.username == 'alice' && request.operation == 'CREATE' && oldObject == null" },
    ], 'Fail', undefined);
    assert.deepEqual(await c.evaluate(input(a)), { matches: true });
    const bob = new MatchConditions([{ name: 'by-bob', expression: "request.userInfo.username == 'bob'" }], 'Fail', undefined);
    assert.deepEqual(await bob.evaluate(input(a)), { matches: false, failedCondition: 'by-bob' });
  });

  it('an error is the failure policy\'s: Fail reports it, Ignore skips; a false condition still skips', async () => {
    const broken = { name: 'broken', expression: "object.metadata.labels['missing'] == 'x'" };
    const fail = await new MatchConditions([broken], 'Fail', undefined).evaluate(input(a));
    assert.equal(fail.matches, false);
    assert.ok('error' in fail && fail.error.message.startsWith("expression 'object.metadata.labels['missing'] == 'x'' resulted in error: "), JSON.stringify('error' in fail && fail.error.message));
    assert.deepEqual(await new MatchConditions([broken], 'Ignore', undefined).evaluate(input(a)), { matches: false });
    const falseToo = await new MatchConditions([broken, { name: 'no', expression: 'false' }], 'Fail', undefined).evaluate(input(a));
    assert.deepEqual(falseToo, { matches: false, failedCondition: 'no' });
  });

  it('asks the authorizer, and authorizer.requestResource names the request', async () => {
    const seen: unknown[] = [];
    const authorizer: Authorizer = {
      async authorize(attributes) {
        seen.push(attributes);
        return { decision: attributes.verb === 'create' ? 'Allow' : 'NoOpinion', reason: '' };
      },
    };
    const c = new MatchConditions([{ name: 'can', expression: "authorizer.requestResource.check('create').allowed() && !authorizer.group('apps').resource('deployments').check('delete').allowed()" }], 'Fail', authorizer);
    assert.deepEqual(await c.evaluate(input(a)), { matches: true });
    assert.deepEqual((seen[0] as { resource: string; namespace: string; name: string; user: { username: string } }).resource, 'pods');
    assert.equal((seen[0] as { namespace: string }).namespace, 'team-a');
    assert.equal((seen[0] as { user: { username: string } }).user.username, 'alice');
  });

  it('validates as kube: at most 64, names required and unique, expressions compile to bool', () => {
    const ok = (name: string, field: string) => (/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) ? [] : [{ type: 'FieldValueInvalid' as const, field, value: name, detail: 'bad' }]);
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    assert.deepEqual(validateMatchConditions(many, 'webhooks[0].matchConditions', ok).map((e) => [e.type, e.field, e.detail]), [['FieldValueTooMany', 'webhooks[0].matchConditions', 'must have at most 64 items']]);
    const errs = validateMatchConditions([
      { name: 'a', expression: "'x'" },
      { name: 'a', expression: ' ' },
      { name: '', expression: 'object.x ==' },
    ], 'm', ok);
    assert.deepEqual(errs.map((e) => [e.type, e.field]), [
      ['FieldValueInvalid', 'm[0].expression'],
      ['FieldValueRequired', 'm[1].expression'],
      ['FieldValueDuplicate', 'm[1].name'],
      ['FieldValueInvalid', 'm[2].expression'],
      ['FieldValueRequired', 'm[2].name'],
    ]);
    assert.equal(errs[0]!.detail, 'must evaluate to bool');
    assert.match(String(errs[3]!.detail), /^compilation failed: ERROR: <input>:1:/);
  });
});
