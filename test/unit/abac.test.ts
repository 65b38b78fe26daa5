import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { AbacAuthorizer, loadPolicyFile, PolicyFileError } from '../../src/authz/abac.js';
import type { AuthorizationAttributes } from '../../src/authz/authorizer.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { removeDir, tempDir } from '../helpers/server.js';

const line = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });

const POLICY = [
  '# comments and blank lines are skipped',
  '',
  line({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
  line({ user: 'bob', namespace: 'projectCaribou', resource: 'pods', apiGroup: '', readonly: true }),
  line({ group: 'system:authenticated', readonly: true, nonResourcePath: '*' }),
  line({ group: 'system:unauthenticated', readonly: true, nonResourcePath: '/version' }),
  line({ user: 'kubelet', namespace: '*', resource: 'events', apiGroup: '' }),
  line({ user: 'ops', group: 'admins', namespace: '*', resource: 'deployments', apiGroup: 'apps' }),
  line({ user: '*', nonResourcePath: '/logs/*' }),
].join('\n');

describe('ABAC', () => {
  const dir = tempDir('capstan-abac-');
  const file = join(dir, 'policy.jsonl');
  writeFileSync(file, POLICY);
  const abac = new AbacAuthorizer(loadPolicyFile(file));
  const res = (user: string, groups: string[], verb: string, resource: string, namespace = 'default', group = ''): AuthorizationAttributes => ({ user: { username: user, groups }, verb, resourceRequest: true, resource, namespace, group });
  const path = (user: string, groups: string[], verb: string, p: string): AuthorizationAttributes => ({ user: { username: user, groups }, verb, resourceRequest: false, path: p });

  it('matches subjects, readonly, wildcards and paths as kube does', async () => {
    const cases: Array<[AuthorizationAttributes, boolean]> = [
      [res('alice', [], 'delete', 'secrets', 'x', 'anything'), true],
      [res('bob', [], 'get', 'pods', 'projectCaribou'), true],
      [res('bob', [], 'watch', 'pods', 'projectCaribou'), true],
      [res('bob', [], 'create', 'pods', 'projectCaribou'), false],
      [res('bob', [], 'get', 'pods', 'other'), false],
      [res('bob', [], 'get', 'pods', ''), false],
      [res('bob', [], 'get', 'deployments', 'projectCaribou', 'apps'), false],
      [path('bob', ['system:authenticated'], 'get', '/api'), true],
      [path('bob', ['system:authenticated'], 'post', '/api'), false],
      [path('system:anonymous', ['system:unauthenticated'], 'get', '/version'), true],
      [path('system:anonymous', ['system:unauthenticated'], 'get', '/api'), false],
      [res('kubelet', [], 'create', 'events', 'kube-system'), true],
      [res('kubelet', [], 'create', 'pods', 'kube-system'), false],
      // user and group both set: both must match.
      [res('ops', ['admins'], 'update', 'deployments', 'x', 'apps'), true],
      [res('ops', [], 'update', 'deployments', 'x', 'apps'), false],
      [res('someone', ['admins'], 'update', 'deployments', 'x', 'apps'), false],
      [path('anyone', [], 'delete', '/logs/a/b'), true],
      [path('anyone', [], 'get', '/logs'), false],
    ];
    for (const [attrs, allowed] of cases) {
      const d = await abac.authorize(attrs);
      assert.equal(d.decision === 'Allow', allowed, JSON.stringify(attrs));
      if (!allowed) assert.equal(d.reason, 'No policy matched.');
    }
    const rules = await abac.rulesFor({ username: 'bob', groups: ['system:authenticated'] }, 'projectCaribou');
    assert.deepEqual(rules.resourceRules, [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }]);
    // As kube: a rule is listed only when its namespace matches, so path policies (no namespace) are not.
    assert.deepEqual(rules.nonResourceRules, []);
  });

  it('converts unversioned (v0) lines as kube does and says so once', async () => {
    const v0 = join(dir, 'v0.jsonl');
    writeFileSync(v0, [JSON.stringify({ user: 'carol', namespace: 'ns1', resource: 'pods', readonly: true }), JSON.stringify({ user: '*' }), JSON.stringify({ group: 'ops', namespace: 'ns2' })].join('\n'));
    const told: string[] = [];
    const policies = loadPolicyFile(v0, (m) => told.push(m));
    assert.deepEqual(told, [`Policy file ${v0} contained unversioned rules. See docs/admin/authorization.md#abac-mode for ABAC file format details.`]);
    assert.deepEqual(policies, [
      { user: 'carol', group: '', readonly: true, apiGroup: '*', resource: 'pods', namespace: 'ns1', nonResourcePath: '' },
      // `*` and an empty subject mean every authenticated user; no namespace and resource: all of them and every path.
      { user: '', group: 'system:authenticated', readonly: false, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*' },
      { user: '', group: 'ops', readonly: false, apiGroup: '*', resource: '*', namespace: 'ns2', nonResourcePath: '' },
    ]);
    const v0abac = new AbacAuthorizer(policies);
    assert.equal((await v0abac.authorize(res('carol', [], 'get', 'pods', 'ns1', 'apps'))).decision, 'Allow');
    assert.equal((await v0abac.authorize(res('anon', ['system:unauthenticated'], 'get', 'pods'))).decision, 'NoOpinion');
    assert.equal((await v0abac.authorize(res('dave', ['ops'], 'delete', 'secrets', 'ns2'))).decision, 'Allow');
    assert.equal((await v0abac.authorize(path('dave', ['ops'], 'get', '/api'))).decision, 'NoOpinion');
    assert.deepEqual(loadPolicyFile(file, (m) => told.push(m)).length, 7);
    assert.equal(told.length, 1, 'a versioned file is not reported');
  });

  it('refuses a broken file with the line number, and the server does not start', () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${line({ user: 'a' })}\n\n{not json\n`);
    assert.throws(() => loadPolicyFile(bad), (e: unknown) => e instanceof PolicyFileError && e.message.startsWith(`error reading policy file ${bad}, line 3: {not json: `));
    assert.throws(() => new ApiServer({ config: { authorizationModes: ['ABAC'], authorizationPolicyFile: bad } }), PolicyFileError);
    removeDir(dir);
  });
});
