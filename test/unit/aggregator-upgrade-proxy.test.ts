import assert from 'node:assert/strict';
import { createServer as createHttpServer, request, ServerResponse, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';

import { proxyUpgrade } from '../../src/aggregator/upgrade-proxy.js';
import { RequestContext } from '../../src/machinery/context.js';
import { parseRequestInfo } from '../../src/machinery/request-info.js';
import { makePki } from '../helpers/authn.js';

/**
 * The aggregator's upgrade tunnel (kube's UpgradeAwareHandler.tryUpgrade)
 * between a client and an extension server, both real sockets: what the
 * client sees when the extension server switches, refuses, answers without
 * switching, hangs up, or cannot be reached.
 */

const port = (s: HttpServer | HttpsServer | TcpServer): number => (s.address() as AddressInfo).port;

describe('proxyUpgrade', () => {
  let backend: HttpsServer;
  let hangUp: TcpServer;
  let front: HttpServer;
  let ca: string;
  let target: { port: number };
  const backendSaw: IncomingMessage[] = [];

  before(async () => {
    const pki = await makePki('unused');
    ca = pki.servingCa!;
    backend = createHttpsServer({ key: pki.serving.key, cert: pki.serving.cert }, (_req, res) => res.end());
    backend.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      backendSaw.push(req);
      if (req.url === '/switch') {
        socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\nready;');
        if (head.length > 0) socket.write(Buffer.concat([Buffer.from('early:'), head]));
        socket.on('data', (d: Buffer) => socket.write(Buffer.concat([Buffer.from('echo:'), d])));
      } else if (req.url === '/refuse') {
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 4\r\n\r\nno\r\n');
      } else if (req.url === '/ok') {
        socket.end('HTTP/1.1 204 No Content\r\n\r\n');
      } else if (req.url === '/garbage') {
        socket.end('SSH-2.0-OpenSSH\r\n\r\n');
      } else socket.destroy();
    });
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    hangUp = createTcpServer((s) => s.destroy());
    await new Promise<void>((r) => hangUp.listen(0, '127.0.0.1', r));
    target = { port: port(backend) };
    // The front: what server/apiserver.ts does with an 'upgrade' event, then the tunnel.
    front = createHttpServer();
    front.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const res = new ServerResponse(req);
      res.assignSocket(socket as Socket);
      res.shouldKeepAlive = false;
      res.once('finish', () => socket.end());
      const url = new URL(req.url ?? '/', 'http://front.invalid');
      const ctx = new RequestContext(req, res, parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams), url);
      ctx.upgrade = { socket, head };
      void proxyUpgrade(ctx, ctx.upgrade, {
        tls: { host: '127.0.0.1', port: target.port, ca, servername: 'localhost' },
        address: { host: '127.0.0.1', port: target.port },
        path: url.pathname,
        headers: { connection: 'Upgrade', upgrade: 'test', 'x-remote-user': 'alice' },
      });
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  });

  after(() => {
    front.close();
    backend.closeAllConnections();
    backend.close();
    hangUp.close();
  });

  /** An upgrade request to the front: the switched socket, or the answer. */
  function upgrade(path: string, early?: string): Promise<{ socket: Socket; first: string } | { status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: port(front), path, agent: false, headers: { Connection: 'Upgrade', Upgrade: 'test' } });
      req.on('upgrade', (_res, socket: Socket, head: Buffer) => {
        if (head.length > 0) return resolve({ socket, first: head.toString() });
        socket.once('data', (d: Buffer) => resolve({ socket, first: d.toString() }));
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      if (early) req.write(early);
      req.end();
    });
  }

  it('switches, hands over the extension server\'s first bytes, and copies both ways with the given headers', async () => {
    backendSaw.length = 0;
    const r = await upgrade('/switch');
    assert.ok('socket' in r);
    try {
      assert.equal(r.first, 'ready;');
      const echoed = new Promise<string>((resolve) => r.socket.once('data', (d: Buffer) => resolve(d.toString())));
      r.socket.write('ping');
      assert.equal(await echoed, 'echo:ping');
      assert.equal(backendSaw[0]!.headers['x-remote-user'], 'alice');
      assert.equal(backendSaw[0]!.headers.host, `127.0.0.1:${target.port}`);
      // The extension server closing ends the client's side too.
      const closed = new Promise<void>((resolve) => r.socket.once('close', () => resolve()));
      backend.closeAllConnections();
      for (const s of backendSaw) s.socket.destroy();
      await closed;
    } finally {
      r.socket.destroy();
    }
  });

  it('passes a refusal on as the extension server wrote it', async () => {
    assert.deepEqual(await upgrade('/refuse'), { status: 401, body: 'no\r\n' });
  });

  it('answers 503 when the extension server answers without switching, hangs up, or cannot be reached', async () => {
    assert.deepEqual(await upgrade('/ok'), { status: 503, body: 'invalid upgrade response: status code 204\n' });
    assert.deepEqual(await upgrade('/close'), { status: 503, body: 'EOF\n' });
    assert.deepEqual(await upgrade('/garbage'), { status: 503, body: 'malformed HTTP response "SSH-2.0-OpenSSH"\n' });
    const saved = target.port;
    try {
      target.port = port(hangUp);
      assert.deepEqual(await upgrade('/switch'), { status: 503, body: 'error dialing backend: EOF\n' });
      hangUp.close();
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(await upgrade('/switch'), { status: 503, body: `error dialing backend: dial tcp 127.0.0.1:${target.port}: connect: connection refused\n` });
    } finally {
      target.port = saved;
    }
  });
});
