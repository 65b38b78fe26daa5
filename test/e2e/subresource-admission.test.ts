import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { AdmissionAttributes, AdmissionPlugin } from '../../src/admission/admission.js';
import { ApiError } from '../../src/machinery/errors.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { eventually, http } from '../helpers/server.js';

/**
 * Admission of the scale, eviction and binding subresources where kube runs
 * it: the mutating phase before the registry (on the Scale, Eviction or
 * Binding of the request), the validating phase inside it (for scale, on the
 * Scales of the parent as it would be stored and as it was); a refusal there
 * changes nothing.
 */

function client(server: ApiServer): { url: string; creds: { ca: string; cert: string; key: string } } {
  const kc = server.adminKubeconfig();
  return { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
}

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
};
const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

describe('subresource admission', () => {
  it('runs mutating admission before the registry and validating admission inside it for scale, eviction and binding', async () => {
    const calls: Array<{ phase: 'admit' | 'validate'; attrs: AdmissionAttributes }> = [];
    let refuse = '';
    const plugin: AdmissionPlugin = {
      name: 'Recorder',
      async admit(attrs) {
        if (attrs.subresource || attrs.resource.name === 'bindings') calls.push({ phase: 'admit', attrs: structuredClone({ ...attrs, addWarning: undefined, addAuditAnnotation: undefined }) });
      },
      async validate(attrs) {
        if (!attrs.subresource && attrs.resource.name !== 'bindings') return;
        calls.push({ phase: 'validate', attrs: structuredClone({ ...attrs, addWarning: undefined, addAuditAnnotation: undefined }) });
        if (refuse && refuse === attrs.subresource) throw new ApiError({ message: `no ${refuse}`, reason: 'Forbidden', code: 403 });
      },
    };
    const server = new ApiServer({ admissionPlugins: [plugin] });
    await server.start();
    try {
      const c = client(server);
      // The default ServiceCIDR's Ready condition is a status write that passes admission too (as kube's
      // kubernetes-service-cidr-controller's does): start recording after it.
      await eventually(async () => ((await http(c, 'GET', '/apis/networking.k8s.io/v1/servicecidrs/kubernetes')).json?.status?.conditions?.length ?? 0) > 0);
      calls.splice(0);
      assert.equal((await http(c, 'POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment })).status, 201);

      // Scale: the mutating phase sees the requested Scale, the validating phase the Scales of the parent.
      const scaled = await http(c, 'PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale', {
        headers: { 'content-type': 'application/merge-patch+json' },
        body: { spec: { replicas: 3 } },
      });
      assert.equal(scaled.status, 200);
      const [admitScale, validateScale] = calls.splice(0);
      assert.equal(admitScale?.phase, 'admit');
      assert.equal(admitScale.attrs.object?.kind, 'Scale');
      assert.deepEqual(admitScale.attrs.object?.spec, { replicas: 3 });
      assert.deepEqual(admitScale.attrs.oldObject?.spec, { replicas: 1 });
      assert.deepEqual(admitScale.attrs.options, { kind: 'PatchOptions', apiVersion: 'meta.k8s.io/v1', fieldValidation: 'Warn' });
      assert.equal(validateScale?.phase, 'validate');
      assert.equal(validateScale.attrs.operation, 'UPDATE');
      assert.equal(validateScale.attrs.object?.kind, 'Scale');
      assert.deepEqual(validateScale.attrs.object?.spec, { replicas: 3 });
      assert.deepEqual(validateScale.attrs.oldObject?.spec, { replicas: 1 });

      refuse = 'scale';
      const refused = await http(c, 'PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale', {
        headers: { 'content-type': 'application/merge-patch+json' },
        body: { spec: { replicas: 7 } },
      });
      assert.equal(refused.status, 403);
      assert.equal((await http(c, 'GET', '/apis/apps/v1/namespaces/default/deployments/web')).json.spec.replicas, 3, 'a refused scale changes nothing');
      calls.splice(0);

      // Binding: mutating, then validating, on the Binding; a refusal leaves the pod unbound.
      assert.equal((await http(c, 'POST', '/api/v1/namespaces/default/pods', { body: pod('p1') })).status, 201);
      const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p1' }, target: { kind: 'Node', name: 'node-a' } };
      refuse = 'binding';
      assert.equal((await http(c, 'POST', '/api/v1/namespaces/default/pods/p1/binding', { body: binding })).status, 403);
      assert.equal((await http(c, 'GET', '/api/v1/namespaces/default/pods/p1')).json.spec.nodeName, undefined, 'a refused binding binds nothing');
      assert.deepEqual(calls.splice(0).map((x) => `${x.phase} ${x.attrs.operation} ${x.attrs.object?.kind}`), ['admit CREATE Binding', 'validate CREATE Binding']);
      refuse = '';
      assert.equal((await http(c, 'POST', '/api/v1/namespaces/default/pods/p1/binding', { body: binding })).status, 201);
      assert.equal((await http(c, 'GET', '/api/v1/namespaces/default/pods/p1')).json.spec.nodeName, 'node-a');
      calls.splice(0);

      // Eviction: mutating, then validating, on the Eviction; a refusal leaves the pod in place.
      assert.equal((await http(c, 'POST', '/api/v1/namespaces/default/pods', { body: pod('p2') })).status, 201);
      const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p2' } };
      refuse = 'eviction';
      assert.equal((await http(c, 'POST', '/api/v1/namespaces/default/pods/p2/eviction', { body: eviction })).status, 403);
      assert.equal((await http(c, 'GET', '/api/v1/namespaces/default/pods/p2')).status, 200, 'a refused eviction deletes nothing');
      assert.deepEqual(calls.splice(0).map((x) => `${x.phase} ${x.attrs.operation} ${x.attrs.object?.kind}`), ['admit CREATE Eviction', 'validate CREATE Eviction']);
      refuse = '';
      assert.equal((await http(c, 'POST', '/api/v1/namespaces/default/pods/p2/eviction', { body: eviction })).status, 201);
      assert.equal((await http(c, 'GET', '/api/v1/namespaces/default/pods/p2')).status, 404);
    } finally {
      await server.stop();
    }
  });
});
