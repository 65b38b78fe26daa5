/**
 * resetConnection: a response given up on ends its connection with a TCP
 * reset, over TLS and plain HTTP, so the kernel drops what the client has not
 * read (a plain destroy leaves it queued for the client to read later).
 */

import assert from 'node:assert/strict';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { resetConnection } from '../../src/http/reset-connection.js';
import { makePki } from '../helpers/authn.js';

const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** How a client that stopped reading sees its response once it reads again. */
type Outcome = { bytes: number; error?: string; ended: boolean };

interface Harness {
  server: Server;
  request: (path: string, onResponse: (res: IncomingMessage) => void) => { on(event: 'error', cb: (err: NodeJS.ErrnoException) => void): void; end(): void };
}

/**
 * The server writes until the client's socket and its own are full, then
 * gives up on the response (`giveUp`); the client reads only after that.
 */
async function stalledThenGivenUp(h: Harness, giveUp: (res: ServerResponse) => void): Promise<Outcome> {
  const gaveUp = new Promise<void>((resolve) => {
    h.server.removeAllListeners('request');
    h.server.on('request', (_req, res: ServerResponse) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      const fill = (): void => {
        // Full once the kernel takes no more: the writes stay in node's buffer.
        if (res.writableLength > 0 && !res.write(CHUNK)) {
          giveUp(res);
          resolve();
          return;
        }
        res.write(CHUNK);
        setImmediate(fill);
      };
      fill();
    });
  });
  return new Promise<Outcome>((resolve) => {
    const outcome: Outcome = { bytes: 0, ended: false };
    const req = h.request('/', (res) => {
      res.pause();
      void gaveUp.then(() =>
        setTimeout(() => {
          res.on('data', (d: Buffer) => (outcome.bytes += d.length));
          res.on('end', () => (outcome.ended = true));
          res.on('error', (err: NodeJS.ErrnoException) => (outcome.error ??= err.code ?? err.message));
          res.on('close', () => setImmediate(() => resolve(outcome)));
          res.resume();
        }, 200),
      );
    });
    req.on('error', (err) => {
      outcome.error ??= err.code ?? err.message;
      resolve(outcome);
    });
    req.end();
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('resetConnection', () => {
  const harnesses: Array<[string, Harness]> = [];
  before(async () => {
    const pki = await makePki('unused');
    const tls = createHttpsServer({ key: pki.serving.key, cert: pki.serving.cert });
    const tlsPort = await listen(tls);
    harnesses.push(['TLS', { server: tls, request: (path, cb) => httpsRequest({ host: '127.0.0.1', port: tlsPort, path, ca: pki.servingCa, servername: 'localhost', rejectUnauthorized: false, agent: false }, cb) }]);
    const plain = createHttpServer();
    const plainPort = await listen(plain);
    harnesses.push(['plain HTTP', { server: plain, request: (path, cb) => httpRequest({ host: '127.0.0.1', port: plainPort, path, agent: false }, cb) }]);
  });
  after(() => {
    for (const [, h] of harnesses) h.server.close();
  });

  for (const transport of ['TLS', 'plain HTTP']) {
    it(`drops what the client has not read (${transport})`, async () => {
      const h = harnesses.find(([name]) => name === transport)![1];
      const reset = await stalledThenGivenUp(h, resetConnection);
      assert.equal(reset.error, 'ECONNRESET', `the client sees the reset: ${JSON.stringify(reset)}`);
      assert.equal(reset.ended, false);

      // The contrast: a plain destroy lets the client read the bytes the kernel kept for it.
      const destroyed = await stalledThenGivenUp(h, (res) => res.destroy());
      assert.ok(destroyed.bytes > reset.bytes, `a destroyed connection still delivers its queued bytes (${destroyed.bytes} > ${reset.bytes})`);
    });
  }

  it('ends a response whose connection is not a TCP socket', () => {
    let destroyed = false;
    const res = { socket: null, destroy: () => (destroyed = true) } as unknown as ServerResponse;
    resetConnection(res);
    assert.ok(destroyed);
  });
});
