import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  composeProtobufList,
  decodeProtobufObject,
  decodeWatchEvents,
  encodeProtobufList,
  encodeProtobufMessage,
  encodeProtobufObject,
  encodeWatchEvent,
  envelopeMessage,
  frameWatchEvent,
} from '../../src/codec/protobuf/index.js';

/** Bodies assembled from cached message bytes equal what the whole-object encoder writes. */

const cm = (name: string, rv: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv, creationTimestamp: '2026-01-01T00:00:00Z', labels: { a: 'b' } },
  data: { k: 'v', other: 'x'.repeat(300) },
});
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', resourceVersion: '9', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: { limits: { cpu: '500m' } } }], restartPolicy: 'Always' },
  status: { phase: 'Pending' },
};

describe('protobuf composition from cached parts', () => {
  it('an enveloped object equals encodeProtobufObject', () => {
    for (const obj of [cm('a', '5'), pod]) {
      const composed = envelopeMessage({ apiVersion: obj.apiVersion, kind: obj.kind }, encodeProtobufMessage(obj));
      assert.deepEqual(composed, encodeProtobufObject(obj));
    }
  });

  it('a list decodes as encodeProtobufList\'s does, with ListMeta written as Go writes it', () => {
    const items = [cm('a', '5'), cm('b', '6'), cm('c', '7')];
    for (const metadata of [{ resourceVersion: '7' }, { resourceVersion: '7', continue: 'tok', remainingItemCount: 12 }]) {
      const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata, items: items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest) };
      const composed = composeProtobufList({ apiVersion: 'v1', kind: 'ConfigMapList' }, metadata, items.map((i) => encodeProtobufMessage(i)));
      assert.deepEqual(decodeProtobufObject(composed), decodeProtobufObject(encodeProtobufList(list)));
      const back = decodeProtobufObject(composed);
      assert.equal(back.kind, 'ConfigMapList');
      assert.equal((back.object.items as unknown[]).length, 3);
      assert.equal((back.object.metadata as { resourceVersion: string }).resourceVersion, '7');
    }
    // ListMeta: selfLink "", resourceVersion, continue "" (gogo-protobuf writes every non-pointer string).
    const empty = composeProtobufList({ apiVersion: 'v1', kind: 'ConfigMapList' }, { resourceVersion: '1' }, []);
    assert.match(empty.toString('hex'), /12090a070a001201311a00/);
  });

  it('a watch frame equals encodeWatchEvent and decodes back', () => {
    const obj = cm('a', '5');
    const framed = frameWatchEvent('MODIFIED', encodeProtobufObject(obj));
    assert.deepEqual(framed, encodeWatchEvent('MODIFIED', obj));
    const { events, rest } = decodeWatchEvents(Buffer.concat([framed, frameWatchEvent('DELETED', encodeProtobufObject(pod))]));
    assert.equal(rest.length, 0);
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.kind}`), ['MODIFIED ConfigMap', 'DELETED Pod']);
  });
});
