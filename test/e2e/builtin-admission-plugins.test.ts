import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';

import { ApiServer } from '../../src/server/apiserver.js';
import { enabledAdmissionPlugins } from '../../src/server/admission-setup.js';
import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';
import { userKubeconfig } from '../helpers/users.js';

/**
 * kube's storage, networking, certificate and ownership admission plugins
 * as users meet them: kubectl against `capstan serve` with its default
 * plugins and strict RBAC (a claim without a class gets the default one and
 * its protection finalizer, a resize the class forbids is refused, an
 * Ingress gets the default IngressClass, a CSR approval without `approve` on
 * the signer is refused, a system:masters client CSR is refused), and
 * OwnerReferencesPermissionEnforcement switched on through the server
 * config's admission.enablePlugins.
 */

const skip = kubectlMissing();

const DEFAULT_CLASS = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: example.com/csi
`;
const CLAIM = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`;

function opensslCsr(subject: string): string {
  const r = spawnSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', '/dev/null', '-subj', subject], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

function csrManifest(name: string, signerName: string, subject: string): string {
  return JSON.stringify({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { signerName, request: Buffer.from(opensslCsr(subject)).toString('base64'), usages: ['client auth'] },
  });
}

describe('built-in admission plugins through kubectl', { skip }, () => {
  let server: TestServer;
  let jane: { kubeconfig: string };
  let dir: string;

  before(async () => {
    server = await startServer({ strictRbac: true });
    dir = tempDir('capstan-adm-misc-');
    jane = await userKubeconfig(server, dir, 'jane', ['approvers']);
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    if (dir) removeDir(dir);
  });

  it('gives a claim without a class the default StorageClass and the pvc-protection finalizer', async () => {
    assert.equal((await kubectl(server, ['apply', '-f', '-'], DEFAULT_CLASS)).code, 0);
    // The plugin lists classes from its informer, which follows the class a moment after it is stored.
    await eventually(async () => (await kubectl(server, ['create', '--dry-run=server', '-o', 'jsonpath={.spec.storageClassName}', '-f', '-'], CLAIM)).stdout === 'standard');
    const created = await kubectl(server, ['create', '-f', '-'], CLAIM);
    assert.equal(created.code, 0, created.stderr);
    const got = await kubectl(server, ['get', 'pvc', 'data', '-n', 'default', '-o', 'jsonpath={.spec.storageClassName} {.metadata.finalizers}']);
    assert.equal(got.stdout, 'standard ["kubernetes.io/pvc-protection"]');
    const explicit = await kubectl(server, ['create', '-o', 'jsonpath={.spec.storageClassName}|{.metadata.finalizers}', '-f', '-'], CLAIM.replace('name: data', 'name: no-class').replace('spec:\n', 'spec:\n  storageClassName: ""\n'));
    assert.equal(explicit.stdout, '|["kubernetes.io/pvc-protection"]', 'an empty class is a choice');
  });

  it('refuses growing a claim whose class does not allow expansion, with kube\'s words', async () => {
    const unbound = await kubectl(server, ['patch', 'pvc', 'data', '-n', 'default', '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    // As in kube, validation refuses resizing an unbound claim before admission sees it.
    assert.equal(unbound.code, 1);
    assert.ok(unbound.stderr.startsWith('The PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'), unbound.stderr);
    const bound = await kubectl(server, ['patch', 'pvc', 'data', '-n', 'default', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Bound"}}']);
    assert.equal(bound.code, 0, bound.stderr);
    const refused = await kubectl(server, ['patch', 'pvc', 'data', '-n', 'default', '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr.trim(), 'Error from server (Forbidden): persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');

    assert.equal((await kubectl(server, ['patch', 'storageclass', 'standard', '--type=merge', '-p', '{"allowVolumeExpansion":true}'])).code, 0);
    await eventually(async () => (await kubectl(server, ['patch', 'pvc', 'data', '-n', 'default', '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}'])).code === 0);
    assert.equal((await kubectl(server, ['get', 'pvc', 'data', '-n', 'default', '-o', 'jsonpath={.spec.resources.requests.storage}'])).stdout, '2Gi');
  });

  it('gives an Ingress without a class the default IngressClass', async () => {
    const cls = { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: 'k8s.io/ingress-nginx' } };
    assert.equal((await kubectl(server, ['apply', '-f', '-'], JSON.stringify(cls))).code, 0);
    const ingress = JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: 'default' }, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } });
    await eventually(async () => (await kubectl(server, ['create', '--dry-run=server', '-o', 'jsonpath={.spec.ingressClassName}', '-f', '-'], ingress)).stdout === 'nginx');
  });

  it('refuses a CSR approval by a user without approve on the signer, and allows it once granted', async () => {
    assert.equal((await kubectl(server, ['create', '-f', '-'], csrManifest('jane-req', 'example.com/widgets', '/CN=widget'))).code, 0);
    const approverRole = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'csr-approver' },
      rules: [
        { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['get', 'list'] },
        { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
      ],
    };
    const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'jane-csr-approver' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'csr-approver' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' }] };
    assert.equal((await kubectl(server, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [approverRole, binding] }))).code, 0);

    const refused = await kubectl(jane, ['certificate', 'approve', 'jane-req']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr.trim(), 'Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "jane-req" is forbidden: user not permitted to approve requests with signerName "example.com/widgets"');
    assert.equal((await kubectl(server, ['get', 'csr', 'jane-req', '-o', 'jsonpath={.status.conditions}'])).stdout, '', 'nothing was approved');

    // approve on the signer domain's wildcard covers every signer of the domain.
    approverRole.rules.push({ apiGroups: ['certificates.k8s.io'], resources: ['signers'], verbs: ['approve'], resourceNames: ['example.com/*'] } as (typeof approverRole.rules)[number]);
    assert.equal((await kubectl(server, ['apply', '-f', '-'], JSON.stringify(approverRole))).code, 0);
    await eventually(async () => (await kubectl(jane, ['certificate', 'approve', 'jane-req'])).code === 0);
    assert.equal((await kubectl(server, ['get', 'csr', 'jane-req', '-o', 'jsonpath={.status.conditions[0].type}'])).stdout, 'Approved');
  });

  it('refuses a kube-apiserver-client CSR asking for system:masters', async () => {
    const r = await kubectl(server, ['create', '-f', '-'], csrManifest('masters', 'kubernetes.io/kube-apiserver-client', '/O=system:masters/CN=mallory'));
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
    const ok = await kubectl(server, ['create', '-f', '-'], csrManifest('devs', 'kubernetes.io/kube-apiserver-client', '/O=dev/CN=mallory'));
    assert.equal(ok.code, 0, ok.stderr);
  });
});

describe('OwnerReferencesPermissionEnforcement', () => {
  it('is off by default, as in kube; the storage, certificate and ingress plugins are on', () => {
    const on = enabledAdmissionPlugins(undefined);
    assert.ok(!on.includes('OwnerReferencesPermissionEnforcement'));
    for (const name of ['DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize', 'CertificateApproval', 'CertificateSigning', 'ClusterTrustBundleAttest', 'CertificateSubjectRestriction', 'DefaultIngressClass']) assert.ok(on.includes(name), name);
    assert.ok(enabledAdmissionPlugins({ enablePlugins: ['OwnerReferencesPermissionEnforcement'] }).includes('OwnerReferencesPermissionEnforcement'));
  });

  it('enabled through the config: ownerReferences need delete on the object, blockOwnerDeletion update on the owner\'s finalizers', async () => {
    const server = new ApiServer({ config: { authorizationModes: ['RBAC'], admission: { enablePlugins: ['OwnerReferencesPermissionEnforcement'] } } });
    await server.start();
    try {
      const kc = server.adminKubeconfig();
      const admin = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
      const asJane = { 'Impersonate-User': 'jane' };
      const role = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'configmap-writer', namespace: 'default' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update', 'patch'] }] as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>,
      };
      const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'jane', namespace: 'default' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-writer' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' }] };
      assert.equal((await http(admin, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { body: role })).status, 201);
      assert.equal((await http(admin, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { body: binding })).status, 201);
      const owner = await http(admin, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } },
      });
      assert.equal(owner.status, 201);
      const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: owner.json.metadata.uid as string };

      // Creating with a reference is allowed without delete.
      const created = await http(admin, 'POST', '/api/v1/namespaces/default/configmaps', { headers: asJane, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', ownerReferences: [ref] } } });
      assert.equal(created.status, 201, created.text);
      // Changing references later needs delete on the ConfigMap.
      const changed = await http(admin, 'PATCH', '/api/v1/namespaces/default/configmaps/owned', { headers: { ...asJane, 'content-type': 'application/merge-patch+json' }, body: { metadata: { ownerReferences: [] } } });
      assert.equal(changed.status, 403);
      assert.equal(changed.json.message, 'configmaps "owned" is forbidden: cannot set an ownerRef on a resource you can\'t delete: , <nil>');
      assert.deepEqual(changed.json.details, { name: 'owned', kind: 'configmaps' });
      // Other changes pass.
      assert.equal((await http(admin, 'PATCH', '/api/v1/namespaces/default/configmaps/owned', { headers: { ...asJane, 'content-type': 'application/merge-patch+json' }, body: { data: { a: 'b' } } })).status, 200);

      // blockOwnerDeletion needs update on deployments/finalizers.
      const blocking = await http(admin, 'POST', '/api/v1/namespaces/default/configmaps', { headers: asJane, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'blocking', ownerReferences: [{ ...ref, blockOwnerDeletion: true }] } } });
      assert.equal(blocking.status, 403);
      assert.equal(blocking.json.message, 'configmaps "blocking" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>');
      role.rules.push({ apiGroups: ['apps'], resources: ['deployments/finalizers'], verbs: ['update'] });
      assert.equal((await http(admin, 'PUT', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/configmap-writer', { body: role })).status, 200);
      await eventually(async () => (await http(admin, 'POST', '/api/v1/namespaces/default/configmaps', { headers: asJane, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'blocking', ownerReferences: [{ ...ref, blockOwnerDeletion: true }] } } })).status === 201);
    } finally {
      await server.stop();
    }
  });
});
