import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuthenticationResult, Authenticator } from '../authn/authenticator.js';
import type { UserInfo } from '../machinery/context.js';

/**
 * The users a test asks for (`clientFor(user, groups)`): each gets a bearer
 * token this authenticator knows, so a test can act as anyone without
 * issuing certificates. Other tokens are left to the server's authenticators.
 */
export class TestUsers implements Authenticator {
  private readonly byToken = new Map<string, UserInfo>();

  /** A token for the user; every call makes a new one. */
  tokenFor(user: UserInfo): string {
    const token = `capstan-test-${randomBytes(18).toString('base64url')}`;
    this.byToken.set(token, { ...user, groups: [...user.groups] });
    return token;
  }

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult | undefined> {
    const header = req.headers.authorization;
    if (!header?.startsWith('Bearer ')) return undefined;
    const user = this.byToken.get(header.slice('Bearer '.length).trim());
    // The authentication filter adds system:authenticated, as for every user.
    return user ? { user: { ...user, groups: [...user.groups] } } : undefined;
  }
}
