import { timingSafeEqual } from 'node:crypto';
import type { KubeObject } from '../machinery/object.js';
import type { Logger } from '../machinery/logger.js';
import type { AuthenticationResult } from './authenticator.js';
import type { TokenAuthenticator } from './bearer-token.js';
import type { ObjectLookup } from '../registry/object-lookup.js';

/**
 * --enable-bootstrap-token-auth (kube's bootstrap token authenticator): a
 * token `<id>.<secret>` names the Secret `bootstrap-token-<id>` in
 * kube-system of type bootstrap.kubernetes.io/token. Like kube, every way the
 * token does not match (no Secret, being deleted, wrong type, secret, id,
 * expired, no usage-bootstrap-authentication, a bad extra group) is no
 * opinion, so the request fails as an invalid bearer token.
 */

const TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
export const BOOTSTRAP_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_SECRET_PREFIX = 'bootstrap-token-';
const DEFAULT_GROUP = 'system:bootstrappers';

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  constructor(
    /** Secrets in kube-system, through the server's cache. */
    private readonly secrets: ObjectLookup,
    private readonly logger?: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async authenticateToken(token: string): Promise<AuthenticationResult | undefined> {
    const m = TOKEN_PATTERN.exec(token);
    if (!m) return undefined;
    const [, id, secretPart] = m as unknown as [string, string, string];
    const secret = await this.secrets('kube-system', BOOTSTRAP_SECRET_PREFIX + id);
    if (!secret) return this.noOpinion(`No secret of name ${BOOTSTRAP_SECRET_PREFIX}${id} to match bootstrap bearer token`);
    if (secret.metadata?.deletionTimestamp) return this.noOpinion(`Secret kube-system/${secret.metadata.name} is deleted and awaiting removal`);
    if (secret.type !== BOOTSTRAP_SECRET_TYPE || !secret.data) return this.noOpinion(`Secret kube-system/${secret.metadata?.name} has wrong type`);
    const data = secretData(secret);
    const stored = Buffer.from(data['token-secret'] ?? '');
    const given = Buffer.from(secretPart);
    if (stored.length !== given.length || !timingSafeEqual(stored, given)) return this.noOpinion('Bootstrap secret token does not match');
    if (data['token-id'] !== id) return this.noOpinion('Bootstrap secret token id does not match');
    if (expired(data.expiration, this.now())) return this.noOpinion(`Bootstrap secret kube-system/${secret.metadata?.name} has expired`);
    if (data['usage-bootstrap-authentication'] !== 'true') return this.noOpinion(`Bootstrap secret kube-system/${secret.metadata?.name} not marked usage-bootstrap-authentication=true`);
    const groups = bootstrapGroups(data['auth-extra-groups'] ?? '');
    if (!groups) return this.noOpinion(`Bootstrap secret kube-system/${secret.metadata?.name} has invalid auth-extra-groups`);
    return { user: { username: `system:bootstrap:${id}`, groups } };
  }

  private noOpinion(why: string): undefined {
    if (this.logger?.v(3)) this.logger.info(why);
    return undefined;
  }
}

/** A Secret's data, decoded (stored data is base64). */
function secretData(secret: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((secret.data ?? {}) as Record<string, unknown>)) {
    if (typeof v === 'string') out[k] = Buffer.from(v, 'base64').toString('utf8');
  }
  return out;
}

/** kube treats an unparseable expiration as expired. */
function expired(expiration: string | undefined, now: number): boolean {
  return bootstrapTokenTtl(expiration, now) === 'expired';
}

/**
 * kube's bootstrapsecretutil.GetExpiration: milliseconds until a token's
 * `expiration` (RFC 3339), 'expired' when past or unparseable, undefined
 * when it has none.
 */
export function bootstrapTokenTtl(expiration: string | undefined, now: number): number | 'expired' | undefined {
  if (!expiration) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(expiration)) return 'expired';
  const t = Date.parse(expiration);
  if (Number.isNaN(t) || now > t) return 'expired';
  return t - now;
}

/** A bootstrap token Secret's data field, decoded. */
export function bootstrapSecretField(secret: KubeObject, field: string): string | undefined {
  return secretData(secret)[field];
}

/** system:bootstrappers plus the valid extra groups, sorted and without duplicates; undefined when one is invalid. */
function bootstrapGroups(extra: string): string[] | undefined {
  const groups = new Set([DEFAULT_GROUP]);
  if (extra !== '') {
    for (const g of extra.split(',')) {
      if (!GROUP_PATTERN.test(g)) return undefined;
      groups.add(g);
    }
  }
  return [...groups].sort();
}
