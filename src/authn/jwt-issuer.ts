import { createHash } from 'node:crypto';
import { compactVerify, importJWK, type JWK } from 'jose';
import type { UserInfo } from '../machinery/context.js';
import { AuthenticationError, type AuthenticationResult } from './authenticator.js';
import type { TokenAuthenticator } from './bearer-token.js';
import type { JwtAuthenticatorConfig } from './authentication-config.js';
import { audiencesOf, unverifiedClaims } from './jwt.js';
import { TokenCache } from './token-cache.js';
import { EXTRA_CREDENTIAL_ID } from './service-account-token.js';
import { httpsRequest } from './https-client.js';
import type { Program } from '../cel/index.js';
import { claimsValue, compiledProgram, evaluateExpression, stringList, userValue } from './claim-expressions.js';

/** The configuration's CEL programs, compiled once per authenticator (validation compiled them first; this is a cache hit). */
interface Programs {
  username?: Program;
  groups?: Program;
  uid?: Program;
  extra: { key: string; program: Program }[];
  claimRules: { program: Program; message: string }[];
  userRules: { program: Program; message: string }[];
  /** Whether any needs the `claims` variable. */
  usesClaims: boolean;
}

function programsOf(config: JwtAuthenticatorConfig): Programs {
  const m = config.claimMappings;
  const claims = (e: string | undefined): Program | undefined => (e ? compiledProgram(e, 'claims', 'any') : undefined);
  const p: Programs = {
    username: claims(m.username.expression),
    groups: claims(m.groups?.expression),
    uid: claims(m.uid?.expression),
    extra: (m.extra ?? []).map((x) => ({ key: x.key, program: compiledProgram(x.valueExpression, 'claims', 'any') })),
    claimRules: (config.claimValidationRules ?? []).flatMap((r) => (r.expression ? [{ program: compiledProgram(r.expression, 'claims', 'bool'), message: r.message ?? '' }] : [])),
    userRules: (config.userValidationRules ?? []).map((r) => ({ program: compiledProgram(r.expression, 'user', 'bool'), message: r.message ?? '' })),
    usesClaims: false,
  };
  p.usesClaims = Boolean(p.username ?? p.groups ?? p.uid) || p.extra.length > 0 || p.claimRules.length > 0;
  return p;
}

/** kube's checkValidationRulesEvaluation: the first non-bool or false result is the error. */
function checkRules(rules: Programs['claimRules'], name: 'claims' | 'user', value: unknown, prefix: string): void {
  const results: unknown[] = [];
  for (const rule of rules) {
    const r = evaluateExpression(rule.program, name, value);
    if (!r.ok) throw new AuthenticationError(`${prefix}: ${r.message}`);
    results.push(r.value);
  }
  rules.forEach((rule, i) => {
    if (typeof results[i] !== 'boolean') throw new AuthenticationError(`${prefix}: validation expression must return a boolean`);
    if (!results[i]) throw new AuthenticationError(`${prefix}: validation expression '${rule.program.expression}' failed: ${rule.message}`);
  });
}

/**
 * One JWT issuer of the authentication configuration (kube's oidc token
 * authenticator): a JWT whose `iss` is this issuer's is verified
 * with the issuer's keys (found through its discovery document, kept, and
 * fetched again when a token names a key id not among them), then its
 * claims are checked (expiry, not-before, audiences, claim rules) and
 * mapped to a user. Tokens of other issuers, and non-JWTs, get no opinion.
 * Verified tokens are remembered briefly (kube's token cache, 10 s, never
 * beyond expiry), so a client reusing its token pays for one verification.
 */

/** Every algorithm kube accepts (oidc.AllValidSigningAlgorithms): asymmetric only, so `none` and HMAC never verify. */
export const ALL_SIGNING_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

const NOT_BEFORE_LEEWAY_S = 300;
const FETCH_TIMEOUT_MS = 10_000;
const SUCCESS_CACHE_MS = 10_000;
const DISCOVERY_RETRY_MS = 1_000;
const KEYS_REFRESH_MS = 1_000;

export class JwtIssuerAuthenticator implements TokenAuthenticator {
  private keys: JWK[] = [];
  private ready: Promise<void> | undefined;
  private refreshing: Promise<void> | undefined;
  private jwksUri = '';
  private lastFailure: { at: number; error: Error } | undefined;
  private keysFetchedAt = 0;
  private readonly cache = new TokenCache<AuthenticationResult>();
  private readonly programs: Programs;

  constructor(
    readonly config: JwtAuthenticatorConfig,
    private readonly signingAlgs: string[] = ALL_SIGNING_ALGS,
  ) {
    this.programs = programsOf(config);
  }

  /**
   * Fetches discovery and keys; resolves once this issuer can verify tokens.
   * After a failure the next attempt waits DISCOVERY_RETRY_MS (tokens meanwhile
   * fail at once), so a flood of tokens for an unreachable issuer is not a flood of fetches.
   */
  initialize(): Promise<void> {
    if (this.ready) return this.ready;
    if (this.lastFailure && Date.now() - this.lastFailure.at < DISCOVERY_RETRY_MS) return Promise.reject(this.lastFailure.error);
    this.ready = this.discover().then(
      () => {
        this.lastFailure = undefined;
      },
      (err: unknown) => {
        this.ready = undefined;
        this.lastFailure = { at: Date.now(), error: err instanceof Error ? err : new Error(String(err)) };
        throw err;
      },
    );
    return this.ready;
  }

  async authenticateToken(token: string): Promise<AuthenticationResult | undefined> {
    const claims = unverifiedClaims(token);
    if (!claims || claims.iss !== this.config.issuer.url) return undefined;
    const key = createHash('sha256').update(token).digest('base64');
    const hit = this.cache.get(key);
    if (hit) return hit;
    try {
      await this.initialize();
    } catch (err) {
      throw new AuthenticationError(`oidc: authenticator not initialized: ${(err as Error).message}`);
    }
    const verified = await this.verify(token);
    const user = this.mapClaims(verified);
    const result: AuthenticationResult = { user };
    const now = Date.now();
    const exp = typeof verified.exp === 'number' ? verified.exp * 1000 : now;
    this.cache.set(key, result, Math.min(now + SUCCESS_CACHE_MS, exp));
    return result;
  }

  private async discover(): Promise<void> {
    const iss = this.config.issuer;
    const discoveryUrl = iss.discoveryURL ?? `${iss.url.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const doc = await this.fetchJson(discoveryUrl);
    if (typeof doc.issuer !== 'string' || doc.issuer !== iss.url) {
      throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(iss.url)} got ${JSON.stringify(doc.issuer)}`);
    }
    if (typeof doc.jwks_uri !== 'string') throw new Error('oidc: discovery document has no jwks_uri');
    this.jwksUri = doc.jwks_uri;
    await this.fetchKeys();
  }

  private async fetchKeys(): Promise<void> {
    const set = await this.fetchJson(this.jwksUri);
    if (!Array.isArray(set.keys)) throw new Error(`oidc: failed to decode keys: no "keys" in ${this.jwksUri}`);
    this.keysFetchedAt = Date.now();
    this.keys = (set.keys as unknown[]).filter((k): k is JWK => typeof k === 'object' && k !== null && typeof (k as JWK).kty === 'string');
  }

  /**
   * One fetch at a time, however many tokens name an unknown key, and at
   * most one a KEYS_REFRESH_MS: tokens with made-up key ids cannot make this
   * server hammer the issuer; a real rotation waits that long at most.
   */
  private refreshKeys(): Promise<void> {
    this.refreshing ??= (async () => {
      const wait = this.keysFetchedAt + KEYS_REFRESH_MS - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await this.fetchKeys();
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async fetchJson(url: string): Promise<Record<string, unknown>> {
    const ca = this.config.issuer.certificateAuthority;
    const answer = await httpsRequest(url, ca ? { ca } : {}, { timeoutMs: FETCH_TIMEOUT_MS });
    if (answer.status !== 200) throw new Error(`${answer.status}: ${answer.body.slice(0, 200)}`);
    const parsed: unknown = JSON.parse(answer.body);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${url} did not answer with a JSON object`);
    return parsed as Record<string, unknown>;
  }

  private async verify(token: string): Promise<Record<string, unknown>> {
    const header = protectedHeader(token);
    const alg = typeof header?.alg === 'string' ? header.alg : '';
    if (!this.signingAlgs.includes(alg)) throw new AuthenticationError(`oidc: verify token: oidc: id token signed with unsupported algorithm, expected ${JSON.stringify(this.signingAlgs)} got ${JSON.stringify(alg)}`);
    const kid = typeof header?.kid === 'string' ? header.kid : undefined;
    let candidates = this.candidateKeys(kid, alg);
    if (candidates.length === 0 && kid !== undefined) {
      // A key id we have not seen: the issuer may have rotated its keys.
      await this.refreshKeys().catch((err: Error) => {
        throw new AuthenticationError(`oidc: verify token: fetching keys oidc: get keys failed: ${err.message}`);
      });
      candidates = this.candidateKeys(kid, alg);
    }
    let payload: Uint8Array | undefined;
    for (const jwk of candidates) {
      try {
        const key = await importJWK(jwk, alg);
        payload = (await compactVerify(token, key, { algorithms: [alg] })).payload;
        break;
      } catch {
        // the next key may be the one
      }
    }
    if (!payload) throw new AuthenticationError('oidc: verify token: failed to verify signature: failed to verify id token signature');
    let claims: Record<string, unknown>;
    try {
      claims = JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new AuthenticationError('oidc: verify token: oidc: failed to unmarshal claims');
    }
    this.checkStandardClaims(claims);
    return claims;
  }

  private candidateKeys(kid: string | undefined, alg: string): JWK[] {
    const kty = alg.startsWith('ES') ? 'EC' : 'RSA';
    return this.keys.filter((k) => (kid === undefined || k.kid === kid) && k.kty === kty && (k.use === undefined || k.use === 'sig') && (k.alg === undefined || k.alg === alg));
  }

  private checkStandardClaims(c: Record<string, unknown>): void {
    const now = Date.now() / 1000;
    if (c.iss !== this.config.issuer.url) throw new AuthenticationError(`oidc: verify token: oidc: id token issued by a different provider, expected ${JSON.stringify(this.config.issuer.url)} got ${JSON.stringify(c.iss)}`);
    if (typeof c.exp !== 'number' || c.exp < now) throw new AuthenticationError(`oidc: verify token: oidc: token is expired (Token Expiry: ${typeof c.exp === 'number' ? new Date(c.exp * 1000).toISOString() : 'none'})`);
    if (typeof c.nbf === 'number' && now + NOT_BEFORE_LEEWAY_S < c.nbf) throw new AuthenticationError(`oidc: verify token: oidc: current time ${new Date(now * 1000).toISOString()} before the nbf (not before) time: ${new Date(c.nbf * 1000).toISOString()}`);
    const aud = audiencesOf(c);
    const want = this.config.issuer.audiences;
    if (!aud.some((a) => want.includes(a))) throw new AuthenticationError(`oidc: verify token: oidc: expected audience in ${JSON.stringify([...want].sort())} got ${JSON.stringify(aud)}`);
  }

  /** kube's order: username, groups, uid, extra, required claims, claim validation rules, user validation rules. */
  private mapClaims(c: Record<string, unknown>): UserInfo {
    const p = this.programs;
    const claims = p.usesClaims ? claimsValue(c) : undefined;
    const user: UserInfo = { username: this.username(c, claims), groups: this.groups(c, claims) };
    const uid = this.uid(c, claims);
    if (uid !== undefined) user.uid = uid;
    const extra = this.extra(c, claims);
    if (extra) user.extra = extra;
    for (const rule of this.config.claimValidationRules ?? []) {
      if (!rule.claim) continue;
      if (!(rule.claim in c)) throw new AuthenticationError(`oidc: required claim ${rule.claim} not present in ID token`);
      const value = c[rule.claim];
      if (typeof value !== 'string') throw new AuthenticationError(`oidc: parse claim ${rule.claim}: json: cannot unmarshal into Go value of type string`);
      const want = rule.requiredValue ?? '';
      if (value !== want) throw new AuthenticationError(`oidc: required claim ${rule.claim} value does not match. Got = ${value}, want = ${want}`);
    }
    if (p.claimRules.length > 0) checkRules(p.claimRules, 'claims', claims, 'oidc: error evaluating claim validation expression');
    if (p.userRules.length > 0) checkRules(p.userRules, 'user', userValue(user), 'oidc: error evaluating user info validation rule');
    return user;
  }

  private username(c: Record<string, unknown>, claims: unknown): string {
    const m = this.config.claimMappings;
    if (this.programs.username) {
      const prefix = 'oidc: error evaluating username claim expression';
      const r = evaluateExpression(this.programs.username, 'claims', claims);
      if (!r.ok) throw new AuthenticationError(`${prefix}: ${r.message}`);
      if (typeof r.value !== 'string') throw new AuthenticationError(`${prefix}: username claim expression must return a string`);
      if (r.value === '') throw new AuthenticationError('oidc: empty username via CEL expression is not allowed');
      return r.value;
    }
    const usernameClaim = m.username.claim ?? '';
    const rawName = c[usernameClaim];
    if (typeof rawName !== 'string') throw new AuthenticationError(`oidc: parse username claims ${JSON.stringify(usernameClaim)}: ${rawName === undefined ? 'claim not present' : 'json: cannot unmarshal into Go value of type string'}`);
    if (usernameClaim === 'email' && 'email_verified' in c) {
      if (typeof c.email_verified !== 'boolean') throw new AuthenticationError("oidc: parse 'email_verified' claim: json: cannot unmarshal into Go value of type bool");
      if (!c.email_verified) throw new AuthenticationError('oidc: email not verified');
    }
    if (rawName === '') throw new AuthenticationError(`oidc: empty username via claim ${JSON.stringify(usernameClaim)} is not allowed`);
    return (m.username.prefix ?? '') + rawName;
  }

  private groups(c: Record<string, unknown>, claims: unknown): string[] {
    const m = this.config.claimMappings;
    const groupsClaim = m.groups?.claim;
    if (groupsClaim && groupsClaim in c) {
      const raw = c[groupsClaim];
      const groups = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.every((g) => typeof g === 'string') ? (raw as string[]) : undefined;
      if (!groups) throw new AuthenticationError(`oidc: parse groups claim ${JSON.stringify(groupsClaim)}: json: cannot unmarshal into Go value of type string`);
      return groups.map((g) => (m.groups?.prefix ?? '') + g);
    }
    if (!this.programs.groups) return [];
    const prefix = 'oidc: error evaluating group claim expression';
    const r = evaluateExpression(this.programs.groups, 'claims', claims);
    if (!r.ok) throw new AuthenticationError(`${prefix}: ${r.message}`);
    const groups = stringList(r.value);
    if (!groups) throw new AuthenticationError(`${prefix}: expression must return a string or a list of strings`);
    return groups;
  }

  private uid(c: Record<string, unknown>, claims: unknown): string | undefined {
    const uidClaim = this.config.claimMappings.uid?.claim;
    if (uidClaim) {
      const raw = c[uidClaim];
      if (typeof raw !== 'string') throw new AuthenticationError(`oidc: parse uid claim ${JSON.stringify(uidClaim)}: ${raw === undefined ? 'claim not present' : 'json: cannot unmarshal into Go value of type string'}`);
      return raw;
    }
    if (!this.programs.uid) return undefined;
    const prefix = 'oidc: error evaluating uid claim expression';
    const r = evaluateExpression(this.programs.uid, 'claims', claims);
    if (!r.ok) throw new AuthenticationError(`${prefix}: ${r.message}`);
    if (typeof r.value !== 'string') throw new AuthenticationError(`${prefix}: uid claim expression must return a string`);
    return r.value;
  }

  /**
   * The token's jti as its credential id (kube's getExtra), then the extra
   * mappings: every expression is evaluated before any result is converted, as kube does.
   */
  private extra(c: Record<string, unknown>, claims: unknown): Record<string, string[]> | undefined {
    const extra: Record<string, string[]> = {};
    if (typeof c.jti === 'string' && c.jti !== '') extra[EXTRA_CREDENTIAL_ID] = [`JTI=${c.jti}`];
    const values = this.programs.extra.map(({ program }) => {
      const r = evaluateExpression(program, 'claims', claims);
      if (!r.ok) throw new AuthenticationError(r.message);
      return r.value;
    });
    this.programs.extra.forEach(({ key, program }, i) => {
      const list = stringList(values[i]);
      if (!list) throw new AuthenticationError(`oidc: error evaluating extra claim expression: ${program.expression}: expression must return a string or a list of strings`);
      if (list.length > 0) extra[key] = list;
    });
    return Object.keys(extra).length > 0 ? extra : undefined;
  }
}

function decodeSegment(seg: string | undefined): Record<string, unknown> | undefined {
  if (!seg) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(seg, 'base64url').toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function protectedHeader(token: string): Record<string, unknown> | undefined {
  return decodeSegment(token.split('.')[0]);
}
