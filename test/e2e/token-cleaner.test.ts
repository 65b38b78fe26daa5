import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { eventually, http, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * token-cleaner-controller (`--controllers=*,tokencleaner`, off by default as
 * in kube-controller-manager): expired bootstrap token Secrets are deleted,
 * live ones stay until they expire, other Secrets are never touched.
 */

function tokenSecret(id: string, expiration?: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: { 'token-id': id, 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', ...(expiration ? { expiration } : {}) },
  };
}

const SECRETS = '/api/v1/namespaces/kube-system/secrets';

describe('token cleaner', () => {
  let on: TestServer;
  let off: TestServer;

  before(async () => {
    on = await startServer({ backend: 'memory', args: ['--controllers=*,tokencleaner'] });
    off = await startServer({ backend: 'memory' });
  });

  after(async () => {
    for (const s of [on, off]) {
      await s?.stop();
      if (s) removeDir(s.dataDir);
    }
  });

  it('deletes expired and unparseable-expiration tokens, keeps live ones until they expire', async () => {
    const past = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const soon = new Date(Date.now() + 3_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const later = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    for (const [id, exp] of [['aaaaaa', past], ['bbbbbb', 'not-a-time'], ['cccccc', soon], ['dddddd', later], ['eeeeee', undefined]] as const) {
      assert.equal((await http(on, 'POST', SECRETS, { body: tokenSecret(id, exp) })).status, 201);
    }
    // A Secret of another type with an expiration key is not a token.
    assert.equal((await http(on, 'POST', SECRETS, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'not-a-token', namespace: 'kube-system' }, stringData: { expiration: past } } })).status, 201);
    const gone = async (name: string): Promise<boolean> => (await http(on, 'GET', `${SECRETS}/${name}`)).status === 404;
    await eventually(async () => (await gone('bootstrap-token-aaaaaa')) && (await gone('bootstrap-token-bbbbbb')), 20_000, 100);
    await eventually(async () => gone('bootstrap-token-cccccc'), 20_000, 100);
    for (const name of ['bootstrap-token-dddddd', 'bootstrap-token-eeeeee', 'not-a-token']) assert.equal((await http(on, 'GET', `${SECRETS}/${name}`)).status, 200, name);
  });

  it('is off by default: no token_cleaner queue, expired tokens stay', async () => {
    const past = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    assert.equal((await http(off, 'POST', SECRETS, { body: tokenSecret('ffffff', past) })).status, 201);
    assert.match((await http(on, 'GET', '/metrics')).text, /^workqueue_adds_total\{name="token_cleaner"\} [1-9]/m);
    assert.doesNotMatch((await http(off, 'GET', '/metrics')).text, /name="token_cleaner"/);
    assert.equal((await http(off, 'GET', `${SECRETS}/bootstrap-token-ffffff`)).status, 200);
  });
});
