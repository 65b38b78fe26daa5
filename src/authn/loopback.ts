import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../machinery/context.js';
import { AuthenticationError, type AuthenticationResult, type Authenticator } from './authenticator.js';
import { bearerToken } from './bearer-token.js';

/**
 * The server's own requests (kube-apiserver's loopback client): a random
 * bearer token made per server and never sent anywhere but into the
 * server's in-memory loopback connections names `system:apiserver` in
 * `system:masters`, with a random uid (kube's AuthorizeClientBearerToken).
 * Like kube's bearer token authenticator, it has no opinion without an
 * `Authorization: Bearer` header and fails on any other bearer token, so a
 * token no authenticator knows is a 401, not an anonymous request.
 */

export const APISERVER_USER = 'system:apiserver';
export const PRIVILEGED_GROUP = 'system:masters';

/**
 * Every other bearer token fails here first (kube's union then asks the
 * others): one error made once, as building an Error (its stack) for each
 * such request costs more than the rest of this check.
 */
const NOT_THE_LOOPBACK_TOKEN = new AuthenticationError('invalid bearer token');

export class LoopbackAuthenticator implements Authenticator {
  /** The bearer token the loopback client sends. */
  readonly token = randomBytes(32).toString('base64url');
  private readonly expected = Buffer.from(this.token);
  private readonly user: UserInfo = { username: APISERVER_USER, uid: randomUUID(), groups: ['system:authenticated', PRIVILEGED_GROUP] };

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult | undefined> {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return undefined;
    // Every token from outside has another length: refused before any copy or comparison.
    if (token.length !== this.token.length) throw NOT_THE_LOOPBACK_TOKEN;
    const given = Buffer.from(token);
    if (given.length !== this.expected.length || !timingSafeEqual(given, this.expected)) throw NOT_THE_LOOPBACK_TOKEN;
    // As kube does once a bearer token authenticates: nothing behind this filter sees the token.
    delete req.headers.authorization;
    return { user: this.user };
  }
}
