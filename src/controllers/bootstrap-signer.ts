import { createHmac } from 'node:crypto';
import { bootstrapSecretField, bootstrapTokenTtl, BOOTSTRAP_SECRET_PREFIX, BOOTSTRAP_SECRET_TYPE } from '../authn/bootstrap-token.js';
import { toYaml } from '../codec/codec.js';
import type { ApiClient } from '../machinery/client.js';
import type { KubeObject } from '../machinery/object.js';
import { WorkQueue, type ResourceFollower } from '../registry/informer.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';
import { createIfMissing, readModifyWrite } from './writes.js';

/**
 * kube-controller-manager's bootstrap-signer-controller (off by default, as
 * in kube), plus what kubeadm sets up around it: `kube-public/cluster-info`
 * holds a `kubeconfig` (this server and its CA) and one detached JWS
 * `jws-kubeconfig-<token-id>` per bootstrap token that may sign (not
 * expired, usage-bootstrap-signing=true); anonymous clients may read it
 * (kubeadm's Role and RoleBinding `kubeadm:bootstrap-signer-clusterinfo`).
 * The signature is a detached JWS as SPEC.md states it: HS256 with the full
 * token (`<token-id>.<token-secret>`) as the shared secret, header
 * {"alg":"HS256","kid":<token-id>}, the payload left out
 * (`header..signature`). cluster-bootstrap's ComputeDetachedSignature keys
 * it with the token secret alone; SPEC.md is the contract here.
 */

const PUBLIC_NAMESPACE = 'kube-public';
const TOKEN_NAMESPACE = 'kube-system';
export const CLUSTER_INFO = 'cluster-info';
const KUBECONFIG_KEY = 'kubeconfig';
export const JWS_PREFIX = 'jws-kubeconfig-';
const READER = 'kubeadm:bootstrap-signer-clusterinfo';
const TOKEN_ID = /^[a-z0-9]{6}$/;
const TOKEN_SECRET = /^[a-z0-9]{16}$/;
const MAX_DELAY_MS = 2 ** 31 - 1;
const KEY = 'cluster-info';

function b64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

/** A detached HS256 JWS of `content` (RFC 7515 appendix F). */
export function detachedSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  const signature = createHmac('sha256', `${tokenId}.${tokenSecret}`).update(`${header}.${b64url(content)}`).digest();
  return `${header}..${b64url(signature)}`;
}

/** The cluster-info kubeconfig, as kubeadm writes it: one nameless cluster, nothing else. */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return toYaml({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': Buffer.from(caPem).toString('base64'), server }, name: '' }],
    contexts: null,
    'current-context': '',
    kind: 'Config',
    preferences: {},
    users: null,
  });
}

export class BootstrapSigner implements Controller {
  readonly name = 'bootstrap-signer-controller';
  private readonly secrets: ResourceFollower;
  private readonly configMaps: ResourceFollower;
  private readonly queue: WorkQueue;

  constructor(
    secrets: ResourceStore,
    configMaps: ResourceStore,
    private readonly client: ApiClient,
    private readonly server: string,
    private readonly caPem: string,
    shared: ControllerShared = {},
    private readonly now: () => number = Date.now,
  ) {
    const follow = followerFactory(shared);
    this.queue = new WorkQueue(() => this.sync(), { name: 'bootstrap_signer_queue', ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.secrets = follow(secrets, (_type, s) => {
      if (s.metadata?.namespace === TOKEN_NAMESPACE && s.type === BOOTSTRAP_SECRET_TYPE) this.queue.add(KEY);
    });
    this.configMaps = follow(configMaps, (_type, cm) => {
      if (cm.metadata?.namespace === PUBLIC_NAMESPACE && cm.metadata.name === CLUSTER_INFO) this.queue.add(KEY);
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.secrets.start(), this.configMaps.start()]);
    await this.ensureReader();
    this.queue.add(KEY);
  }

  stop(): void {
    this.secrets.stop();
    this.configMaps.stop();
    this.queue.stop();
  }

  /** Signing tokens by id (validateSecretForSigning); the next expiry, to sign again then. */
  private signingTokens(): { tokens: Map<string, string>; nextExpiry: number | undefined } {
    const tokens = new Map<string, string>();
    let nextExpiry: number | undefined;
    for (const s of this.secrets.list()) {
      if (s.metadata?.namespace !== TOKEN_NAMESPACE || s.type !== BOOTSTRAP_SECRET_TYPE || s.metadata.deletionTimestamp) continue;
      const id = bootstrapSecretField(s, 'token-id') ?? '';
      const secret = bootstrapSecretField(s, 'token-secret') ?? '';
      if (!TOKEN_ID.test(id) || !TOKEN_SECRET.test(secret) || s.metadata.name !== BOOTSTRAP_SECRET_PREFIX + id) continue;
      const ttl = bootstrapTokenTtl(bootstrapSecretField(s, 'expiration'), this.now());
      if (ttl === 'expired' || bootstrapSecretField(s, 'usage-bootstrap-signing') !== 'true') continue;
      if (ttl !== undefined) nextExpiry = Math.min(nextExpiry ?? Infinity, ttl);
      tokens.set(id, secret);
    }
    return { tokens, nextExpiry };
  }

  private async sync(): Promise<void> {
    const { tokens, nextExpiry } = this.signingTokens();
    const kubeconfig = clusterInfoKubeconfig(this.server, this.caPem);
    await readModifyWrite(this.client, { group: '', version: 'v1', resource: 'configmaps', namespace: PUBLIC_NAMESPACE, name: CLUSTER_INFO }, (current) => {
      const data: Record<string, string> = { ...((current?.data ?? {}) as Record<string, string>) };
      // An operator's kubeconfig is kept and signed; a missing one is this server's.
      const content = data[KUBECONFIG_KEY] ?? kubeconfig;
      const next: Record<string, string> = {};
      for (const [k, v] of Object.entries(data)) if (!k.startsWith(JWS_PREFIX)) next[k] = v;
      next[KUBECONFIG_KEY] = content;
      for (const [id, secret] of tokens) next[JWS_PREFIX + id] = detachedSignature(content, id, secret);
      if (current && JSON.stringify(Object.entries(next).sort()) === JSON.stringify(Object.entries(data).sort())) return undefined;
      const base: KubeObject = current ?? { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO, namespace: PUBLIC_NAMESPACE } };
      return { ...base, data: next };
    });
    // A signature goes when its token expires.
    if (nextExpiry !== undefined) this.queue.addAfter(KEY, Math.min(nextExpiry + 1, MAX_DELAY_MS));
  }

  /** kubeadm's anonymous read access to cluster-info. */
  private async ensureReader(): Promise<void> {
    const rbac = { group: 'rbac.authorization.k8s.io', version: 'v1', namespace: PUBLIC_NAMESPACE };
    await createIfMissing(this.client, { ...rbac, resource: 'roles' }, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: READER, namespace: PUBLIC_NAMESPACE },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO], verbs: ['get'] }],
    });
    await createIfMissing(this.client, { ...rbac, resource: 'rolebindings' }, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: READER, namespace: PUBLIC_NAMESPACE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: READER },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:anonymous' }],
    });
  }
}
