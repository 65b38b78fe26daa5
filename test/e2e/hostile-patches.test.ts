import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { ApiServer } from '../../src/server/apiserver.js';
import { http, type HttpResponse } from '../helpers/server.js';

/**
 * Hostile patches (issue 10) answer as kube-apiserver 1.36 does, checked
 * against upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
 * (interpretStrategicMergePatchError maps only mergepatch's sentinel errors to
 * 400/422; the others, like the field manager's "failed to create typed patch
 * object", reach responsewriters.ErrorToAPIStatus untyped and become a 500
 * without a reason), the typed decode of a json/merge-patched document (422
 * on field "patch"), and applyPatcher's "error decoding YAML" (400).
 */

const NS = '/api/v1/namespaces/default';
let server: ApiServer;
let client: { url: string; creds: { ca: string; cert: string; key: string } };

function patch(path: string, type: string, body: string, query = ''): Promise<HttpResponse> {
  return http(client, 'PATCH', `${NS}/${path}${query}`, { body, headers: { 'Content-Type': `application/${type}` } });
}

/** Without the strict decode of the patch body (the default level is Warn). */
const IGNORE = '?fieldValidation=Ignore';

function assertStatus(r: HttpResponse, code: number, reason: string | undefined, message: string | RegExp): void {
  assert.equal(r.status, code, r.text);
  assert.equal(r.json.kind, 'Status');
  assert.equal(r.json.code, code);
  assert.equal(r.json.reason, reason);
  if (typeof message === 'string') assert.equal(r.json.message, message);
  else assert.match(r.json.message, message);
}

async function live(path: string): Promise<unknown> {
  return (await http(client, 'GET', `${NS}/${path}`)).json;
}

describe('hostile patches', () => {
  before(async () => {
    server = new ApiServer({ logger: { info: () => undefined, error: () => undefined, v: () => false } });
    await server.start();
    const kc = server.adminKubeconfig();
    client = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { x: 'y' } };
    assert.equal((await http(client, 'POST', `${NS}/configmaps`, { body: cm })).status, 201);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    assert.equal((await http(client, 'POST', `${NS}/pods`, { body: pod })).status, 201);
  });
  after(async () => {
    await server.stop();
  });

  describe('strategic merge patch garbage: the 500 without a reason kube answers for strategicpatch errors it does not classify', () => {
    const smp = 'strategic-merge-patch+json';
    it('an unknown $patch directive', async () => {
      const before = await live('configmaps/cm');
      assertStatus(await patch('configmaps/cm', smp, '{"$patch":"bogus"}'), 500, undefined, 'unknown patch type: bogus in map: map[$patch:bogus]');
      assert.deepEqual(await live('configmaps/cm'), before);
    });
    it('a $patch: delete item without the merge key', async () => {
      assertStatus(await patch('pods/p', smp, '{"spec":{"containers":[{"$patch":"delete"}]}}'), 500, undefined, 'map: map[$patch:delete] does not contain declared merge key: name');
    });
    it('a $patch: delete map where $setElementOrder wants a list', async () => {
      assertStatus(await patch('pods/p', smp, '{"spec":{"$setElementOrder/containers":{"$patch":"delete"}}}'), 500, undefined, 'expected a []interface {}, but received a map[string]interface {}');
    });
    it('list items without their merge key', async () => {
      assertStatus(await patch('pods/p', smp, '{"spec":{"containers":[{"image":"x"}]}}'), 500, undefined, 'map: map[image:x] does not contain declared merge key: name');
    });
    it('a $patch: delete map where the list was: the list goes, and validation answers', async () => {
      const r = await patch('pods/p', smp, '{"spec":{"containers":{"$patch":"delete"}}}');
      assertStatus(r, 422, 'Invalid', /^Pod "p" is invalid: .*spec\.containers: Required value/);
    });
  });

  describe('numbers beyond float64', () => {
    it('merge patch: by default 400 from the strict decode of the body (fieldValidation defaults to Warn)', async () => {
      assertStatus(await patch('configmaps/cm', 'merge-patch+json', '{"data":{"x":-1e400}}'), 400, 'BadRequest', 'error decoding patch: json: cannot unmarshal number -1e400 into Go value of type float64');
      assertStatus(await patch('configmaps/cm', 'merge-patch+json', '{"unknown":-1e400}'), 400, 'BadRequest', 'error decoding patch: json: cannot unmarshal number -1e400 into Go value of type float64');
    });
    it('merge patch, Ignore: 422 from the typed decode, quoting the literal as the patch library kept it', async () => {
      const r = await patch('configmaps/cm', 'merge-patch+json', '{"data":{"x":-1e400}}', IGNORE);
      assertStatus(r, 422, 'Invalid', /^ "" is invalid: patch: Invalid value: ".*\\"x\\":-1e400.*": json: cannot unmarshal number into Go struct field ConfigMap\.data of type string$/);
      assert.equal(r.json.details.causes[0].field, 'patch');
    });
    it('merge patch into an integer field names the number', async () => {
      const r = await patch('pods/p', 'merge-patch+json', '{"spec":{"activeDeadlineSeconds":1e400}}', IGNORE);
      assertStatus(r, 422, 'Invalid', /json: cannot unmarshal number 1e400 into Go struct field PodSpec\.spec\.activeDeadlineSeconds of type int64$/);
    });
    it('merge patch into an unknown field, Ignore: dropped with it', async () => {
      const r = await patch('configmaps/cm', 'merge-patch+json', '{"unknown":{"n":-1e400}}', IGNORE);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.unknown, undefined);
    });
    it('JSON patch add, Ignore: 422 from the typed decode', async () => {
      const r = await patch('configmaps/cm', 'json-patch+json', '[{"op":"add","path":"/data/y","value":1e400}]', IGNORE);
      assertStatus(r, 422, 'Invalid', /\\"y\\":1e400.*json: cannot unmarshal number into Go struct field ConfigMap\.data of type string$/);
    });
    it('strategic merge patch: 400 from decoding the patch into interface{}', async () => {
      assertStatus(await patch('configmaps/cm', 'strategic-merge-patch+json', '{"data":{"x":1e400}}'), 400, 'BadRequest', 'json: cannot unmarshal number 1e400 into Go value of type float64');
    });
    it('with fieldValidation=Strict the body decode answers 400 first', async () => {
      const merge = await http(client, 'PATCH', `${NS}/configmaps/cm?fieldValidation=Strict`, { body: '{"data":{"x":-1e400}}', headers: { 'Content-Type': 'application/merge-patch+json' } });
      assertStatus(merge, 400, 'BadRequest', 'error decoding patch: json: cannot unmarshal number -1e400 into Go value of type float64');
      const json = await http(client, 'PATCH', `${NS}/configmaps/cm?fieldValidation=Strict`, { body: '[{"op":"add","path":"/data/y","value":{"a":[1e400]}}]', headers: { 'Content-Type': 'application/json-patch+json' } });
      assertStatus(json, 400, 'BadRequest', 'error decoding patch: json: cannot unmarshal number 1e400 into Go struct field jsonPatchOp.value of type float64');
    });
  });

  describe('server-side apply', () => {
    const apply = (body: string): Promise<HttpResponse> =>
      http(client, 'PATCH', `${NS}/configmaps/cm?fieldManager=m`, { body, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    it('a wrongly typed field: the field manager\'s untyped error, a 500 without a reason as in kube', async () => {
      assertStatus(
        await apply('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"x":5}}'),
        500,
        undefined,
        'failed to create typed patch object (/cm; /v1, Kind=ConfigMap): .data.x: expected string, got &value.valueUnstructured{Value:5}',
      );
    });
    it('numbers beyond float64 in YAML (1e400) stay the strings go-yaml resolves them to (sigs.k8s.io/yaml goyaml.v2 resolve.go)', async () => {
      const r = await apply('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  x: y\n  big: 1e400\n  small: -1e400\n  edge: 2e308\n');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.data, { x: 'y', big: '1e400', small: '-1e400', edge: '2e308' });
      // Where a number belongs, the string is the field manager's type error, as in kube.
      const pod = await http(client, 'PATCH', `${NS}/pods/p?fieldManager=m`, {
        body: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  activeDeadlineSeconds: 1e400\n',
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
      assertStatus(pod, 500, undefined, 'failed to create typed patch object (/p; /v1, Kind=Pod): .spec.activeDeadlineSeconds: expected numeric (int or float), got string');
    });
    it("YAML's special floats (.inf, -.inf, .nan) are 400 \"error decoding YAML\" from sigs.k8s.io/yaml's JSON conversion, nothing changes", async () => {
      const before = await live('configmaps/cm');
      for (const [literal, go] of [['.inf', '+Inf'], ['-.Inf', '-Inf'], ['!!float .nan', 'NaN']] as const) {
        // In a string field, in a number field and in a field no schema knows: the conversion fails before any of them is looked at.
        for (const body of [
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  x: ${literal}\n`,
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\nunknown: [${literal}]\n`,
        ]) {
          assertStatus(await apply(body), 400, 'BadRequest', `error decoding YAML: error converting YAML to JSON: json: unsupported value: ${go}`);
        }
        const pod = await http(client, 'PATCH', `${NS}/pods/p?fieldManager=m`, {
          body: `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  activeDeadlineSeconds: ${literal}\n`,
          headers: { 'Content-Type': 'application/apply-patch+yaml' },
        });
        assertStatus(pod, 400, 'BadRequest', `error decoding YAML: error converting YAML to JSON: json: unsupported value: ${go}`);
      }
      assert.deepEqual(await live('configmaps/cm'), before);
    });
    it('a wrongly typed apiVersion: 400 from the version check', async () => {
      assertStatus(await apply('{"apiVersion":5,"kind":"ConfigMap","metadata":{"name":"cm"}}'), 400, 'BadRequest', 'invalid object type: /, Kind=ConfigMap');
    });
    it('managedFields in the patch: 400', async () => {
      assertStatus(await apply('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[]}}'), 400, 'BadRequest', 'metadata.managedFields must be nil');
    });
    it('a body that is not a map: 400 "error decoding YAML"', async () => {
      assertStatus(await apply('[1,2]'), 400, 'BadRequest', 'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}');
      assertStatus(await apply('"s"'), 400, 'BadRequest', 'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}');
      assertStatus(await apply('a: ['), 400, 'BadRequest', /^error decoding YAML: error converting YAML to JSON: /);
    });
    it('an empty or null body: an object without a kind, refused by the version check', async () => {
      assertStatus(await apply('null'), 400, 'BadRequest', 'invalid object type: /, Kind=');
    });
  });

  describe('nesting: patches as deep as request bodies may be (MAX_NESTING_DEPTH, 10,000), and no deeper', () => {
    const deep = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    for (const [type, body] of [
      ['strategic-merge-patch+json', `{"unknown":${deep(9990)}}`],
      ['merge-patch+json', `{"unknown":${deep(9990)}}`],
      ['json-patch+json', `[{"op":"add","path":"/unknown","value":${deep(9990)}}]`],
    ] as const) {
      it(`${type}: an unknown field 9,990 deep is dropped`, async () => {
        const r = await patch('configmaps/cm', type, body, IGNORE);
        assert.equal(r.status, 200, r.text.slice(0, 300));
      });
    }
    for (const [type, body, code, message] of [
      ['strategic-merge-patch+json', `{"unknown":${deep(10000)}}`, 400, "invalid character '{' exceeded max depth"],
      ['merge-patch+json', `{"unknown":${deep(10000)}}`, 400, 'Invalid JSON Patch'],
      ['json-patch+json', `[{"op":"add","path":"/unknown","value":${deep(10000)}}]`, 400, "invalid character '{' exceeded max depth"],
    ] as const) {
      it(`${type}: a body 10,001 deep is refused as undecodable, nothing changes`, async () => {
        const before = await live('configmaps/cm');
        const r = await patch('configmaps/cm', type, body, IGNORE);
        assert.equal(r.status, code, r.text.slice(0, 300));
        assert.equal(r.json.kind, 'Status');
        assert.equal(r.json.message, message);
        assert.deepEqual(await live('configmaps/cm'), before);
      });
    }
    it('a JSON patch that builds a document deeper than the limit (copy into itself) is 422, nothing changes', async () => {
      const before = await live('configmaps/cm');
      // Built as text: JSON.stringify cannot nest this deep. 5,001 levels copied into their own innermost map.
      let path = '/metadata/annotations';
      for (let i = 0; i < 5000; i++) path += '/a';
      const ops = `[{"op":"add","path":"/metadata/annotations","value":${deep(5001)}},{"op":"copy","from":"/metadata/annotations","path":"${path}"}]`;
      const r = await patch('configmaps/cm', 'json-patch+json', ops);
      assert.equal(r.status, 422, r.text.slice(0, 300));
      assert.equal(r.json.reason, 'Invalid');
      assert.deepEqual(await live('configmaps/cm'), before);
    });
  });

  describe('warnings that Node cannot put in a header string', () => {
    it('an unknown field named beyond U+00FF answers 200 with the warning in UTF-8 (was: the process exited on ERR_INVALID_CHAR)', async () => {
      const r = await patch('configmaps/cm', 'merge-patch+json', '{"᨞":0}');
      assert.equal(r.status, 200, r.text);
      const warning = Buffer.from(String(r.headers['warning']), 'latin1').toString('utf8');
      assert.equal(warning, '299 - "unknown field \\"᨞\\""');
      assert.equal((await http(client, 'GET', '/livez')).status, 200);
    });

  });
});
