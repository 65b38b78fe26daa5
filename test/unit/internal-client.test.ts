import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';

import { AuthenticationError } from '../../src/authn/authenticator.js';
import { LoopbackAuthenticator } from '../../src/authn/loopback.js';
import type { AuthorizationAttributes } from '../../src/authz/authorizer.js';
import { PrivilegedGroupsAuthorizer } from '../../src/authz/privileged-groups.js';
import { readModifyWrite } from '../../src/controllers/writes.js';
import { resourcePath, type ApiClient, type ObjectRef } from '../../src/machinery/client.js';
import type { UserInfo } from '../../src/machinery/context.js';
import { alreadyExists, conflict, notFound } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };

describe('resourcePath', () => {
  it("lays out collections, objects and subresources as kube's REST paths", () => {
    assert.equal(resourcePath({ ...CM, namespace: 'a b' }), '/api/v1/namespaces/a%20b/configmaps');
    assert.equal(resourcePath({ ...CM, namespace: 'ns', name: 'x' }), '/api/v1/namespaces/ns/configmaps/x');
    assert.equal(resourcePath({ group: 'networking.k8s.io', version: 'v1', resource: 'servicecidrs', name: 'kubernetes', subresource: 'status' }), '/apis/networking.k8s.io/v1/servicecidrs/kubernetes/status');
    assert.equal(resourcePath({ group: '', version: 'v1', resource: 'namespaces', name: 'team', subresource: 'finalize' }), '/api/v1/namespaces/team/finalize');
  });
});

/** A client over one object that loses the first `races` writes to another writer. */
function racingClient(initial: KubeObject | undefined, races: number): { client: ApiClient; calls: string[] } {
  let stored = initial;
  let rv = 1;
  const calls: string[] = [];
  const gr = { group: '', resource: 'configmaps' };
  const lose = (): boolean => {
    if (races === 0) return false;
    races--;
    stored = { ...(stored ?? { metadata: { name: 'x' } }), metadata: { name: 'x', resourceVersion: String(++rv) } };
    return true;
  };
  const fail = (what: string): never => {
    throw new Error(`unexpected ${what}`);
  };
  const client: ApiClient = {
    async get(ref: ObjectRef) {
      calls.push('get');
      if (!stored) throw notFound(gr, ref.name);
      return structuredClone(stored);
    },
    async create(_ref, obj) {
      calls.push('create');
      if (stored) throw alreadyExists(gr, 'x');
      if (lose()) throw alreadyExists(gr, 'x');
      stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++rv) } };
      return stored;
    },
    async update(_ref, obj) {
      calls.push('update');
      if (obj.metadata?.resourceVersion !== stored?.metadata?.resourceVersion || lose()) throw conflict(gr, 'x');
      stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++rv) } };
      return stored;
    },
    list: async () => fail('list'),
    patch: async () => fail('patch'),
    delete: async () => fail('delete'),
  };
  return { client, calls };
}

describe('readModifyWrite', () => {
  const ref = { ...CM, namespace: 'ns', name: 'x' };
  const withData = (cur: KubeObject | undefined): KubeObject => ({ ...(cur ?? { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }), data: { k: 'v' } });

  it('starts over from a fresh read when another writer got there first', async () => {
    const { client, calls } = racingClient({ metadata: { name: 'x', resourceVersion: '1' } }, 2);
    const written = await readModifyWrite(client, ref, withData);
    assert.deepEqual(written?.data, { k: 'v' });
    assert.deepEqual(calls, ['get', 'update', 'get', 'update', 'get', 'update']);
  });

  it('creates a missing object, and updates it when a create raced it', async () => {
    const { client, calls } = racingClient(undefined, 1);
    const written = await readModifyWrite(client, ref, withData);
    assert.deepEqual(written?.data, { k: 'v' });
    assert.deepEqual(calls, ['get', 'create', 'get', 'update']);
  });

  it('writes nothing when the change says so', async () => {
    const { client, calls } = racingClient({ metadata: { name: 'x', resourceVersion: '1' } }, 0);
    assert.equal(await readModifyWrite(client, ref, () => undefined), undefined);
    assert.deepEqual(calls, ['get']);
  });
});

describe('LoopbackAuthenticator', () => {
  const request = (authorization?: string): IncomingMessage => ({ headers: authorization ? { authorization } : {} }) as IncomingMessage;

  it('names system:apiserver in system:masters for its own token only, and hides the token from what follows', async () => {
    const authn = new LoopbackAuthenticator();
    const req = request(`Bearer ${authn.token}`);
    const result = await authn.authenticate(req);
    assert.equal(result?.user.username, 'system:apiserver');
    assert.deepEqual(result?.user.groups, ['system:authenticated', 'system:masters']);
    assert.match(result?.user.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(req.headers.authorization, undefined);
    assert.equal(await authn.authenticate(request()), undefined, 'no credential: no opinion');
    assert.equal(await authn.authenticate(request('Basic dXNlcjpwYXNz')), undefined, 'another scheme: no opinion');
    await assert.rejects(authn.authenticate(request('Bearer not-it')), AuthenticationError);
    await assert.rejects(authn.authenticate(request(`Bearer ${new LoopbackAuthenticator().token}`)), AuthenticationError, "another server's token");
  });
});

describe('PrivilegedGroupsAuthorizer', () => {
  it('allows system:masters and has no opinion otherwise, adding no rules', async () => {
    const authz = new PrivilegedGroupsAuthorizer(['system:masters']);
    const attrs = (user: UserInfo): AuthorizationAttributes => ({ user, verb: 'delete', resourceRequest: true, resource: 'secrets', namespace: 'x' });
    assert.equal((await authz.authorize(attrs({ username: 'a', groups: ['system:masters'] }))).decision, 'Allow');
    assert.equal((await authz.authorize(attrs({ username: 'b', groups: ['system:authenticated'] }))).decision, 'NoOpinion');
    assert.deepEqual(await authz.rulesFor({ username: 'a', groups: ['system:masters'] }, 'x'), { resourceRules: [], nonResourceRules: [], incomplete: false });
  });
});
