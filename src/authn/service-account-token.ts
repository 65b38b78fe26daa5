import { timingSafeEqual } from 'node:crypto';
import type { UserInfo } from '../machinery/context.js';
import type { KubeObject } from '../machinery/object.js';
import { AuthenticationError, type AuthenticationResult } from './authenticator.js';
import type { TokenAuthenticator } from './bearer-token.js';
import { audiencesOf, CLOCK_LEEWAY_SECONDS, numericDate, unverifiedClaims, type JwtClaims, type JwtVerifier } from './jwt.js';
import type { ObjectLookup } from '../registry/object-lookup.js';

/**
 * Service account tokens (kube's pkg/serviceaccount): JWTs this server signs.
 * Bound tokens (TokenRequest) carry the `kubernetes.io` claim naming the
 * ServiceAccount and the object the token is bound to, and are issued by
 * --service-account-issuer; legacy tokens (token Secrets) carry the
 * `kubernetes.io/serviceaccount/*` claims and the issuer
 * `kubernetes/serviceaccount`. Either names the user
 * system:serviceaccount:<ns>:<name> in system:serviceaccounts and
 * system:serviceaccounts:<ns>. A token whose issuer is not one of ours is no
 * opinion; one of ours that fails any check is a failure.
 */

export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
const LEGACY = 'kubernetes.io/serviceaccount/';

export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = 'authentication.kubernetes.io/node-name';
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';

export interface ServiceAccountLookups {
  serviceAccounts: ObjectLookup;
  secrets: ObjectLookup;
  pods: ObjectLookup;
  nodes: ObjectLookup;
}

export interface ServiceAccountAuthenticatorOptions {
  /** --service-account-issuer values (a bound token may name any of them). */
  issuers: readonly string[];
  verifier: JwtVerifier;
  /** --api-audiences: the audiences a token is checked against when the request names none, and a legacy token's. */
  implicitAudiences: readonly string[];
  /** --service-account-lookup: legacy tokens need their Secret and ServiceAccount (bound tokens always do). */
  lookup: boolean;
  lookups: ServiceAccountLookups;
  now?: () => number;
}

interface Ref {
  name: string;
  uid: string;
}

/** Who a token names, once checked (kube's ServiceAccountInfo). */
interface ServiceAccountInfo {
  namespace: string;
  name: string;
  uid: string;
  podName?: string;
  podUid?: string;
  nodeName?: string;
  nodeUid?: string;
  credentialId?: string;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

function userInfo(sa: ServiceAccountInfo): UserInfo {
  const extra: Record<string, string[]> = {};
  if (sa.podName && sa.podUid) {
    extra[EXTRA_POD_NAME] = [sa.podName];
    extra[EXTRA_POD_UID] = [sa.podUid];
  }
  if (sa.credentialId) extra[EXTRA_CREDENTIAL_ID] = [sa.credentialId];
  if (sa.nodeName) {
    extra[EXTRA_NODE_NAME] = [sa.nodeName];
    if (sa.nodeUid) extra[EXTRA_NODE_UID] = [sa.nodeUid];
  }
  return {
    username: serviceAccountUsername(sa.namespace, sa.name),
    uid: sa.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`],
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

/** Go's %q of a []string: ["a" "b"]. */
function quoteList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  private readonly issuers: ReadonlySet<string>;
  private readonly now: () => number;

  constructor(private readonly opts: ServiceAccountAuthenticatorOptions) {
    this.issuers = new Set(opts.issuers);
    this.now = opts.now ?? Date.now;
  }

  async authenticateToken(token: string, audiences: readonly string[] | undefined): Promise<AuthenticationResult | undefined> {
    // A token verified before needs no parsing: its claims (issuer included) are the cached ones.
    let claims = this.opts.verifier.cached(token);
    if (!claims) {
      const unverified = unverifiedClaims(token);
      if (!unverified) return undefined;
      if (!this.isOurs(unverified.iss)) return undefined;
      claims = await this.opts.verifier.verify(token);
      if (claims.iss !== unverified.iss) throw new AuthenticationError(`token issuer ${JSON.stringify(claims.iss)} is invalid`);
    } else if (!this.isOurs(claims.iss)) {
      return undefined;
    }
    const legacy = claims.iss === LEGACY_ISSUER;
    const implicit = this.opts.implicitAudiences;
    let tokenAudiences = audiencesOf(claims);
    // Only the server's own audiences are allowed for tokens that name none (legacy tokens).
    if (tokenAudiences.length === 0) tokenAudiences = [...implicit];
    const requested = audiences ?? implicit;
    const auds = tokenAudiences.filter((a) => requested.includes(a));
    if (auds.length === 0 && implicit.length > 0) {
      throw new AuthenticationError(`token audiences ${quoteList(tokenAudiences)} is invalid for the target audiences ${quoteList(requested)}`);
    }
    const sa = legacy ? await this.validateLegacy(token, claims) : await this.validateBound(claims);
    return { user: userInfo(sa), audiences: auds };
  }

  private isOurs(iss: unknown): boolean {
    return iss === LEGACY_ISSUER || (typeof iss === 'string' && this.issuers.has(iss));
  }

  /** kube's validator for bound tokens: times, then the ServiceAccount and the bound object as they are now. */
  private async validateBound(claims: JwtClaims): Promise<ServiceAccountInfo> {
    const now = this.now() / 1000;
    const exp = numericDate(claims, 'exp');
    const nbf = numericDate(claims, 'nbf');
    const iat = numericDate(claims, 'iat');
    if (exp !== undefined && now > exp + CLOCK_LEEWAY_SECONDS) throw new AuthenticationError('service account token has expired');
    if (nbf !== undefined && now + CLOCK_LEEWAY_SECONDS < nbf) throw new AuthenticationError('service account token is not valid yet');
    if (iat !== undefined && now + CLOCK_LEEWAY_SECONDS < iat) throw new AuthenticationError('service account token is issued in the future');
    const k = (claims['kubernetes.io'] ?? {}) as { namespace?: unknown; serviceaccount?: unknown; pod?: unknown; secret?: unknown; node?: unknown };
    const namespace = typeof k.namespace === 'string' ? k.namespace : '';
    const saRef = refOf(k.serviceaccount) ?? { name: '', uid: '' };
    const podRef = refOf(k.pod);
    const secretRef = refOf(k.secret);
    const nodeRef = refOf(k.node);
    const { lookups } = this.opts;
    // Objects deleted longer ago than the leeway no longer back a token.
    const deletedBefore = this.now() - CLOCK_LEEWAY_SECONDS * 1000;
    const gone = (o: KubeObject): boolean => {
      const ts = o.metadata?.deletionTimestamp;
      return typeof ts === 'string' && Date.parse(ts) < deletedBefore;
    };
    const sa = await lookups.serviceAccounts(namespace, saRef.name);
    // kube's order for each object: missing, then another uid, then deleted.
    if (!sa) throw new AuthenticationError(`serviceaccounts "${saRef.name}" not found`);
    if (sa.metadata?.uid !== saRef.uid) throw new AuthenticationError(`service account UID (${sa.metadata?.uid ?? ''}) does not match claim (${saRef.uid})`);
    if (gone(sa)) throw new AuthenticationError(`service account ${namespace}/${saRef.name} has been deleted`);
    const info: ServiceAccountInfo = { namespace, name: saRef.name, uid: saRef.uid };
    if (secretRef) {
      const secret = await lookups.secrets(namespace, secretRef.name);
      if (!secret) throw new AuthenticationError('service account token has been invalidated');
      if (secret.metadata?.uid !== secretRef.uid) throw new AuthenticationError(`secret UID (${secret.metadata?.uid ?? ''}) does not match service account secret ref claim (${secretRef.uid})`);
      if (gone(secret)) throw new AuthenticationError('service account token has been invalidated');
    }
    if (podRef) {
      const pod = await lookups.pods(namespace, podRef.name);
      if (!pod) throw new AuthenticationError('service account token has been invalidated');
      if (pod.metadata?.uid !== podRef.uid) throw new AuthenticationError(`pod UID (${pod.metadata?.uid ?? ''}) does not match service account pod ref claim (${podRef.uid})`);
      if (gone(pod)) throw new AuthenticationError('service account token has been invalidated');
      info.podName = podRef.name;
      info.podUid = podRef.uid;
    }
    if (nodeRef) {
      // A token bound to a node (not a pod on it) lives as long as that node.
      if (!podRef) {
        const node = await lookups.nodes(undefined, nodeRef.name);
        if (!node) throw new AuthenticationError('service account token has been invalidated');
        if (node.metadata?.uid !== nodeRef.uid) throw new AuthenticationError(`node UID (${node.metadata?.uid ?? ''}) does not match service account node ref claim (${nodeRef.uid})`);
        if (gone(node)) throw new AuthenticationError('service account token has been invalidated');
      }
      info.nodeName = nodeRef.name;
      info.nodeUid = nodeRef.uid;
    }
    if (typeof claims.jti === 'string' && claims.jti !== '') info.credentialId = `JTI=${claims.jti}`;
    return info;
  }

  /** kube's legacy validator: the claims, then (with --service-account-lookup) the Secret holding this very token and the ServiceAccount. */
  private async validateLegacy(token: string, claims: JwtClaims): Promise<ServiceAccountInfo> {
    const claim = (name: string): string => (typeof claims[LEGACY + name] === 'string' ? (claims[LEGACY + name] as string) : '');
    const sub = typeof claims.sub === 'string' ? claims.sub : '';
    if (sub === '') throw new AuthenticationError('sub claim is missing');
    const namespace = claim('namespace');
    if (namespace === '') throw new AuthenticationError('namespace claim is missing');
    const secretName = claim('secret.name');
    if (secretName === '') throw new AuthenticationError('secretName claim is missing');
    const name = claim('service-account.name');
    if (name === '') throw new AuthenticationError('serviceAccountName claim is missing');
    const uid = claim('service-account.uid');
    if (uid === '') throw new AuthenticationError('serviceAccountUID claim is missing');
    if (sub !== serviceAccountUsername(namespace, name)) throw new AuthenticationError('sub claim is invalid');
    if (this.opts.lookup) {
      const { lookups } = this.opts;
      const secret = await lookups.secrets(namespace, secretName);
      // legacy.go's texts, capitalised as kube has them.
      if (!secret || secret.metadata?.deletionTimestamp) throw new AuthenticationError('Token has been invalidated');
      const stored = (secret.data as Record<string, unknown> | undefined)?.token;
      const storedBytes = Buffer.from(typeof stored === 'string' ? stored : '', 'base64');
      const given = Buffer.from(token);
      if (storedBytes.length !== given.length || !timingSafeEqual(storedBytes, given)) throw new AuthenticationError("Token does not match server's copy");
      const sa = await lookups.serviceAccounts(namespace, name);
      if (!sa) throw new AuthenticationError(`serviceaccounts "${name}" not found`);
      if (sa.metadata?.deletionTimestamp) throw new AuthenticationError(`ServiceAccount ${namespace}/${name} has been deleted`);
      if (sa.metadata?.uid !== uid) throw new AuthenticationError(`ServiceAccount UID (${sa.metadata?.uid ?? ''}) does not match claim (${uid})`);
    }
    return { namespace, name, uid };
  }
}

function refOf(v: unknown): Ref | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const r = v as { name?: unknown; uid?: unknown };
  return { name: typeof r.name === 'string' ? r.name : '', uid: typeof r.uid === 'string' ? r.uid : '' };
}
