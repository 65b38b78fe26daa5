import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { http, removeDir, startServer, tempDir } from '../helpers/server.js';

/** The embedded SQLite store keeps every object and resourceVersion across restarts and kill -9. */

describe('persistence (sqlite)', () => {
  it('keeps objects and resourceVersions across a restart', async () => {
    const dataDir = tempDir();
    try {
      let server = await startServer({ backend: 'sqlite', dataDir });
      const created: Record<string, string> = {};
      for (let i = 0; i < 20; i++) {
        const r = await http(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `cm-${i}` }, data: { i: String(i) } } });
        assert.equal(r.status, 201, r.text);
        created[`cm-${i}`] = r.json.metadata.resourceVersion;
      }
      const nsBefore = await http(server, 'GET', '/api/v1/namespaces');
      const listBefore = await http(server, 'GET', '/api/v1/namespaces/default/configmaps');
      assert.equal(await server.stop(), 0);

      server = await startServer({ backend: 'sqlite', dataDir });
      try {
        const listAfter = await http(server, 'GET', '/api/v1/namespaces/default/configmaps');
        const byName = new Map<string, { metadata: { resourceVersion: string; uid: string } }>(listAfter.json.items.map((i: { metadata: { name: string } }) => [i.metadata.name, i]));
        for (const [name, rv] of Object.entries(created)) assert.equal(byName.get(name)?.metadata.resourceVersion, rv, name);
        assert.deepEqual(listAfter.json.items, listBefore.json.items);
        const nsAfter = await http(server, 'GET', '/api/v1/namespaces');
        assert.deepEqual(
          nsAfter.json.items.map((n: { metadata: { name: string; uid: string } }) => `${n.metadata.name}/${n.metadata.uid}`),
          nsBefore.json.items.map((n: { metadata: { name: string; uid: string } }) => `${n.metadata.name}/${n.metadata.uid}`),
        );
        const next = await http(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'after-restart' } } });
        assert.equal(next.status, 201);
        assert.ok(Number(next.json.metadata.resourceVersion) > Number(listBefore.json.metadata.resourceVersion));
      } finally {
        await server.stop();
      }
    } finally {
      removeDir(dataDir);
    }
  });

  it('loses no acknowledged write when killed with SIGKILL', async () => {
    const dataDir = tempDir();
    try {
      const server = await startServer({ backend: 'sqlite', dataDir });
      const acked = new Map<string, string>();
      let stop = false;
      const writer = async (w: number): Promise<void> => {
        for (let i = 0; !stop; i++) {
          const name = `w${w}-${i}`;
          try {
            const r = await http(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name }, data: { v: name } } });
            if (r.status === 201) acked.set(name, r.json.metadata.resourceVersion);
          } catch {
            return; // connection cut by the kill
          }
        }
      };
      const writers = Array.from({ length: 16 }, (_, w) => writer(w));
      while (acked.size < 300) await new Promise((r) => setTimeout(r, 10));
      await server.kill();
      stop = true;
      await Promise.all(writers);

      const again = await startServer({ backend: 'sqlite', dataDir });
      try {
        const list = await http(again, 'GET', '/api/v1/namespaces/default/configmaps');
        const stored = new Map<string, string>(list.json.items.map((i: { metadata: { name: string; resourceVersion: string } }) => [i.metadata.name, i.metadata.resourceVersion]));
        for (const [name, rv] of acked) assert.equal(stored.get(name), rv, `acknowledged ${name}@${rv} lost`);
      } finally {
        await again.stop();
      }
    } finally {
      removeDir(dataDir);
    }
  });
});
