import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { http, removeDir, ROOT, startServer, tempDir, type TestServer } from '../helpers/server.js';

/** `capstan serve --feature-gates` as an operator uses it: refused values, warnings, gates that change behaviour, /metrics. */

const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');

async function fillOver128KiB(server: TestServer, ns: string): Promise<void> {
  assert.equal((await http(server, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
  for (let i = 0; i < 3; i++) {
    const body = { metadata: { name: `big-${i}` }, data: { blob: 'x'.repeat(50_000) } };
    assert.equal((await http(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body })).status, 201);
  }
}

describe('--feature-gates end to end', () => {
  let off: TestServer;
  let on: TestServer;
  before(async () => {
    off = await startServer({ args: ['--feature-gates=APIResponseCompression=false,WatchList=false', '--feature-gates=AuthorizeWithSelectors=true'] });
    on = await startServer();
  });
  after(async () => {
    for (const s of [off, on]) {
      if (!s) continue;
      await s.stop();
      removeDir(s.dataDir);
    }
  });

  it('a locked gate set to its other value stops the server with kube\'s message', () => {
    const r = spawnSync(process.execPath, [MAIN, 'serve', '--storage-backend', 'memory', '--data-dir', tempDir(), '--feature-gates=AuthorizeWithSelectors=false'], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^Error: invalid argument "AuthorizeWithSelectors=false" for "--feature-gates" flag: cannot set feature gate AuthorizeWithSelectors to false, feature is locked to true\n/);
    const unknown = spawnSync(process.execPath, [MAIN, 'serve', '--storage-backend', 'memory', '--data-dir', tempDir(), '--feature-gates=NoSuchGate=true'], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /flag: unrecognized feature gate: NoSuchGate\n/);
  });

  it('setting a GA gate logs kube\'s warning', () => {
    assert.match(off.output(), /Setting GA feature gate AuthorizeWithSelectors=true\. It will be removed in a future release\./);
    assert.doesNotMatch(on.output(), /Setting GA feature gate/);
  });

  it('APIResponseCompression=false: no gzip for a large list that is gzipped by default', async () => {
    await fillOver128KiB(off, 'fg-off');
    await fillOver128KiB(on, 'fg-on');
    const gz = { headers: { 'Accept-Encoding': 'gzip' } };
    const plain = await http(off, 'GET', '/api/v1/namespaces/fg-off/configmaps', gz);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.json.items.filter((cm: { metadata: { name: string } }) => cm.metadata.name.startsWith('big-')).length, 3);
    const zipped = await http(on, 'GET', '/api/v1/namespaces/fg-on/configmaps', gz);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
  });

  it('WatchList=false: a watch with sendInitialEvents is refused as kube refuses it', async () => {
    const path = '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1';
    const r = await http(off, 'GET', path);
    assert.equal(r.status, 422);
    assert.equal(r.json.reason, 'Invalid');
    assert.equal(r.json.message, 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
    assert.deepEqual(r.json.details.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled', field: 'sendInitialEvents' }]);
    assert.equal((await http(on, 'GET', path)).status, 200);
  });

  it('/metrics has kubernetes_feature_enabled for every gate, GA with an empty stage', async () => {
    const offMetrics = (await http(off, 'GET', '/metrics')).text;
    assert.match(offMetrics, /^# HELP kubernetes_feature_enabled \[BETA\] This metric records the data about the stage and enablement of a k8s feature\.$/m);
    assert.match(offMetrics, /^# TYPE kubernetes_feature_enabled gauge$/m);
    assert.match(offMetrics, /^kubernetes_feature_enabled\{name="APIResponseCompression",stage="BETA"\} 0$/m);
    assert.match(offMetrics, /^kubernetes_feature_enabled\{name="AuthorizeWithSelectors",stage=""\} 1$/m);
    assert.match(offMetrics, /^kubernetes_feature_enabled\{name="AllowUnsafeMalformedObjectDeletion",stage="ALPHA"\} 0$/m);
    assert.match(offMetrics, /^kubernetes_feature_enabled\{name="KMSv1",stage="DEPRECATED"\} 0$/m);
    assert.match((await http(on, 'GET', '/metrics')).text, /^kubernetes_feature_enabled\{name="APIResponseCompression",stage="BETA"\} 1$/m);
  });
});
