import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  AUTHORIZER_TYPE,
  type AuthorizationAttributes,
  type AuthorizerBinding,
  type AuthorizerDecision,
  newAuthorizer,
} from '../../src/cel/libraries/index.js';
import { celLibEnv, errorText, runTable } from '../helpers/cel-lib.js';

/** An authorizer that allows what `allow` says and records every request. */
function recorder(allow: (a: AuthorizationAttributes) => AuthorizerDecision): AuthorizerBinding & { seen: AuthorizationAttributes[] } {
  const seen: AuthorizationAttributes[] = [];
  return {
    seen,
    authorize(a) {
      seen.push(a);
      return allow(a);
    },
  };
}

const user = { username: 'alice', groups: ['devs'] };

function env(version?: string) {
  const e = celLibEnv({ authorizer: true, ...(version ? { version } : {}) });
  e.registerVariable('authorizer', AUTHORIZER_TYPE);
  return e;
}

// Expectations from kube's library/authz.go documentation and cel_test.go.
describe('CEL library: authorizer (from 1.27)', () => {
  const binding = recorder((a) =>
    a.resource === 'pods' && a.verb === 'create'
      ? { decision: 'Allow', reason: 'rbac says yes' }
      : a.path === '/broken'
        ? { decision: 'NoOpinion', reason: '', error: 'webhook unreachable' }
        : { decision: 'NoOpinion', reason: 'no rule' },
  );
  const vars = { authorizer: newAuthorizer(user, binding) };
  runTable(
    [
      { expr: "authorizer.group('').resource('pods').namespace('default').check('create').allowed()", vars, value: true },
      { expr: "authorizer.group('').resource('pods').namespace('default').check('create').reason()", vars, value: 'rbac says yes' },
      { expr: "authorizer.group('apps').resource('deployments').check('delete').allowed()", vars, value: false },
      { expr: "authorizer.group('apps').resource('deployments').check('delete').reason()", vars, value: 'no rule' },
      { expr: "authorizer.path('/healthz').check('get').allowed()", vars, value: false },
      { expr: "authorizer.path('/broken').check('get').errored()", vars, value: true },
      { expr: "authorizer.path('/broken').check('get').error()", vars, value: 'webhook unreachable' },
      { expr: "authorizer.path('/healthz').check('get').error()", vars, value: '' },
      { expr: "authorizer.path('').check('get')", vars, error: 'path must not be empty' },
      { expr: "authorizer.path('  ').check('get')", vars, error: 'path must not be empty' },
      { expr: "authorizer.group('apps').resource('').check('get')", vars, error: 'resource must not be empty' },
      { expr: "authorizer.group('apps').resource('  ').check('get')", vars, error: 'resource must not be empty' },
      { expr: "authorizer.serviceAccount('not@a#valid!namespace', 'validname').path('/x').check('get')", vars, error: 'Invalid service account namespace' },
      { expr: "authorizer.serviceAccount('default', 'invalid@*name').path('/x').check('get')", vars, error: 'Invalid service account name' },
      { expr: "authorizer.group('').resource('pods').check(1)", vars, compileError: /no matching overload/ },
    ],
    env(),
  );

  it('passes kube attributes to the binding', () => {
    const b = recorder(() => ({ decision: 'Allow', reason: '' }));
    const e = env();
    const a = newAuthorizer(user, b);
    e.evaluate(
      "authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name('web').fieldSelector('spec.x=1').labelSelector('app=web').check('update').allowed()",
      { authorizer: a },
    );
    e.evaluate("authorizer.serviceAccount('kube-system', 'robot').path('/metrics').check('get').allowed()", { authorizer: a });
    assert.deepEqual(b.seen[0], {
      user,
      verb: 'update',
      resourceRequest: true,
      apiGroup: 'apps',
      apiVersion: '*',
      resource: 'deployments',
      subresource: 'scale',
      namespace: 'ns',
      name: 'web',
      fieldSelector: { requirements: [{ field: 'spec.x', op: '=', value: '1' }] },
      labelSelector: { requirements: [{ key: 'app', op: '=', values: ['web'] }] },
    });
    assert.deepEqual(b.seen[1], {
      user: { username: 'system:serviceaccount:kube-system:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'] },
      verb: 'get',
      resourceRequest: false,
      path: '/metrics',
    });
  });

  it('reports a selector that does not parse to the authorizer instead of failing', () => {
    const b = recorder(() => ({ decision: 'Allow', reason: '' }));
    env().evaluate("authorizer.group('').resource('pods').labelSelector('a in (').check('list').allowed()", {
      authorizer: newAuthorizer(user, b),
    });
    assert.equal(b.seen[0]!.labelSelector?.requirements, undefined);
    assert.match(b.seen[0]!.labelSelector?.error ?? '', /./);
  });

  it('authorizer.requestResource checks the resource of the request', () => {
    const b = recorder((a) => ({ decision: a.name === 'web' && a.namespace === 'ns' ? 'Allow' : 'Deny', reason: '' }));
    const a = newAuthorizer(user, b, { group: 'apps', resource: 'deployments', subresource: '', namespace: 'ns', name: 'web' });
    assert.equal(env().evaluate("authorizer.requestResource.check('update').allowed()", { authorizer: a }), true);
    assert.equal(b.seen[0]!.resource, 'deployments');
  });

  it('awaits an asynchronous authorizer', async () => {
    const b: AuthorizerBinding = { authorize: async () => ({ decision: 'Allow', reason: 'later' }) };
    const r = env().evaluate("authorizer.path('/x').check('get').reason() + '!'", { authorizer: newAuthorizer(user, b) });
    assert.ok(r instanceof Promise);
    assert.equal(await r, 'later!');
  });

  it('awaits an asynchronous authorizer inside the library macros', async () => {
    const b: AuthorizerBinding = {
      authorize: async (a) => {
        await new Promise((r) => setImmediate(r));
        return { decision: a.path === '/yes' ? 'Allow' : 'Deny', reason: a.path ?? '' };
      },
    };
    const vars = { authorizer: newAuthorizer(user, b) };
    const e = env();
    const cases: Array<[string, unknown]> = [
      ["['/yes', '/no'].transformList(i, p, authorizer.path(p).check('get').allowed())", [true, false]],
      ["['/yes', '/no'].transformList(i, p, authorizer.path(p).check('get').allowed(), i)", [0n]],
      ["['/yes', '/no'].all(i, p, authorizer.path(p).check('get').allowed())", false],
      ["['/no', '/yes'].exists(i, p, authorizer.path(p).check('get').allowed())", true],
      ["['/no', '/yes'].existsOne(i, p, authorizer.path(p).check('get').allowed())", true],
      ["['/yes', '/a', '/b'].sortBy(p, authorizer.path(p).check('get').reason())", ['/a', '/b', '/yes']],
      ["authorizer.path('/yes').check('get').reason().indexOf('e')", 2n],
    ];
    for (const [expr, want] of cases) {
      const r = e.evaluate(expr, vars);
      assert.ok(r instanceof Promise, expr);
      assert.deepEqual(await r, want, expr);
    }
  });

  it('interleaved asynchronous evaluations of one program keep their own variables', async () => {
    const b: AuthorizerBinding = {
      authorize: async (a) => {
        await new Promise((r) => setTimeout(r, a.path === '/slow' ? 5 : 0));
        return { decision: 'Allow', reason: a.path ?? '' };
      },
    };
    const program = env().parse("xs.transformList(i, p, authorizer.path(p).check('get').reason())");
    const vars = (xs: string[]) => ({ authorizer: newAuthorizer(user, b), xs });
    const [a, c] = await Promise.all([program(vars(['/slow', '/a'])), program(vars(['/b', '/slow']))]);
    assert.deepEqual(a, ['/slow', '/a']);
    assert.deepEqual(c, ['/b', '/slow']);
  });

  it('fieldSelector and labelSelector arrive with 1.31', () => {
    const r = env('1.30').check("authorizer.group('').resource('pods').labelSelector('a=b').check('list').allowed()");
    assert.equal(r.valid, false);
    assert.match(errorText(r.error), /labelSelector/);
  });

  it('is registered only for environments with an authorizer', () => {
    const e = celLibEnv();
    assert.equal(e.check("authorizer.path('/x').check('get').allowed()").valid, false);
  });
});
