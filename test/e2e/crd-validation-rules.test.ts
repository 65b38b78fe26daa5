import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiServer } from '../../src/server/apiserver.js';
import { eventually, http, removeDir, tempDir } from '../helpers/server.js';

/**
 * A CRD's schema at work over the HTTP API: the CRD's schema is validated
 * when the CRD is written (non-structural refused with kube's message), and
 * the custom resources served from a CRD created over HTTP are pruned and
 * defaulted by it.
 */

type Server = { url: string; creds: { ca: string; cert: string; key: string } };

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function crd(plural: string, kind: string, schema: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.rules.example.com` },
    spec: {
      group: 'rules.example.com',
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
}

describe('CRD schemas over the API', () => {
  let server: ApiServer;
  let dataDir: string;
  let c: Server;
  const established = (name: string): Promise<unknown> =>
    eventually(async () => {
      const got = (await http(c, 'GET', `${CRDS}/${name}`)).json;
      return got.status?.conditions?.some((x: { type: string; status: string }) => x.type === 'Established' && x.status === 'True');
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

  it('a non-structural schema (a property without type) is 422 with kube\'s message', async () => {
    const r = await http(c, 'POST', CRDS, { body: crd('blobs', 'Blob', { type: 'object', properties: { spec: { description: 'untyped' } } }) });
    assert.equal(r.status, 422);
    assert.equal(r.json.reason, 'Invalid');
    assert.equal(
      r.json.message,
      'CustomResourceDefinition.apiextensions.k8s.io "blobs.rules.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    );
  });

  it('custom resources of a CRD created over HTTP are pruned and defaulted by its schema', async () => {
    const schema = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 3 }, color: { type: 'string' } } } },
    };
    assert.equal((await http(c, 'POST', CRDS, { body: crd('pots', 'Pot', schema) })).status, 201);
    await established('pots.rules.example.com');
    const path = '/apis/rules.example.com/v1/namespaces/default/pots';
    const created = await eventually(async () => {
      const r = await http(c, 'POST', path, { body: { apiVersion: 'rules.example.com/v1', kind: 'Pot', metadata: { name: 'p' }, spec: { color: 'red', shape: 'round' }, extra: 1 } });
      return r.status === 201 ? r.json : undefined;
    });
    assert.deepEqual(created.spec, { color: 'red', size: 3 });
    assert.equal(created.extra, undefined);
    assert.deepEqual((await http(c, 'GET', `${path}/p`)).json.spec, { color: 'red', size: 3 });
  });
});
