import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { AuthenticationError, type AuthenticationResult, type Authenticator } from './authenticator.js';

/**
 * kube-apiserver's --client-ca-file authenticator: a client certificate
 * verified against the client CA bundle (one or more authorities) names
 * the user (CN) and groups (O; system:authenticated is the filter's); no
 * certificate is no opinion; a certificate that does not verify fails.
 */
export class ClientCertAuthenticator implements Authenticator {
  /** A connection's certificate is fixed once its handshake is done: read it once, not on every request. */
  private readonly bySocket = new WeakMap<TLSSocket, AuthenticationResult | AuthenticationError | null>();

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult | undefined> {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return undefined;
    let known = this.bySocket.get(socket);
    if (known === undefined) {
      known = this.fromSocket(socket);
      this.bySocket.set(socket, known);
    }
    if (known instanceof AuthenticationError) throw known;
    return known ?? undefined;
  }

  private fromSocket(socket: TLSSocket): AuthenticationResult | AuthenticationError | null {
    try {
      return this.read(socket) ?? null;
    } catch (err) {
      if (err instanceof AuthenticationError) return err;
      throw err;
    }
  }

  private read(socket: TLSSocket): AuthenticationResult | undefined {
    const cert = socket.getPeerCertificate();
    if (!cert || Object.keys(cert).length === 0) return undefined;
    if (!socket.authorized) throw new AuthenticationError(`verifying certificate failed: ${String(socket.authorizationError ?? 'unknown authority')}`);
    const cn = asList(cert.subject?.CN)[0];
    if (!cn) throw new AuthenticationError('certificate has no common name');
    const groups = asList(cert.subject?.O);
    return { user: { username: cn, groups } };
  }
}

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}
