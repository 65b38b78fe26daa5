/**
 * The Table and PartialObjectMetadata(List) views in every encoding kube-apiserver
 * 1.36 serves them in. Upstream facts these tests hold us to:
 * - staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go
 *   RequestScope.AllowsMediaTypeTransform: a Table only as application/json or
 *   application/yaml (meta/v1 Table is `+protobuf=false`: no message in
 *   apimachinery's generated.proto, so a protobuf-only Table request is 406 and a
 *   list with a fallback gets the fallback); PartialObjectMetadata and
 *   PartialObjectMetadataList in any encoding, custom resources included (the
 *   StandardSerializers restriction applies only to untransformed objects).
 * - apimachinery runtime/serializer/protobuf: the envelope's TypeMeta is the
 *   object's group version kind (the view's, meta.k8s.io/<v>), items of a list
 *   are plain messages without TypeMeta.
 * - meta/v1beta1 PartialObjectMetadataList has its own message (items = 1,
 *   metadata = 2); v1beta1 PartialObjectMetadata is the v1 type.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { load } from 'js-yaml';
import { encode } from '../../src/codec/codec.js';
import { negotiate } from '../../src/codec/negotiate.js';
import { decodeProtobufObject, encodeProtobufObject, ProtobufUnsupportedKindError } from '../../src/codec/protobuf/index.js';
import { partialObjectMetadata, partialObjectMetadataList, table } from '../../src/codec/views.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { tableConvertorFor } from '../../src/registry/tables/index.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

const sa = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: {
    name,
    namespace: 'default',
    uid: `uid-${name}`,
    resourceVersion: '42',
    creationTimestamp: '2026-01-02T03:04:05Z',
    labels: { app: 'web' },
    annotations: { note: 'x' },
  },
  secrets: [{ name: 'token' }],
});

/** The envelope's TypeMeta: k8s\0, field 1 (TypeMeta) { apiVersion = 1, kind = 2 }. */
function envelopeType(bytes: Buffer): { apiVersion: string; kind: string } {
  assert.deepEqual([...bytes.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  assert.equal(bytes[4], 0x0a);
  const len = bytes[5]!;
  const tm = bytes.subarray(6, 6 + len);
  assert.equal(tm[0], 0x0a);
  const avLen = tm[1]!;
  const apiVersion = tm.subarray(2, 2 + avLen).toString();
  assert.equal(tm[2 + avLen], 0x12);
  const kind = tm.subarray(4 + avLen, 4 + avLen + tm[3 + avLen]!).toString();
  return { apiVersion, kind };
}

/** What a protobuf round trip keeps of a JSON view: list items lose their TypeMeta (not in the message). */
function withoutItemTypeMeta(view: KubeObject): KubeObject {
  const items = (view as { items?: KubeObject[] }).items;
  if (!items) return view;
  return { ...view, items: items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest) };
}

describe('PartialObjectMetadata(List) in protobuf', () => {
  for (const version of ['v1', 'v1beta1'] as const) {
    it(`list, meta.k8s.io/${version}: envelope type, and decodes to the JSON view`, () => {
      const json = partialObjectMetadataList([sa('a'), sa('b')], { resourceVersion: '42', continue: 'tok' }, version);
      const bytes = encode(json, PROTOBUF);
      assert.deepEqual(envelopeType(bytes), { apiVersion: `meta.k8s.io/${version}`, kind: 'PartialObjectMetadataList' });
      const decoded = decodeProtobufObject(bytes);
      assert.equal(decoded.kind, 'PartialObjectMetadataList');
      assert.deepEqual(decoded.object, withoutItemTypeMeta(json));
    });

    it(`one object, meta.k8s.io/${version}`, () => {
      const json = partialObjectMetadata(sa('a'), version);
      const bytes = encode(json, PROTOBUF);
      assert.deepEqual(envelopeType(bytes), { apiVersion: `meta.k8s.io/${version}`, kind: 'PartialObjectMetadata' });
      assert.deepEqual(decodeProtobufObject(bytes).object, json);
    });
  }

  it('v1beta1 lists use their own field numbers (items = 1), v1 lists metadata = 1', () => {
    const v1 = encode(partialObjectMetadataList([sa('a')], { resourceVersion: '7' }, 'v1'), PROTOBUF);
    const v1beta1 = encode(partialObjectMetadataList([sa('a')], { resourceVersion: '7' }, 'v1beta1'), PROTOBUF);
    // The raw message follows the TypeMeta: tag 0x12, a length, then the message's first field.
    const firstField = (b: Buffer): number => {
      const rawAt = 6 + b[5]!;
      assert.equal(b[rawAt], 0x12);
      let i = rawAt + 1;
      while (b[i]! & 0x80) i++;
      return b[i + 1]! >>> 3;
    };
    assert.equal(firstField(v1), 1); // ListMeta metadata = 1, written first
    assert.equal(firstField(v1beta1), 1); // PartialObjectMetadata items = 1
    const d1 = decodeProtobufObject(v1).object as { metadata: unknown; items: unknown[] };
    const d2 = decodeProtobufObject(v1beta1).object as { metadata: unknown; items: unknown[] };
    assert.deepEqual([d1.metadata, d1.items.length], [{ resourceVersion: '7' }, 1]);
    assert.deepEqual([d2.metadata, d2.items.length], [{ resourceVersion: '7' }, 1]);
  });

  it('is offered in protobuf for custom resources too (no object protobuf)', () => {
    const got = negotiate(`${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`, { table: true, metadataAs: 'PartialObjectMetadataList', protobuf: false });
    assert.deepEqual(got.view, { kind: 'metadata', version: 'v1' });
    assert.equal(got.encoding, PROTOBUF);
  });
});

describe('Table encodings', () => {
  const convertor = tableConvertorFor('', 'serviceaccounts');
  const json = table([sa('a')], convertor, { version: 'v1', includeObject: 'Metadata', listMeta: { resourceVersion: '42' } });

  it('has no protobuf message (meta/v1 Table is +protobuf=false upstream)', () => {
    assert.throws(() => encodeProtobufObject(json), ProtobufUnsupportedKindError);
  });

  for (const version of ['v1', 'v1beta1']) {
    it(`protobuf-only Table request (${version}) is 406 NotAcceptable, with a JSON fallback the fallback wins`, () => {
      const offer = { table: true, metadataAs: 'PartialObjectMetadataList' as const, protobuf: true };
      assert.throws(
        () => negotiate(`${PROTOBUF};as=Table;g=meta.k8s.io;v=${version}`, offer),
        (e: unknown) => e instanceof ApiError && e.code === 406 && e.status.reason === 'NotAcceptable',
      );
      const fallback = negotiate(`${PROTOBUF};as=Table;g=meta.k8s.io;v=${version}, application/json`, offer);
      assert.deepEqual([fallback.encoding, fallback.view], ['application/json', { kind: 'object' }]);
    });
  }

  it('YAML carries the same Table as JSON (cells, column definitions, row objects)', () => {
    const yaml = load(encode(json, 'application/yaml').toString());
    assert.deepEqual(yaml, JSON.parse(encode(json, 'application/json').toString()));
    const t = yaml as { columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[]; object: KubeObject }> };
    assert.deepEqual(
      t.columnDefinitions.map((c) => c.name),
      ['Name', 'Age'],
    );
    assert.equal(t.rows[0]!.cells[0], 'a');
    assert.equal(t.rows[0]!.object.kind, 'PartialObjectMetadata');
  });
});
