import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';
import { userKubeconfig } from '../helpers/users.js';

/**
 * `capstan serve` with its default authorization (RBAC) driven by kubectl as
 * limited users with client certificates: forbidden messages word for word,
 * `auth can-i` (with --list), `auth reconcile`, the default ClusterRoles, and
 * their restoration at the next start.
 */

const skip = kubectlMissing();

const RECONCILE = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pod-reader
  namespace: default
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: jane-reads
  namespace: default
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: pod-reader
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: jane
`;

describe('kubectl as limited users under RBAC', { skip }, () => {
  let server: TestServer;
  let jane: { kubeconfig: string };
  let dir: string;

  before(async () => {
    server = await startServer({ backend: 'sqlite', strictRbac: true });
    dir = tempDir('capstan-rbac-kubectl-');
    jane = await userKubeconfig(server, dir, 'jane', ['dev-team']);
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    if (dir) removeDir(dir);
  });

  it('lists the default ClusterRoles', async () => {
    const r = await kubectl(server, ['get', 'clusterroles', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:public-info-viewer', 'system:basic-user', 'system:monitoring', 'system:controller:namespace-controller']) {
      assert.ok(r.stdout.includes(`clusterrole.rbac.authorization.k8s.io/${name}\n`), name);
    }
    const bindings = await kubectl(server, ['get', 'clusterrolebinding', 'cluster-admin', '-o', 'jsonpath={.subjects[0].name} {.metadata.labels.kubernetes\\.io/bootstrapping}']);
    assert.equal(bindings.stdout, 'system:masters rbac-defaults');
  });

  it('refuses a limited user with kube\'s words', async () => {
    const r = await kubectl(jane, ['get', 'pods', '-n', 'default']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"');
    const node = await kubectl(jane, ['get', 'nodes']);
    assert.equal(node.stderr.trim(), 'Error from server (Forbidden): nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope');
    const one = await kubectl(jane, ['get', 'deployment', 'web', '-n', 'default']);
    assert.equal(one.stderr.trim(), 'Error from server (Forbidden): deployments.apps "web" is forbidden: User "jane" cannot get resource "deployments" in API group "apps" in the namespace "default"');
  });

  it('answers auth can-i, then auth reconcile grants, and can-i --list shows it', async () => {
    const no = await kubectl(jane, ['auth', 'can-i', 'list', 'pods', '-n', 'default']);
    assert.equal(no.stdout.trim(), 'no');
    assert.equal(no.code, 1);
    assert.equal((await kubectl(jane, ['auth', 'can-i', 'create', 'selfsubjectaccessreviews.authorization.k8s.io'])).stdout.trim(), 'yes');
    assert.equal((await kubectl(jane, ['auth', 'can-i', 'get', '/api'])).stdout.trim(), 'yes');
    assert.equal((await kubectl(jane, ['auth', 'can-i', 'get', '/metrics'])).stdout.trim(), 'no');

    const reconciled = await kubectl(server, ['auth', 'reconcile', '-f', '-'], RECONCILE);
    assert.equal(reconciled.code, 0, reconciled.stderr);
    assert.match(reconciled.stdout, /role\.rbac\.authorization\.k8s\.io\/pod-reader reconciled/);
    assert.match(reconciled.stdout, /rolebinding\.rbac\.authorization\.k8s\.io\/jane-reads reconciled/);
    await eventually(async () => (await kubectl(jane, ['auth', 'can-i', 'list', 'pods', '-n', 'default'])).stdout.trim() === 'yes');
    assert.equal((await kubectl(jane, ['auth', 'can-i', 'delete', 'pods', '-n', 'default'])).stdout.trim(), 'no');
    assert.equal((await kubectl(jane, ['auth', 'can-i', 'list', 'pods', '-n', 'kube-system'])).stdout.trim(), 'no');
    const list = await kubectl(jane, ['auth', 'can-i', '--list', '-n', 'default']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    assert.match(list.stdout, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    assert.match(list.stdout, /^\s+\[\/api\/\*\]\s+\[\]\s+\[get\]$/m);
    assert.equal((await kubectl(jane, ['get', 'pods', '-n', 'default'])).code, 0);

    // Reconciling again with one more verb adds it and keeps the rest.
    const more = RECONCILE.replace('verbs: ["get", "list", "watch"]', 'verbs: ["delete"]');
    assert.equal((await kubectl(server, ['auth', 'reconcile', '-f', '-'], more)).code, 0);
    await eventually(async () => (await kubectl(jane, ['auth', 'can-i', 'delete', 'pods', '-n', 'default'])).stdout.trim() === 'yes');
    assert.equal((await kubectl(jane, ['auth', 'can-i', 'watch', 'pods', '-n', 'default'])).stdout.trim(), 'yes');
  });

  it('answers auth can-i for an impersonated user and group per a RoleBinding', async () => {
    const grant = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pod-getter
  namespace: kube-public
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: pod-getters
  namespace: kube-public
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: pod-getter
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: bob
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: readers
`;
    const applied = await kubectl(server, ['apply', '-f', '-'], grant);
    assert.equal(applied.code, 0, applied.stderr);
    const canI = async (...args: string[]) => {
      const r = await kubectl(server, ['auth', 'can-i', ...args]);
      assert.ok(r.code === 0 || r.stdout.trim() === 'no', `${args.join(' ')}: ${r.stderr}`);
      return r.stdout.trim();
    };
    await eventually(async () => (await canI('get', 'pods', '-n', 'kube-public', '--as=bob')) === 'yes');
    const cases: Array<[string[], 'yes' | 'no']> = [
      [['get', 'pods', '-n', 'kube-public', '--as=bob'], 'yes'],
      [['get', 'pods', '--subresource=log', '-n', 'kube-public', '--as=bob'], 'no'],
      [['get', 'pods/any-name', '-n', 'kube-public', '--as=bob'], 'yes'],
      [['get', 'pods', '-n', 'default', '--as=bob'], 'no'],
      [['delete', 'pods', '-n', 'kube-public', '--as=bob'], 'no'],
      [['get', 'pods', '-n', 'kube-public', '--as=alice'], 'no'],
      [['get', 'pods', '-n', 'kube-public', '--as=alice', '--as-group=readers'], 'yes'],
      [['get', 'pods', '-n', 'kube-public', '--as=alice', '--as-group=others', '--as-group=readers'], 'yes'],
      [['get', 'pods', '-n', 'kube-public', '--as=alice', '--as-group=others'], 'no'],
      [['get', 'pods', '-n', 'default', '--as=alice', '--as-group=readers'], 'no'],
    ];
    for (const [args, answer] of cases) assert.equal(await canI(...args), answer, args.join(' '));
    // A user without the impersonate verb may not ask as someone else.
    const refused = await kubectl(jane, ['auth', 'can-i', 'get', 'pods', '-n', 'kube-public', '--as=bob']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /users "bob" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope/);
  });

  it('restores an edited default role at the next start unless autoupdate is false', async () => {
    const path = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
    const discovery = (await http(server, 'GET', `${path}/system:discovery`)).json;
    assert.equal((await http(server, 'PUT', `${path}/system:discovery`, { body: { ...discovery, rules: [] } })).status, 200);
    const monitoring = (await http(server, 'GET', `${path}/system:monitoring`)).json;
    monitoring.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'] = 'false';
    assert.equal((await http(server, 'PUT', `${path}/system:monitoring`, { body: { ...monitoring, rules: [] } })).status, 200);
    await server.stop();
    server = await startServer({ backend: 'sqlite', dataDir: server.dataDir, strictRbac: true });
    // Missing permissions come back one per rule, as kube's reconciliation adds them.
    const urls = (rules: Array<{ nonResourceURLs: string[] }>) => rules.flatMap((r) => r.nonResourceURLs).sort();
    assert.deepEqual(urls((await http(server, 'GET', `${path}/system:discovery`)).json.rules), urls(discovery.rules));
    assert.deepEqual((await http(server, 'GET', `${path}/system:monitoring`)).json.rules, []);
  });
});
