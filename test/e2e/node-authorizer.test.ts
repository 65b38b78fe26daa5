import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { ApiClient } from '../../src/machinery/client.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { issueClientCert } from '../../src/server/pki.js';
import { eventually, http, removeDir, tempDir } from '../helpers/server.js';

/** The Node authorizer (--authorization-mode=Node,RBAC): what a kubelet may reach through the pods bound to its node. */

const NODE = ['system:nodes', 'system:authenticated'];

describe('Node authorizer', () => {
  let server: ApiServer;
  let dir: string;
  let admin: ApiClient;

  const sar = async (user: string, groups: string[], ra: Record<string, unknown>) => {
    const r = await admin.create({ group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' }, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups, resourceAttributes: ra } });
    return r.status as { allowed: boolean; reason?: string };
  };
  const n1 = (ra: Record<string, unknown>) => sar('system:node:n1', NODE, ra);

  before(async () => {
    dir = tempDir('capstan-node-authz-');
    server = new ApiServer({ config: { dataDir: dir, authorizationModes: ['Node', 'RBAC'] } });
    await server.start();
    admin = server.client('node-authorizer-test');
    const pods = { group: '', version: 'v1', resource: 'pods', namespace: 'default' };
    // The ServiceAccount admission plugin admits pods of existing accounts only.
    await admin.create({ group: '', version: 'v1', resource: 'serviceaccounts', namespace: 'default' }, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } });
    await admin.create(pods, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' },
      spec: {
        nodeName: 'n1', serviceAccountName: 'sa1',
        containers: [{ name: 'c', image: 'nginx', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's2', key: 'k' } } }] }],
        volumes: [{ name: 'a', secret: { secretName: 's1' } }, { name: 'b', configMap: { name: 'cm1' } }, { name: 'c', persistentVolumeClaim: { claimName: 'claim1' } }],
      },
    });
    await admin.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p2' }, spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'a', secret: { secretName: 's3' } }] } });
    await admin.create({ group: '', version: 'v1', resource: 'persistentvolumes' }, {
      apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv1' }, claimRef: { namespace: 'default', name: 'claim1' } },
    });
    await admin.create({ group: 'storage.k8s.io', version: 'v1', resource: 'volumeattachments' }, {
      apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va1' },
      spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } },
    });
    await eventually(async () => (await n1({ namespace: 'default', verb: 'get', resource: 'persistentvolumes', name: 'pv1' })).allowed);
    await eventually(async () => (await n1({ verb: 'get', group: 'storage.k8s.io', resource: 'volumeattachments', name: 'va1' })).allowed);
    for (const [name, nodeName] of [['slice-n1', 'n1'], ['slice-n2', 'n2']]) {
      await admin.create({ group: 'resource.k8s.io', version: 'v1', resource: 'resourceslices' }, {
        apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name },
        spec: { driver: 'dra.example.com', nodeName, pool: { name: nodeName!, generation: 1, resourceSliceCount: 1 }, devices: [] },
      });
    }
    await eventually(async () => (await n1({ verb: 'get', group: 'resource.k8s.io', resource: 'resourceslices', name: 'slice-n1' })).allowed);
  });

  after(async () => {
    await server.stop();
    removeDir(dir);
  });

  it('relates a node to what its pods use, and to nothing else', async () => {
    const cases: Array<[Record<string, unknown>, boolean, string?]> = [
      [{ namespace: 'default', verb: 'get', resource: 'secrets', name: 's1' }, true],
      [{ namespace: 'default', verb: 'watch', resource: 'secrets', name: 's2' }, true],
      [{ namespace: 'default', verb: 'get', resource: 'configmaps', name: 'cm1' }, true],
      [{ namespace: 'default', verb: 'get', resource: 'persistentvolumeclaims', name: 'claim1' }, true],
      [{ namespace: 'default', verb: 'create', resource: 'serviceaccounts', subresource: 'token', name: 'sa1' }, true],
      [{ namespace: 'default', verb: 'get', resource: 'pods', name: 'p1' }, true],
      [{ namespace: 'default', verb: 'get', resource: 'secrets', name: 's3' }, false, "no relationship found between node 'n1' and this object"],
      [{ namespace: 'default', verb: 'get', resource: 'pods', name: 'p2' }, false, "no relationship found between node 'n1' and this object"],
      [{ namespace: 'default', verb: 'list', resource: 'secrets' }, false, 'No Object name found'],
      [{ namespace: 'default', verb: 'update', resource: 'secrets', name: 's1' }, false, 'can only read resources of this type'],
      [{ namespace: 'default', verb: 'list', resource: 'persistentvolumeclaims' }, false, 'can only get individual resources of this type'],
      [{ namespace: 'default', verb: 'create', resource: 'serviceaccounts', subresource: 'token', name: 'default' }, false, "no relationship found between node 'n1' and this object"],
      [{ verb: 'get', resource: 'nodes', name: 'n1' }, true],
      [{ verb: 'get', resource: 'nodes', name: 'n2' }, false, "node 'n1' cannot read 'n2', only its own Node object"],
      [{ verb: 'list', resource: 'nodes' }, false, "node 'n1' cannot read all nodes, only its own Node object"],
      [{ verb: 'patch', resource: 'nodes', subresource: 'status', name: 'n1' }, true],
      [{ verb: 'list', resource: 'pods', fieldSelector: { rawSelector: 'spec.nodeName=n1' } }, true],
      [{ verb: 'list', resource: 'pods' }, false, 'can only list/watch pods with spec.nodeName field selector'],
      [{ verb: 'list', resource: 'pods', fieldSelector: { rawSelector: 'spec.nodeName=n2' } }, false, 'can only list/watch pods with spec.nodeName field selector'],
      [{ namespace: 'kube-node-lease', verb: 'update', group: 'coordination.k8s.io', resource: 'leases', name: 'n1' }, true],
      [{ namespace: 'kube-node-lease', verb: 'update', group: 'coordination.k8s.io', resource: 'leases', name: 'n2' }, false, 'can only access node lease with the same name as the requesting node'],
      [{ namespace: 'default', verb: 'get', group: 'coordination.k8s.io', resource: 'leases', name: 'n1' }, false, 'can only access leases in the "kube-node-lease" system namespace'],
      [{ verb: 'get', group: 'storage.k8s.io', resource: 'csinodes', name: 'n1' }, true],
      [{ verb: 'get', group: 'storage.k8s.io', resource: 'volumeattachments', name: 'va2' }, false, "no relationship found between node 'n1' and this object"],
      [{ verb: 'list', group: 'storage.k8s.io', resource: 'volumeattachments' }, false, 'can only get individual resources of this type'],
      [{ verb: 'update', group: 'resource.k8s.io', resource: 'resourceslices', name: 'slice-n1' }, true],
      [{ verb: 'delete', group: 'resource.k8s.io', resource: 'resourceslices', name: 'slice-n1' }, true],
      [{ verb: 'get', group: 'resource.k8s.io', resource: 'resourceslices', name: 'slice-n2' }, false, "no relationship found between node 'n1' and this object"],
      [{ verb: 'create', group: 'resource.k8s.io', resource: 'resourceslices' }, true],
      [{ verb: 'list', group: 'resource.k8s.io', resource: 'resourceslices', fieldSelector: { rawSelector: 'spec.nodeName=n1' } }, true],
      [{ verb: 'watch', group: 'resource.k8s.io', resource: 'resourceslices' }, false, 'can only list/watch/deletecollection resourceslices with nodeName field selector'],
      [{ verb: 'patch', group: 'resource.k8s.io', resource: 'resourceslices', subresource: 'status', name: 'slice-n1' }, false, 'cannot authorize ResourceSlice subresources'],
      // Not subdivided: the system:node role's rules.
      [{ verb: 'list', resource: 'services' }, true],
      [{ namespace: 'default', verb: 'create', resource: 'events' }, true],
      [{ verb: 'create', group: 'certificates.k8s.io', resource: 'certificatesigningrequests' }, true],
      [{ namespace: 'default', verb: 'delete', resource: 'services', name: 'x' }, false],
    ];
    for (const [ra, allowed, reason] of cases) {
      const answer = await n1(ra);
      assert.equal(answer.allowed, allowed, JSON.stringify(ra));
      if (reason !== undefined) assert.equal(answer.reason, reason, JSON.stringify(ra));
    }
    // The field selectors a kubelet lists its slices with.
    const slices = await admin.list({ group: 'resource.k8s.io', version: 'v1', resource: 'resourceslices' }, { fieldSelector: 'spec.nodeName=n1,spec.driver=dra.example.com' });
    assert.deepEqual(slices.items.map((s) => s.metadata?.name), ['slice-n1']);
    // Not a node: no opinion from Node (and nothing from RBAC).
    assert.equal((await sar('system:node:n1', ['system:authenticated'], { namespace: 'default', verb: 'get', resource: 'secrets', name: 's1' })).allowed, false);
    assert.equal((await sar('system:node:', NODE, { verb: 'list', resource: 'services' })).reason, 'unknown node for user "system:node:"');
    // A node with no pods knows nothing.
    assert.equal((await sar('system:node:n3', NODE, { namespace: 'default', verb: 'get', resource: 'secrets', name: 's1' })).allowed, false);
  });

  it('answers a kubelet\'s real requests, and forgets a deleted pod\'s objects', async () => {
    const ca = { cert: readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'), key: readFileSync(join(dir, 'pki', 'ca.key'), 'utf8') };
    const pair = await issueClientCert(ca, 'system:node:n1', ['system:nodes']);
    const kubelet = { url: server.url, creds: { ca: server.pki.servingCa!, cert: pair.cert, key: pair.key } };
    assert.equal((await http(kubelet, 'GET', '/api/v1/namespaces/default/secrets/s1')).status, 404, 'allowed (the secret does not exist)');
    const denied = await http(kubelet, 'GET', '/api/v1/namespaces/default/secrets/s3');
    assert.equal(denied.status, 403);
    assert.equal(denied.json.message, 'secrets "s3" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node \'n1\' and this object');
    assert.equal((await http(kubelet, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1')).status, 200);
    assert.equal((await http(kubelet, 'GET', '/api/v1/pods')).status, 403);
    // A node's rules cannot be listed: incomplete, with the Node authorizer's error.
    const rules = await http(kubelet, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } } });
    assert.equal(rules.json.status.incomplete, true);
    assert.equal(rules.json.status.evaluationError, 'node authorizer does not support user rule resolution');
    await admin.delete({ group: '', version: 'v1', resource: 'pods', namespace: 'default', name: 'p1' }, { gracePeriodSeconds: 0 });
    await eventually(async () => (await http(kubelet, 'GET', '/api/v1/namespaces/default/secrets/s1')).status === 403);
  });

  it('limits a node\'s writes to its own objects (NodeRestriction)', async () => {
    const ca = { cert: readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'), key: readFileSync(join(dir, 'pki', 'ca.key'), 'utf8') };
    const pair = await issueClientCert(ca, 'system:node:n1', ['system:nodes']);
    const kubelet = { url: server.url, creds: { ca: server.pki.servingCa!, cert: pair.cert, key: pair.key } };
    const n1Node = await admin.create({ group: '', version: 'v1', resource: 'nodes' }, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await admin.create({ group: '', version: 'v1', resource: 'nodes' }, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
    const pod = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...extra }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } });
    const plain = await http(kubelet, 'POST', '/api/v1/namespaces/default/pods', { body: pod('plain') });
    assert.equal(plain.status, 403);
    assert.equal(plain.json.message, 'pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods');
    const owner = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: n1Node.metadata!.uid, controller: true };
    const mirror = await http(kubelet, 'POST', '/api/v1/namespaces/default/pods', { body: pod('mirror', { annotations: { 'kubernetes.io/config.mirror': 'x' }, ownerReferences: [owner] }) });
    assert.equal(mirror.status, 201, mirror.text);
    const other = await http(kubelet, 'DELETE', '/api/v1/namespaces/default/pods/p2');
    assert.equal(other.status, 403);
    assert.equal(other.json.message, 'pods "p2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
    const node2 = await http(kubelet, 'PATCH', '/api/v1/nodes/n2', { headers: { 'content-type': 'application/merge-patch+json' }, body: { metadata: { labels: { a: 'b' } } } });
    assert.equal(node2.status, 403);
    assert.equal(node2.json.message, 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    const taint = await http(kubelet, 'PATCH', '/api/v1/nodes/n1', { headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } } });
    assert.equal(taint.json.message, 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints');
    const labels = await http(kubelet, 'PATCH', '/api/v1/nodes/n1', { headers: { 'content-type': 'application/merge-patch+json' }, body: { metadata: { labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/hostname': 'n1', 'example.com/mine': 'x' } } } });
    assert.equal(labels.status, 403);
    assert.equal(labels.json.message, 'nodes "n1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane');
    assert.equal((await http(kubelet, 'PATCH', '/api/v1/nodes/n1', { headers: { 'content-type': 'application/merge-patch+json' }, body: { metadata: { labels: { 'kubernetes.io/hostname': 'n1', 'node.kubernetes.io/exclude-from-external-load-balancers': '', 'example.com/mine': 'x' } } } })).status, 200);
    const lease = await http(kubelet, 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'n2' } } });
    assert.equal(lease.status, 403);
    assert.equal(lease.json.message, 'leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node');
    assert.equal((await http(kubelet, 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'n1' } } })).status, 201);
  });
  it('binds a node\'s tokens to its own pods and limits its PVC status writes to a resize (NodeRestriction)', async () => {
    const ca = { cert: readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'), key: readFileSync(join(dir, 'pki', 'ca.key'), 'utf8') };
    const pair = await issueClientCert(ca, 'system:node:n1', ['system:nodes']);
    const kubelet = { url: server.url, creds: { ca: server.pki.servingCa!, cert: pair.cert, key: pair.key } };
    await admin.create({ group: '', version: 'v1', resource: 'serviceaccounts', namespace: 'default' }, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'shared' } });
    await admin.create({ group: '', version: 'v1', resource: 'persistentvolumeclaims', namespace: 'default' }, {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c3' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    const pods = { group: '', version: 'v1', resource: 'pods', namespace: 'default' };
    const podOn = (name: string, nodeName: string) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: { nodeName, serviceAccountName: 'shared', containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c3' } }] },
    });
    const mine = await admin.create(pods, podOn('p3', 'n1'));
    const theirs = await admin.create(pods, podOn('p4', 'n2'));
    await eventually(async () => (await n1({ namespace: 'default', verb: 'create', resource: 'serviceaccounts', subresource: 'token', name: 'shared' })).allowed);
    await eventually(async () => (await n1({ namespace: 'default', verb: 'patch', resource: 'persistentvolumeclaims', subresource: 'status', name: 'c3' })).allowed);

    const token = (boundObjectRef?: Record<string, unknown>) =>
      http(kubelet, 'POST', '/api/v1/namespaces/default/serviceaccounts/shared/token', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['x'], ...(boundObjectRef ? { boundObjectRef } : {}) } } });
    const forbiddenToken = (why: string) => `serviceaccounts "shared" is forbidden: ${why}`;
    const tokenCases: Array<[string, Record<string, unknown> | undefined, number, string?]> = [
      ['unbound', undefined, 403, forbiddenToken('node requested token not bound to a pod')],
      ['bound to a secret', { apiVersion: 'v1', kind: 'Secret', name: 's1', uid: 'u' }, 403, forbiddenToken('node requested token not bound to a pod')],
      ['a pod without apiVersion', { kind: 'Pod', name: 'p3', uid: mine.metadata!.uid }, 403, forbiddenToken('node requested token not bound to a pod')],
      ['a pod without name', { apiVersion: 'v1', kind: 'Pod', uid: mine.metadata!.uid }, 403, forbiddenToken('node requested token not bound to a pod')],
      ['a pod without uid', { apiVersion: 'v1', kind: 'Pod', name: 'p3' }, 403, forbiddenToken('node requested token with a pod binding without a uid')],
      ['a pod that does not exist', { apiVersion: 'v1', kind: 'Pod', name: 'nope', uid: 'u' }, 404, 'pods "nope" not found'],
      ['a stale uid', { apiVersion: 'v1', kind: 'Pod', name: 'p3', uid: 'old' }, 403, forbiddenToken('the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated')],
      ['another node\'s pod', { apiVersion: 'v1', kind: 'Pod', name: 'p4', uid: theirs.metadata!.uid }, 403, forbiddenToken('node requested token bound to a pod scheduled on a different node')],
      ['its own pod', { apiVersion: 'v1', kind: 'Pod', name: 'p3', uid: mine.metadata!.uid }, 201],
    ];
    for (const [what, ref, status, message] of tokenCases) {
      const r = await token(ref);
      assert.equal(r.status, status, `${what}: ${r.text}`);
      if (message !== undefined) assert.equal(r.json.message, message, what);
    }

    const statusPatch = (body: Record<string, unknown>) =>
      http(kubelet, 'PATCH', '/api/v1/namespaces/default/persistentvolumeclaims/c3/status', { headers: { 'content-type': 'application/merge-patch+json' }, body });
    const notResize = 'persistentvolumeclaims "c3" is forbidden: node "n1" is not allowed to update fields other than status.capacity and status.conditions: ';
    const pvcCases: Array<[string, Record<string, unknown>, boolean]> = [
      ['capacity', { status: { capacity: { storage: '2Gi' } } }, true],
      ['conditions', { status: { conditions: [{ type: 'FileSystemResizePending', status: 'True' }] } }, true],
      ['allocated resources', { status: { allocatedResources: { storage: '2Gi' }, allocatedResourceStatuses: { storage: 'NodeResizeInProgress' } } }, true],
      ['phase', { status: { phase: 'Lost' } }, false],
      ['access modes', { status: { accessModes: ['ReadWriteMany'] } }, false],
      ['labels', { metadata: { labels: { mine: 'yes' } } }, false],
      ['finalizers', { metadata: { finalizers: ['example.com/keep'] } }, false],
      ['spec', { spec: { resources: { requests: { storage: '5Gi' } } } }, false],
    ];
    for (const [what, body, allowed] of pvcCases) {
      const r = await statusPatch(body);
      if (allowed) {
        assert.equal(r.status, 200, `${what}: ${r.text}`);
      } else {
        assert.equal(r.status, 403, `${what}: ${r.text}`);
        assert.ok(String(r.json.message).startsWith(notResize), `${what}: ${r.json.message}`);
      }
    }
    const claimStatus = await http(kubelet, 'PATCH', '/api/v1/namespaces/default/pods/p3/status', { headers: { 'content-type': 'application/merge-patch+json' }, body: { status: { resourceClaimStatuses: [{ name: 'x', resourceClaimName: 'y' }] } } });
    assert.equal(claimStatus.status, 403, claimStatus.text);
    assert.equal(claimStatus.json.message, 'pods "p3" is forbidden: node "n1" cannot update resource claim statues');
    const pvc = await admin.get({ group: '', version: 'v1', resource: 'persistentvolumeclaims', namespace: 'default', name: 'c3' });
    assert.deepEqual((pvc.status as Record<string, unknown>).capacity, { storage: '2Gi' });
    assert.equal(pvc.metadata?.labels?.mine, undefined);
  });
});
