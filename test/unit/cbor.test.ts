import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { independentCborDecode } from '../helpers/cbor.js';
import { encodeCbor } from '../../src/codec/cbor/encode.js';
import { CBOR_MAX_DEPTH, CborDecodeError, decodeCbor, decodeCborSequence } from '../../src/codec/cbor/decode.js';
import fc from 'fast-check';
import { decodeCborObjectBody } from '../../src/codec/cbor/body.js';
import { MAX_NESTING_DEPTH } from '../../src/machinery/nesting.js';
import { negotiate, negotiatePlain } from '../../src/codec/negotiate.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const dec = (s: string): unknown => decodeCbor(hex(s), MAX_NESTING_DEPTH);
const fails = (s: string, message: string): void => assert.throws(() => dec(s), { message });

describe('CBOR encoding as kube writes it', () => {
  it('prefixes the self-described tag and writes strings and keys as byte strings', () => {
    assert.equal(encodeCbor({ a: 'x' }).toString('hex'), 'd9d9f7' + 'a1' + '4161' + '4178');
  });
  it('writes integers as integers and floats in the shortest exact width', () => {
    assert.equal(encodeCbor([0, 23, 24, -1, -500, 65536]).toString('hex'), 'd9d9f7' + '86' + '00' + '17' + '1818' + '20' + '3901f3' + '1a00010000');
    assert.equal(encodeCbor(1.5).toString('hex'), 'd9d9f7f93e00');
    assert.equal(encodeCbor(100000.5).toString('hex'), 'd9d9f7fa47c35040');
    assert.equal(encodeCbor(0.1).toString('hex'), 'd9d9f7fb3fb999999999999a');
    assert.equal(encodeCbor([true, false, null]).toString('hex'), 'd9d9f783f5f4f6');
  });
  it('keeps the object key order and drops undefined fields', () => {
    assert.equal(encodeCbor({ b: 1, a: 2, c: undefined }).toString('hex'), 'd9d9f7a2416201416102');
  });
  it('is read back by an independent decoder and by ours', () => {
    const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'ü-x', labels: { a: 'b' } }, data: { k: 'v'.repeat(300) }, n: [1, -2, 2.5, null, true] };
    const bytes = encodeCbor(obj);
    assert.deepEqual(independentCborDecode(bytes), obj);
    assert.deepEqual(decodeCbor(bytes, MAX_NESTING_DEPTH), obj);
  });
});

describe('CBOR decoding with kube decoder checks', () => {
  it('rejects duplicate map keys', () => {
    fails('a2 6161 01 6161 02', 'cbor: found duplicate map key "a" at map element index 1');
    // A text and a byte string key with the same bytes are the same Go string.
    fails('a2 6161 01 4161 02', 'cbor: found duplicate map key "a" at map element index 1');
  });
  it('takes byte strings as strings, in keys and values', () => {
    assert.deepEqual(dec('a1 4161 4162'), { a: 'b' });
  });
  it('refuses keys that are not strings', () => {
    fails('a1 01 02', 'cbor: cannot unmarshal positive integer into Go value of type string');
    fails('a1 80 02', 'cbor: cannot unmarshal array into Go value of type string');
  });
  it('refuses invalid UTF-8 in text strings (not in byte strings)', () => {
    fails('62 fffe', 'cbor: invalid UTF-8 string');
    assert.equal(typeof dec('42 fffe'), 'string');
  });
  it('handles tags as kube does', () => {
    assert.deepEqual(dec('d9d9f7 a1 6161 01'), { a: 1 });
    assert.equal(dec('c6 6178'), 'x');
    assert.equal(dec('c1 1a514b67b0'), '2013-03-21T20:04:00Z');
    assert.equal(dec('d6 43 010203'), 'AQID');
    assert.equal(dec('d7 43 010203'), '010203');
    fails('c2 41 01', 'cbor: data item of cbor type tag is not accepted by protocol: bignum');
  });
  it('accepts indefinite lengths', () => {
    assert.deepEqual(dec('9f 01 02 ff'), [1, 2]);
    assert.deepEqual(dec('bf 6161 01 ff'), { a: 1 });
    assert.equal(dec('5f 4161 4162 ff'), 'ab');
    fails('5f 4161 6162 ff', 'cbor: wrong element type UTF-8 text string for indefinite-length byte string');
  });
  it('refuses NaN, infinity, undefined and unknown simple values', () => {
    fails('f9 7e00', 'cbor: data item of cbor type primitives is not accepted by protocol: floating-point NaN');
    fails('f9 7c00', 'cbor: data item of cbor type primitives is not accepted by protocol: floating-point infinity');
    fails('f7', 'cbor: data item of cbor type primitives is not accepted by protocol: simple value 23 is not recognized');
    fails('f8 20', 'cbor: data item of cbor type primitives is not accepted by protocol: simple value 32 is not recognized');
  });
  it('refuses integers beyond int64', () => {
    fails('1b ffffffffffffffff', "cbor: cannot unmarshal positive integer into Go value of type int64 (18446744073709551615 overflows Go's int64)");
    fails('3b ffffffffffffffff', "cbor: cannot unmarshal negative integer into Go value of type int64 (-18446744073709551616 overflows Go's int64)");
    assert.equal(dec('3b 0000000000000001'), -2);
  });
  it('bounds nesting before building anything', () => {
    const deep = Buffer.concat([Buffer.alloc(CBOR_MAX_DEPTH + 1, 0x81), Buffer.from([0x01])]);
    assert.throws(() => decodeCbor(deep, MAX_NESTING_DEPTH), { message: `cbor: exceeded max nested level ${CBOR_MAX_DEPTH}` });
    const ok = Buffer.concat([Buffer.alloc(CBOR_MAX_DEPTH, 0x81), Buffer.from([0x01])]);
    assert.ok(Array.isArray(decodeCbor(ok, MAX_NESTING_DEPTH)));
    // Indefinite-length containers count as well.
    assert.throws(() => decodeCbor(Buffer.alloc(100_000, 0x9f), MAX_NESTING_DEPTH), { message: `cbor: exceeded max nested level ${CBOR_MAX_DEPTH}` });
  });
  it('reports truncation, emptiness and trailing bytes', () => {
    assert.throws(() => decodeCbor(Buffer.alloc(0), MAX_NESTING_DEPTH), { message: 'EOF' });
    fails('a2 6161 01', 'unexpected EOF');
    fails('7a ffffffff', 'unexpected EOF');
    fails('9b 00000000ffffffff', 'unexpected EOF');
    fails('01 02 03', 'cbor: 2 bytes of extraneous data starting at index 1');
    fails('1c', 'cbor: invalid additional information 28 for type positive integer');
    fails('ff', 'cbor: unexpected "break" code');
  });
  it('splits a CBOR sequence into its items', () => {
    assert.deepEqual(decodeCborSequence(hex('d9d9f7 01 d9d9f7 a1 6161 02'), MAX_NESTING_DEPTH), [1, { a: 2 }]);
  });
});

describe('CBOR object bodies: kube create/update error texts', () => {
  const endpoint = { apiVersion: 'v1', kind: 'ConfigMap' };
  it('names the body kind when the type meta reads', () => {
    const body = hex('d9d9f7 a3 446b696e64 49436f6e6669674d6170 4a61706956657273696f6e 427631 4464617461 a2 6161 01 6161 02');
    assert.throws(() => decodeCborObjectBody(body, endpoint, MAX_NESTING_DEPTH), {
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: cbor: found duplicate map key "a" at map element index 1',
    });
  });
  it('calls a body whose kind cannot be read unrecognized, with a hex summary', () => {
    const body = hex('d9d9f7 a2 6161 01');
    assert.throws(() => decodeCborObjectBody(body, endpoint, MAX_NESTING_DEPTH), {
      message: 'the object provided is unrecognized (must be of type ConfigMap): unable to determine group/version/kind: unexpected EOF (d9d9f7a2616101)',
    });
    assert.throws(() => decodeCborObjectBody(hex('d9d9f7 82 01 02'), endpoint, MAX_NESTING_DEPTH), {
      message: 'the object provided is unrecognized (must be of type ConfigMap): unable to determine group/version/kind: cbor: cannot unmarshal array into Go value of type v1.TypeMeta (d9d9f7820102)',
    });
  });
});

describe('CBOR in content negotiation', () => {
  it('offers CBOR only when served, never for Tables', () => {
    assert.throws(() => negotiate('application/cbor', { table: true }), {
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
    assert.equal(negotiate('application/cbor', { table: true, cbor: true }).encoding, 'application/cbor');
    const table = negotiate('application/cbor;as=Table;g=meta.k8s.io;v=v1, application/json;as=Table;g=meta.k8s.io;v=v1', { table: true, cbor: true });
    assert.deepEqual([table.encoding, table.view.kind], ['application/json', 'table']);
    const meta = negotiate('application/cbor;as=PartialObjectMetadata;g=meta.k8s.io;v=v1', { table: true, metadataAs: 'PartialObjectMetadata', cbor: true });
    assert.deepEqual([meta.encoding, meta.view.kind], ['application/cbor', 'metadata']);
    assert.equal(negotiatePlain('application/cbor', true), 'application/cbor');
    assert.equal(negotiatePlain('application/cbor'), 'application/json');
  });
});

describe('CBOR decoding of arbitrary bytes', () => {
  it('answers every input with a value or a CborDecodeError, never another exception', () => {
    const valid = encodeCbor({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', labels: { a: 'b' } }, data: { k: 'v' }, n: [1, -2, 2.5, null, true] });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })).map(([i, b]) => {
        const mutated = Buffer.from(valid);
        mutated[i] = b;
        return mutated;
      })), (bytes) => {
        try {
          decodeCbor(Buffer.from(bytes), MAX_NESTING_DEPTH);
        } catch (err) {
          assert.ok(err instanceof CborDecodeError, String(err));
        }
      }),
      { numRuns: 5000 },
    );
  });
});
