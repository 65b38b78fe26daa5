import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The connection layer's ordering rule: what a connection's parser rejects
 * (bytes after a complete request, a malformed request) is answered only
 * after every response to the requests before it, then the connection is
 * closed — as Go's server, which reads the next request only once the last
 * one is answered. Node's default answer to a parse error is written at
 * once, ahead of a response still being prepared.
 */
export class ConnectionResponses {
  /** Responses not yet finished, per socket. */
  private readonly pending = new WeakMap<Socket, number>();
  private readonly idleWaiters = new WeakMap<Socket, Array<() => void>>();
  /** Sockets already given their parse-error answer (Node may report one error several times). */
  private readonly failed = new WeakSet<Socket>();

  /** Counts `res` as in flight on its socket until it finishes or the connection closes. */
  track(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    this.pending.set(socket, (this.pending.get(socket) ?? 0) + 1);
    let done = false;
    const finished = (): void => {
      if (done) return;
      done = true;
      const left = (this.pending.get(socket) ?? 1) - 1;
      this.pending.set(socket, left);
      if (left === 0) {
        const waiters = this.idleWaiters.get(socket) ?? [];
        this.idleWaiters.delete(socket);
        for (const w of waiters) w();
      }
    };
    res.once('finish', finished);
    res.once('close', finished);
  }

  /** The server's 'clientError' listener. */
  readonly onClientError = (err: NodeJS.ErrnoException, socket: Socket): void => {
    if (this.failed.has(socket)) return;
    this.failed.add(socket);
    // A client that reset the connection gets nothing; one that merely stopped reading is dropped;
    // one past its header deadline (or a body nobody read past the backstop) too: Go's server
    // answers a read that timed out with nothing ("don't reply", net/http server.go).
    if (err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
      socket.destroy();
      return;
    }
    const answer = (): void => {
      if (socket.destroyed || !socket.writable) return;
      socket.end(rawErrorResponse(err));
      // Bytes still arriving must not keep a connection that is done.
      setTimeout(() => socket.destroy(), 1000).unref();
    };
    if ((this.pending.get(socket) ?? 0) === 0) answer();
    else {
      const waiters = this.idleWaiters.get(socket) ?? [];
      waiters.push(answer);
      this.idleWaiters.set(socket, waiters);
    }
  };
}

/** Go's net/http answers to requests it cannot read (plain text, connection closed). */
function rawErrorResponse(err: NodeJS.ErrnoException): string {
  const [code, text] = err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : [400, 'Bad Request'];
  const body = `${code} ${text}`;
  return `HTTP/1.1 ${code} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
}
