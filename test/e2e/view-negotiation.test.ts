import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'js-yaml';
import { decodeProtobufObject } from '../../src/codec/protobuf/index.js';
import { eventually, http, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * Table and PartialObjectMetadata(List) over the wire, for built-in kinds and
 * custom resources, as kube-apiserver 1.36 negotiates them
 * (apiserver endpoints/handlers/rest.go AllowsMediaTypeTransform: Table in JSON
 * or YAML only; metadata views in every encoding, custom resources included;
 * apiextensions' serializer lists protobuf but its StandardSerializers do not,
 * so a custom resource itself is never protobuf). Errors are written by
 * ErrorNegotiated: in the requested encoding when it can carry a Status
 * (protobuf for a protobuf-only custom resource request), else JSON.
 */

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const NOT_ACCEPTABLE = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';

describe('Table and PartialObjectMetadata negotiation', () => {
  let server: TestServer;
  const CMS = '/api/v1/namespaces/default/configmaps';
  const WIDGETS = '/apis/views.example.com/v1/namespaces/default/widgets';

  before(async () => {
    server = await startServer();
    for (const name of ['one', 'two']) {
      const r = await http(server, 'POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'web' } }, data: { k: 'v' } } });
      assert.equal(r.status, 201, r.text);
    }
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.views.example.com' },
      spec: {
        group: 'views.example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    assert.equal((await http(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    await eventually(async () => {
      const r = await http(server, 'POST', WIDGETS, { body: { apiVersion: 'views.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, size: 3 } });
      return r.status === 201;
    });
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  for (const version of ['v1', 'v1beta1']) {
    it(`PartialObjectMetadataList in protobuf (meta.k8s.io/${version})`, async () => {
      const r = await http(server, 'GET', `${CMS}?labelSelector=app%3Dweb`, { headers: { accept: `${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=${version}` } });
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], PROTOBUF);
      const d = decodeProtobufObject(r.body);
      assert.deepEqual([d.apiVersion, d.kind], [`meta.k8s.io/${version}`, 'PartialObjectMetadataList']);
      const items = (d.object as { items: Array<{ metadata: { name: string; labels: Record<string, string> } }> }).items;
      assert.deepEqual(
        items.map((i) => [i.metadata.name, i.metadata.labels]),
        [
          ['one', { app: 'web' }],
          ['two', { app: 'web' }],
        ],
      );
      // The same view in JSON carries the same metadata.
      const json = await http(server, 'GET', `${CMS}?labelSelector=app%3Dweb`, { headers: { accept: `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=${version}` } });
      assert.deepEqual(
        items.map((i) => i.metadata),
        json.json.items.map((i: { metadata: unknown }) => i.metadata),
      );
    });
  }

  it('PartialObjectMetadata of one object in protobuf', async () => {
    const r = await http(server, 'GET', `${CMS}/one`, { headers: { accept: `${PROTOBUF};as=PartialObjectMetadata;g=meta.k8s.io;v=v1` } });
    assert.equal(r.status, 200);
    const d = decodeProtobufObject(r.body);
    assert.deepEqual([d.apiVersion, d.kind], ['meta.k8s.io/v1', 'PartialObjectMetadata']);
    assert.equal((d.object as { metadata: { name: string } }).metadata.name, 'one');
    assert.equal((d.object as Record<string, unknown>)['data'], undefined);
  });

  it('a protobuf-only Table request is 406 in JSON; with a JSON fallback the plain list', async () => {
    const only = await http(server, 'GET', CMS, { headers: { accept: `${PROTOBUF};as=Table;g=meta.k8s.io;v=v1` } });
    assert.equal(only.status, 406);
    assert.match(String(only.headers['content-type']), /^application\/json/);
    assert.deepEqual([only.json.reason, only.json.message], ['NotAcceptable', NOT_ACCEPTABLE]);
    const fallback = await http(server, 'GET', CMS, { headers: { accept: `${PROTOBUF};as=Table;g=meta.k8s.io;v=v1, application/json` } });
    assert.equal(fallback.status, 200);
    assert.equal(fallback.json.kind, 'ConfigMapList');
  });

  it('Table in YAML is the JSON Table', async () => {
    const yaml = await http(server, 'GET', `${CMS}/one`, { headers: { accept: 'application/yaml;as=Table;g=meta.k8s.io;v=v1' } });
    assert.equal(yaml.status, 200);
    assert.match(String(yaml.headers['content-type']), /^application\/yaml/);
    const json = await http(server, 'GET', `${CMS}/one`, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
    const t = load(yaml.text) as { kind: string; columnDefinitions: unknown; rows: Array<{ cells: unknown[] }> };
    assert.equal(t.kind, 'Table');
    assert.deepEqual(t.columnDefinitions, json.json.columnDefinitions);
    assert.deepEqual(t.rows[0]!.cells.slice(0, 2), ['one', 1]);
  });

  it('custom resources: protobuf-only is 406 with a protobuf Status, protobuf then JSON is JSON', async () => {
    const only = await http(server, 'GET', `${WIDGETS}/w`, { headers: { accept: PROTOBUF } });
    assert.equal(only.status, 406);
    assert.equal(only.headers['content-type'], PROTOBUF);
    const status = decodeProtobufObject(only.body).object as { reason: string; message: string; code: number };
    assert.deepEqual([status.reason, status.message, status.code], ['NotAcceptable', NOT_ACCEPTABLE, 406]);
    const fallback = await http(server, 'GET', `${WIDGETS}/w`, { headers: { accept: `${PROTOBUF}, application/json` } });
    assert.equal(fallback.status, 200);
    assert.match(String(fallback.headers['content-type']), /^application\/json/);
    assert.equal(fallback.json.size, 3);
  });

  it('custom resources: metadata views are served in protobuf, Tables in JSON only', async () => {
    const list = await http(server, 'GET', WIDGETS, { headers: { accept: `${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` } });
    assert.equal(list.status, 200);
    const d = decodeProtobufObject(list.body);
    assert.equal(d.kind, 'PartialObjectMetadataList');
    assert.deepEqual(
      (d.object as { items: Array<{ metadata: { name: string } }> }).items.map((i) => i.metadata.name),
      ['w'],
    );
    const table = await http(server, 'GET', WIDGETS, { headers: { accept: `${PROTOBUF};as=Table;g=meta.k8s.io;v=v1` } });
    assert.equal(table.status, 406);
    const json = await http(server, 'GET', WIDGETS, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
    assert.equal(json.json.kind, 'Table');
    assert.equal(json.json.rows[0].cells[0], 'w');
  });
});
