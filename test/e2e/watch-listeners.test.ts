/**
 * Many watches on one server add no listener to anything shared (issue 19
 * item 5: each watch once added an abort listener to the one shutdown signal,
 * and 1,000 watches logged MaxListenersExceededWarning). 10,000 watches go
 * through the server's whole handler chain over its in-memory loopback
 * connections (one connection per watch, as clients open them, without 10,000
 * file descriptors or TLS handshakes): while they are open the shutdown
 * signal, the HTTPS server and the process have the listeners they had
 * before; once the clients close them the server holds no stream and no cache
 * watcher for them; no MaxListenersExceededWarning is emitted. Watches ended
 * by the server one after another on kept-alive TLS connections leave no
 * listener on the connection either.
 */

import assert from 'node:assert/strict';
import { getEventListeners, type EventEmitter } from 'node:events';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent, request, type Server } from 'node:https';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { ApiServer } from '../../src/server/apiserver.js';
import { eventually, http } from '../helpers/server.js';

const WATCHES = 10_000;
const NAMESPACE = 'default';
const WATCH_PATH = `/api/v1/namespaces/${NAMESPACE}/configmaps`;

function listenerCounts(emitter: EventEmitter): Record<string, number> {
  return Object.fromEntries(emitter.eventNames().map((e) => [String(e), emitter.listenerCount(e)]));
}

/** What the server's own parts hold (private to ApiServer; read here to prove nothing grew, and to dial in memory). */
interface Internals {
  shutdownController: AbortController;
  server: Server;
  loopback: { connect(): Duplex; token: string };
}

function client(server: ApiServer): { url: string; creds: { ca: string; cert: string; key: string } } {
  const kc = server.adminKubeconfig();
  return { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
}

/** capstan_watch_cache_watchers for ConfigMaps, from /metrics. */
async function configMapCacheWatchers(server: ApiServer): Promise<number> {
  const r = await http(client(server), 'GET', '/metrics');
  assert.equal(r.status, 200);
  const m = /^capstan_watch_cache_watchers\{group="",resource="configmaps"\} (\d+)$/m.exec(r.text);
  assert.ok(m, 'capstan_watch_cache_watchers for configmaps on /metrics');
  return Number(m[1]);
}

/** node:http's pool dialing the server's in-memory loopback connections, one per request. */
class MemoryDialer extends HttpAgent {
  constructor(private readonly internals: Internals) {
    super({ keepAlive: false, maxSockets: Infinity });
  }
  override createConnection(): Duplex {
    return this.internals.loopback.connect();
  }
}

describe('many watches on one server', () => {
  let server: ApiServer;
  let internals: Internals;
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => {
    if (w.name === 'MaxListenersExceededWarning') warnings.push(w);
  };

  before(async () => {
    process.on('warning', onWarning);
    server = new ApiServer();
    await server.start();
    internals = server as unknown as Internals;
  });

  after(async () => {
    process.off('warning', onWarning);
    await server?.stop();
  });

  it(`holds ${WATCHES.toLocaleString('en-US')} watches, each on its own connection, without adding listeners to shared emitters, and releases them when they end`, { timeout: 300_000 }, async () => {
    const c = client(server);
    const list = await http(c, 'GET', WATCH_PATH);
    assert.equal(list.status, 200);
    const rv = list.json.metadata.resourceVersion as string;
    const signal = internals.shutdownController.signal;
    const streamsBefore = server.watchStreams.count;
    const abortBefore = getEventListeners(signal, 'abort').length;
    const serverBefore = listenerCounts(internals.server);
    const processBefore = listenerCounts(process);
    const cacheWatchersBefore = await configMapCacheWatchers(server);

    const agent = new MemoryDialer(internals);
    const requests: ClientRequest[] = [];
    const statuses: Record<string, number> = {};
    const path = `${WATCH_PATH}?watch=1&resourceVersion=${rv}&timeoutSeconds=3600`;
    const openOne = (): Promise<void> =>
      new Promise((resolve) => {
        const req = httpRequest({ method: 'GET', host: 'loopback', path, agent, headers: { authorization: `Bearer ${internals.loopback.token}`, accept: 'application/json' } }, (res) => {
          statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
          res.resume();
          res.on('error', () => undefined);
          resolve();
        });
        req.on('error', () => {
          statuses[0] = (statuses[0] ?? 0) + 1;
          resolve();
        });
        req.end();
        requests.push(req);
      });
    try {
      let next = 0;
      await Promise.all(
        Array.from({ length: 200 }, async () => {
          while (next < WATCHES) {
            next++;
            await openOne();
          }
        }),
      );
      assert.deepEqual(statuses, { 200: WATCHES }, 'every watch answered 200');
      assert.equal(server.watchStreams.count, streamsBefore + WATCHES, 'the server streams every watch');
      assert.equal(await configMapCacheWatchers(server), cacheWatchersBefore + WATCHES);
      assert.equal(getEventListeners(signal, 'abort').length, abortBefore, 'no abort listener per watch on the shutdown signal');
      assert.deepEqual(listenerCounts(internals.server), serverBefore, 'no listener per watch on the HTTPS server');
      assert.deepEqual(listenerCounts(process), processBefore, 'no listener per watch on the process');
    } finally {
      for (const r of requests) r.destroy();
      agent.destroy();
    }
    await eventually(async () => server.watchStreams.count === streamsBefore, 60_000, 100);
    await eventually(async () => (await configMapCacheWatchers(server)) === cacheWatchersBefore, 30_000, 100);
    assert.equal(getEventListeners(signal, 'abort').length, abortBefore);
    assert.deepEqual(listenerCounts(internals.server), serverBefore);
    assert.deepEqual(listenerCounts(process), processBefore);
    assert.deepEqual(warnings, [], 'no MaxListenersExceededWarning');
  });

  it('watches ended by the server one after another on kept-alive connections leave no listener on the connection', { timeout: 120_000 }, async () => {
    const c = client(server);
    const lanes = 4;
    const rounds = 3;
    const sockets = new Set<TLSSocket>();
    const track = (s: TLSSocket): void => void sockets.add(s);
    internals.server.on('secureConnection', track);
    const agent = new Agent({ keepAlive: true, maxSockets: lanes, ca: c.creds.ca, cert: c.creds.cert, key: c.creds.key });
    const streamsBefore = server.watchStreams.count;
    const u = new URL(`${WATCH_PATH}?watch=1&timeoutSeconds=1`, c.url);
    /** One watch to its end (the server's timeout): its status once the chunked stream ended cleanly. */
    const watchToEnd = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = request({ method: 'GET', hostname: u.hostname, port: u.port, path: u.pathname + u.search, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
    try {
      const round = async (): Promise<void> => {
        const statuses = await Promise.all(Array.from({ length: lanes }, watchToEnd));
        assert.deepEqual(statuses, Array(lanes).fill(200));
      };
      // node:http detaches a response's own socket listeners a few ticks after its end: compare settled connections.
      const settled = async (): Promise<void> => {
        await eventually(async () => server.watchStreams.count === streamsBefore, 10_000);
        await new Promise((r) => setTimeout(r, 200));
      };
      await round();
      await settled();
      const afterFirst = new Map([...sockets].map((s) => [s, listenerCounts(s)]));
      for (let i = 1; i < rounds; i++) await round();
      await settled();
      assert.equal(sockets.size, lanes, `${lanes} connections carried ${lanes * rounds} watches`);
      for (const [s, counts] of afterFirst) assert.deepEqual(listenerCounts(s), counts, 'listeners on a connection after its last watch as after its first');
      assert.deepEqual(warnings, [], 'no MaxListenersExceededWarning');
    } finally {
      internals.server.off('secureConnection', track);
      agent.destroy();
    }
  });
});
