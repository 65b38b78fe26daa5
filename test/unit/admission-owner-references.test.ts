import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { AdmissionAttributes, AdmissionOperation } from '../../src/admission/admission.js';
import { OwnerReferencesPermissionEnforcement } from '../../src/admission/owner-references-permission.js';
import { ApiCatalog } from '../../src/api/catalog.js';
import type { AuthorizationAttributes, Authorizer } from '../../src/authz/authorizer.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KubeObject, OwnerReference } from '../../src/machinery/object.js';

/**
 * OwnerReferencesPermissionEnforcement on kube's gc_admission_test.go
 * cases: who may change ownerReferences (delete on the object, except on
 * create) and set blockOwnerDeletion (update on the owner's finalizers,
 * the owner's resource found by apiVersion and kind), with kube's words.
 */

const catalog = ApiCatalog.load();

/** kube's test users: super (everything), non-deleter (no delete), non-pod-deleter, non-rc-deleter, rc-finalizer-setter (finalizers of replicationcontrollers only). */
function authorizer(asked: AuthorizationAttributes[] = []): Authorizer {
  return {
    async authorize(a) {
      asked.push(a);
      const user = a.user.username;
      const allow = (() => {
        switch (user) {
          case 'super':
            return true;
          case 'non-deleter':
            return a.verb !== 'delete' && !(a.verb === 'update' && a.subresource === 'finalizers');
          case 'non-pod-deleter':
            return !(a.verb === 'delete' && a.resource === 'pods') && !(a.verb === 'update' && a.subresource === 'finalizers');
          case 'non-rc-deleter':
            return !(a.verb === 'delete' && a.resource === 'replicationcontrollers') && !(a.verb === 'update' && a.subresource === 'finalizers');
          case 'rc-finalizer-setter':
            return a.verb === 'update' && a.subresource === 'finalizers' && a.resource === 'replicationcontrollers' && a.group === '';
          default:
            return false;
        }
      })();
      return { decision: allow ? 'Allow' : 'NoOpinion', reason: allow ? '' : 'no RBAC policy matched' };
    },
  };
}

const ref = (name: string, uid: string, opts: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: 'v1', kind: 'ReplicationController', name, uid, ...opts });
const blocking = (name: string, uid: string, opts: Partial<OwnerReference> = {}): OwnerReference => ref(name, uid, { blockOwnerDeletion: true, ...opts });
const pod = (refs?: OwnerReference[]): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', namespace: 'ns', ...(refs ? { ownerReferences: refs } : {}) }, spec: {} });

function attrs(user: string, operation: AdmissionOperation, object: KubeObject, oldObject?: KubeObject, subresource = ''): AdmissionAttributes {
  return {
    operation,
    resource: catalog.resource('', 'v1', 'pods')!,
    subresource,
    namespace: 'ns',
    name: 'pod',
    object,
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
    user: { username: user, groups: ['system:authenticated'] },
  };
}

const CANNOT_DELETE = 'pods "pod" is forbidden: cannot set an ownerRef on a resource you can\'t delete: no RBAC policy matched, <nil>';
const CANNOT_FINALIZE = 'pods "pod" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: no RBAC policy matched, <nil>';

describe('OwnerReferencesPermissionEnforcement', () => {
  const cases: Array<{ name: string; user: string; op: AdmissionOperation; new: KubeObject; old?: KubeObject; subresource?: string; error?: string }> = [
    { name: 'super, create, no refs', user: 'super', op: 'CREATE', new: pod() },
    { name: 'super, create, refs', user: 'super', op: 'CREATE', new: pod([ref('first', '1')]) },
    { name: 'non-deleter, create, no refs', user: 'non-deleter', op: 'CREATE', new: pod() },
    { name: 'non-deleter, create, refs (creating is allowed)', user: 'non-deleter', op: 'CREATE', new: pod([ref('first', '1')]) },
    { name: 'non-pod-deleter, create, refs', user: 'non-pod-deleter', op: 'CREATE', new: pod([ref('first', '1')]) },
    { name: 'super, update, same refs', user: 'super', op: 'UPDATE', new: pod([ref('first', '1')]), old: pod([ref('first', '1')]) },
    { name: 'non-deleter, update, same refs', user: 'non-deleter', op: 'UPDATE', new: pod([ref('first', '1')]), old: pod([ref('first', '1')]) },
    { name: 'non-deleter, update, no refs before', user: 'non-deleter', op: 'UPDATE', new: pod([ref('first', '1')]), old: pod(), error: CANNOT_DELETE },
    { name: 'non-deleter, update, refs removed', user: 'non-deleter', op: 'UPDATE', new: pod(), old: pod([ref('first', '1')]), error: CANNOT_DELETE },
    { name: 'non-deleter, update, ref changed', user: 'non-deleter', op: 'UPDATE', new: pod([ref('second', '1')]), old: pod([ref('first', '1')]), error: CANNOT_DELETE },
    { name: 'non-deleter, update, refs reordered', user: 'non-deleter', op: 'UPDATE', new: pod([ref('b', '2'), ref('a', '1')]), old: pod([ref('a', '1'), ref('b', '2')]), error: CANNOT_DELETE },
    { name: 'non-pod-deleter, update, ref changed', user: 'non-pod-deleter', op: 'UPDATE', new: pod([ref('second', '2')]), old: pod([ref('first', '1')]), error: CANNOT_DELETE },
    { name: 'non-rc-deleter may delete pods: update allowed', user: 'non-rc-deleter', op: 'UPDATE', new: pod([ref('second', '2')]), old: pod([ref('first', '1')]) },
    { name: 'pods/status is exempt', user: 'non-deleter', op: 'UPDATE', new: pod([ref('second', '2')]), old: pod([ref('first', '1')]), subresource: 'status' },
    // blockOwnerDeletion
    { name: 'super, create, blocking ref', user: 'super', op: 'CREATE', new: pod([blocking('rc', '1')]) },
    { name: 'non-rc-deleter, create, non-blocking ref', user: 'non-rc-deleter', op: 'CREATE', new: pod([ref('rc', '1', { blockOwnerDeletion: false })]) },
    { name: 'non-rc-deleter, create, blocking ref', user: 'non-rc-deleter', op: 'CREATE', new: pod([blocking('rc', '1')]), error: CANNOT_FINALIZE },
    { name: 'rc-finalizer-setter, create, blocking ref', user: 'rc-finalizer-setter', op: 'CREATE', new: pod([blocking('rc', '1')]) },
    { name: 'non-rc-deleter, update, blocking ref kept', user: 'non-rc-deleter', op: 'UPDATE', new: pod([blocking('rc', '1'), ref('other', '2')]), old: pod([blocking('rc', '1')]) },
    { name: 'non-rc-deleter, update, blockOwnerDeletion false → true', user: 'non-rc-deleter', op: 'UPDATE', new: pod([blocking('rc', '1')]), old: pod([ref('rc', '1', { blockOwnerDeletion: false })]), error: CANNOT_FINALIZE },
    { name: 'non-rc-deleter, update, blockOwnerDeletion unset → true', user: 'non-rc-deleter', op: 'UPDATE', new: pod([blocking('rc', '1')]), old: pod([ref('rc', '1')]), error: CANNOT_FINALIZE },
    { name: 'non-rc-deleter, update, blocking ref added', user: 'non-rc-deleter', op: 'UPDATE', new: pod([ref('rc', '1'), blocking('rc2', '2')]), old: pod([ref('rc', '1')]), error: CANNOT_FINALIZE },
    { name: 'non-rc-deleter, update, blockOwnerDeletion true → false', user: 'non-rc-deleter', op: 'UPDATE', new: pod([ref('rc', '1', { blockOwnerDeletion: false })]), old: pod([blocking('rc', '1')]) },
    {
      name: 'an owner kind nobody serves',
      user: 'non-rc-deleter',
      op: 'CREATE',
      new: pod([blocking('x', '1', { apiVersion: 'example.com/v1', kind: 'Widget' })]),
      error: 'pods "pod" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget: no matches for kind "Widget" in version "example.com/v1"',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const run = new OwnerReferencesPermissionEnforcement(authorizer(), catalog).validate(attrs(c.user, c.op, c.new, c.old, c.subresource));
      if (!c.error) return run;
      await assert.rejects(run, (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.code, 403);
        assert.equal(err.message, c.error);
        return true;
      });
    });
  }

  it('asks about the object, then everything, then the owner\'s finalizers', async () => {
    const asked: AuthorizationAttributes[] = [];
    await new OwnerReferencesPermissionEnforcement(authorizer(asked), catalog).validate(
      attrs('rc-finalizer-setter', 'CREATE', pod([blocking('rc', '1', { apiVersion: 'v1', kind: 'ReplicationController' })])),
    );
    assert.deepEqual(
      asked.map(({ user: _user, ...a }) => a),
      [
        { verb: 'update', resourceRequest: true, group: '*', version: '*', resource: '*', subresource: 'finalizers', name: '*' },
        { verb: 'update', resourceRequest: true, namespace: 'ns', group: '', version: 'v1', resource: 'replicationcontrollers', subresource: 'finalizers', name: 'rc' },
      ],
    );
    asked.splice(0);
    await assert.rejects(new OwnerReferencesPermissionEnforcement(authorizer(asked), catalog).validate(attrs('nobody', 'UPDATE', pod([ref('a', '1')]), pod())));
    assert.deepEqual(asked.map(({ user: _user, ...a }) => a), [{ verb: 'delete', resourceRequest: true, namespace: 'ns', group: '', version: 'v1', resource: 'pods', subresource: '', name: 'pod' }]);
  });

  it('finds the owner resource by apiVersion and kind', async () => {
    const asked: AuthorizationAttributes[] = [];
    await assert.rejects(new OwnerReferencesPermissionEnforcement(authorizer(asked), catalog).validate(attrs('nobody', 'CREATE', pod([blocking('web', '9', { apiVersion: 'apps/v1', kind: 'Deployment' })]))));
    assert.deepEqual(asked.at(-1), { user: { username: 'nobody', groups: ['system:authenticated'] }, verb: 'update', resourceRequest: true, namespace: 'ns', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'finalizers', name: 'web' });
  });
});
