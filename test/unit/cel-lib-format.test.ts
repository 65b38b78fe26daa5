import { describe } from 'node:test';

import { Optional } from '@marcbachmann/cel-js';

import { registerJSONPatch } from '../../src/cel/libraries/index.js';
import { celLibEnv, runTable } from '../helpers/cel-lib.js';

const DNS_LABEL_ERROR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

// Expectations from kube's library/format.go documentation and format_test.go.
describe('CEL library: named formats (from 1.31)', () => {
  runTable([
    { expr: 'format.dns1123Label().validate("my-label-name")', value: Optional.none() },
    { expr: 'format.dns1123Label().validate("my-label-name").hasValue()', value: false },
    { expr: 'format.dns1123Label().validate("MY_LABEL").value()', value: [DNS_LABEL_ERROR] },
    { expr: 'format.named("dns1123Label").value().validate("MY_LABEL").value()', value: [DNS_LABEL_ERROR] },
    { expr: 'format.named("dns1123Label").hasValue()', value: true },
    { expr: 'format.named("unknown").hasValue()', value: false },
    { expr: 'format.named("dns1123Label").value() == format.dns1123Label()', value: true },
    { expr: 'format.dns1123Subdomain().validate("apiextensions.k8s.io").hasValue()', value: false },
    { expr: 'format.dns1035Label().validate("my-label-name").hasValue()', value: false },
    { expr: 'format.dns1035Label().validate("1abc").hasValue()', value: true },
    { expr: 'format.qualifiedName().validate("apiextensions.k8s.io/v1beta1").hasValue()', value: false },
    { expr: 'format.dns1123LabelPrefix().validate("my-label-prefix-").hasValue()', value: false },
    { expr: 'format.dns1123Label().validate("my-label-prefix-").hasValue()', value: true },
    { expr: 'format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-").hasValue()', value: false },
    { expr: 'format.dns1035LabelPrefix().validate("my-label-prefix-").hasValue()', value: false },
    { expr: 'format.labelValue().validate("my-cool-label-Value").hasValue()', value: false },
    { expr: 'format.labelValue().validate("-bad").hasValue()', value: true },
    { expr: 'format.uri().validate("http://example.com").hasValue()', value: false },
    { expr: 'format.uri().validate("example.com").value()', value: ['parse "example.com": invalid URI for request'] },
    { expr: 'format.uuid().validate("123e4567-e89b-12d3-a456-426614174000").hasValue()', value: false },
    { expr: 'format.uuid().validate("123e4567").value()', value: ['does not match the UUID format'] },
    { expr: 'format.byte().validate("aGVsbG8=").hasValue()', value: false },
    { expr: 'format.byte().validate("aGVsbG8").value()', value: ['invalid base64'] },
    { expr: 'format.date().validate("2021-01-01").hasValue()', value: false },
    { expr: 'format.date().validate("2021-02-30").value()', value: ['invalid date'] },
    { expr: 'format.datetime().validate("2021-01-01T00:00:00Z").hasValue()', value: false },
    { expr: 'format.datetime().validate("2021-01-01T25:00:00Z").value()', value: ['invalid datetime'] },
    { expr: 'format.datetime().validate("2021-01-01").value()', value: ['invalid datetime'] },
    { expr: '"%s-%d".format(["a", 1]) == "a-1"', compileError: /must have the same type/ },
  ]);
  runTable([{ expr: 'format.dns1123Label().validate("a").hasValue()', compileError: /./ }], celLibEnv({ version: '1.30' }));
});

describe('CEL library: jsonpatch (MutatingAdmissionPolicy environments only)', () => {
  const env = celLibEnv();
  registerJSONPatch(env);
  runTable([
    { expr: "jsonpatch.escapeKey('k8s.io/my~label')", value: 'k8s.io~1my~0label' },
    { expr: "jsonpatch.escapeKey('plain')", value: 'plain' },
    { expr: "'/metadata/labels/' + jsonpatch.escapeKey('a/b')", value: '/metadata/labels/a~1b' },
  ], env);
  runTable([{ expr: "jsonpatch.escapeKey('a')", compileError: /./ }]);
});
