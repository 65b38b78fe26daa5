import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../machinery/context.js';

/** The token of an `Authorization: Bearer <token>` header, as kube's bearertoken authenticator reads it; undefined otherwise. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : undefined;
}

/** kube's AuthenticatedGroupAdder: every authenticated user is in system:authenticated (unless the user says otherwise). */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes('system:authenticated') || user.groups.includes('system:unauthenticated')) return user;
  return { ...user, groups: [...user.groups, 'system:authenticated'] };
}
