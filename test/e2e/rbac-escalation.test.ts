import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { ApiClient } from '../../src/machinery/client.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { issueClientCert } from '../../src/server/pki.js';
import { eventually, http, removeDir, tempDir, type Credentials } from '../helpers/server.js';

/**
 * Escalation prevention: a user writes a Role only with every permission in
 * it (or `escalate`), a binding only with the role's permissions (or `bind`
 * on it), an aggregationRule only as cluster-admin; kube's messages.
 */

const RBAC = { group: 'rbac.authorization.k8s.io', version: 'v1' };
const API = '/apis/rbac.authorization.k8s.io/v1';
const GROUPS = '(groups=["system:authenticated"])';

const role = (name: string, rules: unknown[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules });
const binding = (name: string, kind: string, roleName: string, user = 'someone') => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
});

describe('RBAC escalation prevention', () => {
  let server: ApiServer;
  let dir: string;
  let admin: ApiClient;
  let lead: { url: string; creds: Credentials };
  let boss: { url: string; creds: Credentials };

  before(async () => {
    dir = tempDir('capstan-rbac-esc-');
    server = new ApiServer({ config: { dataDir: dir, authorizationModes: ['RBAC'] } });
    await server.start();
    const ca = { cert: readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'), key: readFileSync(join(dir, 'pki', 'ca.key'), 'utf8') };
    const cred = async (user: string) => {
      const pair = await issueClientCert(ca, user, []);
      return { url: server.url, creds: { ca: server.pki.servingCa!, cert: pair.cert, key: pair.key } };
    };
    lead = await cred('lead');
    boss = await cred('boss');
    admin = server.client('rbac-escalation-test');
    await admin.create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    // lead may manage roles and bindings in team and read pods there.
    await admin.create({ ...RBAC, resource: 'roles', namespace: 'team' }, role('lead', [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'get', 'patch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    ]));
    await admin.create({ ...RBAC, resource: 'rolebindings', namespace: 'team' }, binding('lead', 'Role', 'lead', 'lead'));
    // boss may also escalate roles and bind cluster-admin in team.
    await admin.create({ ...RBAC, resource: 'roles', namespace: 'team' }, role('boss', [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'get', 'escalate'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-admin'] },
    ]));
    await admin.create({ ...RBAC, resource: 'rolebindings', namespace: 'team' }, binding('boss', 'Role', 'boss', 'boss'));
    await admin.create({ ...RBAC, resource: 'clusterroles' }, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'role-editor' },
      rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['get', 'update', 'create'] }],
    });
    await admin.create({ ...RBAC, resource: 'clusterrolebindings' }, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'lead-role-editor' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'role-editor' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'lead' }],
    });
    await eventually(async () => (await http(lead, 'GET', `${API}/namespaces/team/roles/lead`)).status === 200 && (await http(boss, 'GET', `${API}/namespaces/team/roles/boss`)).status === 200);
  });

  after(async () => {
    await server.stop();
    removeDir(dir);
  });

  it('refuses a Role granting more than its creator holds, with the missing rules', async () => {
    const res = await http(lead, 'POST', `${API}/namespaces/team/roles`, {
      body: role('too-much', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete'] }, { apiGroups: ['apps'], resources: ['deployments', 'deployments/scale'], verbs: ['get'] }]),
    });
    assert.equal(res.status, 403);
    assert.equal(res.json.reason, 'Forbidden');
    assert.equal(
      res.json.message,
      `roles.rbac.authorization.k8s.io "too-much" is forbidden: user "lead" ${GROUPS} is attempting to grant RBAC permissions not currently held:\n` +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n' +
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}\n' +
        '{APIGroups:["apps"], Resources:["deployments/scale"], Verbs:["get"]}',
    );
    assert.deepEqual(res.json.details, { name: 'too-much', group: 'rbac.authorization.k8s.io', kind: 'roles' });
    assert.equal((await http(lead, 'GET', `${API}/namespaces/team/roles/too-much`)).status, 404, 'nothing was written');
  });

  it('allows a Role within what its creator holds, and more with escalate', async () => {
    assert.equal((await http(lead, 'POST', `${API}/namespaces/team/roles`, { body: role('reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]) })).status, 201);
    assert.equal((await http(boss, 'POST', `${API}/namespaces/team/roles`, { body: role('anything', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]) })).status, 201);
    // An update adding a permission is checked too.
    const current = (await http(lead, 'GET', `${API}/namespaces/team/roles/reader`)).json;
    const more = await http(lead, 'PUT', `${API}/namespaces/team/roles/reader`, { body: { ...current, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'watch'] }] } });
    assert.equal(more.status, 403);
    assert.match(more.json.message, /is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["pods"\], Verbs:\["watch"\]\}$/);
  });

  it('refuses binding cluster-admin without bind, and allows it with bind on that role', async () => {
    const refused = await http(lead, 'POST', `${API}/namespaces/team/rolebindings`, { body: binding('admins', 'ClusterRole', 'cluster-admin') });
    assert.equal(refused.status, 403);
    assert.equal(
      refused.json.message,
      `rolebindings.rbac.authorization.k8s.io "admins" is forbidden: user "lead" ${GROUPS} is attempting to grant RBAC permissions not currently held:\n` +
        '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}',
    );
    assert.equal((await http(boss, 'POST', `${API}/namespaces/team/rolebindings`, { body: binding('admins', 'ClusterRole', 'cluster-admin') })).status, 201);
    // A binding to a role whose permissions the creator holds needs no bind.
    assert.equal((await http(lead, 'POST', `${API}/namespaces/team/rolebindings`, { body: binding('readers', 'Role', 'reader') })).status, 201);
    // A binding to a role that does not exist: the registry's NotFound.
    const missing = await http(lead, 'POST', `${API}/namespaces/team/rolebindings`, { body: binding('nothing', 'Role', 'nope') });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.message, 'roles.rbac.authorization.k8s.io "nope" not found');
  });

  it('keeps roleRef immutable', async () => {
    const current = (await http(lead, 'GET', `${API}/namespaces/team/rolebindings/readers`)).json;
    const res = await http(lead, 'PUT', `${API}/namespaces/team/rolebindings/readers`, { body: { ...current, roleRef: { ...current.roleRef, name: 'lead' } } });
    assert.equal(res.status, 422);
    assert.match(res.json.message, /^RoleBinding\.rbac\.authorization\.k8s\.io "readers" is invalid: roleRef: Invalid value: .*: cannot change roleRef$/);
  });

  it('refuses setting or editing an aggregationRule without cluster-admin', async () => {
    const aggregated = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'lead-agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] }, rules: [] };
    const created = await http(lead, 'POST', `${API}/clusterroles`, { body: aggregated });
    assert.equal(created.status, 403);
    assert.equal(created.json.message, 'clusterroles.rbac.authorization.k8s.io "lead-agg" is forbidden: must have cluster-admin privileges to use the aggregationRule');
    // Editing the rules of an aggregated default role (view) is refused the same way.
    const view = (await http(lead, 'GET', `${API}/clusterroles/view`)).json;
    const edited = await http(lead, 'PUT', `${API}/clusterroles/view`, { body: { ...view, rules: [] } });
    assert.equal(edited.status, 403);
    assert.equal(edited.json.message, 'clusterroles.rbac.authorization.k8s.io "view" is forbidden: must have cluster-admin privileges to use the aggregationRule');
  });

  it('lets system:masters write anything', async () => {
    await admin.create({ ...RBAC, resource: 'roles', namespace: 'team' }, role('root-made', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
  });
});
