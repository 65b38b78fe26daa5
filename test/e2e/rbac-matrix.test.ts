import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { ApiClient } from '../../src/machinery/client.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { issueClientCert } from '../../src/server/pki.js';
import { eventually, http, removeDir, tempDir, type Credentials } from '../helpers/server.js';

/**
 * The RBAC authorizer as a table: users bound through every kind of binding
 * and subject to roles with every wildcard form, each (user, verb, resource,
 * subresource, name, namespace) asked through SubjectAccessReview and, for a
 * slice of them, by real requests with client certificates. Each user's
 * expectation is written here as a plain predicate, not derived from the
 * rules.
 */

const RBAC = { group: 'rbac.authorization.k8s.io', version: 'v1' };

interface Req {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  name: string;
  namespace: string;
}

interface Who {
  user: string;
  groups: string[];
  /** What this user may do (besides the defaults every authenticated user has, which the cases avoid). */
  may(r: Req): boolean;
}

const READS = ['get', 'list', 'watch'];

const USERS: Who[] = [
  // Role in ns1 → RoleBinding to a User.
  { user: 'alice', groups: [], may: (r) => r.group === '' && r.resource === 'pods' && !r.subresource && READS.includes(r.verb) && r.namespace === 'ns1' },
  // ClusterRole with `*` verbs on deployments plus one subresource verb, bound in ns2 by a RoleBinding to a Group;
  // and a `*` resource rule of the core group for list in ns1.
  {
    user: 'bob',
    groups: ['devs'],
    may: (r) =>
      (r.namespace === 'ns2' && r.group === 'apps' && r.resource === 'deployments' && (!r.subresource || (r.subresource === 'scale' && r.verb === 'update'))) ||
      // `*` is every resource and every subresource.
      (r.namespace === 'ns1' && r.group === '' && r.verb === 'list'),
  },
  // ClusterRoleBinding to a ServiceAccount of a ClusterRole with resourceNames.
  { user: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:team'], may: (r) => r.group === '' && r.resource === 'secrets' && !r.subresource && r.verb === 'get' && r.name === 'token-a' },
  // `*/status` of every group, cluster-wide.
  { user: 'dave', groups: [], may: (r) => r.subresource === 'status' && (r.verb === 'get' || r.verb === 'patch') },
  // Cluster-scoped resource through a Group.
  { user: 'erin', groups: ['viewers'], may: (r) => r.group === '' && r.resource === 'nodes' && !r.subresource && (r.verb === 'get' || r.verb === 'list') },
  // An aggregated ClusterRole: its rules come from the roles its selector picks.
  { user: 'gina', groups: [], may: (r) => r.group === '' && r.resource === 'configmaps' && !r.subresource && (r.verb === 'create' || r.verb === 'delete') },
  // RoleBinding whose ServiceAccount subject has no namespace: the binding's.
  { user: 'system:serviceaccount:ns2:builder', groups: [], may: (r) => r.namespace === 'ns2' && r.group === 'batch' && r.resource === 'jobs' && !r.subresource && r.verb === 'create' },
  // Bound to nothing.
  { user: 'carol', groups: [], may: () => false },
];

const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const TARGETS: Array<Pick<Req, 'group' | 'resource' | 'subresource'>> = [
  { group: '', resource: 'pods', subresource: '' },
  { group: '', resource: 'pods', subresource: 'status' },
  { group: '', resource: 'pods', subresource: 'log' },
  { group: 'apps', resource: 'deployments', subresource: '' },
  { group: 'apps', resource: 'deployments', subresource: 'scale' },
  { group: 'apps', resource: 'deployments', subresource: 'status' },
  { group: '', resource: 'secrets', subresource: '' },
  { group: '', resource: 'nodes', subresource: '' },
  { group: '', resource: 'configmaps', subresource: '' },
  { group: 'batch', resource: 'jobs', subresource: '' },
];
const NAMESPACES = ['ns1', 'ns2', ''];

function nameFor(verb: string, target: Pick<Req, 'resource'>, i: number): string {
  if (verb === 'list' || verb === 'watch' || verb === 'create' || verb === 'deletecollection') return '';
  if (target.resource === 'secrets') return i % 2 === 0 ? 'token-a' : 'token-b';
  return 'x';
}

function cases(): Array<{ who: Who; req: Req }> {
  const out: Array<{ who: Who; req: Req }> = [];
  let i = 0;
  for (const who of USERS) {
    for (const verb of VERBS) {
      for (const t of TARGETS) {
        for (const namespace of NAMESPACES) {
          if (t.resource === 'nodes' && namespace) continue;
          out.push({ who, req: { verb, ...t, namespace, name: nameFor(verb, t, i++) } });
        }
      }
    }
  }
  return out;
}

const rule = (apiGroups: string[], resources: string[], verbs: string[], resourceNames?: string[]) => ({ apiGroups, resources, verbs, ...(resourceNames ? { resourceNames } : {}) });
const role = (kind: 'Role' | 'ClusterRole', name: string, rules: unknown[], extra: Record<string, unknown> = {}, namespace?: string): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}), ...((extra.labels as object) ? { labels: extra.labels as Record<string, string> } : {}) },
  rules,
  ...(extra.aggregationRule ? { aggregationRule: extra.aggregationRule } : {}),
});
const subject = (kind: string, name: string, namespace?: string) => (kind === 'ServiceAccount' ? { kind, name, ...(namespace ? { namespace } : {}) } : { apiGroup: 'rbac.authorization.k8s.io', kind, name });
const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleKind: string, roleName: string, subjects: unknown[], namespace?: string): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
  subjects,
});

async function createAll(c: ApiClient): Promise<void> {
  for (const ns of ['ns1', 'ns2']) await c.create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const roles = { ...RBAC, resource: 'roles' };
  const clusterRoles = { ...RBAC, resource: 'clusterroles' };
  const rbs = { ...RBAC, resource: 'rolebindings' };
  const crbs = { ...RBAC, resource: 'clusterrolebindings' };
  await c.create({ ...roles, namespace: 'ns1' }, role('Role', 'pod-reader', [rule([''], ['pods'], READS)], {}, 'ns1'));
  await c.create({ ...rbs, namespace: 'ns1' }, binding('RoleBinding', 'alice-reads', 'Role', 'pod-reader', [subject('User', 'alice')], 'ns1'));
  await c.create(clusterRoles, role('ClusterRole', 'deploy-admin', [rule(['apps'], ['deployments'], ['*']), rule(['apps'], ['deployments/scale'], ['update'])]));
  await c.create({ ...rbs, namespace: 'ns2' }, binding('RoleBinding', 'devs-deploy', 'ClusterRole', 'deploy-admin', [subject('Group', 'devs')], 'ns2'));
  await c.create(clusterRoles, role('ClusterRole', 'core-lister', [rule([''], ['*'], ['list'])]));
  await c.create({ ...rbs, namespace: 'ns1' }, binding('RoleBinding', 'devs-list', 'ClusterRole', 'core-lister', [subject('Group', 'devs')], 'ns1'));
  await c.create(clusterRoles, role('ClusterRole', 'secret-one', [rule([''], ['secrets'], ['get'], ['token-a'])]));
  await c.create(crbs, binding('ClusterRoleBinding', 'robot-secret', 'ClusterRole', 'secret-one', [subject('ServiceAccount', 'robot', 'team')]));
  await c.create(clusterRoles, role('ClusterRole', 'all-status', [rule(['*'], ['*/status'], ['get', 'patch'])]));
  await c.create(crbs, binding('ClusterRoleBinding', 'dave-status', 'ClusterRole', 'all-status', [subject('User', 'dave')]));
  await c.create(clusterRoles, role('ClusterRole', 'nodes-viewer', [rule([''], ['nodes'], ['get', 'list'])]));
  await c.create(crbs, binding('ClusterRoleBinding', 'viewers-nodes', 'ClusterRole', 'nodes-viewer', [subject('Group', 'viewers')]));
  await c.create(clusterRoles, role('ClusterRole', 'urls', [{ nonResourceURLs: ['/metrics', '/logs/*'], verbs: ['get'] }]));
  await c.create(crbs, binding('ClusterRoleBinding', 'frank-urls', 'ClusterRole', 'urls', [subject('User', 'frank')]));
  await c.create(clusterRoles, role('ClusterRole', 'agg-parent', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-parent': 'true' } }] } }));
  await c.create(clusterRoles, role('ClusterRole', 'agg-child-a', [rule([''], ['configmaps'], ['create'])], { labels: { 'example.com/aggregate-to-parent': 'true' } }));
  await c.create(clusterRoles, role('ClusterRole', 'agg-child-b', [rule([''], ['configmaps'], ['delete'])], { labels: { 'example.com/aggregate-to-parent': 'true' } }));
  await c.create(crbs, binding('ClusterRoleBinding', 'gina-agg', 'ClusterRole', 'agg-parent', [subject('User', 'gina')]));
  await c.create({ ...roles, namespace: 'ns2' }, role('Role', 'job-maker', [rule(['batch'], ['jobs'], ['create'])], {}, 'ns2'));
  await c.create({ ...rbs, namespace: 'ns2' }, binding('RoleBinding', 'builder-jobs', 'Role', 'job-maker', [subject('ServiceAccount', 'builder')], 'ns2'));
}

async function sar(c: ApiClient, spec: Record<string, unknown>): Promise<{ allowed: boolean; denied?: boolean; reason?: string }> {
  const answer = await c.create({ group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' }, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });
  return answer.status as { allowed: boolean; reason?: string };
}

describe('RBAC authorization matrix', () => {
  let server: ApiServer;
  let dir: string;
  let admin: ApiClient;
  let ca: { cert: string; key: string };
  const creds = new Map<string, Credentials>();
  const as = async (user: string, groups: string[]): Promise<{ url: string; creds: Credentials }> => {
    const key = `${user}|${groups.join(',')}`;
    let c = creds.get(key);
    if (!c) {
      const pair = await issueClientCert(ca, user, groups);
      c = { ca: server.pki.servingCa!, cert: pair.cert, key: pair.key };
      creds.set(key, c);
    }
    return { url: server.url, creds: c };
  };

  before(async () => {
    dir = tempDir('capstan-rbac-');
    server = new ApiServer({ config: { dataDir: dir, authorizationModes: ['RBAC'] } });
    await server.start();
    ca = { cert: readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'), key: readFileSync(join(dir, 'pki', 'ca.key'), 'utf8') };
    admin = server.client('rbac-matrix-test');
    await createAll(admin);
    // The aggregation controller fills agg-parent.
    await eventually(async () => ((await admin.get({ ...RBAC, resource: 'clusterroles', name: 'agg-parent' })).rules as unknown[] | undefined)?.length === 2);
  });

  after(async () => {
    await server.stop();
    removeDir(dir);
  });

  const all = cases();
  it(`answers ${all.length} resource cases through SubjectAccessReview as each user's bindings say`, async () => {
    assert.ok(all.length >= 300);
    // Once the last binding made is in the authorizer's view, all are.
    await eventually(async () => (await sar(admin, { user: 'system:serviceaccount:ns2:builder', resourceAttributes: { namespace: 'ns2', verb: 'create', group: 'batch', resource: 'jobs' } })).allowed);
    const wrong: string[] = [];
    for (const { who, req } of all) {
      const answer = await sar(admin, { user: who.user, groups: who.groups, resourceAttributes: { ...req } });
      if (answer.allowed !== who.may(req)) wrong.push(`${who.user} ${JSON.stringify(req)}: got ${answer.allowed}`);
    }
    assert.deepEqual(wrong, []);
  });

  it('names the binding that allowed, as kube does', async () => {
    const cases: Array<[string, string[], Record<string, string>, string]> = [
      ['alice', [], { namespace: 'ns1', verb: 'get', resource: 'pods' }, 'RBAC: allowed by RoleBinding "alice-reads/ns1" of Role "pod-reader" to User "alice"'],
      ['bob', ['devs'], { namespace: 'ns2', verb: 'delete', group: 'apps', resource: 'deployments' }, 'RBAC: allowed by RoleBinding "devs-deploy/ns2" of ClusterRole "deploy-admin" to Group "devs"'],
      ['system:serviceaccount:team:robot', [], { namespace: 'x', verb: 'get', resource: 'secrets', name: 'token-a' }, 'RBAC: allowed by ClusterRoleBinding "robot-secret" of ClusterRole "secret-one" to ServiceAccount "robot/team"'],
      ['system:serviceaccount:ns2:builder', [], { namespace: 'ns2', verb: 'create', group: 'batch', resource: 'jobs' }, 'RBAC: allowed by RoleBinding "builder-jobs/ns2" of Role "job-maker" to ServiceAccount "builder/ns2"'],
    ];
    for (const [user, groups, attrs, reason] of cases) assert.equal((await sar(admin, { user, groups, resourceAttributes: attrs })).reason, reason);
  });

  it('matches non-resource URLs exactly and by trailing *', async () => {
    const urlCases: Array<[string, string, string, boolean]> = [
      ['frank', '/metrics', 'get', true],
      ['frank', '/metrics/', 'get', false],
      ['frank', '/metricsx', 'get', false],
      ['frank', '/logs/', 'get', true],
      ['frank', '/logs/kube/x', 'get', true],
      ['frank', '/logs', 'get', false],
      ['frank', '/metrics', 'post', false],
      ['carol', '/metrics', 'get', false],
      ['carol', '/logs/a', 'get', false],
    ];
    for (const [user, path, verb, allowed] of urlCases) {
      assert.equal((await sar(admin, { user, groups: [], nonResourceAttributes: { path, verb } })).allowed, allowed, `${user} ${verb} ${path}`);
    }
    // The defaults: discovery for authenticated users only; health and version for everyone.
    const defaults: Array<[string[], string, boolean]> = [
      [['system:unauthenticated'], '/healthz', true],
      [['system:unauthenticated'], '/livez', true],
      [['system:unauthenticated'], '/readyz', true],
      [['system:unauthenticated'], '/version', true],
      [['system:unauthenticated'], '/version/', true],
      [['system:unauthenticated'], '/api', false],
      [['system:unauthenticated'], '/apis/apps', false],
      [['system:unauthenticated'], '/openapi/v2', false],
      [['system:unauthenticated'], '/metrics', false],
      [['system:authenticated'], '/api', true],
      [['system:authenticated'], '/api/v1', true],
      [['system:authenticated'], '/apis', true],
      [['system:authenticated'], '/apis/apps/v1', true],
      [['system:authenticated'], '/openapi/v3/apis/apps/v1', true],
      [['system:authenticated'], '/healthz/etcd', false],
      [['system:authenticated'], '/metrics', false],
      [['system:monitoring'], '/metrics', true],
      [['system:monitoring'], '/readyz/etcd', true],
      [['system:serviceaccounts'], '/openid/v1/jwks', true],
      [['system:authenticated'], '/openid/v1/jwks', false],
    ];
    for (const [groups, path, allowed] of defaults) {
      assert.equal((await sar(admin, { user: groups[0] === 'system:unauthenticated' ? 'system:anonymous' : 'someone', groups, nonResourceAttributes: { path, verb: 'get' } })).allowed, allowed, `${groups} ${path}`);
    }
  });

  it('gives real requests with client certificates the same answers, with kube forbidden messages', async () => {
    // Requests whose allowed outcome is not a 403 (the object may not exist: 404 is fine).
    const requests: Array<[string, string[], string, string, boolean]> = [
      ['alice', [], 'GET', '/api/v1/namespaces/ns1/pods', true],
      ['alice', [], 'GET', '/api/v1/namespaces/ns1/pods/x', true],
      ['alice', [], 'GET', '/api/v1/namespaces/ns1/pods?watch=1&timeoutSeconds=1', true],
      ['alice', [], 'GET', '/api/v1/namespaces/ns2/pods', false],
      ['alice', [], 'GET', '/api/v1/pods', false],
      ['alice', [], 'DELETE', '/api/v1/namespaces/ns1/pods/x', false],
      ['alice', [], 'GET', '/api/v1/namespaces/ns1/pods/x/log', false],
      ['bob', ['devs'], 'GET', '/apis/apps/v1/namespaces/ns2/deployments', true],
      ['bob', ['devs'], 'DELETE', '/apis/apps/v1/namespaces/ns2/deployments/x', true],
      ['bob', ['devs'], 'GET', '/apis/apps/v1/namespaces/ns1/deployments', false],
      ['bob', ['devs'], 'GET', '/api/v1/namespaces/ns1/secrets', true],
      ['bob', ['devs'], 'GET', '/api/v1/namespaces/ns1/secrets/s', false],
      ['system:serviceaccount:team:robot', [], 'GET', '/api/v1/namespaces/ns2/secrets/token-a', true],
      ['system:serviceaccount:team:robot', [], 'GET', '/api/v1/namespaces/ns2/secrets/token-b', false],
      ['system:serviceaccount:team:robot', [], 'GET', '/api/v1/namespaces/ns2/secrets', false],
      ['dave', [], 'GET', '/apis/apps/v1/namespaces/ns1/deployments/x/status', true],
      ['dave', [], 'GET', '/apis/apps/v1/namespaces/ns1/deployments/x', false],
      ['erin', ['viewers'], 'GET', '/api/v1/nodes', true],
      ['erin', ['viewers'], 'DELETE', '/api/v1/nodes/n1', false],
      ['frank', [], 'GET', '/metrics', true],
      ['carol', [], 'GET', '/metrics', false],
      ['carol', [], 'GET', '/api', true],
      ['carol', [], 'GET', '/apis/apps/v1', true],
      ['carol', [], 'GET', '/version', true],
      ['carol', [], 'GET', '/api/v1/namespaces', false],
    ];
    for (const [user, groups, method, path, allowed] of requests) {
      const res = await http(await as(user, groups), method, path);
      assert.equal(res.status !== 403, allowed, `${user} ${method} ${path}: ${res.status} ${res.text}`);
    }
    const denied = await http(await as('alice', []), 'GET', '/api/v1/namespaces/ns2/pods');
    assert.equal(denied.json.message, 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns2"');
    assert.deepEqual(denied.json.details, { kind: 'pods' });
    const named = await http(await as('bob', ['devs']), 'GET', '/apis/apps/v1/namespaces/ns1/deployments/web/scale');
    assert.equal(named.json.message, 'deployments.apps "web" is forbidden: User "bob" cannot get resource "deployments/scale" in API group "apps" in the namespace "ns1"');
    const cluster = await http(await as('carol', []), 'GET', '/api/v1/nodes');
    assert.equal(cluster.json.message, 'nodes is forbidden: User "carol" cannot list resource "nodes" in API group "" at the cluster scope');
    const path = await http(await as('carol', []), 'GET', '/metrics');
    assert.equal(path.json.message, 'forbidden: User "carol" cannot get path "/metrics"');
    const anonymous = await http(await as('carol', []), 'GET', '/api', { anonymous: true });
    assert.equal(anonymous.status, 403);
    assert.equal(anonymous.json.message, 'forbidden: User "system:anonymous" cannot get path "/api"');
    assert.equal((await http(await as('carol', []), 'GET', '/healthz', { anonymous: true })).status, 200);
  });

  it('reports a binding to a missing role in the reason', async () => {
    await admin.create({ ...RBAC, resource: 'rolebindings', namespace: 'ns1' }, binding('RoleBinding', 'dangling', 'Role', 'missing', [subject('User', 'hank')], 'ns1'));
    await eventually(async () => (await sar(admin, { user: 'hank', resourceAttributes: { namespace: 'ns1', verb: 'get', resource: 'pods' } })).reason !== undefined);
    const res = await http(await as('hank', []), 'GET', '/api/v1/namespaces/ns1/pods');
    assert.equal(res.json.message, 'pods is forbidden: User "hank" cannot list resource "pods" in API group "" in the namespace "ns1": RBAC: role.rbac.authorization.k8s.io "missing" not found');
  });

  it('applies a removed binding from the next request on', async () => {
    const gina = await as('gina', []);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-gina' } };
    assert.equal((await http(gina, 'POST', '/api/v1/namespaces/ns1/configmaps', { body: cm })).status, 201);
    await admin.delete({ ...RBAC, resource: 'clusterrolebindings', name: 'gina-agg' });
    await eventually(async () => (await http(gina, 'POST', '/api/v1/namespaces/ns1/configmaps', { body: { ...cm, metadata: { name: 'again' } } })).status === 403);
  });

  it('lists a user\'s rules in SelfSubjectRulesReview and answers SelfSubjectAccessReview', async () => {
    const alice = await as('alice', ['system:authenticated']);
    const rules = await http(alice, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'ns1' } } });
    assert.equal(rules.status, 201, rules.text);
    assert.equal(rules.json.status.incomplete, false);
    assert.ok(rules.json.status.resourceRules.some((r: { resources: string[]; verbs: string[] }) => r.resources.includes('pods') && r.verbs.includes('watch')));
    assert.ok(rules.json.status.resourceRules.some((r: { resources: string[] }) => r.resources.includes('selfsubjectrulesreviews')));
    assert.ok(rules.json.status.nonResourceRules.some((r: { nonResourceURLs: string[] }) => r.nonResourceURLs.includes('/api')));
    const other = await http(alice, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'ns2' } } });
    assert.ok(!other.json.status.resourceRules.some((r: { resources: string[] }) => r.resources.includes('pods')));
    const ssar = await http(alice, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 'ns1', verb: 'watch', resource: 'pods' } } } });
    assert.equal(ssar.json.status.allowed, true);
    // LocalSubjectAccessReview: only within its own namespace, and only for who may create it there.
    const lsar = await http(alice, 'POST', '/apis/authorization.k8s.io/v1/namespaces/ns1/localsubjectaccessreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', spec: { user: 'alice', resourceAttributes: { namespace: 'ns1', verb: 'get', resource: 'pods' } } } });
    assert.equal(lsar.status, 403);
    assert.equal(lsar.json.message, 'localsubjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "localsubjectaccessreviews" in API group "authorization.k8s.io" in the namespace "ns1"');
  });
});
