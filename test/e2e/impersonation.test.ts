import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiServer } from '../../src/server/apiserver.js';
import { writeKubeconfig } from '../../src/server/kubeconfig.js';
import { http, kubectl, kubectlMissing, removeDir, tempDir } from '../helpers/server.js';
import { makePki, probeName, RecordingAuthorizer } from '../helpers/authn.js';

/**
 * Impersonation (Impersonate-* headers, kubectl --as/--as-group) as a user
 * outside system:masters, so every impersonation goes to the authorizer,
 * which refuses some of them.
 */

describe('impersonation', () => {
  let server: ApiServer;
  let dir: string;
  let kubeconfig: string;
  let client: { url: string; creds: { ca: string; cert: string; key: string } };
  const authorizer = new RecordingAuthorizer(
    (a) => a.verb === 'impersonate' && (a.name === 'mallory' || a.name === 'system:masters' || (a.resource === 'userextras' && a.name === 'forbidden') || (a.resource === 'uids' && a.name === 'uid-0')),
  );

  before(async () => {
    dir = tempDir();
    const pki = await makePki('carol', ['devs']);
    server = new ApiServer({ pki, authorizers: [authorizer] });
    await server.start();
    const kc = server.adminKubeconfig();
    kubeconfig = join(dir, 'carol.kubeconfig');
    writeKubeconfig(kubeconfig, { ...kc, user: 'carol' });
    client = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
  });

  after(async () => {
    await server.stop();
    removeDir(dir);
  });

  async function seenAs(headers: Record<string, string | string[]>): Promise<{ status: number; user: unknown; body: { message?: string; reason?: string; code?: number } }> {
    const name = probeName();
    const res = await http(client, 'GET', `/api/v1/namespaces/default/configmaps/${name}`, { headers: headers as Record<string, string> });
    return { status: res.status, user: authorizer.users.get(name), body: res.json };
  }

  it('acts as the user and groups asked for, each checked with verb impersonate, and adds system:authenticated', async () => {
    const before = authorizer.impersonationChecks.length;
    const r = await seenAs({ 'Impersonate-User': 'alice', 'Impersonate-Group': ['dev', 'ops'] });
    assert.equal(r.status, 404);
    assert.deepEqual(r.user, { username: 'alice', groups: ['dev', 'ops', 'system:authenticated'] });
    const checks = authorizer.impersonationChecks.slice(before).map((a) => [a.user.username, a.resource, a.name, a.group]);
    assert.deepEqual(checks, [
      ['carol', 'users', 'alice', ''],
      ['carol', 'groups', 'dev', ''],
      ['carol', 'groups', 'ops', ''],
    ]);
  });

  it('a service account gets its groups unless groups are given, and the check is on serviceaccounts in its namespace', async () => {
    const before = authorizer.impersonationChecks.length;
    const r = await seenAs({ 'Impersonate-User': 'system:serviceaccount:team-a:builder' });
    assert.deepEqual(r.user, { username: 'system:serviceaccount:team-a:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'] });
    const check = authorizer.impersonationChecks[before]!;
    assert.equal(check.resource, 'serviceaccounts');
    assert.equal(check.namespace, 'team-a');
    assert.equal(check.name, 'builder');
    const withGroups = await seenAs({ 'Impersonate-User': 'system:serviceaccount:team-a:builder', 'Impersonate-Group': 'x' });
    assert.deepEqual((withGroups.user as { groups: string[] }).groups, ['x', 'system:authenticated']);
  });

  it('sets uid and percent-decoded extras, checked on uids and userextras/<key>', async () => {
    const before = authorizer.impersonationChecks.length;
    const r = await seenAs({ 'Impersonate-User': 'alice', 'Impersonate-Uid': 'uid-1', 'Impersonate-Extra-Acme.com%2Fscopes': ['read', 'write'] });
    assert.deepEqual(r.user, { username: 'alice', uid: 'uid-1', groups: ['system:authenticated'], extra: { 'acme.com/scopes': ['read', 'write'] } });
    const extraCheck = authorizer.impersonationChecks.slice(before).find((a) => a.resource === 'userextras')!;
    assert.equal(extraCheck.group, 'authentication.k8s.io');
    assert.equal(extraCheck.subresource, 'acme.com/scopes');
    assert.ok(authorizer.impersonationChecks.slice(before).some((a) => a.resource === 'uids' && a.name === 'uid-1' && a.group === 'authentication.k8s.io'));
  });

  it('impersonating system:anonymous keeps system:unauthenticated', async () => {
    const r = await seenAs({ 'Impersonate-User': 'system:anonymous' });
    assert.equal(r.status, 403);
    assert.match(r.body.message ?? '', /User "system:anonymous" cannot get resource "configmaps"/);
  });

  it('refuses with kube 403 messages what the authorizer does not allow', async () => {
    const user = await seenAs({ 'Impersonate-User': 'mallory' });
    assert.equal(user.status, 403);
    assert.equal(user.body.reason, 'Forbidden');
    assert.equal(user.body.message, 'users "mallory" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope');
    const group = await seenAs({ 'Impersonate-User': 'alice', 'Impersonate-Group': 'system:masters' });
    assert.equal(group.body.message, 'groups "system:masters" is forbidden: User "carol" cannot impersonate resource "groups" in API group "" at the cluster scope');
    const extra = await seenAs({ 'Impersonate-User': 'alice', 'Impersonate-Extra-Scopes': 'forbidden' });
    assert.equal(extra.body.message, 'userextras.authentication.k8s.io "forbidden" is forbidden: User "carol" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
    const uid = await seenAs({ 'Impersonate-User': 'alice', 'Impersonate-Uid': 'uid-0' });
    assert.equal(uid.body.message, 'uids.authentication.k8s.io "uid-0" is forbidden: User "carol" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope');
  });

  it('groups, uid or extras without a user are a 400 naming what was asked', async () => {
    const r = await seenAs({ 'Impersonate-Group': 'dev' });
    assert.equal(r.status, 400);
    assert.equal(r.body.reason, 'BadRequest');
    assert.equal(r.body.message, 'requested [{Group  dev    }] without impersonating a user');
    const uid = await seenAs({ 'Impersonate-Uid': 'u1' });
    assert.equal(uid.body.message, 'requested [{UID  u1  authentication.k8s.io/v1  }] without impersonating a user');
  });

  it('kubectl --as and --as-group act as that user; a refused one is kube\'s 403', { skip: kubectlMissing() }, async () => {
    const ok = await kubectl({ kubeconfig }, ['get', 'configmaps', '-n', 'default', 'kube-root-ca.crt', '--as', 'alice', '--as-group', 'dev', '--as-group', 'qa', '-o', 'name']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), 'configmap/kube-root-ca.crt');
    assert.deepEqual(authorizer.users.get('kube-root-ca.crt'), { username: 'alice', groups: ['dev', 'qa', 'system:authenticated'] });
    const refused = await kubectl({ kubeconfig }, ['get', 'configmaps', '-n', 'default', '--as', 'mallory']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /users "mallory" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope/);
    const sa = await kubectl({ kubeconfig }, ['get', 'configmaps', '-n', 'default', 'kube-root-ca.crt', '--as', 'system:serviceaccount:default:default', '-o', 'name']);
    assert.equal(sa.code, 0, sa.stderr);
    assert.deepEqual((authorizer.users.get('kube-root-ca.crt') as { groups: string[] }).groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
  });
});
