import { compactVerify, SignJWT } from 'jose';
import { aggregate, AuthenticationError } from './authenticator.js';
import type { SigningKey, VerificationKey } from './service-account-keys.js';
import { TokenCache } from './token-cache.js';

/**
 * Compact JWS tokens signed with the service account keys: signing, reading
 * the unverified issuer (to route a token to the authenticator that owns it,
 * as kube's hasCorrectIssuer does), and verifying the signature with the
 * keys whose id the token names (all keys when it names none). Each key
 * accepts only its own algorithm, so `alg: none` and an HMAC "signed" with a
 * public key never verify.
 */

export type JwtClaims = Record<string, unknown>;

/** The payload of a token in compact form, without any check; undefined when it is not one. */
export function unverifiedClaims(token: string): JwtClaims | undefined {
  if (token.trimStart().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return claims !== null && typeof claims === 'object' && !Array.isArray(claims) ? (claims as JwtClaims) : undefined;
  } catch {
    return undefined;
  }
}

function unverifiedKid(token: string): string {
  try {
    const header: unknown = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));
    const kid = (header as { kid?: unknown } | null)?.kid;
    return typeof kid === 'string' ? kid : '';
  } catch {
    return '';
  }
}

export async function signJwt(claims: JwtClaims, key: SigningKey): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
}

/** go-jose's text for a signature that does not verify. */
const BAD_SIGNATURE = 'go-jose/go-jose: error in cryptographic primitive';

export class JwtVerifier {
  private readonly byKid = new Map<string, VerificationKey[]>();
  /** Verified payloads by token, until the token's expiry. */
  private readonly verified: TokenCache<JwtClaims>;

  constructor(
    private readonly keys: readonly VerificationKey[],
    private readonly now: () => number = Date.now,
  ) {
    for (const k of keys) this.byKid.set(k.kid, [...(this.byKid.get(k.kid) ?? []), k]);
    this.verified = new TokenCache<JwtClaims>(10_000, now);
  }

  /** The claims of a token verified before (and not expired from the cache), without parsing it again. */
  cached(token: string): JwtClaims | undefined {
    return this.verified.get(token);
  }

  /** The token's claims once its signature verifies with one of the keys; AuthenticationError otherwise. */
  async verify(token: string): Promise<JwtClaims> {
    const cached = this.verified.get(token);
    if (cached) return cached;
    const kid = unverifiedKid(token);
    const candidates = kid ? (this.byKid.get(kid) ?? []) : this.keys;
    if (candidates.length === 0) throw new AuthenticationError('invalid signature, no keys found');
    const errors: string[] = [];
    for (const k of candidates) {
      try {
        const { payload } = await compactVerify(token, k.key, { algorithms: [k.alg] });
        const claims = JSON.parse(Buffer.from(payload).toString('utf8')) as JwtClaims;
        const exp = typeof claims.exp === 'number' ? claims.exp : undefined;
        // A token without expiry (a legacy one) is kept for a while: its signature cannot change.
        this.verified.set(token, claims, exp !== undefined ? (exp + CLOCK_LEEWAY_SECONDS) * 1000 : this.now() + 10 * 60_000);
        return claims;
      } catch {
        errors.push(BAD_SIGNATURE);
      }
    }
    throw new AuthenticationError(aggregate(errors));
  }
}

/** go-jose's jwt.DefaultLeeway: exp and nbf are checked with a minute's tolerance for clock skew. */
export const CLOCK_LEEWAY_SECONDS = 60;

/** A claim as seconds since the epoch (JSON number), undefined when absent or not a number. */
export function numericDate(claims: JwtClaims, name: string): number | undefined {
  const v = claims[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The `aud` claim as a list (a JWT may give one string). */
export function audiencesOf(claims: JwtClaims): string[] {
  const aud = claims.aud;
  if (typeof aud === 'string') return aud === '' ? [] : [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
}
