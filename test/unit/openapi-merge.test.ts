import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ApiCatalog } from '../../src/api/catalog.js';
import { OpenApiService, type AggregatedOpenApiSource } from '../../src/api/openapi.js';
import { filterSpecByPaths, mergeOpenApiV2, mergeSpecs, type MergeTarget } from '../../src/api/openapi-merge.js';
import { convertV2Document } from '../../src/api/openapi-v3.js';
import type { JsonObject } from '../../src/machinery/json.js';

/**
 * kube-openapi's aggregator semantics (pkg/aggregator/aggregator.go) as
 * kube-aggregator merges extension servers' /openapi/v2 documents.
 */

const ref = (name: string): JsonObject => ({ $ref: `#/definitions/${name}` });
const gvk = (kind: string, version = 'v1', group = 'example.com'): JsonObject => ({ group, kind, version });

function doc(paths: Record<string, JsonObject>, definitions: Record<string, JsonObject> = {}, parameters: Record<string, JsonObject> = {}): JsonObject {
  return { swagger: '2.0', info: { title: 'Api', version: 'v0' }, paths, definitions, parameters };
}

const getting = (schemaRef: string, params: JsonObject[] = []): JsonObject => ({ get: { responses: { '200': { description: 'OK', schema: ref(schemaRef) } } }, ...(params.length ? { parameters: params } : {}) });

function target(d: JsonObject): MergeTarget {
  return { paths: { ...(d['paths'] as Record<string, JsonObject>) }, definitions: { ...(d['definitions'] as Record<string, JsonObject>) }, parameters: { ...(d['parameters'] as Record<string, JsonObject>) } };
}

describe('filterSpecByPaths (FilterSpecByPathsWithoutSideEffects)', () => {
  const source = doc(
    {
      '/apis/example.com/v1/things': getting('Thing'),
      '/apis/example.com/v1/': getting('ResourceList'),
      '/version/': getting('Info'),
      '/apis/other.com/v1/gizmos': getting('Gizmo'),
    },
    {
      Thing: { properties: { meta: ref('Meta') } },
      Meta: { type: 'object' },
      ResourceList: { type: 'object' },
      Info: { properties: { build: ref('Build') } },
      Build: { type: 'object' },
      Gizmo: { properties: { meta: ref('Meta') } },
      // No path uses it: it stays whatever is filtered.
      Orphan: { properties: { build: ref('Build') } },
    },
  );

  it('keeps the paths under the prefixes and what they use, transitively', () => {
    const out = filterSpecByPaths(source, ['/apis/example.com/v1/']);
    assert.deepEqual(Object.keys(out['paths'] as JsonObject).sort(), ['/apis/example.com/v1/', '/apis/example.com/v1/things']);
    assert.deepEqual(Object.keys(out['definitions'] as JsonObject).sort(), ['Meta', 'Orphan', 'ResourceList', 'Thing']);
    assert.deepEqual(out['info'], source['info']);
  });

  it('removes only what the dropped paths used, even when a kept definition refers to it (as kube does)', () => {
    // Build was used by /version/ only; Orphan, never used by a path, stays and now points at nothing.
    const out = filterSpecByPaths(source, ['/apis/other.com/']);
    assert.deepEqual(Object.keys(out['definitions'] as JsonObject).sort(), ['Gizmo', 'Meta', 'Orphan']);
  });

  it('does not change its input', () => {
    const before = JSON.stringify(source);
    filterSpecByPaths(source, ['/version/']);
    assert.equal(JSON.stringify(source), before);
  });
});

describe('mergeSpecs (MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters)', () => {
  it('keeps the destination\'s path when both have it, and brings only what the source\'s other paths need', () => {
    const dest = target(doc({ '/version/': getting('Info') }, { Info: { type: 'object', description: 'ours' } }));
    mergeSpecs(dest, doc({ '/version/': getting('OtherInfo'), '/apis/example.com/v1/things': getting('Thing') }, { OtherInfo: { type: 'object' }, Thing: { type: 'object' } }));
    assert.deepEqual(Object.keys(dest.paths).sort(), ['/apis/example.com/v1/things', '/version/']);
    assert.deepEqual(dest.paths['/version/'], getting('Info'));
    assert.deepEqual(Object.keys(dest.definitions).sort(), ['Info', 'Thing']);
  });

  it('adds nothing when every path of the source is the destination\'s already', () => {
    const dest = target(doc({ '/version/': getting('Info') }, { Info: { type: 'object' } }));
    mergeSpecs(dest, doc({ '/version/': getting('Info') }, { Info: { type: 'string' }, Extra: { type: 'object' } }));
    assert.deepEqual(Object.keys(dest.definitions), ['Info']);
  });

  it('shares an equal definition, and renames a different one _v2 with the references to it', () => {
    const dest = target(doc({ '/api/v1/pods': getting('Pod') }, { Pod: { properties: { metadata: ref('Meta') } }, Meta: { type: 'object', description: 'built in' }, Same: { type: 'string' } }));
    mergeSpecs(dest, doc({ '/apis/example.com/v1/things': getting('Thing') }, { Thing: { properties: { metadata: ref('Meta'), same: ref('Same') } }, Meta: { type: 'object', description: 'theirs' }, Same: { type: 'string' } }));
    assert.deepEqual(dest.definitions['Meta'], { type: 'object', description: 'built in' });
    assert.deepEqual(dest.definitions['Meta_v2'], { type: 'object', description: 'theirs' });
    assert.deepEqual(dest.definitions['Thing'], { properties: { metadata: ref('Meta_v2'), same: ref('Same') } });
    assert.equal(dest.definitions['Same_v2'], undefined);
  });

  it('reuses an earlier rename with equal content, and skips names the source itself uses', () => {
    const dest = target(doc({ '/a': getting('A') }, { A: { properties: { m: ref('Meta') } }, Meta: { description: 'one' }, Meta_v2: { description: 'two' } }));
    mergeSpecs(dest, doc({ '/b': getting('B') }, { B: { properties: { m: ref('Meta') } }, Meta: { description: 'two' } }));
    assert.deepEqual(dest.definitions['B'], { properties: { m: ref('Meta_v2') } });
    assert.equal(dest.definitions['Meta_v3'], undefined);
    mergeSpecs(dest, doc({ '/c': getting('C') }, { C: { properties: { m: ref('Meta') } }, Meta: { description: 'three' }, Meta_v3: { description: 'the source\'s own' } }));
    assert.deepEqual(dest.definitions['C'], { properties: { m: ref('Meta_v4') } });
    assert.deepEqual(dest.definitions['Meta_v4'], { description: 'three' });
    assert.deepEqual(dest.definitions['Meta_v3'], { description: 'the source\'s own' });
  });

  it('treats definitions differing only in x-kubernetes-group-version-kind as one, merging the lists sorted', () => {
    const shared = { type: 'object', description: 'DeleteOptions' };
    const dest = target(doc({ '/a': getting('Opts') }, { Opts: { ...shared, 'x-kubernetes-group-version-kind': [gvk('DeleteOptions', 'v1', 'zeta.io'), gvk('DeleteOptions', 'v1', '')] } }));
    const before = dest.definitions['Opts'];
    mergeSpecs(dest, doc({ '/b': getting('Opts') }, { Opts: { ...shared, 'x-kubernetes-group-version-kind': [gvk('DeleteOptions', 'v1', 'example.com'), gvk('DeleteOptions', 'v1', '')] } }));
    assert.deepEqual(dest.definitions['Opts']!['x-kubernetes-group-version-kind'], [gvk('DeleteOptions', 'v1', ''), gvk('DeleteOptions', 'v1', 'example.com'), gvk('DeleteOptions', 'v1', 'zeta.io')]);
    assert.equal(dest.definitions['Opts_v2'], undefined);
    // The destination's own object was replaced, not changed: it may be shared with other documents.
    assert.equal((before!['x-kubernetes-group-version-kind'] as JsonObject[]).length, 2);
  });

  it('renames a conflicting shared parameter and the references to it', () => {
    const param = (description: string): JsonObject => ({ in: 'query', name: 'pretty', type: 'string', description });
    const dest = target(doc({ '/a': getting('A', [{ $ref: '#/parameters/pretty' }]) }, { A: {} }, { pretty: param('ours') }));
    mergeSpecs(dest, doc({ '/b': getting('A', [{ $ref: '#/parameters/pretty' }]), '/c': getting('A', [{ $ref: '#/parameters/same' }]) }, { A: {} }, { pretty: param('theirs'), same: param('same') }));
    assert.deepEqual(dest.parameters['pretty'], param('ours'));
    assert.deepEqual(dest.parameters['pretty_v2'], param('theirs'));
    assert.deepEqual((dest.paths['/b'] as JsonObject)['parameters'], [{ $ref: '#/parameters/pretty_v2' }]);
    assert.deepEqual(dest.parameters['same'], param('same'));
  });
});

describe('mergeOpenApiV2', () => {
  it('keeps the base document\'s info and security, merges sources in order, and sorts the sections', () => {
    const base: JsonObject = { ...doc({ '/z': getting('Z') }, { Z: {} }), info: { title: 'Kubernetes', version: 'v1.36.0' }, security: [{ BearerToken: [] }] };
    const first = doc({ '/b': getting('T') }, { T: { description: 'first' } });
    const second = doc({ '/a': getting('T'), '/b': getting('Other') }, { T: { description: 'second' }, Other: {} });
    const merged = mergeOpenApiV2(base, [first, second]);
    assert.deepEqual(merged['info'], base['info']);
    assert.deepEqual(merged['security'], base['security']);
    assert.deepEqual(Object.keys(merged['paths'] as JsonObject), ['/a', '/b', '/z']);
    assert.deepEqual((merged['definitions'] as JsonObject)['T'], { description: 'first' });
    assert.deepEqual((merged['paths'] as JsonObject)['/a'], getting('T_v2'));
    assert.deepEqual(Object.keys(merged['definitions'] as JsonObject), ['T', 'T_v2', 'Z']);
  });
});

describe('convertV2Document', () => {
  it('makes a v3 document with shared parameters inlined and definitions as component schemas', () => {
    const v2 = doc(
      { '/apis/example.com/v1/things': { get: { responses: { '200': { description: 'OK', schema: ref('Thing') } }, 'x-kubernetes-group-version-kind': gvk('Thing') }, parameters: [{ $ref: '#/parameters/pretty' }] } },
      { Thing: { type: 'object', properties: { spec: ref('Spec') }, 'x-kubernetes-group-version-kind': [gvk('Thing')] }, Spec: { type: 'object' } },
      { pretty: { in: 'query', name: 'pretty', type: 'string', uniqueItems: true } },
    );
    const v3 = convertV2Document(v2);
    assert.equal(v3['openapi'], '3.0.0');
    const item = (v3['paths'] as JsonObject)['/apis/example.com/v1/things'] as JsonObject;
    assert.deepEqual(item['parameters'], [{ in: 'query', name: 'pretty', schema: { type: 'string', uniqueItems: true } }]);
    assert.deepEqual(((item['get'] as JsonObject)['responses'] as JsonObject)['200'], { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } }, description: 'OK' });
    const schemas = (v3['components'] as JsonObject)['schemas'] as JsonObject;
    assert.deepEqual(schemas['Thing'], { properties: { spec: { $ref: '#/components/schemas/Spec' } }, type: 'object', 'x-kubernetes-group-version-kind': [gvk('Thing')] });
  });
});

describe('OpenApiService with extension servers\' documents', () => {
  const catalog = ApiCatalog.load();
  const extension = doc(
    { '/apis/example.com/v1/things': getting('com.example.v1.Thing') },
    { 'com.example.v1.Thing': { type: 'object', 'x-kubernetes-group-version-kind': [gvk('Thing')] } },
  );
  const source = { generation: 0, v2: [] as JsonObject[], entries: new Map<string, string>(), converted: new Map<string, JsonObject>() };
  const aggregated: AggregatedOpenApiSource = {
    get generation() {
      return source.generation;
    },
    v2Documents: () => source.v2,
    v3Entries: () => source.entries,
    v3Documents: () => source.converted,
  };
  const plain = new OpenApiService(catalog, { gitVersion: 'v1.36.0' });
  const svc = new OpenApiService(catalog, { gitVersion: 'v1.36.0', aggregated });

  it('serves exactly this server\'s own documents while extension servers add nothing, built once', () => {
    const first = svc.v2Json();
    assert.equal(first.etag, plain.v2Json().etag);
    assert.equal(svc.v2Json(), first, 'cached: the same object until something changes');
    assert.equal(svc.v3Root().etag, plain.v3Root().etag);
  });

  it('merges their v2 documents when they change, and only then builds again', () => {
    source.v2 = [extension];
    source.generation++;
    const merged = svc.v2Json();
    assert.notEqual(merged.etag, plain.v2Json().etag);
    const parsed = JSON.parse(merged.body.toString('utf8')) as JsonObject;
    assert.deepEqual((parsed['paths'] as JsonObject)['/apis/example.com/v1/things'], getting('com.example.v1.Thing'));
    assert.ok((parsed['paths'] as JsonObject)['/api/v1/namespaces/{namespace}/pods']);
    assert.equal(svc.v2Json(), merged);
    // The protobuf form is made from the merged document.
    assert.ok(svc.v2Proto().body.includes(Buffer.from('/apis/example.com/v1/things')));
  });

  it('lists their v3 entries and converted documents after this server\'s own, which win a shared key', () => {
    source.entries = new Map([
      ['apis/example.com/v1', '/openapi/v3/apis/example.com/v1?hash=THEIRS'],
      ['version', '/openapi/v3/version?hash=THEIRS'],
    ]);
    source.converted = new Map([['apis/legacy.example.com/v1', convertV2Document(extension)]]);
    source.generation++;
    const root = JSON.parse(svc.v3Root().body.toString('utf8')) as { paths: Record<string, { serverRelativeURL: string }> };
    assert.equal(root.paths['apis/example.com/v1']!.serverRelativeURL, '/openapi/v3/apis/example.com/v1?hash=THEIRS');
    assert.equal(root.paths['version']!.serverRelativeURL, JSON.parse(plain.v3Root().body.toString('utf8')).paths.version.serverRelativeURL);
    const converted = svc.v3Document('apis/legacy.example.com/v1');
    assert.ok(converted);
    assert.equal(root.paths['apis/legacy.example.com/v1']!.serverRelativeURL, `/openapi/v3/apis/legacy.example.com/v1?hash=${converted.etag}`);
    assert.equal(svc.v3Document('apis/example.com/v1'), undefined, 'an extension server\'s own document is not this server\'s to answer');
    assert.deepEqual(Object.keys(root.paths), [...Object.keys(root.paths)].sort());
  });
});
