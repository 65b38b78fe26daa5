import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * The baselines' server, run as its own process (as Capstan is) so the two
 * compete for the same 2 cores in the same way. It does the least a server
 * can do for each measurement, which makes it the transport's ceiling:
 *
 * - `body`: every request is answered with one body held in memory
 *   (a 1 KiB object, or a list body captured from Capstan).
 * - `watch`: GETs are held open as chunked responses; each POSTed object is
 *   acknowledged and then written to every held response as one watch event
 *   line, `{"type":"ADDED","object":…}\n` — one Buffer shared by all. With
 *   `coalesce`, the events of one event-loop turn go out as one write per
 *   response (as Capstan's store groups the writes of one turn into one
 *   commit and hands watchers the batch), so a busy server sends fewer, larger
 *   writes instead of falling behind one TLS record per event per watcher.
 *
 * Usage: node bare-server.js '<json BareServerConfig>'; prints `port N` when listening.
 */

export interface BareServerConfig {
  mode: 'body' | 'watch';
  protocol: 'http' | 'https';
  /** watch mode: batch the events of one loop turn into one write per watcher. */
  coalesce?: boolean;
  /** body mode: the file whose bytes every response carries. */
  bodyFile?: string;
  /** https: PEM files (the server's own key and certificate, and the CA of client certificates). */
  keyFile?: string;
  certFile?: string;
  caFile?: string;
}

function listen(config: BareServerConfig, handler: (req: IncomingMessage, res: ServerResponse) => void): Server {
  if (config.protocol === 'http') return createHttpServer(handler);
  return createHttpsServer(
    {
      key: readFileSync(config.keyFile!),
      cert: readFileSync(config.certFile!),
      ca: readFileSync(config.caFile!),
      // Ask for the client certificate as Capstan does, so the handshakes cost the same.
      requestCert: true,
      rejectUnauthorized: false,
    },
    handler,
  );
}

function bodyServer(config: BareServerConfig): Server {
  const body = readFileSync(config.bodyFile!);
  return listen(config, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
    });
  });
}

const EVENT_HEAD = Buffer.from('{"type":"ADDED","object":');
const EVENT_TAIL = Buffer.from('}\n');

function watchServer(config: BareServerConfig): Server {
  const watchers = new Set<ServerResponse>();
  let pending: Buffer[] = [];
  const flush = (): void => {
    const event = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    for (const w of watchers) w.write(event);
  };
  const fanOut = (event: Buffer): void => {
    if (!config.coalesce) {
      for (const w of watchers) w.write(event);
      return;
    }
    if (pending.push(event) === 1) setImmediate(flush);
  };
  return listen(config, (req, res) => {
    if (req.method === 'GET' && !/[?&]watch=(1|true)/.test(req.url ?? '')) {
      // The watcher's opening list (for its resourceVersion).
      req.resume();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}');
      return;
    }
    if (req.method === 'GET') {
      req.resume();
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
      req.socket.setNoDelay(true);
      res.flushHeaders();
      watchers.add(res);
      res.on('close', () => watchers.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const object = Buffer.concat(chunks);
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': object.length });
      res.end(object);
      fanOut(Buffer.concat([EVENT_HEAD, object, EVENT_TAIL]));
    });
  });
}

const config = JSON.parse(process.argv[2] ?? '{}') as BareServerConfig;
const server = config.mode === 'watch' ? watchServer(config) : bodyServer(config);
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`));
