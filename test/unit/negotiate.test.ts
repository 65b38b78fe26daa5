/**
 * Accept-header negotiation as kube-apiserver does it: media ranges with
 * parameters and q weights, wildcards, the Table / PartialObjectMetadata views
 * each endpoint offers, and 406 NotAcceptable when nothing fits.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ApiError } from '../../src/machinery/errors.js';
import { byPreference, encodingFor, parseMediaRanges, parseMediaType, type MediaRange } from '../../src/codec/media-type.js';
import { negotiate, negotiatePlain, type Negotiated, type ViewOffer } from '../../src/codec/negotiate.js';

describe('parseMediaType / parseMediaRanges', () => {
  const cases: Array<{ text: string; want: MediaRange | undefined }> = [
    { text: 'application/json', want: { type: 'application', subtype: 'json', params: {}, q: 1 } },
    { text: ' Application/JSON ', want: { type: 'application', subtype: 'json', params: {}, q: 1 } },
    { text: '*/*', want: { type: '*', subtype: '*', params: {}, q: 1 } },
    { text: '*', want: { type: '*', subtype: '*', params: {}, q: 1 } },
    { text: 'application/*;q=0.5', want: { type: 'application', subtype: '*', params: {}, q: 0.5 } },
    {
      text: 'application/json; as=Table; g=meta.k8s.io; v=v1',
      want: { type: 'application', subtype: 'json', params: { as: 'Table', g: 'meta.k8s.io', v: 'v1' }, q: 1 },
    },
    { text: 'application/json;charset="utf-8";Q=0.2', want: { type: 'application', subtype: 'json', params: { charset: 'utf-8' }, q: 0.2 } },
    { text: 'application/json;novalue', want: { type: 'application', subtype: 'json', params: {}, q: 1 } },
    { text: 'json', want: undefined },
    { text: '/json', want: undefined },
    { text: 'application/', want: undefined },
  ];
  for (const c of cases) it(JSON.stringify(c.text), () => assert.deepEqual(parseMediaType(c.text), c.want));

  it('splits a list, keeping commas inside quotes and skipping malformed entries', () => {
    const got = parseMediaRanges('text/html, bogus, application/json;x="a,b" ,, */*;q=0.1');
    assert.deepEqual(
      got.map((r) => `${r.type}/${r.subtype}`),
      ['text/html', 'application/json', '*/*'],
    );
    assert.equal(got[1]!.params['x'], 'a,b');
    assert.deepEqual(parseMediaRanges(undefined), []);
    assert.deepEqual(parseMediaRanges(''), []);
  });
});

describe('byPreference', () => {
  const order = (header: string): string[] => byPreference(parseMediaRanges(header)).map((r) => `${r.type}/${r.subtype}`);
  const cases: Array<{ header: string; want: string[] }> = [
    { header: 'application/json;q=0.5, application/yaml', want: ['application/yaml', 'application/json'] },
    { header: 'application/yaml, application/json', want: ['application/yaml', 'application/json'] },
    { header: 'application/json;q=0, application/yaml;q=0.1', want: ['application/yaml'] },
    // For equal q, specific ranges go before wildcards (goautoneg's order).
    { header: '*/*, application/yaml', want: ['application/yaml', '*/*'] },
    { header: 'application/*, application/yaml', want: ['application/yaml', 'application/*'] },
    { header: '*/*, application/*', want: ['application/*', '*/*'] },
    { header: '*/*;q=0.9, application/*;q=0.8', want: ['*/*', 'application/*'] },
  ];
  for (const c of cases) it(c.header, () => assert.deepEqual(order(c.header), c.want));
});

describe('encodingFor', () => {
  const cases: Array<[string, string | undefined]> = [
    ['application/json', 'application/json'],
    ['application/yaml', 'application/yaml'],
    ['application/*', 'application/json'],
    ['*/*', 'application/json'],
    ['application/vnd.kubernetes.protobuf', 'application/vnd.kubernetes.protobuf'],
    ['text/plain', undefined],
    ['text/*', undefined],
  ];
  for (const [text, want] of cases) it(`${text} → ${want}`, () => assert.equal(encodingFor(parseMediaType(text)!), want));
});

describe('negotiate', () => {
  const GET: ViewOffer = { table: true, metadataAs: 'PartialObjectMetadata' };
  const LIST: ViewOffer = { table: true, metadataAs: 'PartialObjectMetadataList' };
  const DELETE: ViewOffer = { table: false };
  const JSON_OBJECT: Negotiated = { encoding: 'application/json', view: { kind: 'object' }, contentType: 'application/json' };
  const YAML_OBJECT: Negotiated = { encoding: 'application/yaml', view: { kind: 'object' }, contentType: 'application/yaml' };
  const TABLE_JSON: Negotiated = { encoding: 'application/json', view: { kind: 'table', version: 'v1' }, contentType: 'application/json' };

  const cases: Array<{ name: string; accept: string | undefined; offer: ViewOffer; want: Negotiated }> = [
    { name: 'no Accept header', accept: undefined, offer: GET, want: JSON_OBJECT },
    { name: 'empty Accept header', accept: '', offer: GET, want: JSON_OBJECT },
    { name: 'JSON', accept: 'application/json', offer: GET, want: JSON_OBJECT },
    { name: 'YAML', accept: 'application/yaml', offer: GET, want: YAML_OBJECT },
    { name: 'any', accept: '*/*', offer: GET, want: JSON_OBJECT },
    { name: 'application/*', accept: 'application/*', offer: GET, want: JSON_OBJECT },
    { name: 'weights', accept: 'application/json;q=0.5, application/yaml', offer: GET, want: YAML_OBJECT },
    { name: 'specific before wildcard', accept: '*/*, application/yaml', offer: GET, want: YAML_OBJECT },
    { name: 'client-go default', accept: 'application/json, */*', offer: GET, want: JSON_OBJECT },
    { name: 'skips what cannot be served', accept: 'application/vnd.kubernetes.protobuf, application/yaml;q=0.5', offer: GET, want: YAML_OBJECT },
    { name: 'Table', accept: 'application/json;as=Table;g=meta.k8s.io;v=v1', offer: GET, want: TABLE_JSON },
    {
      name: 'Table v1beta1 in YAML',
      accept: 'application/yaml;as=Table;v=v1beta1;g=meta.k8s.io',
      offer: LIST,
      want: { encoding: 'application/yaml', view: { kind: 'table', version: 'v1beta1' }, contentType: 'application/yaml' },
    },
    {
      name: 'kubectl get: Table first, plain JSON as fallback',
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      offer: LIST,
      want: TABLE_JSON,
    },
    { name: 'Table where no Table is offered falls back', accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json', offer: DELETE, want: JSON_OBJECT },
    {
      name: 'PartialObjectMetadata on a get',
      accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
      offer: GET,
      want: { encoding: 'application/json', view: { kind: 'metadata', version: 'v1' }, contentType: 'application/json' },
    },
    {
      name: 'PartialObjectMetadataList on a list',
      accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1',
      offer: LIST,
      want: { encoding: 'application/json', view: { kind: 'metadata', version: 'v1beta1' }, contentType: 'application/json' },
    },
    {
      name: 'the list form on a get falls back to the next range',
      accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/yaml;q=0.1',
      offer: GET,
      want: YAML_OBJECT,
    },
    { name: 'a view of another group is skipped', accept: 'application/json;as=Table;g=example.com;v=v1, application/json;q=0.5', offer: GET, want: JSON_OBJECT },
    { name: 'a view without group and version is skipped', accept: 'application/json;as=Table, application/yaml;q=0.5', offer: GET, want: YAML_OBJECT },
    // Unrecognized parameters are ignored (acceptMediaTypeOptions).
    { name: 'charset', accept: 'application/json;charset=utf-8', offer: GET, want: JSON_OBJECT },
    { name: 'unknown parameters', accept: 'application/yaml;foo=bar', offer: GET, want: YAML_OBJECT },
    { name: 'stream=watch', accept: 'application/json;stream=watch', offer: GET, want: JSON_OBJECT },
    { name: 'another stream is ruled out', accept: 'application/json;stream=other, application/yaml;q=0.1', offer: GET, want: YAML_OBJECT },
    { name: 'a server version is ruled out', accept: 'application/json;sv=v2, application/yaml;q=0.1', offer: GET, want: YAML_OBJECT },
    { name: 'q=0 entries are ignored', accept: 'application/yaml;q=0', offer: GET, want: JSON_OBJECT },
    {
      name: 'protobuf for kinds with a protobuf message',
      accept: 'application/vnd.kubernetes.protobuf, application/json',
      offer: { ...GET, protobuf: true },
      want: { encoding: 'application/vnd.kubernetes.protobuf', view: { kind: 'object' }, contentType: 'application/vnd.kubernetes.protobuf' },
    },
    { name: 'protobuf falls back for kinds without one', accept: 'application/vnd.kubernetes.protobuf, application/json', offer: GET, want: JSON_OBJECT },
    {
      name: 'no Table in protobuf',
      accept: 'application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1, application/json;q=0.9',
      offer: { ...LIST, protobuf: true },
      want: JSON_OBJECT,
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(negotiate(c.accept, c.offer), c.want));

  const notAcceptable: Array<{ name: string; accept: string; offer: ViewOffer }> = [
    { name: 'text/html', accept: 'text/html', offer: GET },
    { name: 'protobuf only, for a kind without a protobuf message', accept: 'application/vnd.kubernetes.protobuf', offer: GET },
    { name: 'Table where none is offered', accept: 'application/json;as=Table;g=meta.k8s.io;v=v1', offer: DELETE },
    { name: 'PartialObjectMetadata where none is offered', accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1', offer: DELETE },
    { name: 'an unknown view version', accept: 'application/json;as=Table;g=meta.k8s.io;v=v2', offer: GET },
    { name: 'an unknown view', accept: 'application/json;as=Pod;g=meta.k8s.io;v=v1', offer: GET },
  ];
  for (const c of notAcceptable) {
    it(`406 for ${c.name}`, () => {
      assert.throws(
        () => negotiate(c.accept, c.offer),
        (err: unknown) => {
          assert.ok(err instanceof ApiError);
          assert.equal(err.code, 406);
          assert.equal(err.reason, 'NotAcceptable');
          assert.equal(err.message, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
          return true;
        },
      );
    });
  }
});

describe('negotiatePlain (errors, discovery, Status)', () => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'application/json'],
    ['application/yaml', 'application/yaml'],
    ['text/html', 'application/json'],
    ['application/json;as=Table;g=meta.k8s.io;v=v1, application/yaml;q=0.5', 'application/yaml'],
    ['application/json;as=Table;g=meta.k8s.io;v=v1', 'application/json'],
    ['application/yaml;q=0.4, application/json;q=0.6', 'application/json'],
  ];
  for (const [accept, want] of cases) it(`${accept} → ${want}`, () => assert.equal(negotiatePlain(accept), want));
});
