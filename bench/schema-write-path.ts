/**
 * The schema-driven part of a write, in-process: a strategic merge patch of
 * a 100-container Deployment, the field check of the patched object (strict,
 * as `fieldValidation=Strict` does), and a server-side apply of the same
 * object over the stored one; each alone, then the three in a row. Steady state reads a warm schema model (as a
 * descriptor's does after its first request); "first request" builds a new
 * model for every iteration (what a new descriptor pays once).
 *
 * Runs against trees that predate the shared schema model too (then the
 * definitions object stands for the model), so before/after figures come
 * from one script: `node dist/bench/schema-write-path.js`.
 */
import { loadDefinitions } from '../src/api/definitions.js';
import { schemaForDefinition, serverSideApply } from '../src/apply/index.js';
import type { KubeObject } from '../src/machinery/object.js';
import { patchSchemaFor } from '../src/patch/schema.js';
import { applyStrategicMergePatch } from '../src/patch/strategic-merge-patch.js';
import { checkFields } from '../src/validation/fields/index.js';
import { deployment as bigDeployment } from './writes.js';

const DEFINITION = 'io.k8s.api.apps.v1.Deployment';
const ENDPOINT = { group: 'apps', version: 'v1', kind: 'Deployment' };

function deployment(image: string): KubeObject {
  return bigDeployment('web', image) as unknown as KubeObject;
}

type Source = object;

async function modelFactory(): Promise<() => Source> {
  const path = '../src/api/schema-model.js';
  try {
    const mod = (await import(path)) as { SchemaModel: new (defs: object) => object };
    return () => new mod.SchemaModel(loadDefinitions());
  } catch {
    return () => loadDefinitions();
  }
}

const patchOf = (i: number): string => JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'c0', image: `img:${i}` }] } } } });

function smp(source: Source, live: KubeObject, i: number): KubeObject {
  return applyStrategicMergePatch(live, patchOf(i), patchSchemaFor(source as never, DEFINITION)) as KubeObject;
}

function check(source: Source, obj: KubeObject): void {
  const body = JSON.stringify(obj);
  checkFields({ body, contentType: 'json', decoded: JSON.parse(body) as unknown, definition: DEFINITION, definitions: source as never, level: 'Strict', endpoint: ENDPOINT });
}

function apply(source: Source, live: KubeObject, i: number): KubeObject {
  const schema = (schemaForDefinition as (d: string, m?: unknown) => ReturnType<typeof schemaForDefinition>)(DEFINITION, source);
  return serverSideApply({ apiVersion: 'apps/v1', schema, live, applied: deployment(`img:${i}`), manager: 'bench', force: true, kind: 'Deployment' }).object;
}

function oneWrite(source: Source, live: KubeObject, i: number): KubeObject {
  const patched = smp(source, live, i);
  check(source, patched);
  return apply(source, live, i);
}

function opsPerSec(run: (i: number) => void, ms: number): number {
  let n = 0;
  const end = performance.now() + ms;
  const start = performance.now();
  while (performance.now() < end) run(n++);
  return (n * 1000) / (performance.now() - start);
}

async function main(): Promise<void> {
  const newSource = await modelFactory();
  const warm = newSource();
  let live = oneWrite(warm, deployment('img:start'), 0);
  const rows: Record<string, number[]> = { smp: [], check: [], apply: [], write: [], first: [] };
  const ms = Number(process.env.BENCH_MS ?? 700);
  for (let round = 0; round < 5; round++) {
    rows.smp!.push(opsPerSec((i) => void smp(warm, live, i), ms));
    rows.check!.push(opsPerSec(() => check(warm, live), ms));
    rows.apply!.push(opsPerSec((i) => void apply(warm, live, i), ms));
    rows.write!.push(opsPerSec((i) => (live = oneWrite(warm, live, i)), ms));
    rows.first!.push(opsPerSec((i) => void oneWrite(newSource(), live, i), ms));
  }
  for (const [name, v] of Object.entries(rows)) {
    const sorted = [...v].sort((a, b) => a - b);
    console.log(`${name.padEnd(7)} best ${Math.max(...v).toFixed(1)} ops/s  median ${sorted[2]!.toFixed(1)} ops/s`);
  }
}

await main();
