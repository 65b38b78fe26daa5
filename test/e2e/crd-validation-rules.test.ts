import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiServer } from '../../src/server/apiserver.js';
import { eventually, http, removeDir, tempDir } from '../helpers/server.js';

/**
 * A CRD's schema at work over the HTTP API: the CRD's schema is validated
 * when the CRD is written (non-structural refused with kube's message), and
 * the custom resources served from a CRD created over HTTP are pruned and
 * defaulted by it; x-kubernetes-validations rules are type-checked and
 * cost-estimated when the CRD is written and run on every write of its
 * custom resources, with kube's messages.
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

  const COST_HINT = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
  const rulesSchema = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [
          { rule: 'self.replicas <= self.maxReplicas', messageExpression: "'replicas must not exceed maxReplicas for ' + self.owner" },
          { rule: 'self.maxReplicas >= oldSelf.maxReplicas', message: 'maxReplicas may not decrease', reason: 'FieldValueForbidden', fieldPath: '.maxReplicas' },
        ],
        properties: { replicas: { type: 'integer' }, maxReplicas: { type: 'integer' }, owner: { type: 'string', maxLength: 30 }, ...extra },
      },
    },
  });

  it('rules with a transition rule and messageExpression: valid accepted, invalid 422 in kube\'s words', async () => {
    assert.equal((await http(c, 'POST', CRDS, { body: crd('gauges', 'Gauge', rulesSchema()) })).status, 201);
    await established('gauges.rules.example.com');
    const path = '/apis/rules.example.com/v1/namespaces/default/gauges';
    const gauge = (name: string, spec: Record<string, unknown>, rv?: string): Record<string, unknown> => ({
      apiVersion: 'rules.example.com/v1', kind: 'Gauge', metadata: { name, ...(rv ? { resourceVersion: rv } : {}) }, spec,
    });
    const created = await eventually(async () => {
      const r = await http(c, 'POST', path, { body: gauge('g', { replicas: 1, maxReplicas: 3, owner: 'team-a' }) });
      return r.status === 201 ? r.json : undefined;
    });
    const bad = await http(c, 'POST', path, { body: gauge('h', { replicas: 5, maxReplicas: 3, owner: 'team-b' }) });
    assert.equal(bad.status, 422);
    assert.equal(bad.json.message, 'Gauge.rules.example.com "h" is invalid: spec: Invalid value: "object": replicas must not exceed maxReplicas for team-b');
    assert.deepEqual(bad.json.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": replicas must not exceed maxReplicas for team-b', field: 'spec' }]);
    const rv = created.metadata.resourceVersion as string;
    const shrink = await http(c, 'PUT', `${path}/g`, { body: gauge('g', { replicas: 1, maxReplicas: 2, owner: 'team-a' }, rv) });
    assert.equal(shrink.status, 422);
    assert.equal(shrink.json.message, 'Gauge.rules.example.com "g" is invalid: spec.maxReplicas: Forbidden: maxReplicas may not decrease');
    assert.equal((await http(c, 'PUT', `${path}/g`, { body: gauge('g', { replicas: 4, maxReplicas: 4, owner: 'team-a' }, rv) })).status, 200);
  });

  it('a rule with a type error rejects the CRD with kube\'s message', async () => {
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: "self.replicas > '1'" }] } } };
    const r = await http(c, 'POST', CRDS, { body: crd('typos', 'Typo', schema) });
    assert.equal(r.status, 422);
    assert.equal(
      r.json.message,
      'CustomResourceDefinition.apiextensions.k8s.io "typos.rules.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: ' +
        'Invalid value: {"Rule":"self.replicas \\u003e \'1\'","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: ' +
        "compilation failed: ERROR: <input>:1:15: found no matching overload for '_>_' applied to '(int, string)'\n | self.replicas > '1'\n | ..............^",
    );
  });

  it('a rule over an unbounded list is over the cost limits; with maxItems (and maxLength) it is accepted', async () => {
    const tags = (bounded: boolean): Record<string, unknown> => ({
      tags: {
        type: 'array',
        ...(bounded ? { maxItems: 16 } : {}),
        items: { type: 'string', ...(bounded ? { maxLength: 32 } : {}) },
        'x-kubernetes-validations': [{ rule: 'self.all(x, self.exists_one(y, x == y))', message: 'tags must be unique' }],
      },
    });
    const unbounded = await http(c, 'POST', CRDS, { body: crd('labels', 'Label', rulesSchema(tags(false))) });
    assert.equal(unbounded.status, 422);
    const rule = 'spec.validation.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule';
    assert.deepEqual(unbounded.json.details.causes.map((x: { field: string; message: string }) => `${x.field}: ${x.message}`), [
      `${rule}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${COST_HINT}`,
      `${rule}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${COST_HINT}`,
    ]);
    assert.equal((await http(c, 'POST', CRDS, { body: crd('labels', 'Label', rulesSchema(tags(true))) })).status, 201);
    await established('labels.rules.example.com');
    const path = '/apis/rules.example.com/v1/namespaces/default/labels';
    const dup = await eventually(async () => {
      const r = await http(c, 'POST', path, { body: { apiVersion: 'rules.example.com/v1', kind: 'Label', metadata: { name: 'l' }, spec: { replicas: 1, maxReplicas: 1, owner: 'o', tags: ['a', 'a'] } } });
      return r.status === 404 ? undefined : r;
    });
    assert.equal(dup.status, 422);
    assert.equal(dup.json.message, 'Label.rules.example.com "l" is invalid: spec.tags: Invalid value: "array": tags must be unique');
  });

  it('a rule added by a CRD update applies to the next write, without a restart; unchanged values are ratcheted with a Warning', async () => {
    const name = 'gauges.rules.example.com';
    const path = '/apis/rules.example.com/v1/namespaces/default/gauges';
    const legacy = (await http(c, 'POST', path, { body: { apiVersion: 'rules.example.com/v1', kind: 'Gauge', metadata: { name: 'legacy' }, spec: { replicas: 1, maxReplicas: 2, owner: 'me' } } })).json;
    const current = (await http(c, 'GET', `${CRDS}/${name}`)).json;
    current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.owner['x-kubernetes-validations'] = [{ rule: "self.startsWith('team-')", message: 'owner must be a team' }];
    assert.equal((await http(c, 'PUT', `${CRDS}/${name}`, { body: current })).status, 200);
    const r = await eventually(async () => {
      const res = await http(c, 'POST', path, { body: { apiVersion: 'rules.example.com/v1', kind: 'Gauge', metadata: { name: 'solo' }, spec: { replicas: 1, maxReplicas: 1, owner: 'me' } } });
      if (res.status === 201) await http(c, 'DELETE', `${path}/solo`);
      return res.status === 422 ? res : undefined;
    });
    assert.equal(r.json.message, 'Gauge.rules.example.com "solo" is invalid: spec.owner: Invalid value: "string": owner must be a team');
    // the stored object keeps its owner: the update is accepted, the rule's error is a warning
    const kept = await http(c, 'PUT', `${path}/legacy`, { body: { ...legacy, spec: { ...legacy.spec, replicas: 2 } } });
    assert.equal(kept.status, 200);
    assert.equal(kept.headers.warning, '299 - "spec.owner: Invalid value: \\"string\\": owner must be a team"');
    const changed = await http(c, 'PUT', `${path}/legacy`, { body: { ...kept.json, spec: { ...kept.json.spec, owner: 'you' } } });
    assert.equal(changed.status, 422);
  });
});
