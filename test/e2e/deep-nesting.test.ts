import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { http, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 10: bodies nest as deep as kube-apiserver's decoders allow (10,000
 * levels of objects and arrays, encoding/json's and go-yaml's limit) through
 * every write and read, and one level more gets kube's 400. A ControllerRevision's
 * `data` (a RawExtension) stores any JSON, so the whole depth reaches storage,
 * the watch cache, every encoding and the apply machinery. Bodies are built as
 * text: JSON.stringify itself cannot nest this deep.
 */

const PATH = '/apis/apps/v1/namespaces/default/controllerrevisions';
const KINDS = {
  maps: { open: '{', nest: (k: number): string => `${'{"n":'.repeat(k)}"x"${'}'.repeat(k)}` },
  arrays: { open: '[', nest: (k: number): string => `${'['.repeat(k)}${']'.repeat(k)}` },
} as const;

/** Levels of objects and arrays, counted without recursion. */
function depthOf(v: unknown): number {
  let max = 0;
  const work: Array<[unknown, number]> = [[v, 0]];
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    const [x, d] = w;
    if (x === null || typeof x !== 'object') continue;
    max = Math.max(max, d + 1);
    for (const c of Object.values(x)) work.push([c, d + 1]);
  }
  return max;
}

/** The stored object without what the server adds at the top (metadata's fields are shallow). */
const revision = (name: string, data: string): string => `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"${name}"},"revision":1,"data":${data}}`;
const revisionYaml = (name: string, data: string): string => `apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: ${name}\nrevision: 1\ndata: ${data}\n`;
/** kube's 400 for a ControllerRevision body whose kind could not be read: the cause, then its first 30 bytes (summarizeData: text after '{', else hex). */
const unrecognized = (cause: string, body: string): string => {
  const head = Buffer.from(body).subarray(0, 30);
  return `the object provided is unrecognized (must be of type ControllerRevision): ${cause} (${body.startsWith('{') ? head.toString() : head.toString('hex')} ...)`;
};

describe('nesting depth: 10,000 levels work everywhere, 10,001 are refused as kube refuses them', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  const send = (method: string, path: string, body: string, contentType: string) => http(server, method, path, { body, headers: { 'Content-Type': contentType } });
  const storedDepth = async (name: string): Promise<number> => {
    const got = await http(server, 'GET', `${PATH}/${name}`);
    assert.equal(got.status, 200, got.text.slice(0, 300));
    return depthOf(got.json);
  };

  for (const [kindName, kind] of Object.entries(KINDS)) {
    for (const total of [9999, 10000]) {
      it(`${kindName} ${total} deep: create, read in every encoding, update, every patch type and apply, in JSON and YAML`, async () => {
        const name = `${kindName}-${total}`;
        const data = kind.nest(total - 1);
        const created = await send('POST', PATH, revision(name, data), 'application/json');
        assert.equal(created.status, 201, created.text.slice(0, 300));
        assert.equal(depthOf(created.json), total);
        assert.equal(await storedDepth(name), total);

        const viaYaml = await send('POST', PATH, revision(`${name}-y`, data), 'application/yaml');
        assert.equal(viaYaml.status, 201, viaYaml.text.slice(0, 300));
        assert.equal(await storedDepth(`${name}-y`), total);
        const block = await send('POST', PATH, revisionYaml(`${name}-b`, data), 'application/yaml');
        assert.equal(block.status, 201, block.text.slice(0, 300));
        assert.equal(await storedDepth(`${name}-b`), total);

        assert.equal((await http(server, 'GET', `${PATH}/${name}`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } })).status, 200);
        const listed = (await http(server, 'GET', PATH)).json.items.find((i: { metadata: { name: string } }) => i.metadata.name === name);
        assert.equal(depthOf(listed), total, 'the list holds the item whole');
        if (kindName === 'arrays') {
          // Maps this deep are 100 MB of indentation in YAML (as in kube); nested sequences stay compact.
          const yaml = await http(server, 'GET', `${PATH}/${name}`, { headers: { Accept: 'application/yaml' } });
          assert.equal(yaml.status, 200);
          assert.ok(yaml.text.includes(`data:\n  ${'- '.repeat(total - 2)}[]\n`), yaml.text.slice(0, 200));
        }

        const updated = await send('PUT', `${PATH}/${name}`, revision(name, data).replace('"revision":1', '"revision":2'), 'application/json');
        assert.equal(updated.status, 200, updated.text.slice(0, 300));
        assert.equal(updated.json.revision, 2);
        for (const type of ['merge-patch+json', 'strategic-merge-patch+json']) {
          const patched = await send('PATCH', `${PATH}/${name}`, `{"revision":3,"data":${data}}`, `application/${type}`);
          assert.equal(patched.status, 200, `${type}: ${patched.text.slice(0, 300)}`);
          assert.equal(depthOf(patched.json), total);
        }
        // The body wraps its value two levels deep: replacing data's first child makes the document as deep as the body.
        const first = kindName === 'maps' ? 'n' : '0';
        const jsonPatch = await send('PATCH', `${PATH}/${name}`, `[{"op":"replace","path":"/data/${first}","value":${kind.nest(total - 2)}}]`, 'application/json-patch+json');
        assert.equal(jsonPatch.status, 200, jsonPatch.text.slice(0, 300));
        assert.equal(depthOf(jsonPatch.json), total);

        const applied = await send('PATCH', `${PATH}/${name}?fieldManager=deep&force=true`, revision(name, data), 'application/apply-patch+yaml');
        assert.equal(applied.status, 200, applied.text.slice(0, 300));
        assert.equal(depthOf(applied.json), total);
        const appliedYaml = await send('PATCH', `${PATH}/${name}-a?fieldManager=deep`, revisionYaml(`${name}-a`, data), 'application/apply-patch+yaml');
        assert.equal(appliedYaml.status, 201, appliedYaml.text.slice(0, 300));
        assert.equal(await storedDepth(`${name}-a`), total);
      });
    }

    it(`${kindName} 10,001 deep: kube's 400 for every way in, nothing stored`, async () => {
      const name = `${kindName}-10001`;
      const data = kind.nest(10000);
      const jsonDepth = `invalid character '${kind.open}' exceeded max depth`;
      const cases: Array<[string, string, string, string, string]> = [
        // Create and update: the decoder read no kind, so kube's transformDecodeError calls the body unrecognized.
        ['POST', PATH, revision(name, data), 'application/json', unrecognized(`couldn't get version/kind; json parse error: ${jsonDepth}`, revision(name, data))],
        // The body's text has 10,001 flow levels: go-yaml refuses it.
        ['POST', PATH, revision(name, data), 'application/yaml', unrecognized('error converting YAML to JSON: yaml: exceeded max depth of 10000', revision(name, data))],
        // 10,000 flow levels under a block mapping: go-yaml takes them, the JSON they make is 10,001 deep.
        ['POST', PATH, revisionYaml(name, data), 'application/yaml', unrecognized(`couldn't get version/kind; json parse error: ${jsonDepth}`, revisionYaml(name, data))],
        ['PUT', `${PATH}/maps-9999`, revision('maps-9999', data), 'application/json', unrecognized(`couldn't get version/kind; json parse error: ${jsonDepth}`, revision('maps-9999', data))],
        ['PATCH', `${PATH}/maps-9999`, `{"data":${data}}`, 'application/merge-patch+json', 'Invalid JSON Patch'],
        ['PATCH', `${PATH}/maps-9999`, `{"data":${data}}`, 'application/strategic-merge-patch+json', jsonDepth],
        ['PATCH', `${PATH}/maps-9999`, `[{"op":"replace","path":"/data","value":${kind.nest(10000)}}]`, 'application/json-patch+json', jsonDepth],
        ['PATCH', `${PATH}/${name}?fieldManager=deep`, revision(name, data), 'application/apply-patch+yaml', 'error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of 10000'],
        ['PATCH', `${PATH}/${name}?fieldManager=deep`, revisionYaml(name, data), 'application/apply-patch+yaml', `error decoding YAML: error unmarshaling JSON: while decoding JSON: ${jsonDepth}`],
      ];
      const before = (await http(server, 'GET', `${PATH}/maps-9999`)).text;
      for (const [method, path, body, contentType, message] of cases) {
        const res = await send(method, path, body, contentType);
        assert.equal(res.status, 400, `${method} ${contentType}: ${res.text.slice(0, 300)}`);
        assert.equal(res.json.reason, 'BadRequest');
        assert.equal(res.json.message, message, `${method} ${contentType}`);
      }
      assert.equal((await http(server, 'GET', `${PATH}/${name}`)).status, 404);
      assert.equal((await http(server, 'GET', `${PATH}/maps-9999`)).text, before);
    });
  }

  it('go-yaml names the line of a flow collection past its limit', async () => {
    const body = revisionYaml('line', KINDS.arrays.nest(10001));
    const res = await send('POST', PATH, body, 'application/yaml');
    assert.equal(res.status, 400);
    assert.equal(res.json.message, unrecognized('error converting YAML to JSON: yaml: line 6: exceeded max depth of 10000', body));
  });

  it('a strategic merge patch with a deep $setElementOrder gets its 422, printed whole (was: 500 while printing it; fuzz seed 11)', async () => {
    const cm = '/api/v1/namespaces/default/configmaps';
    assert.equal((await send('POST', cm, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"smp"}}', 'application/json')).status, 201);
    const res = await send('PATCH', `${cm}/smp?fieldValidation=Strict&dryRun=All`, `{"apiVersion":null,"spec":{"$setElementOrder/ports":${KINDS.maps.nest(5000)}}}`, 'application/strategic-merge-patch+json');
    assert.equal(res.status, 422, res.text.slice(0, 300));
    assert.equal(res.json.reason, 'Invalid');
    assert.ok(res.json.message.includes(`${'map[n:'.repeat(5000)}x${']'.repeat(5000)}`));
  });

  it("apply of a deep map where a scalar belongs: kube's untyped 500 naming the value (was: 'Maximum call stack size exceeded'; fuzz seed 12)", async () => {
    const body = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"deep-time","deletionTimestamp":{"t":${KINDS.maps.nest(5000)}}}}`;
    const res = await send('PATCH', '/apis/rbac.authorization.k8s.io/v1/clusterroles/deep-time?fieldManager=deep', body, 'application/apply-patch+yaml');
    assert.equal(res.status, 500, res.text.slice(0, 300));
    assert.match(res.json.message, /^failed to create typed patch object \(\/deep-time; rbac.authorization.k8s.io\/v1, Kind=ClusterRole\): \.metadata\.deletionTimestamp: expected any scalar, got &\{map\[t:map\[n:/);
  });

  it('no walk overflowed the stack on the way (the server log)', () => {
    assert.doesNotMatch(server.output(), /Maximum call stack size exceeded|RangeError/);
  });
});
