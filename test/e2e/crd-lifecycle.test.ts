import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiServer } from '../../src/server/apiserver.js';
import { eventually, http, removeDir, tempDir } from '../helpers/server.js';
import { openWatch } from '../helpers/watch.js';

/**
 * A CRD's lifecycle over the HTTP API: names in conflict, versions (a new
 * storage version keeps old objects readable, storedVersions records both),
 * media types custom resources refuse, and deletion: Terminating refuses
 * creates, instances go (their watches see it and end), then the API goes.
 */

type Server = { url: string; creds: { ca: string; cert: string; key: string } };

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const SCHEMA = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };

function gizmos(versions: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gizmos.lifecycle.example.com' },
    spec: { group: 'lifecycle.example.com', scope: 'Namespaced', names: { plural: 'gizmos', kind: 'Gizmo' }, versions, ...extra },
  };
}

const v = (name: string, storage: boolean): Record<string, unknown> => ({ name, served: true, storage, schema: SCHEMA });

describe('CRD lifecycle over the API', () => {
  let server: ApiServer;
  let dataDir: string;
  let c: Server;
  const established = (name: string): Promise<Record<string, any>> =>
    eventually(async () => {
      const crd = (await http(c, 'GET', `${CRDS}/${name}`)).json;
      return crd.status?.conditions?.some((x: { type: string; status: string }) => x.type === 'Established' && x.status === 'True') ? crd : undefined;
    });

  before(async () => {
    dataDir = tempDir();
    server = new ApiServer({ config: { dataDir } });
    await server.start();
    const kc = server.adminKubeconfig();
    c = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
  });
  after(async () => {
    await server?.stop();
    if (dataDir) removeDir(dataDir);
  });

  it('a kind already accepted for another CRD of the group is refused in NamesAccepted', async () => {
    assert.equal((await http(c, 'POST', CRDS, { body: gizmos([v('v1', true)]) })).status, 201);
    await established('gizmos.lifecycle.example.com');
    const clash = gizmos([v('v1', true)]);
    (clash.metadata as Record<string, unknown>).name = 'others.lifecycle.example.com';
    (clash.spec as Record<string, any>).names = { plural: 'others', kind: 'Gizmo' };
    assert.equal((await http(c, 'POST', CRDS, { body: clash })).status, 201);
    const crd = await eventually(async () => {
      const got = (await http(c, 'GET', `${CRDS}/others.lifecycle.example.com`)).json;
      return got.status?.conditions?.length ? got : undefined;
    });
    const names = crd.status.conditions.find((x: { type: string }) => x.type === 'NamesAccepted');
    // Kind and the defaulted listKind both clash; the last check's reason stands, as in kube.
    assert.deepEqual([names.status, names.reason, names.message], ['False', 'ListKindConflict', '"GizmoList" is already in use']);
    const est = crd.status.conditions.find((x: { type: string }) => x.type === 'Established');
    assert.deepEqual([est.status, est.reason], ['False', 'NotAccepted']);
    assert.equal((await http(c, 'GET', '/apis/lifecycle.example.com/v1/namespaces/default/others')).status, 404);
    assert.equal((await http(c, 'DELETE', `${CRDS}/others.lifecycle.example.com`)).status, 200);
  });

  it('changing the storage version keeps old objects readable and records both in storedVersions', async () => {
    const base = '/apis/lifecycle.example.com';
    assert.equal((await http(c, 'POST', `${base}/v1/namespaces/default/gizmos`, { body: { apiVersion: 'lifecycle.example.com/v1', kind: 'Gizmo', metadata: { name: 'old' }, spec: { size: 1 } } })).status, 201);
    const current = (await http(c, 'GET', `${CRDS}/gizmos.lifecycle.example.com`)).json;
    current.spec.versions = [v('v1', false), v('v2', true)];
    const updated = await http(c, 'PUT', `${CRDS}/gizmos.lifecycle.example.com`, { body: current });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.json.status.storedVersions, ['v1', 'v2']);
    const old = await eventually(async () => {
      const r = await http(c, 'GET', `${base}/v2/namespaces/default/gizmos/old`);
      return r.status === 200 ? r.json : undefined;
    });
    assert.equal(old.apiVersion, 'lifecycle.example.com/v2');
    assert.deepEqual(old.spec, { size: 1 });
    assert.equal((await http(c, 'GET', `${base}/v1/namespaces/default/gizmos/old`)).json.apiVersion, 'lifecycle.example.com/v1');
    // Dropping v1 from spec.versions while it is a stored version is refused.
    const drop = (await http(c, 'GET', `${CRDS}/gizmos.lifecycle.example.com`)).json;
    drop.spec.versions = [v('v2', true)];
    const refused = await http(c, 'PUT', `${CRDS}/gizmos.lifecycle.example.com`, { body: drop });
    assert.equal(refused.status, 422);
    assert.match(refused.json.message, /status\.storedVersions\[0\]: Invalid value: "v1": missing from spec\.versions; v1 was previously a storage version/);
    // A storage migration records that v1 is gone through /status (checked for its names only, as in kube); then v1 may go.
    const migrated = (await http(c, 'GET', `${CRDS}/gizmos.lifecycle.example.com`)).json;
    migrated.status.storedVersions = ['v2'];
    const status = await http(c, 'PUT', `${CRDS}/gizmos.lifecycle.example.com/status`, { body: migrated });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(status.json.status.storedVersions, ['v2']);
    status.json.spec.versions = [v('v2', true)];
    const dropped = await http(c, 'PUT', `${CRDS}/gizmos.lifecycle.example.com`, { body: status.json });
    assert.equal(dropped.status, 200, dropped.text);
    // The object stored as v1 is still read (conversion None rewrites apiVersion).
    const again = await eventually(async () => {
      const r = await http(c, 'GET', `${base}/v2/namespaces/default/gizmos/old`);
      return r.status === 200 ? r.json : undefined;
    });
    assert.deepEqual(again.spec, { size: 1 });
  });

  it('custom resources answer protobuf requests with 415 and protobuf accepts with JSON', async () => {
    const path = '/apis/lifecycle.example.com/v2/namespaces/default/gizmos';
    const sent = await http(c, 'POST', path, { headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body: 'k8s\0' });
    assert.equal(sent.status, 415);
    assert.equal(sent.json.message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
    const got = await http(c, 'GET', `${path}/old`, { headers: { accept: 'application/vnd.kubernetes.protobuf, application/json' } });
    assert.equal(got.status, 200);
    assert.match(String(got.headers['content-type']), /^application\/json/);
  });

  it('deleting the CRD marks it Terminating, removes instances (their watch sees it and ends) and then the API', async () => {
    const path = '/apis/lifecycle.example.com/v2/namespaces/default/gizmos';
    const watch = openWatch(c, `${path}?watch=1`);
    await watch.waitFor((events) => events.some((e) => e.type === 'ADDED'));
    const first = await http(c, 'DELETE', `${CRDS}/gizmos.lifecycle.example.com`);
    assert.equal(first.status, 200);
    assert.equal(first.json.kind, 'CustomResourceDefinition');
    assert.ok(first.json.metadata.deletionTimestamp);
    assert.deepEqual(first.json.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    const terminating = first.json.status.conditions.find((x: { type: string }) => x.type === 'Terminating');
    assert.deepEqual([terminating.status, terminating.reason], ['True', 'InstanceDeletionPending']);
    await watch.waitFor((events) => events.some((e) => e.type === 'DELETED'));
    await watch.ended;
    await eventually(async () => (await http(c, 'GET', `${CRDS}/gizmos.lifecycle.example.com`)).status === 404);
    await eventually(async () => (await http(c, 'GET', path)).status === 404);
  });

  it('while an instance holds a finalizer the CRD stays Terminating and refuses creates', async () => {
    const crd = gizmos([v('v1', true)]);
    (crd.metadata as Record<string, unknown>).name = 'holds.lifecycle.example.com';
    (crd.spec as Record<string, any>).names = { plural: 'holds', kind: 'Hold' };
    assert.equal((await http(c, 'POST', CRDS, { body: crd })).status, 201);
    await established('holds.lifecycle.example.com');
    const path = '/apis/lifecycle.example.com/v1/namespaces/default/holds';
    const held = { apiVersion: 'lifecycle.example.com/v1', kind: 'Hold', metadata: { name: 'h', finalizers: ['example.com/hold'] } };
    assert.equal((await http(c, 'POST', path, { body: held })).status, 201);
    assert.equal((await http(c, 'DELETE', `${CRDS}/holds.lifecycle.example.com`)).status, 200);
    const inProgress = await eventually(async () => {
      const got = (await http(c, 'GET', `${CRDS}/holds.lifecycle.example.com`)).json;
      const t = got.status.conditions.find((x: { type: string }) => x.type === 'Terminating');
      return t?.reason === 'InstanceDeletionInProgress' ? t : undefined;
    });
    assert.equal(inProgress.message, 'CustomResource deletion is in progress');
    const refused = await http(c, 'POST', path, { body: { ...held, metadata: { name: 'h2' } } });
    assert.equal(refused.status, 405);
    assert.equal(refused.json.message, 'create not allowed while custom resource definition is terminating');
    assert.equal((await http(c, 'PATCH', `${path}/h`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { metadata: { finalizers: null } } })).status, 200);
    await eventually(async () => (await http(c, 'GET', `${CRDS}/holds.lifecycle.example.com`)).status === 404, 20_000);
  });

  it('a protected group reports its API approval in KubernetesAPIApprovalPolicyConformant', async () => {
    const crd = gizmos([v('v1', true)]);
    crd.metadata = { name: 'gizmos.lifecycle.k8s.io', annotations: { 'api-approved.kubernetes.io': 'unapproved, testing only' } };
    (crd.spec as Record<string, unknown>).group = 'lifecycle.k8s.io';
    const created = await http(c, 'POST', CRDS, { body: crd });
    assert.equal(created.status, 201, created.text);
    const got = await established('gizmos.lifecycle.k8s.io');
    const approval = got.status.conditions.find((x: { type: string }) => x.type === 'KubernetesAPIApprovalPolicyConformant');
    assert.deepEqual([approval.status, approval.reason, approval.message], ['False', 'UnapprovedAnnotation', 'not approved: "unapproved, testing only"']);
    const missing = gizmos([v('v1', true)]);
    missing.metadata = { name: 'others.lifecycle.k8s.io' };
    (missing.spec as Record<string, any>).group = 'lifecycle.k8s.io';
    (missing.spec as Record<string, any>).names = { plural: 'others', kind: 'Other' };
    const refused = await http(c, 'POST', CRDS, { body: missing });
    assert.equal(refused.status, 422);
    assert.equal(
      refused.json.message,
      'CustomResourceDefinition.apiextensions.k8s.io "others.lifecycle.k8s.io" is invalid: metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    );
  });

  it('versions behind a conversion webhook that is down: an empty list needs no call, an object answers 500; the storage version is served', async () => {
    const crd = gizmos([v('v1', true), v('v2', false)], {
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://127.0.0.1:1/convert' } } },
    });
    (crd.metadata as Record<string, unknown>).name = 'hooks.lifecycle.example.com';
    (crd.spec as Record<string, any>).names = { plural: 'hooks', kind: 'Hook' };
    const created = await http(c, 'POST', CRDS, { body: crd });
    assert.equal(created.status, 201, created.text);
    await established('hooks.lifecycle.example.com');
    assert.equal((await http(c, 'GET', '/apis/lifecycle.example.com/v1/namespaces/default/hooks')).status, 200);
    const v2 = await http(c, 'GET', '/apis/lifecycle.example.com/v2/namespaces/default/hooks');
    assert.equal(v2.status, 200, 'nothing to convert (kube calls no webhook for an empty list)');
    const made = await http(c, 'POST', '/apis/lifecycle.example.com/v1/namespaces/default/hooks', { body: { apiVersion: 'lifecycle.example.com/v1', kind: 'Hook', metadata: { name: 'h' } } });
    assert.equal(made.status, 201, made.text);
    const one = await http(c, 'GET', '/apis/lifecycle.example.com/v2/namespaces/default/hooks/h');
    assert.equal(one.status, 500);
    assert.equal(one.json.reason, 'InternalError');
    assert.match(one.json.message, /^Internal error occurred: conversion webhook for lifecycle\.example\.com\/v1, Kind=Hook failed: Post "https:\/\/127\.0\.0\.1:1\/convert": /);
  });
});

describe('CRDs across a restart', () => {
  it('a restarted server serves the stored CRDs and their instances again', async () => {
    const dataDir = tempDir();
    const config = { dataDir, storageBackend: 'sqlite' as const };
    let server = new ApiServer({ config });
    try {
      await server.start();
      let kc = server.adminKubeconfig();
      let c: Server = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
      const crd = gizmos([v('v1', true)]);
      assert.equal((await http(c, 'POST', CRDS, { body: crd })).status, 201);
      const path = '/apis/lifecycle.example.com/v1/namespaces/default/gizmos';
      await eventually(async () => (await http(c, 'GET', path)).status === 200);
      assert.equal((await http(c, 'POST', path, { body: { apiVersion: 'lifecycle.example.com/v1', kind: 'Gizmo', metadata: { name: 'kept' } } })).status, 201);
      await server.stop();
      server = new ApiServer({ config });
      await server.start();
      await server.controllersSynced;
      kc = server.adminKubeconfig();
      c = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
      const got = await http(c, 'GET', `${path}/kept`);
      assert.equal(got.status, 200, got.text);
    } finally {
      await server.stop();
      removeDir(dataDir);
    }
  });
});
