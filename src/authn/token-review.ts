import type { UserInfo } from '../machinery/context.js';
import { AuthenticationError, withAuthenticatedGroup } from './authenticator.js';
import { INVALID_BEARER_TOKEN, type TokenAuthenticator } from './bearer-token.js';

/**
 * What a TokenReview reports (kube's tokenreview REST): the token
 * authenticated as a bearer token would be, for the given audiences, with
 * the failure's text when it fails.
 */
export interface TokenReviewResult {
  authenticated: boolean;
  user?: UserInfo;
  audiences?: string[];
  error?: string;
}

export type TokenReviewer = (token: string, audiences: readonly string[] | undefined) => Promise<TokenReviewResult>;

export function tokenReviewer(tokens: TokenAuthenticator): TokenReviewer {
  return async (token, audiences) => {
    try {
      const result = await tokens.authenticateToken(token, audiences);
      if (!result) return { authenticated: false, error: INVALID_BEARER_TOKEN };
      return { authenticated: true, user: withAuthenticatedGroup(result.user), ...(result.audiences ? { audiences: result.audiences } : {}) };
    } catch (err) {
      if (err instanceof AuthenticationError) return { authenticated: false, error: err.message };
      throw err;
    }
  };
}
