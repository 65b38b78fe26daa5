import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { CustomResourceSpec } from '../../src/registry/custom-descriptors.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { http, kubectl, kubectlMissing, removeDir, tempDir } from '../helpers/server.js';

/**
 * A custom resource with a rich structural schema, driven over HTTP: defaults
 * applied on create and on reads, unknown fields pruned / warned / rejected
 * per fieldValidation, invalid values rejected with kube's messages, apply
 * merging a list-map by key, strategic merge patch refused.
 */

const GROUP = 'schema-test.example.com';
/** kube checks list-type uniqueness per Go map order; we report in document order (tags before ports here). */
const SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        color: { type: 'string', enum: ['red', 'green', 'blue'], default: 'red' },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 10 },
        port: { 'x-kubernetes-int-or-string': true },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer', default: 80 }, protocol: { type: 'string', default: 'TCP' } },
          },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        nested: { type: 'object', default: {}, properties: { level: { type: 'string', default: 'info' } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};
const WIDGETS: CustomResourceSpec = { group: GROUP, kind: 'Widget', plural: 'widgets', namespaced: true, status: true, versions: [{ name: 'v1', storage: true, schema: SCHEMA }] };
const BASE = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const widget = (name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name, ...metadata }, spec });
const warningsOf = (h: string | string[] | undefined): string[] => (h === undefined ? [] : Array.isArray(h) ? h : h.split(/,\s*(?=299)/));

describe('custom resources through their structural schema', () => {
  let server: ApiServer;
  let dataDir: string;
  let c: { url: string; creds: { ca: string; cert: string; key: string } };

  before(async () => {
    dataDir = tempDir();
    server = new ApiServer({ config: { dataDir } });
    await server.start();
    const kc = server.adminKubeconfig();
    c = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
    server.addCustomResource(WIDGETS);
  });
  after(async () => {
    await server?.stop();
    if (dataDir) removeDir(dataDir);
  });

  it('applies defaults on create, inside list items and inside defaults', async () => {
    const r = await http(c, 'POST', BASE, { body: widget('d1', { size: 3, ports: [{ name: 'http' }, { name: 'dns', protocol: 'UDP', port: 53 }], port: 'http' }) });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.spec, {
      size: 3,
      color: 'red',
      port: 'http',
      ports: [
        { name: 'http', port: 80, protocol: 'TCP' },
        { name: 'dns', protocol: 'UDP', port: 53 },
      ],
      nested: { level: 'info' },
    });
  });

  it('prunes unknown fields, warns about them or rejects them per fieldValidation', async () => {
    const body = widget('u1', { size: 1, ports: [{ name: 'a', bogus: 1 }], foo: 'x', extra: { anything: { goes: true } } }, { junk: 1 });
    const strict = await http(c, 'POST', `${BASE}?fieldValidation=Strict`, { body });
    assert.equal(strict.status, 400, strict.text);
    assert.equal(strict.json.reason, 'BadRequest');
    assert.equal(strict.json.message, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "metadata.junk", unknown field "spec.ports[0].bogus", unknown field "spec.foo"');

    const warn = await http(c, 'POST', `${BASE}?fieldValidation=Warn`, { body });
    assert.equal(warn.status, 201, warn.text);
    assert.deepEqual(warningsOf(warn.headers.warning), ['299 - "unknown field \\"metadata.junk\\""', '299 - "unknown field \\"spec.ports[0].bogus\\""', '299 - "unknown field \\"spec.foo\\""']);
    assert.equal(warn.json.spec.foo, undefined);
    assert.equal(warn.json.metadata.junk, undefined);
    assert.deepEqual(warn.json.spec.ports, [{ name: 'a', port: 80, protocol: 'TCP' }]);
    assert.deepEqual(warn.json.spec.extra, { anything: { goes: true } });

    const ignore = await http(c, 'POST', `${BASE}?fieldValidation=Ignore`, { body: { ...body, metadata: { name: 'u2' } } });
    assert.equal(ignore.status, 201, ignore.text);
    assert.equal(ignore.headers.warning, undefined);
    assert.equal(ignore.json.spec.foo, undefined);

    const dup = await http(c, 'POST', `${BASE}?fieldValidation=Strict`, { body: `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"u3"},"spec":{"size":1,"size":2}}` });
    assert.equal(dup.status, 400, dup.text);
    assert.equal(dup.json.message, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: duplicate field "spec.size"');

    const patched = await http(c, 'PATCH', `${BASE}/u1?fieldValidation=Strict`, { body: { spec: { bar: 1 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 422, patched.text);
    assert.match(patched.json.message, /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "spec.bar"$/);
  });

  it('rejects invalid values with kube-openapi messages as a 422', async () => {
    const wrongType = await http(c, 'POST', BASE, { body: widget('bad1', { size: 'big' }) });
    assert.equal(wrongType.status, 422, wrongType.text);
    assert.equal(wrongType.json.message, `Widget.${GROUP} "bad1" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`);
    assert.deepEqual(wrongType.json.details.causes, [{ reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": spec.size in body must be of type integer: "string"', field: 'spec.size' }]);

    const many = await http(c, 'POST', BASE, { body: widget('bad2', { size: 20, color: 'purple', name: 'ABC', port: true, tags: ['a', 'b', 'a'], ports: [{ name: 'x' }, { name: 'x' }] }) });
    assert.equal(many.status, 422, many.text);
    assert.equal(
      many.json.message,
      `Widget.${GROUP} "bad2" is invalid: [spec.size: Invalid value: 20: spec.size in body should be less than or equal to 10, ` +
        'spec.color: Unsupported value: "purple": supported values: "red", "green", "blue", ' +
        `spec.name: Invalid value: "ABC": spec.name in body should match '^[a-z]+$', ` +
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean", ' +
        'spec.tags[2]: Duplicate value: "a", spec.ports[1]: Duplicate value: {"name":"x"}]',
    );

    const missing = await http(c, 'POST', BASE, { body: widget('bad3', { name: 'abcdefghijkl' }) });
    assert.equal(missing.status, 422, missing.text);
    assert.equal(missing.json.message, `Widget.${GROUP} "bad3" is invalid: [spec.name: Too long: may not be more than 10 bytes, spec.size: Required value]`);

    const embedded = await http(c, 'POST', BASE, { body: widget('bad4', { size: 1, template: { apiVersion: 'v1', metadata: { name: 'a/b' } } }) });
    assert.equal(embedded.status, 422, embedded.text);
    assert.match(embedded.json.message, /spec\.template\.kind: Required value/);
    assert.match(embedded.json.message, /spec\.template\.metadata\.name: Invalid value: "a\/b": may not contain '\/'/);

    const update = await http(c, 'PATCH', `${BASE}/d1`, { body: { spec: { size: 0 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(update.status, 422, update.text);
    assert.equal(update.json.message, `Widget.${GROUP} "d1" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`);
  });

  it('keeps embedded resources and prunes their unknown metadata', async () => {
    const r = await http(c, 'POST', `${BASE}?fieldValidation=Warn`, { body: widget('e1', { size: 1, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 1 }, spec: { any: 'thing' } } }) });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(warningsOf(r.headers.warning), ['299 - "unknown field \\"spec.template.metadata.bogus\\""']);
    assert.deepEqual(r.json.spec.template, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { any: 'thing' } });
  });

  it('gives kubectl the same errors', { skip: kubectlMissing() }, async () => {
    const k = (args: string[], input: string) => kubectl({ kubeconfig: join(dataDir, 'admin.kubeconfig') }, ['--cache-dir', join(dataDir, 'kube-cache'), ...args], input);
    const unknown = await k(['create', '-f', '-'], JSON.stringify(widget('k1', { size: 1, foo: 1 })));
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /Error from server \(BadRequest\): error when creating "STDIN": Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec\.foo"/);
    const invalid = await k(['create', '-f', '-'], JSON.stringify(widget('k2', { size: 'big' })));
    assert.notEqual(invalid.code, 0);
    assert.match(invalid.stderr, /The Widget "k2" is invalid: spec\.size: Invalid value: "string": spec\.size in body must be of type integer: "string"/);
    const created = await k(['create', '-f', '-', '-o', 'json'], JSON.stringify(widget('k3', { size: 2 })));
    assert.equal(created.code, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).spec.color, 'red');
  });

  it('merges a list-map by key in server-side apply and refuses strategic merge patches', async () => {
    const apply = (manager: string, ports: unknown[]) =>
      http(c, 'PATCH', `${BASE}/a1?fieldManager=${manager}`, {
        body: JSON.stringify(widget('a1', { size: 2, ports })),
        headers: { 'content-type': 'application/apply-patch+yaml' },
      });
    assert.equal((await apply('one', [{ name: 'http', port: 8080 }])).status, 201);
    const second = await apply('two', [{ name: 'https', port: 8443 }]);
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json.spec.ports, [
      { name: 'http', port: 8080, protocol: 'TCP' },
      { name: 'https', port: 8443, protocol: 'TCP' },
    ]);
    const smp = await http(c, 'PATCH', `${BASE}/a1`, { body: { spec: { size: 3 } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    assert.equal(smp.status, 415, smp.text);
    assert.equal(smp.json.reason, 'UnsupportedMediaType');
  });

  it('defaults objects read from storage after the schema changes, and ratchets rules they already broke', async () => {
    const withDefault = structuredClone(SCHEMA);
    const specProps: Record<string, unknown> = withDefault.properties.spec.properties;
    specProps.mode = { type: 'string', default: 'auto' };
    specProps.size = { type: 'integer', minimum: 1, maximum: 2 };
    server.removeCustomResource(GROUP, 'widgets');
    server.addCustomResource({ ...WIDGETS, versions: [{ name: 'v1', storage: true, schema: withDefault }] });
    const got = await http(c, 'GET', `${BASE}/d1`);
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.spec.mode, 'auto');
    const list = await http(c, 'GET', BASE);
    assert.ok(list.json.items.every((o: { spec: { mode?: string } }) => o.spec.mode === 'auto'));

    // d1 has size 3, now above the maximum: an update leaving it alone passes, one changing it to another bad value does not.
    const unrelated = await http(c, 'PATCH', `${BASE}/d1`, { body: { spec: { color: 'green' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(unrelated.status, 200, unrelated.text);
    const changed = await http(c, 'PATCH', `${BASE}/d1`, { body: { spec: { size: 4 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(changed.status, 422, changed.text);
    assert.equal(changed.json.message, `Widget.${GROUP} "d1" is invalid: spec.size: Invalid value: 4: spec.size in body should be less than or equal to 2`);
  });
});
