import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../machinery/context.js';
import { unauthorized } from '../machinery/errors.js';

/**
 * Authentication as kube-apiserver does it with --client-ca-file and anonymous
 * auth on: a client certificate verified against the client CA names the user
 * (CN) and groups (O); a request without credentials is system:anonymous; a
 * certificate that does not verify is 401.
 */

export const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

export function authenticate(req: IncomingMessage): UserInfo {
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function') return ANONYMOUS;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return ANONYMOUS;
  if (!socket.authorized) throw unauthorized();
  const cn = asList(cert.subject?.CN)[0];
  if (!cn) throw unauthorized();
  const groups = asList(cert.subject?.O);
  return { username: cn, groups: [...groups, 'system:authenticated'] };
}
