import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { http, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * Keep-alive connections as client-go and client-node use them over HTTP/1.1:
 * one request after another on a socket. A big write right after a big answer
 * once hit Node's pipelining pause over TLS (HPE_PAUSED) and the server
 * dropped the connection ("socket hang up") about once in a hundred writes.
 */

describe('keep-alive connections', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ backend: 'sqlite' });
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('carry hundreds of 20 KB PUTs, each right after a 20 KB answer, without a dropped connection', async () => {
    const clients = 4;
    const rounds = 80;
    const agent = new Agent({ keepAlive: true, maxSockets: clients, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key });
    const configMap = (name: string, version: number) => {
      const data: Record<string, string> = {};
      for (let i = 0; i < 1000; i++) data[`key-${i}`] = i === 0 ? `v${version}` : `value-${i}`;
      return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data };
    };
    try {
      for (let c = 0; c < clients; c++) {
        assert.equal((await http(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap(`big-${c}`, 0), agent })).status, 201);
      }
      const failures: string[] = [];
      let written = 0;
      await Promise.all(
        Array.from({ length: clients }, async (_, c) => {
          for (let v = 1; v <= rounds; v++) {
            try {
              const res = await http(server, 'PUT', `/api/v1/namespaces/default/configmaps/big-${c}`, { body: configMap(`big-${c}`, v), agent });
              if (res.status === 200 && res.text.length > 16 * 1024) written++;
              else failures.push(`PUT big-${c} v${v}: ${res.status} (${res.text.length} bytes)`);
            } catch (err) {
              failures.push(`PUT big-${c} v${v}: ${(err as Error).message}`);
            }
          }
        }),
      );
      assert.deepEqual(failures, []);
      assert.equal(written, clients * rounds);
      const last = await http(server, 'GET', '/api/v1/namespaces/default/configmaps/big-0', { agent });
      assert.equal(last.json.data['key-0'], `v${rounds}`);
    } finally {
      agent.destroy();
    }
  });
});
