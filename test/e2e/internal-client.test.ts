import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { AdmissionAttributes, AdmissionPlugin } from '../../src/admission/admission.js';
import { isApiError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { etcdMissing, startEtcd } from '../helpers/etcd.js';
import { eventually, http } from '../helpers/server.js';

/**
 * The internal client (kube-apiserver's loopback client): controllers write
 * through the server's own handler chain, so their writes are authenticated
 * as system:apiserver, pass admission, are defaulted by the pipeline and
 * show the controller's manager in managedFields, as in kube.
 */

function client(server: ApiServer): { url: string; creds: { ca: string; cert: string; key: string } } {
  const kc = server.adminKubeconfig();
  return { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
}

interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  subresource?: string;
}

function managers(obj: { metadata: { managedFields?: ManagedFieldsEntry[] } }): string[] {
  return (obj.metadata.managedFields ?? []).map((m) => `${m.manager} ${m.operation}${m.subresource ? ` ${m.subresource}` : ''}`).sort();
}

describe('internal client', () => {
  const seen: AdmissionAttributes[] = [];
  const recorder: AdmissionPlugin = {
    name: 'Recorder',
    async validate(attrs) {
      seen.push({ ...attrs, object: attrs.object ? structuredClone(attrs.object) : undefined });
    },
  };
  let server: ApiServer;
  let admin: ReturnType<typeof client>;
  const get = async (path: string): Promise<any> => {
    const r = await http(admin, 'GET', path);
    return r.status === 200 ? r.json : undefined;
  };
  /** The validating admission call for a write, by resource, operation, name (and namespace or subresource). */
  const admitted = (resource: string, operation: string, name: string, where: { namespace?: string; subresource?: string } = {}): AdmissionAttributes | undefined =>
    seen.find(
      (a) =>
        a.resource.name === resource &&
        a.operation === operation &&
        a.name === name &&
        a.subresource === (where.subresource ?? '') &&
        (where.namespace === undefined || a.namespace === where.namespace),
    );

  before(async () => {
    server = new ApiServer({ admissionPlugins: [recorder] });
    await server.start();
    admin = client(server);
  });
  after(async () => {
    await server.stop();
  });

  it("shows the bootstrap controller's manager on the kubernetes Service, Endpoints, EndpointSlice and ServiceCIDR, and passes their writes through admission", async () => {
    const svc = await eventually(() => get('/api/v1/namespaces/default/services/kubernetes'));
    const ep = await eventually(() => get('/api/v1/namespaces/default/endpoints/kubernetes'));
    const slice = await eventually(() => get('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes'));
    assert.deepEqual(managers(svc), ['kube-apiserver Update']);
    assert.deepEqual(managers(ep), ['kube-apiserver Update']);
    assert.deepEqual(managers(slice), ['kube-apiserver Update']);
    // Defaults come from the pipeline, not from the controller.
    assert.deepEqual(svc.spec.ipFamilies, ['IPv4']);
    assert.equal(svc.spec.ipFamilyPolicy, 'SingleStack');
    assert.equal(svc.spec.internalTrafficPolicy, 'Cluster');
    const cidr = await eventually(async () => {
      const c = await get('/apis/networking.k8s.io/v1/servicecidrs/kubernetes');
      return c?.status?.conditions ? c : undefined;
    });
    // As kube's: created by kube-apiserver, marked Ready by the default ServiceCIDR controller's forced apply.
    assert.deepEqual(managers(cidr), ['kube-apiserver Update', 'kubernetes-service-cidr-controller Apply status']);
    assert.equal(cidr.status.conditions[0].message, 'Kubernetes default Service CIDR is ready');

    for (const [resource, name] of [['services', 'kubernetes'], ['endpoints', 'kubernetes'], ['endpointslices', 'kubernetes'], ['servicecidrs', 'kubernetes']] as const) {
      const a = admitted(resource, 'CREATE', name);
      assert.ok(a, `validating admission saw the create of ${resource}/${name}`);
      assert.equal(a.user?.username, 'system:apiserver');
      assert.ok(a.user?.groups.includes('system:masters'));
    }
    assert.ok(admitted('servicecidrs', 'UPDATE', 'kubernetes', { subresource: 'status' }), 'the Ready condition passed admission');
    const svcCreate = admitted('services', 'CREATE', 'kubernetes')!;
    assert.equal((svcCreate.object!.spec as { clusterIP: string }).clusterIP, svc.spec.clusterIP, 'validating admission saw the fully formed Service');
  });

  it('shows kube-apiserver on the system namespaces, which passed admission', async () => {
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      const ns = await eventually(() => get(`/api/v1/namespaces/${name}`));
      assert.deepEqual(managers(ns), ['kube-apiserver Update'], name);
      assert.equal(admitted('namespaces', 'CREATE', name)?.user?.username, 'system:apiserver', name);
    }
  });

  it("shows kube-controller-manager on a new namespace's kube-root-ca.crt; its default ServiceAccount owns no fields, as in kube; both passed admission, and so do the namespace controller's deletes", async () => {
    assert.equal((await http(admin, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } } })).status, 201);
    const cm = await eventually(() => get('/api/v1/namespaces/team/configmaps/kube-root-ca.crt'));
    const sa = await eventually(() => get('/api/v1/namespaces/team/serviceaccounts/default'));
    assert.deepEqual(managers(cm), ['kube-controller-manager Update']);
    // Only name and namespace are set, and those are never tracked: kube shows no managedFields either.
    assert.equal(sa.metadata.managedFields, undefined);
    const cmCreate = admitted('configmaps', 'CREATE', 'kube-root-ca.crt', { namespace: 'team' });
    assert.equal(cmCreate?.namespace, 'team');
    assert.equal(cmCreate?.user?.username, 'system:apiserver');
    assert.ok(cmCreate?.object?.metadata?.uid, 'validating admission saw the fully formed ConfigMap');
    assert.equal(admitted('serviceaccounts', 'CREATE', 'default', { namespace: 'team' })?.user?.username, 'system:apiserver');

    // A controller's repair is an update under its manager too.
    const edited = { ...cm, data: { 'ca.crt': 'tampered' } };
    assert.equal((await http(admin, 'PUT', '/api/v1/namespaces/team/configmaps/kube-root-ca.crt?fieldManager=someone', { body: edited })).status, 200);
    const repaired = await eventually(async () => {
      const c = await get('/api/v1/namespaces/team/configmaps/kube-root-ca.crt');
      return c?.data['ca.crt'] === cm.data['ca.crt'] ? c : undefined;
    });
    assert.ok(managers(repaired).includes('kube-controller-manager Update'));
    assert.ok(seen.some((a) => a.resource.name === 'configmaps' && a.operation === 'UPDATE' && a.namespace === 'team' && a.user?.username === 'system:apiserver'));

    assert.equal((await http(admin, 'DELETE', '/api/v1/namespaces/team')).status, 200);
    await eventually(async () => (await http(admin, 'GET', '/api/v1/namespaces/team')).status === 404);
    const deleted = seen.find((a) => a.resource.name === 'configmaps' && a.operation === 'DELETE' && a.namespace === 'team' && a.name === 'kube-root-ca.crt');
    assert.equal(deleted?.user?.username, 'system:apiserver', "the namespace controller's delete passed admission");
  });

  it('answers in-process callers with the ApiErrors of the Status it got', async () => {
    const c = server.client('test-helper');
    const ref = { group: '', version: 'v1', resource: 'configmaps', namespace: 'default' };
    const created = await c.create(ref, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-helper' }, data: { a: '1' } });
    assert.deepEqual(managers(created as never), ['test-helper Update'], "the User-Agent's component names the manager");
    await assert.rejects(c.create(ref, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-helper' } }), (err) => isApiError(err, 'AlreadyExists') && err.code === 409);
    await assert.rejects(c.get({ ...ref, name: 'missing' }), (err) => isApiError(err, 'NotFound') && err.message === 'configmaps "missing" not found');
    const stale: KubeObject = { ...created, data: { a: '2' } };
    await c.update({ ...ref, name: 'from-helper' }, stale, { fieldManager: 'editor' });
    await assert.rejects(c.update({ ...ref, name: 'from-helper' }, stale), (err) => isApiError(err, 'Conflict'));
    const applied = await c.patch({ ...ref, name: 'from-helper' }, 'apply', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-helper' }, data: { a: '3' } }, { fieldManager: 'applier', force: true });
    assert.ok(managers(applied as never).includes('applier Apply'));
    const patched = await c.patch({ ...ref, name: 'from-helper' }, 'merge', { data: { b: 'x' } }, { fieldManager: 'merger' });
    assert.deepEqual(patched.data, { a: '3', b: 'x' });
    assert.deepEqual((await c.list(ref, { fieldSelector: 'metadata.name=from-helper' })).items.map((i) => i.metadata?.name), ['from-helper']);
    await c.delete({ ...ref, name: 'from-helper' });
    await assert.rejects(c.get({ ...ref, name: 'from-helper' }), (err) => isApiError(err, 'NotFound'));
  });

  it('never takes a bearer token from outside for the loopback user', async () => {
    // The loopback token never leaves the process; any other bearer token is refused as kube refuses an unknown one.
    const anonymous = { anonymous: true, headers: { Authorization: 'Bearer not-the-loopback-token' } };
    assert.equal((await http(admin, 'GET', '/api/v1/namespaces', anonymous)).status, 401);
    // With a client certificate as well, the certificate names the user.
    const review = await http(admin, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      headers: { Authorization: 'Bearer not-the-loopback-token' },
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    assert.equal(review.status, 201);
    assert.equal(review.json.status.userInfo.username, 'capstan-admin');
  });
});

describe('internal client on etcd', { skip: etcdMissing() }, () => {
  it("shows kube-controller-manager on the leader election's Lease", async () => {
    const etcd = await startEtcd();
    const server = new ApiServer({ config: { storageBackend: 'etcd3', etcdServers: [etcd.endpoint], etcdPrefix: `/internal-client-${process.pid}` } });
    try {
      await server.start();
      const admin = client(server);
      const lease = await eventually(async () => {
        const r = await http(admin, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/capstan-leader');
        return r.status === 200 && r.json.spec.holderIdentity ? r.json : undefined;
      }, 20_000);
      assert.deepEqual(managers(lease), ['kube-controller-manager Update']);
    } finally {
      await server.stop();
      await etcd.destroy();
    }
  });
});
