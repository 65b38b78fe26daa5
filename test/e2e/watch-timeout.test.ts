import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { ApiServer } from '../../src/server/apiserver.js';
import type { ServerConfig } from '../../src/server/config.js';
import { http } from '../helpers/server.js';
import { openWatch } from '../helpers/watch.js';

/**
 * Issue 10 item 7: --min-request-timeout decides how long a watch without
 * timeoutSeconds runs (kube: a random time in [min, 2·min); 0: it times out at once).
 */

async function serve(config: Partial<ServerConfig>): Promise<{ server: ApiServer; client: { url: string; creds: { ca: string; cert: string; key: string } } }> {
  const server = new ApiServer({ config });
  await server.start();
  const kc = server.adminKubeconfig();
  return { server, client: { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } } };
}

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

describe('--min-request-timeout', () => {
  let short: Awaited<ReturnType<typeof serve>>;
  let zero: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    short = await serve({ minRequestTimeout: 1 });
    zero = await serve({ minRequestTimeout: 0 });
  });
  after(async () => {
    await short?.server.stop();
    await zero?.server.stop();
  });

  it('ends a watch without timeoutSeconds by itself, after delivering its events (--min-request-timeout=1)', { timeout: 30_000 }, async () => {
    const w = openWatch(short.client, `${CONFIGMAPS}?watch=1`);
    assert.equal(await w.status, 200);
    assert.equal((await http(short.client, 'POST', CONFIGMAPS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'seen' } } })).status, 201);
    await w.waitFor((events) => events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'seen'));
    await w.ended;
  });

  it('ends such a watch at once with --min-request-timeout=0, as kube\'s zero-timeout context does', { timeout: 30_000 }, async () => {
    const w = openWatch(zero.client, `${CONFIGMAPS}?watch=1`);
    assert.equal(await w.status, 200);
    await w.ended;
  });

  it('keeps to timeoutSeconds when given, whatever --min-request-timeout says', { timeout: 30_000 }, async () => {
    const w = openWatch(zero.client, `${CONFIGMAPS}?watch=1&timeoutSeconds=600&resourceVersion=0`);
    assert.equal(await w.status, 200);
    assert.equal((await http(zero.client, 'POST', CONFIGMAPS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later' } } })).status, 201);
    await w.waitFor((events) => events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'later'));
    w.close();
  });
});
