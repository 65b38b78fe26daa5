import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { validateAuthorizationFlags } from '../../src/authz/modes.js';
import { bootstrapPolicy } from '../../src/authz/rbac/bootstrap-policy.js';
import { compactRules, compactString, covers } from '../../src/authz/rbac/rules.js';
import { reconcileBinding, reconcileRole } from '../../src/controllers/rbac-bootstrap.js';
import { configFromFlags } from '../../src/server/options.js';
import { FlagError } from '../../src/server/flags.js';

describe('RBAC default policy', () => {
  const policy = bootstrapPolicy();
  const names = (objs: { metadata?: { name?: string } }[]) => objs.map((o) => o.metadata!.name!);

  it('has kube 1.36 default roles, labelled and annotated for reconciliation', () => {
    const roles = names(policy.clusterRoles);
    for (const n of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:monitoring', 'system:auth-delegator', 'system:node-bootstrapper', 'system:service-account-issuer-discovery', 'system:kube-controller-manager', 'system:kube-scheduler', 'system:node', 'system:controller:namespace-controller', 'system:controller:clusterrole-aggregation-controller']) {
      assert.ok(roles.includes(n), n);
    }
    for (const o of [...policy.clusterRoles, ...policy.clusterRoleBindings, ...policy.roles, ...policy.roleBindings]) {
      assert.equal(o.metadata?.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults');
      assert.equal(o.metadata?.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true');
    }
    const view = policy.clusterRoles.find((r) => r.metadata!.name === 'view')!;
    assert.deepEqual(view.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] });
    assert.equal(view.metadata!.labels!['rbac.authorization.k8s.io/aggregate-to-edit'], 'true');
  });

  it('follows 1.36 policy code and default gates where they differ from older releases', () => {
    const rules = (name: string) => policy.clusterRoles.find((r) => r.metadata!.name === name)!.rules as Record<string, string[]>[];
    const has = (name: string, rule: Record<string, string[]>) => assert.ok(rules(name).some((r) => JSON.stringify(r) === JSON.stringify(rule)), `${name} ${JSON.stringify(rule)}`);
    has('system:monitoring', { apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] });
    has('system:kubelet-api-admin', { apiGroups: [''], resources: ['nodes/configz', 'nodes/healthz', 'nodes/pods'], verbs: ['*'] }); // KubeletFineGrainedAuthz
    has('system:node', { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get'] }); // KubeletServiceAccountTokenForCredentialProviders
    has('system:node-proxier', { apiGroups: ['networking.k8s.io'], resources: ['servicecidrs'], verbs: ['list', 'watch'] });
    has('system:kube-scheduler', { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims'], verbs: ['create', 'delete'] }); // DRAExtendedResource
    has('system:aggregate-to-view', { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['get', 'list', 'watch'] });
    const roles = names(policy.clusterRoles);
    assert.ok(roles.includes('system:controller:device-taint-eviction-controller'), 'DRADeviceTaints is on in 1.36');
    assert.ok(!rules('system:controller:device-taint-eviction-controller').some((r) => r.resources?.includes('devicetaintrules')), 'DRADeviceTaintRules is off in 1.36');
    for (const off of ['system:cluster-trust-bundle-discovery', 'system:controller:podgroup-protection-controller', 'system:controller:storage-version-garbage-collector']) assert.ok(!roles.includes(off), off);
    assert.ok(!rules('system:kube-scheduler').some((r) => r.apiGroups?.includes('scheduling.k8s.io')), 'GenericWorkload is off in 1.36');
  });

  it('binds discovery to authenticated users only, public info to everyone, cluster-admin to system:masters, controllers to their service accounts', () => {
    const subjectsOf = (name: string) => (policy.clusterRoleBindings.find((b) => b.metadata!.name === name)!.subjects as { name: string }[] | undefined)?.map((s) => s.name);
    assert.deepEqual(subjectsOf('system:discovery'), ['system:authenticated']);
    assert.deepEqual(subjectsOf('system:basic-user'), ['system:authenticated']);
    assert.deepEqual(subjectsOf('system:public-info-viewer'), ['system:authenticated', 'system:unauthenticated']);
    assert.deepEqual(subjectsOf('cluster-admin'), ['system:masters']);
    assert.equal(subjectsOf('system:node'), undefined, 'the deprecated system:node binding has no subjects');
    const ns = policy.clusterRoleBindings.find((b) => b.metadata!.name === 'system:controller:namespace-controller')!;
    assert.deepEqual(ns.subjects, [{ kind: 'ServiceAccount', name: 'namespace-controller', namespace: 'kube-system' }]);
    assert.deepEqual(names(policy.roleBindings.filter((b) => b.metadata!.namespace === 'kube-public')), ['system:controller:bootstrap-signer']);
  });

  it('reconciles missing rules, labels and subjects, and leaves autoupdate=false alone', () => {
    const expected = policy.clusterRoles.find((r) => r.metadata!.name === 'system:discovery')!;
    const edited = { ...structuredClone(expected), rules: [{ nonResourceURLs: ['/api'], verbs: ['get'] }, { nonResourceURLs: ['/custom'], verbs: ['get'] }] };
    edited.metadata!.labels = { mine: 'yes' };
    const fixed = reconcileRole(edited, expected)!;
    assert.equal(fixed.metadata!.labels!.mine, 'yes');
    assert.equal(fixed.metadata!.labels!['kubernetes.io/bootstrapping'], 'rbac-defaults');
    assert.ok(covers(fixed.rules as never, expected.rules as never).covered);
    assert.deepEqual((fixed.rules as unknown[]).slice(0, 2), edited.rules, 'nothing is removed');
    assert.equal(reconcileRole(fixed, expected), undefined, 'a second pass changes nothing');
    edited.metadata!.annotations = { 'rbac.authorization.kubernetes.io/autoupdate': 'false' };
    assert.equal(reconcileRole(edited, expected), undefined);
    const b = policy.clusterRoleBindings.find((x) => x.metadata!.name === 'system:public-info-viewer')!;
    const fewer = { ...structuredClone(b), subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'extra' }] };
    assert.deepEqual((reconcileBinding(fewer, b)!.subjects as { name: string }[]).map((s) => s.name), ['extra', 'system:authenticated', 'system:unauthenticated']);
  });
});

describe('RBAC rule coverage', () => {
  it('covers by wildcard, */subresource, URL prefix and resource names', () => {
    const owner = [
      { apiGroups: [''], resources: ['*/status', 'pods'], verbs: ['get'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'], resourceNames: ['web'] },
      { nonResourceURLs: ['/logs/*'], verbs: ['get'] },
    ];
    assert.ok(covers(owner, [{ apiGroups: [''], resources: ['nodes/status', 'pods'], verbs: ['get'] }]).covered);
    assert.ok(covers(owner, [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['delete'], resourceNames: ['web'] }]).covered);
    assert.ok(!covers(owner, [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['delete'] }]).covered, 'names do not cover all objects');
    assert.ok(covers(owner, [{ nonResourceURLs: ['/logs/a/b'], verbs: ['get'] }]).covered);
    assert.ok(!covers(owner, [{ nonResourceURLs: ['/logs'], verbs: ['get'] }]).covered);
    const { missing } = covers(owner, [{ apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['get', 'list'] }]);
    assert.deepEqual(compactRules(missing).map(compactString).sort(), ['{APIGroups:[""], Resources:["pods"], Verbs:["list"]}', '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}']);
  });
});

describe('--authorization-mode', () => {
  it('validates as kube-apiserver does, with its messages', () => {
    assert.deepEqual(validateAuthorizationFlags({ modes: [] }), ['at least one authorization-mode must be passed']);
    assert.deepEqual(validateAuthorizationFlags({ modes: ['RBAC', 'Foo'] }), ['authorization-mode "Foo" is not a valid mode']);
    assert.deepEqual(validateAuthorizationFlags({ modes: ['RBAC', 'RBAC'] }), ['authorization-mode ["RBAC" "RBAC"] has mode specified more than once']);
    assert.deepEqual(validateAuthorizationFlags({ modes: ['ABAC'] }), ["authorization-mode ABAC's authorization policy file not passed"]);
    assert.deepEqual(validateAuthorizationFlags({ modes: ['RBAC'], policyFile: 'p' }), ['cannot specify --authorization-policy-file without mode ABAC']);
    assert.deepEqual(validateAuthorizationFlags({ modes: ['RBAC'], configFile: 'c', modeFlagSet: true }), [
      '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
    ]);
  });

  it('defaults capstan serve to Node,RBAC and refuses bad lists at start', () => {
    assert.deepEqual(configFromFlags(['--storage-backend', 'memory']).config.authorizationModes, ['Node', 'RBAC']);
    assert.deepEqual(configFromFlags(['--authorization-mode', 'AlwaysDeny,RBAC']).config.authorizationModes, ['AlwaysDeny', 'RBAC']);
    assert.throws(() => configFromFlags(['--authorization-mode', 'Nope,RBAC,RBAC']), (e: unknown) => e instanceof FlagError && e.message === '[authorization-mode "Nope" is not a valid mode, authorization-mode ["Nope" "RBAC" "RBAC"] has mode specified more than once]');
    assert.throws(() => configFromFlags(['--authorization-mode', 'RBAC', '--authorization-config', '/x.yaml']), /--authorization-config can not be specified when --authorization-mode or --authorization-webhook-\* flags are defined/);
  });
});
