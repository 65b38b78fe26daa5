/**
 * Values kube-apiserver cannot decode into the Go struct are rejected at
 * every field validation level, with encoding/json's (or the custom
 * UnmarshalJSON's) text after transformDecodeError's prefix.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { load } from 'js-yaml';

import { type FieldValidation, checkFields } from '../../src/validation/fields/index.js';
import { quantityError, QUANTITY_FORMAT_ERROR } from '../../src/api/quantity.js';
import { strconvQuote } from '../../src/machinery/go-compat.js';
import { base64Error, timeParseError, RFC3339, RFC3339_MICRO } from '../../src/validation/fields/go-text.js';
import { ApiError } from '../../src/machinery/errors.js';

interface Kind {
  definition: string;
  endpoint: { group: string; version: string; kind: string };
}

const DEPLOYMENT: Kind = { definition: 'io.k8s.api.apps.v1.Deployment', endpoint: { group: 'apps', version: 'v1', kind: 'Deployment' } };
const SECRET: Kind = { definition: 'io.k8s.api.core.v1.Secret', endpoint: { group: '', version: 'v1', kind: 'Secret' } };
const SERVICE: Kind = { definition: 'io.k8s.api.core.v1.Service', endpoint: { group: '', version: 'v1', kind: 'Service' } };
const POD: Kind = { definition: 'io.k8s.api.core.v1.Pod', endpoint: { group: '', version: 'v1', kind: 'Pod' } };
const CRD: Kind = {
  definition: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  endpoint: { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
};

function decodeError(kind: Kind, body: string, level: FieldValidation = 'Ignore', yaml = false): string | undefined {
  try {
    checkFields({
      body,
      contentType: yaml ? 'yaml' : 'json',
      decoded: yaml ? load(body, { json: true }) : JSON.parse(body),
      definition: kind.definition,
      level,
      endpoint: kind.endpoint,
    });
    return undefined;
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    const prefix = `${kind.endpoint.kind} in version "${kind.endpoint.version}" cannot be handled as a ${kind.endpoint.kind}: `;
    assert.ok(err.status.message?.startsWith(prefix), err.status.message);
    return (err.status.message ?? '').slice(prefix.length);
  }
}

const containers = (c: unknown): string => JSON.stringify({ spec: { template: { spec: { containers: [c] } } } });

describe('type errors: encoding/json UnmarshalTypeError', () => {
  const cases: Array<{ name: string; kind?: Kind; body: string; want: string }> = [
    { name: 'string for an int32 (the usual replicas mistake)', body: '{"spec":{"replicas":"two"}}', want: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32' },
    { name: 'fraction for an int32', body: '{"spec":{"replicas":1.5}}', want: 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32' },
    { name: '1.0 is not an integer for Go', body: '{"spec":{"replicas":1.0}}', want: 'json: cannot unmarshal number 1.0 into Go struct field DeploymentSpec.spec.replicas of type int32' },
    { name: 'exponent for an int32', body: '{"spec":{"replicas":1e2}}', want: 'json: cannot unmarshal number 1e2 into Go struct field DeploymentSpec.spec.replicas of type int32' },
    { name: 'int32 overflow', body: '{"spec":{"replicas":3000000000}}', want: 'json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32' },
    { name: 'int64 overflow', body: '{"metadata":{"generation":9223372036854775808}}', want: 'json: cannot unmarshal number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64' },
    { name: 'string for a bool', body: '{"spec":{"paused":"yes"}}', want: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool' },
    { name: 'number for a string', body: '{"metadata":{"name":5}}', want: 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string' },
    { name: 'map values keep the map field as context', body: '{"metadata":{"labels":{"a":1}}}', want: 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string' },
    { name: 'array for a map', body: '{"metadata":{"labels":[]}}', want: 'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string' },
    { name: 'list items: no index in the path', body: '{"metadata":{"finalizers":["a",1]}}', want: 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.finalizers of type string' },
    { name: 'object for a list', body: '{"spec":{"template":{"spec":{"containers":{}}}}}', want: 'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container' },
    { name: 'string for a struct', body: '{"spec":"x"}', want: 'json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec' },
    {
      name: 'deep in lists of structs',
      body: containers({ name: 'a', ports: [{ containerPort: '80' }] }),
      want: 'json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    },
    { name: 'the first error wins', body: '{"spec":{"replicas":"x","paused":"y"}}', want: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32' },
    { name: 'base64 []byte values', kind: SECRET, body: '{"data":{"a":"not base64!"}}', want: 'illegal base64 data at input byte 3' },
    { name: 'base64: missing padding', kind: SECRET, body: '{"data":{"a":"YWJ"}}', want: 'illegal base64 data at input byte 0' },
    { name: 'base64: trailing padding', kind: SECRET, body: '{"data":{"a":"YWJj="}}', want: 'illegal base64 data at input byte 4' },
    { name: 'base64: number', kind: SECRET, body: '{"data":{"a":1}}', want: 'json: cannot unmarshal number into Go struct field Secret.data of type []uint8' },
    { name: '[]byte as an array of bytes: out of range', kind: SECRET, body: '{"data":{"a":[104,300]}}', want: 'json: cannot unmarshal number 300 into Go struct field Secret.data of type uint8' },
    { name: 'a number for a Time', kind: POD, body: '{"metadata":{"creationTimestamp":5}}', want: 'json: cannot unmarshal number into Go value of type string' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      for (const level of ['Ignore', 'Warn', 'Strict'] as const) assert.equal(decodeError(c.kind ?? DEPLOYMENT, c.body, level), c.want, level);
    });
  }

  it('accepts null everywhere', () => {
    assert.equal(decodeError(DEPLOYMENT, '{"spec":{"replicas":null,"template":null,"paused":null,"strategy":{"rollingUpdate":{"maxSurge":null}}},"metadata":{"labels":null,"creationTimestamp":null}}', 'Strict'), undefined);
  });

  it('accepts what Go accepts', () => {
    assert.equal(decodeError(DEPLOYMENT, '{"spec":{"replicas":-0,"minReadySeconds":2147483647,"template":{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":1,"memory":"1Gi"}}}]}}}}', 'Strict'), undefined);
    assert.equal(decodeError(SECRET, '{"data":{"a":"YWJj","b":"YW\\nJj","c":"","d":[104,105]}}', 'Strict'), undefined);
    assert.equal(decodeError(SERVICE, '{"spec":{"ports":[{"port":80,"targetPort":"http"},{"port":81,"targetPort":8081}]}}', 'Strict'), undefined);
  });

  it('a type error beats the strict errors, even for Strict', () => {
    assert.equal(decodeError(DEPLOYMENT, '{"spec":{"bogus":1,"paused":true,"paused":true,"replicas":"x"}}', 'Strict'), 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
  });

  it('YAML bodies get the same texts (through the converted JSON, in sorted key order)', () => {
    assert.equal(decodeError(DEPLOYMENT, 'spec:\n  replicas: two\n  paused: "x"\n', 'Warn', true), 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool');
    assert.equal(decodeError(DEPLOYMENT, 'spec:\n  replicas: 1.0\n', 'Warn', true), undefined);
  });
});

describe('type errors: custom UnmarshalJSON (fatal: they stop decoding at once)', () => {
  const cases: Array<{ name: string; kind: Kind; body: string; want: string }> = [
    { name: 'bad quantity string', kind: DEPLOYMENT, body: containers({ resources: { limits: { cpu: 'half' } } }), want: QUANTITY_FORMAT_ERROR },
    { name: 'bool quantity', kind: DEPLOYMENT, body: containers({ resources: { requests: { memory: true } } }), want: QUANTITY_FORMAT_ERROR },
    { name: 'unknown quantity suffix', kind: DEPLOYMENT, body: containers({ resources: { limits: { memory: '1Gii' } } }), want: "unable to parse quantity's suffix" },
    { name: 'doubled quantity suffix', kind: DEPLOYMENT, body: containers({ resources: { limits: { cpu: '500mm' } } }), want: "unable to parse quantity's suffix" },
    { name: 'IntOrString: bool', kind: SERVICE, body: '{"spec":{"ports":[{"port":80,"targetPort":true}]}}', want: 'json: cannot unmarshal bool into Go value of type int32' },
    { name: 'IntOrString: fraction', kind: SERVICE, body: '{"spec":{"ports":[{"port":80,"targetPort":1.5}]}}', want: 'json: cannot unmarshal number 1.5 into Go value of type int32' },
    { name: 'IntOrString: object', kind: DEPLOYMENT, body: '{"spec":{"strategy":{"rollingUpdate":{"maxSurge":{}}}}}', want: 'json: cannot unmarshal object into Go value of type int32' },
    {
      name: 'Time: not RFC 3339',
      kind: POD,
      body: '{"metadata":{"creationTimestamp":"yesterday"}}',
      want: 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    },
    { name: 'Time: empty string', kind: POD, body: '{"metadata":{"creationTimestamp":""}}', want: 'parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"' },
    { name: 'Time: month out of range', kind: POD, body: '{"metadata":{"creationTimestamp":"2024-13-01T00:00:00Z"}}', want: 'parsing time "2024-13-01T00:00:00Z": month out of range' },
    {
      name: 'a later fatal error beats an earlier saved one',
      kind: DEPLOYMENT,
      body: JSON.stringify({ spec: { replicas: 'x', template: { spec: { containers: [{ resources: { limits: { cpu: 'bad' } } }] } } } }),
      want: QUANTITY_FORMAT_ERROR,
    },
    { name: 'JSONSchemaPropsOrBool: neither', kind: CRD, body: '{"spec":{"versions":[{"schema":{"openAPIV3Schema":{"additionalProperties":"x"}}}]}}', want: 'boolean or JSON schema expected' },
    {
      name: 'JSONSchemaPropsOrArray: a nested decoder with a fresh context',
      kind: CRD,
      body: '{"spec":{"versions":[{"schema":{"openAPIV3Schema":{"items":{"properties":{"a":{"type":5}}}}}}]}}',
      want: 'json: cannot unmarshal number into Go struct field JSONSchemaProps.properties.type of type string',
    },
    {
      name: 'JSONSchemaPropsOrStringArray: a list of strings',
      kind: CRD,
      body: '{"spec":{"versions":[{"schema":{"openAPIV3Schema":{"dependencies":{"a":[1]}}}}]}}',
      want: 'json: cannot unmarshal number into Go value of type string',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      for (const level of ['Ignore', 'Strict'] as const) assert.equal(decodeError(c.kind, c.body, level), c.want, level);
    });
  }
});

describe('Go texts', () => {
  it('strconv.Quote', () => {
    assert.equal(strconvQuote('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(strconvQuote('\x01\x7f\t\u00a0é漢'), '"\\x01\\x7f\\t\\u00a0é漢"');
    assert.equal(strconvQuote('\u2028😀'), '"\\u2028😀"');
  });

  it('base64 (encoding/base64 StdEncoding.Decode errors)', () => {
    const cases: Array<[string, string | undefined]> = [
      ['', undefined],
      ['YQ==', undefined],
      ['YWI=', undefined],
      ['YW\r\nJj', undefined],
      ['Y', 'illegal base64 data at input byte 0'],
      ['YQ=', 'illegal base64 data at input byte 3'],
      ['YQ=x', 'illegal base64 data at input byte 2'],
      ['=', 'illegal base64 data at input byte 0'],
      ['YWJjZA==YQ==', 'illegal base64 data at input byte 8'],
      ['YW-j', 'illegal base64 data at input byte 2'],
      ['YWJjé', 'illegal base64 data at input byte 4'],
    ];
    for (const [input, want] of cases) assert.equal(base64Error(input), want, JSON.stringify(input));
  });

  it('resource.ParseQuantity', () => {
    const ok = ['0', '1', '-1', '+1', '1.5', '.5', '1.', '100m', '1Ki', '1Gi', '1e3', '1E-3', '1k', '5M', '2E', '0.000001'];
    for (const s of ok) assert.equal(quantityError(s), undefined, s);
    const bad: Array<[string, string]> = [
      ['', QUANTITY_FORMAT_ERROR],
      ['abc', QUANTITY_FORMAT_ERROR],
      ['1 Gi', QUANTITY_FORMAT_ERROR],
      ['1Gb', QUANTITY_FORMAT_ERROR],
      ['1Gii', "unable to parse quantity's suffix"],
      ['1e', "unable to parse quantity's suffix"],
      ['1mm', "unable to parse quantity's suffix"],
      ['1x', QUANTITY_FORMAT_ERROR],
    ];
    for (const [s, want] of bad) assert.equal(quantityError(s), want, s);
  });

  it('time.Parse (RFC3339 and RFC3339Micro)', () => {
    const cases: Array<[string, typeof RFC3339 | typeof RFC3339_MICRO, string | undefined]> = [
      ['2024-01-02T03:04:05Z', RFC3339, undefined],
      ['2024-01-02T03:04:05.123456789+02:00', RFC3339, undefined],
      ['2024-01-02T3:04:05Z', RFC3339, undefined],
      ['2024-01-02', RFC3339, 'parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'],
      ['2024-1-02T03:04:05Z', RFC3339, 'parsing time "2024-1-02T03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-02T03:04:05Z" as "01"'],
      ['2024-02-30T00:00:00Z', RFC3339, 'parsing time "2024-02-30T00:00:00Z": day out of range'],
      ['2024-01-01T24:00:00Z', RFC3339, 'parsing time "2024-01-01T24:00:00Z": hour out of range'],
      ['2024-01-01T00:00:00Zjunk', RFC3339, 'parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk"'],
      ['2024-01-01T00:00:00', RFC3339, 'parsing time "2024-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"'],
      ['2024-01-01T00:00:00+0200', RFC3339, 'parsing time "2024-01-01T00:00:00+0200" as "2006-01-02T15:04:05Z07:00": cannot parse "+0200" as "Z07:00"'],
      ['2024-01-01T00:00:00.123456Z', RFC3339_MICRO, undefined],
      ['2024-01-01T00:00:00Z', RFC3339_MICRO, 'parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'],
      ['ünï', RFC3339, 'parsing time "\\xc3\\xbcn\\xc3\\xaf" as "2006-01-02T15:04:05Z07:00": cannot parse "\\xc3\\xbcn\\xc3\\xaf" as "2006"'],
    ];
    for (const [v, layout, want] of cases) assert.equal(timeParseError(v, layout), want, v);
  });
});
