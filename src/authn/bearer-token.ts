import type { IncomingMessage } from 'node:http';
import { AuthenticationError, unionFailure, type AuthenticationResult, type Authenticator } from './authenticator.js';

/**
 * Bearer tokens as kube-apiserver reads them (k8s.io/apiserver bearertoken
 * and tokenunion): one `Authorization: Bearer <token>` header, the token
 * handed to every token authenticator in turn. A token none of them knows is
 * a failure ("invalid bearer token"), never an anonymous request.
 */

export interface TokenAuthenticator {
  /**
   * undefined: not a token this authenticator knows. A rejected promise with
   * an AuthenticationError: its kind of token, but invalid.
   * `audiences`: what the token must be meant for (the server's
   * --api-audiences, or a TokenReview's); undefined when none are set.
   */
  authenticateToken(token: string, audiences: readonly string[] | undefined): Promise<AuthenticationResult | undefined>;
}

/** tokenunion: the first authenticator that names a user wins; else every failure together. */
export class TokenUnion implements TokenAuthenticator {
  constructor(private readonly authenticators: readonly TokenAuthenticator[]) {}

  async authenticateToken(token: string, audiences: readonly string[] | undefined): Promise<AuthenticationResult | undefined> {
    const failures: AuthenticationError[] = [];
    for (const a of this.authenticators) {
      try {
        const result = await a.authenticateToken(token, audiences);
        if (result) return result;
      } catch (err) {
        if (!(err instanceof AuthenticationError)) throw err;
        failures.push(err);
      }
    }
    if (failures.length > 0) throw unionFailure(failures);
    return undefined;
  }
}

/** The token of an `Authorization: Bearer <token>` header, as kube splits it; undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  const auth = (header ?? '').trim();
  if (auth === '') return undefined;
  // Go's strings.SplitN(auth, " ", 3): the token is the second space-separated part.
  const first = auth.indexOf(' ');
  if (first < 0 || auth.slice(0, first).toLowerCase() !== 'bearer') return undefined;
  const rest = auth.slice(first + 1);
  const second = rest.indexOf(' ');
  const token = second < 0 ? rest : rest.slice(0, second);
  return token === '' ? undefined : token;
}

export const INVALID_BEARER_TOKEN = 'invalid bearer token';

export class BearerTokenAuthenticator implements Authenticator {
  constructor(
    private readonly tokens: TokenAuthenticator,
    /** --api-audiences: what a token must be meant for (kube puts them in the request's context). */
    private readonly audiences: readonly string[] | undefined,
  ) {}

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult | undefined> {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return undefined;
    const result = await this.tokens.authenticateToken(token, this.audiences);
    if (!result) throw new AuthenticationError(INVALID_BEARER_TOKEN);
    return result;
  }
}

/**
 * kube's WrapAudienceAgnosticToken: a token that names no audience (a static
 * or bootstrap token) is good for the server's own audiences only; asked for
 * other audiences it is no opinion, and a user it names gets the audiences
 * asked for that are the server's.
 */
export function audienceAgnostic(tokens: TokenAuthenticator, implicit: readonly string[]): TokenAuthenticator {
  if (implicit.length === 0) return tokens;
  return {
    async authenticateToken(token, audiences) {
      const auds = (audiences ?? implicit).filter((a) => implicit.includes(a));
      if (auds.length === 0) return undefined;
      const result = await tokens.authenticateToken(token, audiences);
      return result && { ...result, audiences: auds };
    },
  };
}
