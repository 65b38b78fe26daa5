import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonObjectBytes, jsonWatchEventParts, protobufObjectBytes, protobufWatchEventParts, type ServedType } from '../../src/codec/cached-encoding.js';
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
});
