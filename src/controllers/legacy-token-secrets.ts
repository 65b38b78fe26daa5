import type { ServiceAccountTokenIssuer } from '../authn/service-account-issuer.js';
import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { cloneObject, type KubeObject } from '../machinery/object.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';
import { Informer, WorkQueue, type ResourceFollower } from '../registry/informer.js';
import { readModifyWrite } from './writes.js';

/**
 * kube-controller-manager's tokens controller: a Secret of type
 * kubernetes.io/service-account-token naming a ServiceAccount (annotation
 * kubernetes.io/service-account.name) gets a legacy token for it, the
 * cluster's CA and its namespace, and the account's uid as annotation; a
 * token Secret whose ServiceAccount does not exist (or has another uid) is
 * deleted, as are an account's token Secrets when the account goes. Reads
 * through informers, writes through the API.
 */

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
const NAME_ANNOTATION = 'kubernetes.io/service-account.name';
const UID_ANNOTATION = 'kubernetes.io/service-account.uid';
const SECRETS = { group: '', version: 'v1', resource: 'secrets' };

export class LegacyTokenSecrets implements Controller {
  readonly name = 'legacy-token-secrets';
  private readonly secrets: ResourceFollower;
  private readonly serviceAccounts: ResourceFollower;
  private readonly queue: WorkQueue;

  constructor(
    secrets: ResourceStore,
    serviceAccounts: ResourceStore,
    private readonly client: ApiClient,
    private readonly issuer: ServiceAccountTokenIssuer,
    private readonly caPem: string,
    shared: ControllerShared = {},
  ) {
    const follow = followerFactory(shared);
    this.queue = new WorkQueue((key) => this.sync(key), { name: 'serviceaccount_tokens_secret', backoff: { baseMs: 1000, maxMs: 1000 }, ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.secrets = follow(secrets, (type, secret) => {
      if (type !== 'DELETED' && secret.type === SERVICE_ACCOUNT_TOKEN_TYPE) this.queue.add(Informer.keyOf(secret));
    });
    this.serviceAccounts = follow(serviceAccounts, (_type, sa) => {
      // An account that comes or goes changes what its token Secrets should be.
      const ns = sa.metadata?.namespace;
      for (const s of this.secrets.list()) {
        if (s.type === SERVICE_ACCOUNT_TOKEN_TYPE && s.metadata?.namespace === ns && s.metadata?.annotations?.[NAME_ANNOTATION] === sa.metadata?.name) this.queue.add(Informer.keyOf(s));
      }
    });
  }

  async start(): Promise<void> {
    await this.serviceAccounts.start();
    await this.secrets.start();
    for (const s of this.secrets.list()) if (s.type === SERVICE_ACCOUNT_TOKEN_TYPE) this.queue.add(Informer.keyOf(s));
  }

  stop(): void {
    this.secrets.stop();
    this.serviceAccounts.stop();
    this.queue.stop();
  }

  private async sync(key: string): Promise<void> {
    const secret = this.secrets.get(key);
    if (!secret || secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE || secret.metadata?.deletionTimestamp) return;
    const namespace = secret.metadata?.namespace ?? '';
    const name = secret.metadata?.name ?? '';
    const annotations = secret.metadata?.annotations ?? {};
    const sa = this.serviceAccounts.get(`${namespace}/${annotations[NAME_ANNOTATION] ?? ''}`);
    const wantUid = annotations[UID_ANNOTATION];
    if (!sa || (wantUid && wantUid !== sa.metadata?.uid)) {
      // Not the account the Secret was made for: the Secret goes (only this very Secret, by uid).
      try {
        await this.client.delete({ ...SECRETS, namespace, name }, { preconditions: { uid: secret.metadata?.uid } });
      } catch (err) {
        if (!isApiError(err, 'NotFound') && !isApiError(err, 'Conflict')) throw err;
      }
      return;
    }
    const data = (secret.data ?? {}) as Record<string, string>;
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    const needs = !data.token || data['ca.crt'] !== b64(this.caPem) || data.namespace !== b64(namespace) || wantUid !== sa.metadata?.uid;
    if (!needs) return;
    const token = data.token ? undefined : await this.issuer.legacyToken(sa, secret);
    await readModifyWrite(this.client, { ...SECRETS, namespace, name }, (cur) => {
      if (!cur || cur.metadata?.uid !== secret.metadata?.uid || cur.metadata?.deletionTimestamp) return undefined;
      const next = cloneObject(cur);
      const d = { ...((next.data ?? {}) as Record<string, string>) };
      if (!d.token && token) d.token = b64(token);
      d['ca.crt'] = b64(this.caPem);
      d.namespace = b64(namespace);
      next.data = d;
      next.metadata = { ...next.metadata, annotations: { ...(next.metadata?.annotations ?? {}), [UID_ANNOTATION]: sa.metadata?.uid ?? '' } };
      return next as KubeObject;
    });
  }
}
