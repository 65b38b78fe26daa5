import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * DELETE of a namespace sets the garbage collector's finalizers from the
 * request as kube's namespace REST does (orphanDependents, then
 * propagationPolicy; no default), and the namespace still goes once the
 * collector and the namespace controller are done; a CRD's first DELETE
 * sets none (apiextensions adds only its cleanup finalizer).
 */

const skip = kubectlMissing();

describe('namespace and CRD deletes and the garbage collector finalizers', { skip }, () => {
  let s: TestServer;

  before(async () => {
    s = await startServer({ backend: 'memory' });
  });

  after(async () => {
    await s?.stop();
    if (s) removeDir(s.dataDir);
  });

  const createNs = async (name: string): Promise<void> => {
    const r = await http(s, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
    assert.equal(r.status, 201, r.text);
    // Content keeps the namespace Terminating for a while.
    await http(s, 'POST', `/api/v1/namespaces/${name}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } });
  };
  const gone = async (name: string): Promise<boolean> => (await http(s, 'GET', `/api/v1/namespaces/${name}`)).status === 404;

  it('Foreground, Orphan, orphanDependents and no policy, as the namespace REST sets them', async () => {
    const cases: Array<[string, Record<string, unknown> | undefined, string[]]> = [
      ['ns-fg', { propagationPolicy: 'Foreground' }, ['foregroundDeletion']],
      ['ns-orphan', { propagationPolicy: 'Orphan' }, ['orphan']],
      ['ns-legacy-orphan', { orphanDependents: true }, ['orphan']],
      ['ns-legacy-cascade', { orphanDependents: false }, ['foregroundDeletion']],
      ['ns-background', { propagationPolicy: 'Background' }, []],
      ['ns-default', undefined, []],
    ];
    for (const [name, body, want] of cases) {
      await createNs(name);
      const r = await http(s, 'DELETE', `/api/v1/namespaces/${name}`, body ? { body: { apiVersion: 'v1', kind: 'DeleteOptions', ...body } } : {});
      // kube answers 202 when orphanDependents=false did not delete at once.
      assert.equal(r.status, body?.orphanDependents === false ? 202 : 200, r.text);
      assert.equal(r.json.status.phase, 'Terminating', name);
      assert.deepEqual(r.json.metadata.finalizers ?? [], want, name);
    }
    for (const [name] of cases) await eventually(async () => gone(name), 30_000, 100);
  });

  it('kubectl delete namespace --cascade=foreground completes', async () => {
    await createNs('ns-kubectl');
    const r = await kubectl(s, ['delete', 'namespace', 'ns-kubectl', '--cascade=foreground', '--wait=true', '--timeout=60s']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(await gone('ns-kubectl'));
  });

  it('a CRD\'s first DELETE sets only the cleanup finalizer, whatever the propagation', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    };
    assert.equal((await http(s, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    const r = await http(s, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com', { body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    await eventually(async () => (await http(s, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).status === 404, 30_000, 100);
  });
});
