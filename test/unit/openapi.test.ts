import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it, type TestContext } from 'node:test';

import { load as loadYaml, YAML11_SCHEMA } from 'js-yaml';

import { ApiCatalog } from '../../src/api/catalog.js';
import { canonicalJson, isJsonObject, type Json, type JsonObject } from '../../src/machinery/json.js';
import { OPENAPI_V2_PROTO_TYPE, OpenApiService } from '../../src/api/openapi.js';
import { toYaml } from '../../src/api/yaml-text.js';
import { sharedText } from '../helpers/shared.js';

const PROTO_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

function upstreamOpenApi(t: TestContext): JsonObject | undefined {
  const text = sharedText(t, 'k8s-api', 'openapi-v2.json');
  return text === undefined ? undefined : (JSON.parse(text) as JsonObject);
}

function obj(v: Json | undefined, what: string): JsonObject {
  assert.ok(isJsonObject(v), `${what} is not an object`);
  return v;
}

/** Every `$ref` string in a tree. */
function refs(v: Json, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) refs(x, out);
  else if (isJsonObject(v)) for (const [k, x] of Object.entries(v)) k === '$ref' && typeof x === 'string' ? out.push(x) : refs(x, out);
  return out;
}

// A protobuf reader just big enough to check the encoding's structure.
interface ProtoField {
  field: number;
  wire: number;
  bytes?: Buffer;
  int?: number;
}

function readProto(buf: Buffer): ProtoField[] {
  const out: ProtoField[] = [];
  let i = 0;
  const varint = (): number => {
    let result = 0;
    let mul = 1;
    for (;;) {
      const b = buf[i++] as number;
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 0) out.push({ field, wire, int: varint() });
    else if (wire === 2) {
      const len = varint();
      out.push({ field, wire, bytes: buf.subarray(i, i + len) });
      i += len;
    } else if (wire === 1) {
      out.push({ field, wire, bytes: buf.subarray(i, i + 8) });
      i += 8;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

function protoString(fields: ProtoField[], n: number): string | undefined {
  return fields.find((f) => f.field === n)?.bytes?.toString('utf8');
}

describe('/openapi/v2', () => {
  const catalog = ApiCatalog.load();
  const svc = new OpenApiService(catalog, { gitVersion: 'v1.36.0' });

  it('reproduces upstream paths, definitions and parameters when every version is enabled', (t) => {
    const upstream = upstreamOpenApi(t);
    if (!upstream) return;
    const all = new OpenApiService(ApiCatalog.load({ runtimeConfig: 'api/all=true' }));
    const doc = all.buildV2Document();
    for (const key of ['paths', 'definitions', 'parameters', 'security', 'securityDefinitions']) {
      const mine: Json = doc[key] ?? [];
      const theirs: Json = upstream[key] ?? [];
      if (canonicalJson(mine) === canonicalJson(theirs)) continue;
      const diff: string[] =
        isJsonObject(theirs) && isJsonObject(mine) ? Object.keys(theirs).filter((k) => canonicalJson(theirs[k] ?? null) !== canonicalJson(mine[k] ?? null)) : [];
      assert.fail(`${key} differ from upstream, e.g. ${diff.slice(0, 5).join(', ')}`);
    }
  });

  it('contains only enabled APIs, with every referenced definition and parameter present', () => {
    const doc = JSON.parse(svc.v2Json().body.toString('utf8')) as JsonObject;
    assert.equal(doc['swagger'], '2.0');
    assert.deepEqual(doc['info'], { title: 'Kubernetes', version: 'v1.36.0' });
    const paths = obj(doc['paths'], 'paths');
    const definitions = obj(doc['definitions'], 'definitions');
    const parameters = obj(doc['parameters'], 'parameters');
    assert.ok(paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']);
    assert.ok(paths['/api/v1/namespaces/{namespace}/pods/{name}/exec']);
    assert.ok(paths['/version/']);
    assert.ok(!Object.keys(paths).some((p) => p.startsWith('/apis/resource.k8s.io/v1beta1/')), 'beta versions are off by default');
    assert.ok(!definitions['io.k8s.api.resource.v1beta1.ResourceClaim'], 'definitions of disabled versions are left out');
    for (const ref of refs(doc)) {
      if (ref.startsWith('#/definitions/')) assert.ok(definitions[ref.slice(14)], `missing ${ref}`);
      else if (ref.startsWith('#/parameters/')) assert.ok(parameters[ref.slice(13)], `missing ${ref}`);
      else assert.fail(`unexpected ref ${ref}`);
    }
    const deployment = obj(definitions['io.k8s.api.apps.v1.Deployment'], 'Deployment');
    assert.deepEqual(deployment['x-kubernetes-group-version-kind'], [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    const patch = obj(obj(paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'], 'item')['patch'], 'patch');
    assert.equal(patch['operationId'], 'patchAppsV1NamespacedDeployment');
    assert.equal(patch['x-kubernetes-action'], 'patch');
    const params = (patch['parameters'] as Json[]).map((p) => {
      const o = obj(p, 'param');
      return typeof o['$ref'] === 'string' ? obj(parameters[o['$ref'].slice(13)], 'shared')['name'] : o['name'];
    });
    assert.deepEqual(params, ['body', 'dryRun', 'fieldManager', 'fieldValidation', 'force']);
  });

  it('answers with ETag, 304 and 406 like kube-openapi', () => {
    const r = svc.respondV2({ accept: 'application/json' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['Content-Type'], 'application/json');
    assert.equal(r.headers['Vary'], 'Accept');
    const etag = createHash('sha512').update(r.body ?? Buffer.alloc(0)).digest('hex').toUpperCase();
    assert.equal(r.headers['ETag'], `"${etag}"`);
    assert.equal(svc.respondV2({ accept: 'application/json', ifNoneMatch: `"${etag}"` }).status, 304);
    assert.equal(svc.respondV2({ accept: 'text/html' }).status, 406);
    assert.equal(svc.respondV2({}).headers['Content-Type'], 'application/json');
    const pb = svc.respondV2({ accept: PROTO_ACCEPT });
    assert.equal(pb.headers['Content-Type'], OPENAPI_V2_PROTO_TYPE);
    assert.equal(pb.headers['ETag'], `"${etag}"`, 'the protobuf form shares the JSON ETag');
  });

  it('encodes the gnostic protobuf Document that client-go parses', () => {
    const body = svc.v2Proto().body;
    const docFields = readProto(body);
    assert.equal(protoString(docFields, 1), '2.0');
    const info = readProto(docFields.find((f) => f.field === 2)?.bytes ?? Buffer.alloc(0));
    assert.equal(protoString(info, 1), 'Kubernetes');
    assert.equal(protoString(info, 2), 'v1.36.0');
    const json = JSON.parse(svc.v2Json().body.toString('utf8')) as JsonObject;
    const paths = readProto(docFields.find((f) => f.field === 8)?.bytes ?? Buffer.alloc(0)).filter((f) => f.field === 2);
    assert.equal(paths.length, Object.keys(obj(json['paths'], 'paths')).length);
    const defs = readProto(docFields.find((f) => f.field === 9)?.bytes ?? Buffer.alloc(0));
    assert.equal(defs.length, Object.keys(obj(json['definitions'], 'definitions')).length);
    const deployment = defs.map((d) => readProto(d.bytes ?? Buffer.alloc(0))).find((named) => protoString(named, 1) === 'io.k8s.api.apps.v1.Deployment');
    assert.ok(deployment);
    const schema = readProto(deployment.find((f) => f.field === 2)?.bytes ?? Buffer.alloc(0));
    assert.equal(protoString(schema, 4), 'Deployment enables declarative updates for Pods and ReplicaSets.');
    const type = readProto(schema.find((f) => f.field === 22)?.bytes ?? Buffer.alloc(0));
    assert.equal(protoString(type, 1), 'object');
    const ext = readProto(schema.find((f) => f.field === 31)?.bytes ?? Buffer.alloc(0));
    assert.equal(protoString(ext, 1), 'x-kubernetes-group-version-kind');
    const anyYaml = protoString(readProto(ext.find((f) => f.field === 2)?.bytes ?? Buffer.alloc(0)), 2) ?? '';
    assert.deepEqual(loadYaml(anyYaml, { schema: YAML11_SCHEMA }), [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
  });
});

describe('YAML text of protobuf Any values', () => {
  it('round-trips values a YAML 1.1 parser could misread', () => {
    const samples: Json[] = [
      [{ group: '', kind: 'Pod', version: 'v1' }],
      'merge',
      ['type'],
      { rule: 'self.size() <= 10 && self.all(x, x != "")', message: 'a: b # c', reason: null },
      ['y', 'no', 'on', 'true', '1', '', '0.5', '-x', 'null', 'a\nb', ' lead'],
      true,
      42,
      { nested: { list: [[1, 2], [], {}], empty: {} } },
    ];
    // YAML 1.1 is what Go's yaml.v2 (used by kubectl for these values) implements.
    for (const s of samples) assert.deepEqual(loadYaml(toYaml(s), { schema: YAML11_SCHEMA }), s, toYaml(s));
    assert.equal(toYaml([{ group: '', kind: 'Pod', version: 'v1' }]), '- group: ""\n  kind: Pod\n  version: v1\n');
  });
});

describe('/openapi/v3', () => {
  const svc = new OpenApiService(ApiCatalog.load(), { gitVersion: 'v1.36.0' });

  it('lists every served group-version with the hash of its document', () => {
    const r = svc.respondV3({ path: '/openapi/v3' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['Content-Type'], 'application/json');
    const root = JSON.parse(r.body?.toString('utf8') ?? '{}') as { paths: Record<string, { serverRelativeURL: string }> };
    for (const key of ['api/v1', 'apis/apps/v1', 'apis/autoscaling/v2', 'apis/apps', 'api', 'apis', 'version']) assert.ok(root.paths[key], key);
    assert.equal(root.paths['apis/networking.k8s.io/v1beta1'], undefined);
    const doc = svc.v3Document('apis/apps/v1');
    assert.ok(doc);
    const hash = createHash('sha512').update(doc.body).digest('hex').toUpperCase();
    assert.equal(root.paths['apis/apps/v1']?.serverRelativeURL, `/openapi/v3/apis/apps/v1?hash=${hash}`);
    assert.equal(doc.etag, hash);
  });

  it('serves hash-pinned documents as immutable, redirects stale hashes, and honours If-None-Match', () => {
    const doc = svc.v3Document('apis/apps/v1');
    assert.ok(doc);
    const pinned = svc.respondV3({ path: '/openapi/v3/apis/apps/v1', hash: doc.etag, accept: 'application/json' });
    assert.equal(pinned.status, 200);
    assert.equal(pinned.headers['Cache-Control'], 'public, immutable');
    assert.ok(Date.parse(pinned.headers['Expires'] ?? '') > Date.now() + 300 * 24 * 3600 * 1000);
    assert.equal(pinned.headers['ETag'], `"${doc.etag}"`);
    assert.equal(pinned.headers['Vary'], 'Accept');

    const stale = svc.respondV3({ path: '/openapi/v3/apis/apps/v1', hash: 'ABC', accept: 'application/json' });
    assert.equal(stale.status, 301);
    assert.equal(stale.headers['Location'], `/openapi/v3/apis/apps/v1?hash=${doc.etag}`);

    const plain = svc.respondV3({ path: '/openapi/v3/apis/apps/v1' });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['Cache-Control'], undefined);
    assert.equal(svc.respondV3({ path: '/openapi/v3/apis/apps/v1', ifNoneMatch: `"${doc.etag}"` }).status, 304);
    assert.equal(svc.respondV3({ path: '/openapi/v3/apis/nope/v1' }).status, 404);
    assert.equal(svc.respondV3({ path: '/openapi/v3/apis/apps/v1', accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' }).status, 406);
  });

  it('has fieldValidation on the PATCH of apps/v1 deployments, as kubectl checks before server-side validation', () => {
    const doc = svc.buildV3Document('apis/apps/v1');
    assert.ok(doc);
    // kubectl's QueryParamVerifierV3: a PATCH whose x-kubernetes-group-version-kind matches and that takes fieldValidation.
    const found = Object.values(obj(doc['paths'], 'paths')).some((item) => {
      const patch = isJsonObject(item) ? item['patch'] : undefined;
      if (!isJsonObject(patch)) return false;
      const gvk = obj(patch['x-kubernetes-group-version-kind'], 'gvk');
      if (gvk['group'] !== 'apps' || gvk['version'] !== 'v1' || gvk['kind'] !== 'Deployment') return false;
      return (patch['parameters'] as Json[]).some((p) => isJsonObject(p) && p['name'] === 'fieldValidation' && p['in'] === 'query');
    });
    assert.ok(found);
  });

  it('uses OpenAPI 3 shapes: components, allOf-wrapped refs, request bodies and per-media-type content', () => {
    const doc = svc.buildV3Document('apis/apps/v1');
    assert.ok(doc);
    assert.equal(doc['openapi'], '3.0.0');
    const schemas = obj(obj(doc['components'], 'components')['schemas'], 'schemas');
    for (const ref of refs(doc)) {
      assert.ok(ref.startsWith('#/components/schemas/'), ref);
      assert.ok(schemas[ref.slice('#/components/schemas/'.length)], `missing ${ref}`);
    }
    const deployment = obj(schemas['io.k8s.api.apps.v1.Deployment'], 'Deployment');
    assert.deepEqual(obj(deployment['properties'], 'props')['metadata'], {
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
      default: {},
      description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    });
    const condition = obj(obj(schemas['io.k8s.api.apps.v1.DaemonSetCondition'], 'cond')['properties'], 'props');
    assert.equal(obj(condition['type'], 'type')['default'], '');
    assert.equal(obj(condition['message'], 'message')['default'], undefined);
    assert.deepEqual(obj(schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString'], 'ios')['oneOf'], [{ type: 'integer' }, { type: 'string' }]);

    const item = obj(obj(doc['paths'], 'paths')['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'], 'item');
    assert.deepEqual(item['parameters'], [
      { description: 'name of the Deployment', in: 'path', name: 'name', required: true, schema: { type: 'string', uniqueItems: true } },
      { description: 'object name and auth scope, such as for teams and projects', in: 'path', name: 'namespace', required: true, schema: { type: 'string', uniqueItems: true } },
      {
        description: "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).",
        in: 'query',
        name: 'pretty',
        schema: { type: 'string', uniqueItems: true },
      },
    ]);
    const put = obj(item['put'], 'put');
    assert.equal(put['consumes'], undefined);
    assert.deepEqual(put['requestBody'], { content: { '*/*': { schema: { $ref: '#/components/schemas/io.k8s.api.apps.v1.Deployment' } } }, required: true });
    const ok = obj(obj(put['responses'], 'responses')['200'], '200');
    assert.deepEqual(Object.keys(obj(ok['content'], 'content')).sort(), ['application/cbor', 'application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml']);
    const del = obj(item['delete'], 'delete');
    assert.equal(obj(del['requestBody'], 'body')['required'], undefined, 'DeleteOptions is optional');
    assert.deepEqual(obj(obj(put['responses'], 'responses')['401'], '401'), { description: 'Unauthorized' });
  });
});
