import assert from 'node:assert/strict';
import { connect, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';

import { ApiServer } from '../../src/server/apiserver.js';
import { httpServerSettings, IDLE_TIMEOUT_MS, MAX_HEADER_BYTES, READ_HEADER_TIMEOUT_MS } from '../../src/server/http-settings.js';
import { http, inProcessClient } from '../helpers/server.js';

/**
 * kube-apiserver's http.Server settings (apiserver/pkg/server/secure_serving.go:
 * ReadHeaderTimeout 32 s, IdleTimeout 90 s, MaxHeaderBytes 1 MiB) on Capstan's
 * listener (issue 10): a client sending its headers a byte at a time is cut
 * off at the header deadline, without an answer, as Go's server does.
 */

interface Client {
  url: string;
  creds: { ca: string; cert: string; key: string };
}

const client = (server: ApiServer): Client => inProcessClient(server);

async function open(c: Client): Promise<TLSSocket> {
  const u = new URL(c.url);
  const socket = connect({ host: u.hostname, port: Number(u.port), ca: c.creds.ca, cert: c.creds.cert, key: c.creds.key, servername: 'localhost' });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

describe('the listener has kube-apiserver\'s http.Server settings', () => {
  it('by default: headers within 32 s, idle keep-alive 90 s, 1 MiB of headers (plus Go\'s 4 KiB slop)', () => {
    assert.equal(READ_HEADER_TIMEOUT_MS, 32_000);
    assert.equal(IDLE_TIMEOUT_MS, 90_000);
    assert.equal(MAX_HEADER_BYTES, 1024 * 1024 + 4096);
    const s = httpServerSettings(60_000);
    assert.equal(s.headersTimeout, 32_000);
    assert.equal(s.keepAliveTimeout, 90_000);
    assert.equal(s.maxHeaderSize, MAX_HEADER_BYTES);
    // Node checks deadlines every connectionsCheckingInterval: often enough to notice the header deadline in time.
    assert.ok(s.connectionsCheckingInterval <= 1_000);
    // Node requires headersTimeout <= requestTimeout; a short --request-timeout shortens it.
    const short = httpServerSettings(1000);
    assert.ok(short.headersTimeout <= short.requestTimeout);
    assert.equal(httpServerSettings(0).requestTimeout, 0);
    assert.equal(httpServerSettings(0).headersTimeout, 32_000);
  });
});

describe('slow and large request headers (issue 10)', { timeout: 60_000 }, () => {
  let server: ApiServer;
  let c: Client;

  before(async () => {
    server = new ApiServer({ readHeaderTimeoutMs: 500 });
    await server.start();
    c = client(server);
  });
  after(async () => {
    await server?.stop();
  });

  it('closes a connection whose headers trickle past the header deadline, answering nothing (Go: "don\'t reply")', async () => {
    const socket = await open(c);
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    let sent = 0;
    socket.write('GET /version HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    // A byte every 50 ms: each arrives well within any per-read timeout, the headers never end.
    const trickle = setInterval(() => {
      if (socket.destroyed) return;
      socket.write('a');
      sent++;
    }, 50);
    try {
      await closed;
    } finally {
      clearInterval(trickle);
    }
    assert.equal(received, '', 'nothing is written to a client cut off at the header deadline');
    assert.ok(sent > 0, 'the client was still sending when it was cut off');
    // The server goes on serving.
    assert.equal((await http(c, 'GET', '/version')).status, 200);
  });

  it('reads headers beyond Node\'s default 16 KiB, up to kube\'s 1 MiB, and answers 431 past it', async () => {
    const big = 'x'.repeat(256 * 1024);
    const ok = await http(c, 'GET', '/version', { headers: { 'X-Big': big } });
    assert.equal(ok.status, 200);
    const socket = await open(c);
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(`GET /version HTTP/1.1\r\nHost: localhost\r\nX-Huge: ${'y'.repeat(MAX_HEADER_BYTES + 1024)}\r\n\r\n`);
    await closed;
    assert.match(received, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  });
});
