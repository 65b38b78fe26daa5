import { performance } from 'node:perf_hooks';
import { ApiCatalog } from '../src/api/catalog.js';
import { OpenApiService, type AggregatedOpenApiSource } from '../src/api/openapi.js';
import type { JsonObject } from '../src/machinery/json.js';

/**
 * What extension servers' OpenAPI documents cost /openapi/v2 (in-process):
 * building the document with none (this server's own, the baseline), with
 * one and with five extension documents merged in, and answering from the
 * cache with and without an aggregation source (what every request pays
 * while nothing changes). Median of several builds; best of three 300 ms
 * runs for the cached rows.
 * Run: npm run build && node dist/bench/openapi-aggregation.js
 */

/** An extension server's document for one group-version: 20 kinds with list paths, sharing ObjectMeta. */
function extensionDocument(group: string): JsonObject {
  const paths: JsonObject = {};
  const definitions: JsonObject = {
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { description: `ObjectMeta as ${group} knows it.`, type: 'object', properties: { name: { type: 'string' } } },
  };
  for (let i = 0; i < 20; i++) {
    const kind = `Kind${i}`;
    const name = `com.example.${group}.v1.${kind}`;
    paths[`/apis/${group}/v1/namespaces/{namespace}/kind${i}s`] = {
      get: { operationId: `list${kind}`, responses: { 200: { description: 'OK', schema: { $ref: `#/definitions/${name}List` } } }, 'x-kubernetes-group-version-kind': { group, kind, version: 'v1' } },
      parameters: [{ $ref: '#/parameters/namespace-vgWSWtn3' }],
    };
    definitions[name] = {
      type: 'object',
      properties: { metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }, spec: { type: 'object', properties: { size: { type: 'integer' } } } },
      'x-kubernetes-group-version-kind': [{ group, kind, version: 'v1' }],
    };
    definitions[`${name}List`] = { type: 'object', properties: { items: { type: 'array', items: { $ref: `#/definitions/${name}` } } } };
  }
  return { swagger: '2.0', info: { title: 'Api', version: 'v0' }, paths, definitions, parameters: {} };
}

function source(docs: JsonObject[]): AggregatedOpenApiSource {
  return { generation: 1, v2Documents: () => docs, v3Entries: () => new Map(), v3Documents: () => new Map() };
}

function medianBuildMs(make: () => OpenApiService, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const svc = make();
    const t = performance.now();
    svc.v2Json();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function cachedOpsPerSecond(svc: OpenApiService): number {
  svc.v2Json();
  let best = 0;
  for (let run = 0; run < 3; run++) {
    let n = 0;
    const end = performance.now() + 300;
    while (performance.now() < end) {
      for (let i = 0; i < 1000; i++) svc.respondV2({ accept: 'application/json' });
      n += 1000;
    }
    best = Math.max(best, n / 0.3);
  }
  return best;
}

const catalog = ApiCatalog.load();
const gitVersion = 'v1.36.0';
const runs = 7;
// Definitions load once per process: the first build pays it for every row alike.
new OpenApiService(catalog, { gitVersion }).v2Json();
const rows: Array<[string, string]> = [
  ['v2 build, built-in only (baseline)', `${medianBuildMs(() => new OpenApiService(catalog, { gitVersion }), runs).toFixed(1)} ms`],
  ['v2 build, 1 extension document merged', `${medianBuildMs(() => new OpenApiService(catalog, { gitVersion, aggregated: source([extensionDocument('one.example.com')]) }), runs).toFixed(1)} ms`],
  ['v2 build, 5 extension documents merged', `${medianBuildMs(() => new OpenApiService(catalog, { gitVersion, aggregated: source(['a', 'b', 'c', 'd', 'e'].map((g) => extensionDocument(`${g}.example.com`))) }), runs).toFixed(1)} ms`],
  ['cached v2 answer, no aggregation source (baseline)', `${Math.round(cachedOpsPerSecond(new OpenApiService(catalog, { gitVersion }))).toLocaleString('en-US')} ops/s`],
  ['cached v2 answer, source with nothing to add', `${Math.round(cachedOpsPerSecond(new OpenApiService(catalog, { gitVersion, aggregated: source([]) }))).toLocaleString('en-US')} ops/s`],
  ['cached v2 answer, 5 documents merged', `${Math.round(cachedOpsPerSecond(new OpenApiService(catalog, { gitVersion, aggregated: source(['a', 'b', 'c', 'd', 'e'].map((g) => extensionDocument(`${g}.example.com`))) }))).toLocaleString('en-US')} ops/s`],
];
for (const [label, value] of rows) process.stdout.write(`${label.padEnd(56)}${value.padStart(16)}\n`);
