import { Etcd3 } from 'etcd3';
import { configMap } from './fixtures.js';
import type { Operation, Outcome } from './loop.js';

/**
 * The etcd section's baseline: the `etcd3` npm client (the library Capstan's
 * etcd store uses, called the same raw way: kv.put / kv.range) driven
 * straight from this process, at the same concurrency and for the same time
 * as the Capstan phases. What Capstan adds over these rows is its overhead
 * over the store: HTTPS, decoding, admission, the watch cache, encoding.
 */

/** Every key the baseline writes lives under this prefix, away from Capstan's /registry. */
const PREFIX = '/capstan-bench/';
const ONE_KEY = `${PREFIX}one`;
const RANGE_PREFIX = `${PREFIX}range/`;

/** The value written: the same ~1 KiB ConfigMap body the Capstan create phase sends. */
export function baselineValue(i: number): string {
  return configMap(`c-${i}`);
}

/** etcd's range end for "every key under `prefix`" (the prefix's last byte plus one; ASCII prefixes only). */
function prefixEnd(prefix: string): Buffer {
  const end = Buffer.from(prefix);
  end[end.length - 1]!++;
  return end;
}

export interface BaselinePhase {
  name: string;
  op: Operation;
}

export interface EtcdClientBaseline {
  /** put (distinct keys), range of one key, range of `rangeKeys` keys: in that order. */
  readonly put: BaselinePhase;
  readonly rangeOne: BaselinePhase;
  readonly rangeMany: BaselinePhase;
  /** The value `put` writes (the first of them). */
  readonly value: string;
  /** Writes the keys the range phases read (not timed), with `clients` writers. */
  load(clients: number): Promise<void>;
  /** Size of the value stored at `key` (0 when absent), e.g. a ConfigMap Capstan wrote. */
  valueBytes(key: string): Promise<number>;
  close(): void;
}

export function etcdClientBaseline(endpoint: string, rangeKeys: number): EtcdClientBaseline {
  const client = new Etcd3({
    hosts: [endpoint],
    // As Capstan's store: a 1,000-key range is ~1 MB, and gRPC's default cap is 4 MiB.
    grpcOptions: { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 },
  });
  const rangeEnd = prefixEnd(RANGE_PREFIX);

  async function load(clients: number): Promise<void> {
    await client.kv.put({ key: Buffer.from(ONE_KEY), value: Buffer.from(baselineValue(0)) });
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < rangeKeys) {
          const i = next++;
          await client.kv.put({ key: Buffer.from(`${RANGE_PREFIX}${String(i).padStart(6, '0')}`), value: Buffer.from(baselineValue(i)) });
        }
      }),
    );
  }

  return {
    put: {
      name: 'etcd client: put 1 KiB value',
      // Distinct keys, as the create phase makes distinct objects.
      op: async (i) => {
        const value = Buffer.from(baselineValue(i));
        await client.kv.put({ key: Buffer.from(`${PREFIX}put/${i}`), value });
        return { bytes: value.length };
      },
    },
    rangeOne: {
      name: 'etcd client: range of one key',
      op: async () => rangeOutcome((await client.kv.range({ key: Buffer.from(ONE_KEY) })).kvs, 1),
    },
    rangeMany: {
      name: `etcd client: range of ${rangeKeys.toLocaleString('en-US')} keys`,
      op: async () => rangeOutcome((await client.kv.range({ key: Buffer.from(RANGE_PREFIX), range_end: rangeEnd })).kvs, rangeKeys),
    },
    value: baselineValue(0),
    load,
    valueBytes: async (key) => (await client.kv.range({ key: Buffer.from(key) })).kvs[0]?.value.length ?? 0,
    close: () => client.close(),
  };
}

function rangeOutcome(kvs: ReadonlyArray<{ value: Buffer }>, expected: number): Outcome {
  const bytes = kvs.reduce((sum, kv) => sum + kv.value.length, 0);
  return kvs.length === expected ? { bytes } : { bytes, error: `range returned ${kvs.length} keys, expected ${expected}` };
}
