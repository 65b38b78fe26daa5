/**
 * SIGTERM drains as kube-apiserver does: /readyz fails for
 * --shutdown-delay-duration while requests are still served, then watches
 * end cleanly, in-flight requests finish and the process exits 0.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { http, removeDir, startServer } from '../helpers/server.js';
import { openWatch } from '../helpers/watch.js';

describe('graceful shutdown', () => {
  it('SIGTERM: readyz fails during the shutdown delay, requests are still served, then watches end and the process exits 0', async () => {
    const server = await startServer({ backend: 'sqlite', args: ['--shutdown-delay-duration', '2s'] });
    try {
      // Ready once the controllers' informers have synced (informer-sync), which may follow the ready line.
      let readyz = await http(server, 'GET', '/readyz');
      for (let i = 0; i < 100 && readyz.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        readyz = await http(server, 'GET', '/readyz');
      }
      assert.equal(readyz.status, 200);
      const watch = openWatch(server, '/api/v1/namespaces/default/configmaps?watch=1');
      assert.equal(await watch.status, 200);
      const exited = new Promise<number | null>((r) => server.proc.once('exit', (code) => r(code)));
      let watchEndedAt = 0;
      void watch.ended.then(() => (watchEndedAt = Date.now()));
      const termAt = Date.now();
      server.proc.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));

      const ready = await http(server, 'GET', '/readyz?verbose');
      assert.notEqual(ready.status, 200, 'readyz fails while draining');
      assert.match(ready.text, /\[-\]shutdown failed/);
      assert.equal((await http(server, 'GET', '/livez')).status, 200, 'livez stays OK');
      const created = await http(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'during-drain' } } });
      assert.equal(created.status, 201, 'requests are still served during the delay');
      await watch.waitFor((events) => events.some((e) => e.object.metadata.name === 'during-drain'));
      assert.equal(watchEndedAt, 0, 'watches stay open during the delay');

      assert.equal(await exited, 0, server.output());
      await watch.ended;
      assert.ok(watchEndedAt - termAt >= 1900, `the watch ended after the delay (${watchEndedAt - termAt} ms)`);
      assert.ok(!watch.events.some((e) => e.type === 'ERROR'), 'the watch ends cleanly, without an error event');
    } finally {
      await server.kill();
      removeDir(server.dataDir);
    }
  });
});
