import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { eventually, http, removeDir, startServer, type TestServer } from '../helpers/server.js';
import { independentCborDecode, independentCborEncode, independentCborSequence } from '../helpers/cbor.js';

/**
 * CBOR against a real server with CBORServingAndStorage on (and off): a
 * ConfigMap and a custom resource are created, read, listed, updated, applied
 * (application/apply-patch+cbor) and watched (application/cbor-seq) in CBOR;
 * every response is read by an independent decoder (cbor-x), every request
 * body written by its encoder, so the bytes are standard CBOR both ways.
 */

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function raw(server: TestServer, method: string, path: string, opts: { body?: Buffer | string; headers?: Record<string, string> } = {}): Promise<RawResponse> {
  const u = new URL(path, server.url);
  const headers = { ...(opts.headers ?? {}) };
  if (opts.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(opts.body));
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { method, hostname: u.hostname, port: u.port, path: u.pathname + u.search, headers, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const CBOR = 'application/cbor';
const SELF_DESCRIBED = 'd9d9f7';

/** A CBOR response: self-described, of the CBOR media type, read independently. */
function cborBody(res: RawResponse, status: number): any {
  assert.equal(res.status, status, `status ${res.status}: ${res.body.toString('utf8').slice(0, 400)}`);
  assert.equal(res.headers['content-type'], CBOR);
  assert.equal(res.body.subarray(0, 3).toString('hex'), SELF_DESCRIBED);
  return independentCborDecode(res.body);
}

/** A watch whose CBOR sequence is collected as it arrives. */
function cborWatch(server: TestServer, path: string): { contentType: Promise<string | undefined>; events: () => any[]; close: () => void } {
  const u = new URL(path, server.url);
  const chunks: Buffer[] = [];
  let resolveType!: (t: string | undefined) => void;
  const contentType = new Promise<string | undefined>((r) => (resolveType = r));
  const req = httpsRequest(
    { method: 'GET', hostname: u.hostname, port: u.port, path: u.pathname + u.search, headers: { Accept: CBOR }, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key, agent: false },
    (res) => {
      resolveType(res.headers['content-type']);
      res.on('data', (c: Buffer) => chunks.push(c));
    },
  );
  req.on('error', () => resolveType(undefined));
  req.end();
  return {
    contentType,
    events: () => {
      const bytes = Buffer.concat(chunks);
      // Every event is its own self-described data item.
      try {
        return independentCborSequence(bytes);
      } catch {
        return []; // an event cut between two chunks: read again later
      }
    },
    close: () => req.destroy(),
  };
}

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.cbor.example.com' },
  spec: {
    group: 'cbor.example.com',
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } } } } },
      },
    ],
  },
};

interface Kind {
  title: string;
  collection: string;
  apiVersion: string;
  kind: string;
  initial: Record<string, unknown>;
  updated: Record<string, unknown>;
  applied: Record<string, unknown>;
  read: (obj: any) => unknown;
}

const KINDS: Kind[] = [
  {
    title: 'ConfigMap',
    collection: '/api/v1/namespaces/default/configmaps',
    apiVersion: 'v1',
    kind: 'ConfigMap',
    initial: { data: { a: '1' } },
    updated: { data: { a: '2' } },
    applied: { data: { b: 'applied' } },
    read: (o) => o.data,
  },
  {
    title: 'custom resource',
    collection: '/apis/cbor.example.com/v1/namespaces/default/gizmos',
    apiVersion: 'cbor.example.com/v1',
    kind: 'Gizmo',
    initial: { spec: { size: 1, color: 'red' } },
    updated: { spec: { size: 2, color: 'red' } },
    applied: { spec: { color: 'blue' } },
    read: (o) => o.spec,
  },
];

describe('CBOR with CBORServingAndStorage=true', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ args: ['--feature-gates=CBORServingAndStorage=true'] });
    const made = await http(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: CRD });
    assert.equal(made.status, 201, made.text);
    await eventually(async () => (await http(server, 'GET', '/apis/cbor.example.com/v1/namespaces/default/gizmos')).status === 200);
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  for (const k of KINDS) {
    it(`${k.title}: create, get, list, update, apply and watch in CBOR`, async () => {
      const name = `cbor-${k.kind.toLowerCase()}`;
      const listed = cborBody(await raw(server, 'GET', k.collection, { headers: { Accept: CBOR } }), 200);
      const watch = cborWatch(server, `${k.collection}?watch=1&fieldSelector=metadata.name%3D${name}&resourceVersion=${listed.metadata.resourceVersion}`);
      try {
        const body = { apiVersion: k.apiVersion, kind: k.kind, metadata: { name }, ...k.initial };
        const created = cborBody(await raw(server, 'POST', k.collection, { body: independentCborEncode(body), headers: { 'Content-Type': CBOR, Accept: CBOR } }), 201);
        assert.equal(created.metadata.name, name);
        assert.deepEqual(k.read(created), k.read(k.initial));

        const got = cborBody(await raw(server, 'GET', `${k.collection}/${name}`, { headers: { Accept: CBOR } }), 200);
        assert.equal(got.kind, k.kind);
        assert.equal(got.apiVersion, k.apiVersion);
        assert.equal(got.metadata.uid, created.metadata.uid);
        // The same object in JSON: CBOR carries the same document.
        const json = await http(server, 'GET', `${k.collection}/${name}`);
        assert.deepEqual(got, json.json);

        const list = cborBody(await raw(server, 'GET', k.collection, { headers: { Accept: CBOR } }), 200);
        assert.equal(list.kind, `${k.kind}List`);
        assert.ok(list.items.some((i: any) => i.metadata.name === name));
        const jsonList = (await http(server, 'GET', k.collection)).json;
        assert.deepEqual(list.items.find((i: any) => i.metadata.name === name), jsonList.items.find((i: any) => i.metadata.name === name));

        const replaced = cborBody(
          await raw(server, 'PUT', `${k.collection}/${name}`, {
            body: independentCborEncode({ ...body, ...k.updated, metadata: { name, resourceVersion: got.metadata.resourceVersion } }),
            headers: { 'Content-Type': CBOR, Accept: CBOR },
          }),
          200,
        );
        assert.deepEqual(k.read(replaced), k.read(k.updated));

        const applied = cborBody(
          await raw(server, 'PATCH', `${k.collection}/${name}?fieldManager=cbor-test&force=true`, {
            body: independentCborEncode({ apiVersion: k.apiVersion, kind: k.kind, metadata: { name }, ...k.applied }),
            headers: { 'Content-Type': 'application/apply-patch+cbor', Accept: CBOR },
          }),
          200,
        );
        assert.ok(applied.metadata.managedFields.some((m: any) => m.manager === 'cbor-test' && m.operation === 'Apply'));
        assert.ok(JSON.stringify(k.read(applied)).includes(JSON.stringify(Object.values(k.read(k.applied) as object)[0])));

        assert.equal(await watch.contentType, 'application/cbor-seq');
        await eventually(async () => watch.events().length >= 3);
        const events = watch.events();
        assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED']);
        assert.deepEqual(events.map((e) => e.object.metadata.resourceVersion), [created.metadata.resourceVersion, replaced.metadata.resourceVersion, applied.metadata.resourceVersion]);
        assert.equal(events[0].object.kind, k.kind);
      } finally {
        watch.close();
      }
    });
  }

  it('writes a built-in object with the fields its Go struct writes, as the JSON form does', async () => {
    const rc = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'zeros' }, spec: { selector: { app: 'z' }, template: { metadata: { labels: { app: 'z' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } };
    const created = cborBody(await raw(server, 'POST', '/api/v1/namespaces/default/replicationcontrollers', { body: independentCborEncode(rc), headers: { 'Content-Type': CBOR, Accept: CBOR } }), 201);
    const json = (await http(server, 'GET', '/api/v1/namespaces/default/replicationcontrollers/zeros')).json;
    const got = cborBody(await raw(server, 'GET', '/api/v1/namespaces/default/replicationcontrollers/zeros', { headers: { Accept: CBOR } }), 200);
    // ReplicationControllerStatus.replicas has no omitempty: Go writes 0.
    assert.equal(json.status.replicas, 0);
    assert.equal(created.status.replicas, 0);
    assert.deepEqual(got.status, json.status);
    assert.deepEqual(Object.keys(got.spec), Object.keys(json.spec));
    const listed = cborBody(await raw(server, 'GET', '/api/v1/namespaces/default/replicationcontrollers', { headers: { Accept: CBOR } }), 200);
    assert.equal(listed.items[0].status.replicas, 0);
  });

  it('takes DeleteOptions in CBOR and bounds CBOR bodies like any other', async () => {
    await http(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'to-delete' } } });
    const del = await raw(server, 'DELETE', '/api/v1/namespaces/default/configmaps/to-delete', {
      body: independentCborEncode({ apiVersion: 'v1', kind: 'DeleteOptions', dryRun: ['All'] }),
      headers: { 'Content-Type': CBOR, Accept: CBOR },
    });
    cborBody(del, 200);
    assert.equal((await http(server, 'GET', '/api/v1/namespaces/default/configmaps/to-delete')).status, 200, 'dryRun from the CBOR body was honoured');
    const big = independentCborEncode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(4 * 1024 * 1024) } });
    const r = await raw(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: big, headers: { 'Content-Type': CBOR } });
    assert.equal(r.status, 413);
  });

  it('answers errors as CBOR Status objects to CBOR clients', async () => {
    const status = cborBody(await raw(server, 'GET', '/api/v1/namespaces/default/configmaps/missing', { headers: { Accept: CBOR } }), 404);
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'NotFound');
    assert.equal(status.message, 'configmaps "missing" not found');
  });

  it('serves PartialObjectMetadata but not Table in CBOR', async () => {
    const meta = cborBody(await raw(server, 'GET', '/api/v1/namespaces/default/configmaps', { headers: { Accept: 'application/cbor;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' } }), 200);
    assert.equal(meta.kind, 'PartialObjectMetadataList');
    const table = await raw(server, 'GET', '/api/v1/namespaces/default/configmaps', { headers: { Accept: 'application/cbor;as=Table;g=meta.k8s.io;v=v1' } });
    assert.equal(table.status, 406);
    assert.equal(
      JSON.parse(table.body.toString()).message,
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor',
    );
  });

  it('refuses duplicate keys and malformed bodies with kube texts, never a crash', async () => {
    const dup = Buffer.from('d9d9f7a3446b696e6449436f6e6669674d61704a61706956657273696f6e4276314464617461a2416101416102', 'hex');
    const r1 = await raw(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: dup, headers: { 'Content-Type': CBOR } });
    assert.equal(r1.status, 400);
    assert.equal(JSON.parse(r1.body.toString()).message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: cbor: found duplicate map key "a" at map element index 1');
    const truncated = Buffer.from('d9d9f7a3446b696e64', 'hex');
    const r2 = await raw(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: truncated, headers: { 'Content-Type': CBOR } });
    assert.equal(r2.status, 400);
    assert.equal(JSON.parse(r2.body.toString()).message, 'the object provided is unrecognized (must be of type ConfigMap): unable to determine group/version/kind: unexpected EOF (d9d9f7a3446b696e64)');
    const deep = Buffer.concat([Buffer.from('d9d9f7', 'hex'), Buffer.alloc(200_000, 0x81), Buffer.from([0x01])]);
    const r3 = await raw(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: deep, headers: { 'Content-Type': CBOR } });
    assert.equal(r3.status, 400);
    assert.match(JSON.parse(r3.body.toString()).message, /cbor: exceeded max nested level \d+/);
    const applyDup = await raw(server, 'PATCH', '/api/v1/namespaces/default/configmaps/x?fieldManager=m', { body: dup, headers: { 'Content-Type': 'application/apply-patch+cbor' } });
    assert.equal(applyDup.status, 400);
    assert.equal(JSON.parse(applyDup.body.toString()).message, 'error decoding patch: cbor: found duplicate map key "a" at map element index 1');
    // The server is still there.
    assert.equal((await http(server, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
  });

  it('has no CBOR form of JSON patch, merge patch or strategic merge patch', async () => {
    for (const type of ['application/cbor', 'application/merge-patch+cbor', 'application/json-patch+cbor']) {
      const r = await raw(server, 'PATCH', '/api/v1/namespaces/default/configmaps/cbor-configmap', { body: independentCborEncode({}), headers: { 'Content-Type': type } });
      assert.equal(r.status, 415, type);
      const status = JSON.parse(r.body.toString());
      assert.equal(
        status.message,
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json, application/apply-patch+cbor',
      );
    }
  });
});

describe('CBOR with the gate off (default)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('offers no CBOR: 406 for Accept, 415 for bodies and apply patches', async () => {
    const get = await raw(server, 'GET', '/api/v1/namespaces/default/configmaps', { headers: { Accept: CBOR } });
    assert.equal(get.status, 406);
    assert.equal(JSON.parse(get.body.toString()).message, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
    const body = independentCborEncode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    const post = await raw(server, 'POST', '/api/v1/namespaces/default/configmaps', { body, headers: { 'Content-Type': CBOR } });
    assert.equal(post.status, 415);
    assert.equal(JSON.parse(post.body.toString()).message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
    const apply = await raw(server, 'PATCH', '/api/v1/namespaces/default/configmaps/x?fieldManager=m', { body, headers: { 'Content-Type': 'application/apply-patch+cbor' } });
    assert.equal(apply.status, 415);
    assert.doesNotMatch(JSON.parse(apply.body.toString()).message, /cbor/);
  });
});
