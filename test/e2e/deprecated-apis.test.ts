import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * Requests to deprecated API versions, as kube-apiserver answers them: the
 * version's Warning header (built-in beta types from their prerelease
 * lifecycle, custom resource versions marked deprecated) and the
 * apiserver_requested_deprecated_apis gauge on /metrics.
 */

const CLAIMS_WARNING = 'resource.k8s.io/v1beta2 ResourceClaim is deprecated in v1.36+, unavailable in v1.39+';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.deprecation.example.com' },
  spec: {
    group: 'deprecation.example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      { name: 'v1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: { type: 'object' } } },
      { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
  },
};

describe('deprecated API versions', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ args: ['--runtime-config=api/all=true'] });
  });
  after(async () => {
    await server?.stop();
    removeDir(server?.dataDir);
  });

  it('answers a deprecated beta version with kube\'s warning, once, and a GA version without', async () => {
    const beta = await http(server, 'GET', '/apis/resource.k8s.io/v1beta2/namespaces/default/resourceclaims');
    assert.equal(beta.status, 200, beta.text);
    assert.deepEqual(beta.headers.warning, `299 - "${CLAIMS_WARNING}"`);
    const ga = await http(server, 'GET', '/apis/resource.k8s.io/v1/namespaces/default/resourceclaims');
    assert.equal(ga.status, 200, ga.text);
    assert.equal(ga.headers.warning, undefined);
  });

  it('warns for an alpha version deprecated without a removal release', async () => {
    const alpha = await http(server, 'GET', '/apis/coordination.k8s.io/v1alpha2/leasecandidates');
    assert.equal(alpha.status, 200, alpha.text);
    assert.equal(alpha.headers.warning, '299 - "coordination.k8s.io/v1alpha2 LeaseCandidate is deprecated in v1.35+"');
  });

  it('counts requested deprecated APIs on /metrics, custom resources with no removal release', async () => {
    const created = await http(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(CRD) });
    assert.equal(created.status, 201, created.text);
    const custom = await eventually(async () => {
      const r = await http(server, 'GET', '/apis/deprecation.example.com/v1/namespaces/default/gadgets');
      return r.status === 200 ? r : undefined;
    });
    assert.equal(custom.headers.warning, '299 - "deprecation.example.com/v1 Gadget is deprecated; use deprecation.example.com/v2 Gadget"');
    const metrics = (await http(server, 'GET', '/metrics')).text;
    const lines = metrics.split('\n').filter((l) => l.startsWith('apiserver_requested_deprecated_apis{'));
    assert.ok(
      lines.includes('apiserver_requested_deprecated_apis{group="resource.k8s.io",removed_release="1.39",resource="resourceclaims",subresource="",version="v1beta2"} 1'),
      lines.join('\n'),
    );
    assert.ok(
      lines.includes('apiserver_requested_deprecated_apis{group="coordination.k8s.io",removed_release="",resource="leasecandidates",subresource="",version="v1alpha2"} 1'),
      lines.join('\n'),
    );
    assert.ok(
      lines.includes('apiserver_requested_deprecated_apis{group="deprecation.example.com",removed_release="",resource="gadgets",subresource="",version="v1"} 1'),
      lines.join('\n'),
    );
    assert.ok(!lines.some((l) => l.includes('resource="resourceclaims",subresource="",version="v1"}')), lines.join('\n'));
  });

  it('kubectl prints the warning on stderr', { skip: kubectlMissing() }, async () => {
    const r = await kubectl(server, ['get', 'resourceclaims.v1beta2.resource.k8s.io', '-A']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stderr.includes(`Warning: ${CLAIMS_WARNING}`), r.stderr);
  });
});
