import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonItemBytes, jsonObjectBytes, jsonWatchEventFrame, jsonWatchEventParts, protobufObjectBytes, protobufWatchEventFrame, protobufWatchEventParts, type ServedType } from '../../src/codec/cached-encoding.js';
import { cborObjectBytes, cborWatchEventFrame, cborWatchEventParts } from '../../src/codec/cbor/cached.js';
import { CachedObject } from '../../src/codec/cached-object.js';
import { decodeWatchEvents, encodeWatchEvent } from '../../src/codec/protobuf/index.js';
import type { KubeObject } from '../../src/machinery/object.js';

/** Watch frames as parts around the cache's shared encoding: the same bytes as a whole-event encoding, no copy of the object. */

const object: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'ns', uid: 'u', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z' },
  data: { payload: 'x'.repeat(5000) },
};
const served: ServedType = { apiVersion: 'v1', kind: 'ConfigMap', toServed: (o) => o };

describe('watch frames from shared encodings', () => {
  it('JSON: a static prefix per type, the cached object bytes themselves, a static suffix', () => {
    const cached = new CachedObject('/ns/c', object, 7);
    const parts = jsonWatchEventParts('MODIFIED', jsonObjectBytes(cached, served));
    assert.equal(parts[1], jsonObjectBytes(cached, served), 'the object part is the cached buffer, not a copy');
    assert.equal(jsonWatchEventParts('MODIFIED', Buffer.from('{}'))[0], parts[0], 'the prefix is shared');
    assert.deepEqual(JSON.parse(Buffer.concat(parts).toString()), { type: 'MODIFIED', object });
    assert.ok(Buffer.concat(parts).toString().endsWith('}\n'));
  });

  it('protobuf: a header kept with the object version, then its cached envelope; the frame equals the whole-event encoding', () => {
    const cached = new CachedObject('/ns/c', object, 7);
    const parts = protobufWatchEventParts('ADDED', cached, served);
    assert.equal(parts[1], protobufObjectBytes(cached, served));
    assert.equal(protobufWatchEventParts('ADDED', cached, served)[0], parts[0], 'the header is made once per version and type');
    const frame = Buffer.concat(parts);
    assert.deepEqual(frame, encodeWatchEvent('ADDED', object));
    const { events, rest } = decodeWatchEvents(frame);
    assert.equal(rest.length, 0);
    assert.equal(events[0]!.type, 'ADDED');
  });

  /** A shared frame: a Buffer, or from 4 KiB a one-byte string of its bytes. */
  const bytesOf = (frame: string | Buffer): Buffer => (typeof frame === 'string' ? Buffer.from(frame, 'latin1') : frame);

  it('a live event is one frame per version and type, the same for every watcher, with the bytes of its parts', () => {
    const cached = new CachedObject('/ns/c', object, 7);
    const frame = jsonWatchEventFrame('MODIFIED', cached, served);
    assert.equal(typeof frame, 'string', 'a frame of 4 KiB or more is a string, in V8\'s heap');
    assert.equal(jsonWatchEventFrame('MODIFIED', cached, served), frame, 'made once, shared');
    assert.deepEqual(bytesOf(frame), Buffer.concat(jsonWatchEventParts('MODIFIED', jsonObjectBytes(cached, served))), 'the same bytes as the parts');
    assert.deepEqual(JSON.parse(bytesOf(frame).toString('utf8')), { type: 'MODIFIED', object });
    assert.deepEqual(JSON.parse(jsonItemBytes(cached, served).toString()), { metadata: object.metadata, data: object.data }, 'a list item made afterwards');
    assert.deepEqual(JSON.parse(bytesOf(jsonWatchEventFrame('ADDED', cached, served)).toString()), { type: 'ADDED', object });
  });

  it('a small frame is a Buffer', () => {
    const small = { ...object, data: { a: 'b' } };
    const cached = new CachedObject('/ns/s', small, 9);
    const frame = jsonWatchEventFrame('ADDED', cached, served);
    assert.ok(Buffer.isBuffer(frame));
    assert.deepEqual(JSON.parse(frame.toString()), { type: 'ADDED', object: small });
  });

  it('a string frame holds UTF-8 bytes, one per character, so non-ASCII text is written as it is encoded', () => {
    const unicode = { ...object, data: { greeting: 'grüß dich — 你好 🙂', payload: 'x'.repeat(5000) } };
    const cached = new CachedObject('/ns/u', unicode, 8);
    const frame = jsonWatchEventFrame('ADDED', cached, served);
    assert.equal(typeof frame, 'string');
    assert.ok([...(frame as string)].every((c) => c.charCodeAt(0) < 256), 'one byte per character');
    assert.deepEqual(JSON.parse(bytesOf(frame).toString('utf8')).object.data, unicode.data);
  });

  it('a live frame after the object bytes were made (a GET) frames those bytes', () => {
    const cached = new CachedObject('/ns/c', object, 7);
    const bytes = jsonObjectBytes(cached, served);
    assert.deepEqual(bytesOf(jsonWatchEventFrame('DELETED', cached, served)), Buffer.concat(jsonWatchEventParts('DELETED', bytes)));
    assert.equal(jsonObjectBytes(cached, served), bytes);
  });

  it('protobuf and CBOR live frames equal their whole-event encodings', () => {
    const pb = new CachedObject('/ns/c', object, 7);
    const pbFrame = protobufWatchEventFrame('MODIFIED', pb, served);
    assert.equal(protobufWatchEventFrame('MODIFIED', pb, served), pbFrame);
    assert.deepEqual(bytesOf(pbFrame), encodeWatchEvent('MODIFIED', object));

    const cb = new CachedObject('/ns/c', object, 7);
    const cbFrame = cborWatchEventFrame('ADDED', cb, served);
    assert.equal(cborWatchEventFrame('ADDED', cb, served), cbFrame);
    assert.deepEqual(bytesOf(cbFrame), Buffer.concat(cborWatchEventParts('ADDED', cborObjectBytes(new CachedObject('/ns/c', object, 7), served))));
  });
});
