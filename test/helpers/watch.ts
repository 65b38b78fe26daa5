import { request as httpsRequest } from 'node:https';
import { eventually, type Credentials } from './server.js';

export interface StreamEvent {
  /** ms since the request was sent */
  at: number;
  type: string;
  object: any;
}

/** Parses a JSON watch stream's lines as they arrive into `events` (times relative to `started`). */
function eventCollector(events: StreamEvent[], started: number): (chunk: Buffer) => void {
  let buf = '';
  return (chunk) => {
    buf += chunk.toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line.trim()) continue;
      const e = JSON.parse(line) as { type: string; object: unknown };
      events.push({ at: Date.now() - started, type: e.type, object: e.object });
    }
  };
}

/** A watch request whose events are collected as they arrive. */
export function openWatch(server: { url: string; creds: Credentials }, path: string): {
  events: StreamEvent[];
  status: Promise<number>;
  ended: Promise<void>;
  waitFor: (pred: (events: StreamEvent[]) => boolean, timeoutMs?: number) => Promise<void>;
  close: () => void;
} {
  const u = new URL(path, server.url);
  const events: StreamEvent[] = [];
  const started = Date.now();
  let resolveStatus!: (n: number) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  let resolveEnded!: () => void;
  const ended = new Promise<void>((r) => (resolveEnded = r));
  const req = httpsRequest(
    { method: 'GET', hostname: u.hostname, port: u.port, path: u.pathname + u.search, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key, agent: false },
    (res) => {
      resolveStatus(res.statusCode ?? 0);
      const collect = eventCollector(events, started);
      res.on('data', collect);
      res.on('end', () => resolveEnded());
      res.on('close', () => resolveEnded());
    },
  );
  req.on('error', () => {
    resolveStatus(0);
    resolveEnded();
  });
  req.end();
  return {
    events,
    status,
    ended,
    waitFor: (pred, timeoutMs = 10_000) => eventually(async () => pred(events), timeoutMs, 20).then(() => undefined),
    close: () => req.destroy(),
  };
}

/**
 * A watch whose client reads the response headers and then stops reading (a
 * paused response: Node stops reading the socket once its small buffers are
 * full), until `resume()`. `ended` resolves with whether the stream ended
 * with the chunked terminator (`complete`) or was cut short. With `parse`,
 * the events read after resuming are collected; otherwise only counted in bytes.
 */
export function openStalledWatch(
  server: { url: string; creds: Credentials },
  path: string,
  parse = false,
): { opened: Promise<number>; resume: () => void; ended: Promise<'complete' | 'incomplete'>; events: StreamEvent[]; close: () => void } {
  const u = new URL(path, server.url);
  const events: StreamEvent[] = [];
  const started = Date.now();
  let resolveOpened!: (status: number) => void;
  const opened = new Promise<number>((r) => (resolveOpened = r));
  let resolveEnded!: (how: 'complete' | 'incomplete') => void;
  const ended = new Promise<'complete' | 'incomplete'>((r) => (resolveEnded = r));
  let response: import('node:http').IncomingMessage | undefined;
  const req = httpsRequest(
    { method: 'GET', hostname: u.hostname, port: u.port, path: u.pathname + u.search, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key, agent: false },
    (res) => {
      response = res;
      res.pause();
      const collect = eventCollector(events, started);
      res.on('data', (d: Buffer) => {
        if (parse) collect(d);
      });
      res.on('error', () => undefined);
      res.on('close', () => resolveEnded(res.complete ? 'complete' : 'incomplete'));
      resolveOpened(res.statusCode ?? 0);
    },
  );
  req.on('error', () => {
    resolveOpened(0);
    resolveEnded('incomplete');
  });
  req.end();
  return { opened, resume: () => response?.resume(), ended, events, close: () => req.destroy() };
}
