import { decode } from '../src/codec/codec.js';
import { JSON_TYPE } from '../src/codec/media-type.js';
import { ApiServer } from '../src/server/apiserver.js';
import { opsPerSecond } from './field-validation.js';
import { round } from './loop.js';

/**
 * What the nesting-depth check (machinery/nesting.ts, issue 10) costs a
 * create, in-process: the JSON body decode with the check (codec decode)
 * beside the same decode with the check bypassed (Buffer to text and
 * JSON.parse alone), for ConfigMaps of about 2 KB, 10 KB and 50 KB, each
 * beside a whole create of the same body in the same run (an ApiServer with
 * the memory store, its in-memory loopback client, CPU per create; the
 * client's share of that CPU is in it too). Text of 20,001 characters or
 * fewer cannot nest 10,000 levels, so the scan only runs on the 50 KB body.
 */

export interface DepthCheckRow {
  bodyBytes: number;
  /** µs per decode, with the check and bypassed. */
  decodeWithCheckUs: number;
  decodeBypassedUs: number;
  /** CPU µs per create through the server (best of three runs). */
  createUs: number;
  /** (with − bypassed) / create, in %. */
  sharePct: number;
}

function configMap(name: string, bytes: number): Record<string, unknown> {
  const data: Record<string, string> = {};
  // Entries of ~100 bytes each, nested one level like most objects' fields.
  for (let i = 0; Buffer.byteLength(JSON.stringify(data)) < bytes - 150; i++) data[`key-${i}`] = `value-${i}-${'v'.repeat(80)}`;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench', labels: { app: 'bench' } }, data };
}

async function createCpuMicros(server: ApiServer, size: number): Promise<number> {
  const client = server.client('bench-depth');
  const ref = { group: '', version: 'v1', resource: 'configmaps', namespace: 'bench' };
  let k = 0;
  const once = (): Promise<unknown> => client.create(ref, configMap(`d${size}-${k++}`, size));
  for (let i = 0; i < 100; i++) await once();
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const n = 400;
    const before = process.cpuUsage();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next++ < n) await once();
      }),
    );
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / n);
  }
  return best;
}

export async function depthChecksSection(): Promise<DepthCheckRow[]> {
  const server = new ApiServer({ logger: { info: () => undefined, error: () => undefined, v: () => false }, config: { bindAddress: '127.0.0.1' } });
  await server.start();
  try {
    await server.client('bench-depth').create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    const rows: DepthCheckRow[] = [];
    for (const size of [2 * 1024, 10 * 1024, 50 * 1024]) {
      const body = Buffer.from(JSON.stringify(configMap('probe', size)));
      const withCheck = 1e6 / opsPerSecond(() => decode(body, JSON_TYPE));
      const bypassed = 1e6 / opsPerSecond(() => JSON.parse(body.toString('utf8')));
      const createUs = await createCpuMicros(server, size);
      rows.push({
        bodyBytes: body.length,
        decodeWithCheckUs: round(withCheck, 2),
        decodeBypassedUs: round(bypassed, 2),
        createUs: round(createUs, 1),
        sharePct: round((100 * (withCheck - bypassed)) / createUs, 2),
      });
    }
    return rows;
  } finally {
    await server.stop();
  }
}
