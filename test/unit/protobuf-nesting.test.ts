import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { decode, DecodeError } from '../../src/codec/codec.js';
import { PROTOBUF_TYPE } from '../../src/codec/media-type.js';
import { decodeProtobufObject, ProtobufCodecError } from '../../src/codec/protobuf/index.js';

/**
 * Issue 10: a RawExtension holding a protobuf envelope is decoded by the
 * same recursive reader, so a body can nest envelopes as deep as its bytes
 * allow. Past a bound no built-in type comes near, it is refused with an
 * error (a 400) instead of overflowing the stack (was: RangeError, a 500).
 */

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

function bytesField(num: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint((num << 3) | 2), varint(bytes.length), bytes]);
}

/** k8s\0 + runtime.Unknown{typeMeta{apiVersion, kind}, raw}. */
function envelope(raw: Buffer): Buffer {
  const typeMeta = Buffer.concat([bytesField(1, Buffer.from('apps/v1')), bytesField(2, Buffer.from('ControllerRevision'))]);
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), bytesField(1, typeMeta), bytesField(2, raw)]);
}

/** A ControllerRevision (metadata.name = 1, data = 2) whose data holds `data`'s bytes, enveloped `levels` times. */
function nestedRevisions(levels: number): Buffer {
  let data: Buffer = Buffer.from('{"innermost":true}');
  for (let i = 0; i < levels; i++) {
    const revision = Buffer.concat([bytesField(1, bytesField(1, Buffer.from(`r${i}`))), bytesField(2, bytesField(1, data))]);
    data = envelope(revision);
  }
  return data;
}

describe('protobuf envelopes nested in RawExtensions (issue 10)', () => {
  it('decodes a few levels into the object they hold', () => {
    const decoded = decodeProtobufObject(nestedRevisions(3)).object as { metadata: { name: string }; data: { metadata: { name: string }; data: { data: unknown } } };
    assert.equal(decoded.metadata.name, 'r2');
    assert.equal(decoded.data.metadata.name, 'r1');
    assert.deepEqual(decoded.data.data.data, { innermost: true });
  });

  it('refuses nesting past the bound with an error, at any depth the body size allows', () => {
    for (const levels of [101, 1000, 3000]) {
      assert.throws(
        () => decodeProtobufObject(nestedRevisions(levels)),
        (err: unknown) => err instanceof ProtobufCodecError && err.message === 'exceeded maximum recursion depth',
        `${levels} levels`,
      );
    }
    // The request body decoder turns it into the 400's DecodeError.
    assert.throws(() => decode(nestedRevisions(2000), PROTOBUF_TYPE), (err: unknown) => err instanceof DecodeError && err.message === 'exceeded maximum recursion depth');
    // The bound is per decode: the next body decodes as usual.
    assert.equal((decodeProtobufObject(nestedRevisions(2)).object as { metadata: { name: string } }).metadata.name, 'r1');
  });
});
