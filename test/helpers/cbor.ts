import { Decoder, Encoder } from 'cbor-x';

/**
 * An independent reading of CBOR bytes (cbor-x, not the server's codec):
 * maps come back as Maps, byte strings as bytes; both are turned into the
 * JSON shapes the server meant (kube writes strings and keys as byte strings).
 */
const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });

function toJson(v: unknown): unknown {
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) out[String(toJson(k))] = toJson(x);
    return out;
  }
  return v;
}

export function independentCborDecode(bytes: Buffer): unknown {
  return toJson(decoder.decode(bytes));
}

/** Every data item of a CBOR sequence (application/cbor-seq). */
export function independentCborSequence(bytes: Buffer): unknown[] {
  const items: unknown[] = [];
  decoder.decodeMultiple(bytes, (item: unknown) => {
    items.push(toJson(item));
  });
  return items;
}

const encoder = new Encoder({ useRecords: false, variableMapSize: true });

/** A request body as another CBOR client would write it: text strings, self-described. */
export function independentCborEncode(value: unknown): Buffer {
  return Buffer.concat([Buffer.from([0xd9, 0xd9, 0xf7]), encoder.encode(value)]);
}
