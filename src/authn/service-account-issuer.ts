import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../machinery/object.js';
import { signJwt, type JwtClaims } from './jwt.js';
import type { SigningKey } from './service-account-keys.js';
import { LEGACY_ISSUER, serviceAccountUsername } from './service-account-token.js';

/**
 * Issuing service account tokens (kube's serviceaccount.Claims and
 * JWTTokenGenerator): bound tokens for TokenRequest, legacy tokens for token
 * Secrets, both signed with the signing key. Claims are written in the order
 * kube's JSON has them (sorted keys).
 */

export interface BoundObjects {
  pod?: KubeObject | undefined;
  secret?: KubeObject | undefined;
  node?: KubeObject | undefined;
}

/** kube's ref{name, uid}, each left out when empty (a pod's node that does not exist has a name only). */
const ref = (o: KubeObject): { name?: string; uid?: string } => ({ ...(o.metadata?.name ? { name: o.metadata.name } : {}), ...(o.metadata?.uid ? { uid: o.metadata.uid } : {}) });

export class ServiceAccountTokenIssuer {
  constructor(
    /** The first --service-account-issuer. */
    readonly issuer: string,
    private readonly key: SigningKey,
    private readonly now: () => number = Date.now,
  ) {}

  /** A bound token; `warnAfterSeconds` (non-zero when its expiry was extended) is recorded as kube does. */
  async boundToken(sa: KubeObject, bound: BoundObjects, expirationSeconds: number, warnAfterSeconds: number, audiences: readonly string[]): Promise<{ token: string; expiresAt: number }> {
    const now = Math.floor(this.now() / 1000);
    const namespace = sa.metadata?.namespace ?? '';
    const k: Record<string, unknown> = { namespace };
    // A pod-bound token also names the pod's node (when the node exists); a Secret and a node exclude each other.
    if (bound.node) k.node = ref(bound.node);
    if (bound.pod) k.pod = ref(bound.pod);
    else if (bound.secret) k.secret = ref(bound.secret);
    k.serviceaccount = ref(sa);
    if (warnAfterSeconds !== 0) k.warnafter = now + warnAfterSeconds;
    const exp = now + expirationSeconds;
    const claims: JwtClaims = {
      aud: [...audiences],
      exp,
      iat: now,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': k,
      nbf: now,
      sub: serviceAccountUsername(namespace, sa.metadata?.name ?? ''),
    };
    return { token: await signJwt(claims, this.key), expiresAt: exp * 1000 };
  }

  /** A legacy token for a token Secret (no expiry, no audience). */
  legacyToken(sa: KubeObject, secret: KubeObject): Promise<string> {
    const namespace = sa.metadata?.namespace ?? '';
    const name = sa.metadata?.name ?? '';
    return signJwt(
      {
        iss: LEGACY_ISSUER,
        'kubernetes.io/serviceaccount/namespace': namespace,
        'kubernetes.io/serviceaccount/secret.name': secret.metadata?.name ?? '',
        'kubernetes.io/serviceaccount/service-account.name': name,
        'kubernetes.io/serviceaccount/service-account.uid': sa.metadata?.uid ?? '',
        sub: serviceAccountUsername(namespace, name),
      },
      this.key,
    );
  }
}
