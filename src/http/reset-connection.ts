import { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';

/**
 * Gives up on a client that does not read: the connection is closed with a
 * TCP reset, so the kernel drops the bytes queued for it at once. A plain
 * close leaves them queued on an orphaned socket that keeps probing the
 * peer's zero window for minutes: a thousand stalled watch connections kept
 * ~1.5 GB of kernel buffers that way, past tcp_mem's pressure mark, which
 * then squeezed every healthy connection's buffers too (issue 19).
 */
export function resetConnection(res: ServerResponse): void {
  const socket = res.socket;
  if (socket && !socket.destroyed) {
    // A TLS socket's TCP connection is the socket it wraps (node's _tls_wrap keeps it as _parent).
    const parent = (socket as Socket & { _parent?: unknown })._parent;
    const tcp = parent instanceof Socket ? parent : socket;
    if (!tcp.destroyed) {
      try {
        tcp.resetAndDestroy();
      } catch {
        // Not a TCP handle (an in-memory connection): destroy() below is all there is.
      }
    }
  }
  res.destroy();
}
