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
 * deleted, as are an account's token Secrets when the account goes; a
 * token Secret that goes is taken out of its account's `secrets`. Reads
 * through informers (an account missing there is looked up live before its
 * Secret is deleted, as kube does), writes through the API.
 */

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
const NAME_ANNOTATION = 'kubernetes.io/service-account.name';
const UID_ANNOTATION = 'kubernetes.io/service-account.uid';
const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const SERVICE_ACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' };

/** Who a deleted token Secret belonged to (kube's secretQueueKey), until its reference is removed. */
interface DeletedToken {
  saName: string;
  saUid: string | undefined;
}

export class LegacyTokenSecrets implements Controller {
  readonly name = 'legacy-token-secrets';
  private readonly secrets: ResourceFollower;
  private readonly serviceAccounts: ResourceFollower;
  private readonly queue: WorkQueue;
  private readonly deleted = new Map<string, DeletedToken>();

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
      if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return;
      const key = Informer.keyOf(secret);
      if (type === 'DELETED') {
        const saName = secret.metadata?.annotations?.[NAME_ANNOTATION];
        if (!saName) return;
        this.deleted.set(key, { saName, saUid: secret.metadata?.annotations?.[UID_ANNOTATION] });
      }
      this.queue.add(key);
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
    if (!secret) {
      const gone = this.deleted.get(key);
      if (gone) await this.removeSecretReference(key, gone);
      this.deleted.delete(key);
      return;
    }
    if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE || secret.metadata?.deletionTimestamp) return;
    const namespace = secret.metadata?.namespace ?? '';
    const name = secret.metadata?.name ?? '';
    const annotations = secret.metadata?.annotations ?? {};
    const saName = annotations[NAME_ANNOTATION] ?? '';
    const wantUid = annotations[UID_ANNOTATION];
    const matches = (o: KubeObject | undefined): KubeObject | undefined => (o && (!wantUid || wantUid === o.metadata?.uid) ? o : undefined);
    // kube's getServiceAccount(..., fetchOnCacheMiss): the cache, then the API, before a Secret is deleted.
    const sa = matches(this.serviceAccounts.get(`${namespace}/${saName}`)) ?? (saName ? matches(await this.liveServiceAccount(namespace, saName)) : undefined);
    if (!sa) {
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
    // kube's secretUpdateNeeded: another CA, no namespace, no token (a namespace someone wrote stays).
    const needs = !data.token || data['ca.crt'] !== b64(this.caPem) || !data.namespace;
    if (!needs) return;
    const token = data.token ? undefined : await this.issuer.legacyToken(sa, secret);
    await readModifyWrite(this.client, { ...SECRETS, namespace, name }, (cur) => {
      if (!cur || cur.metadata?.uid !== secret.metadata?.uid || cur.metadata?.deletionTimestamp) return undefined;
      const next = cloneObject(cur);
      const d = { ...((next.data ?? {}) as Record<string, string>) };
      if (!d.token && token) d.token = b64(token);
      d['ca.crt'] = b64(this.caPem);
      if (!d.namespace) d.namespace = b64(namespace);
      next.data = d;
      next.metadata = { ...next.metadata, annotations: { ...(next.metadata?.annotations ?? {}), [NAME_ANNOTATION]: sa.metadata?.name ?? '', [UID_ANNOTATION]: sa.metadata?.uid ?? '' } };
      return next as KubeObject;
    });
  }

  private async liveServiceAccount(namespace: string, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.client.get({ ...SERVICE_ACCOUNTS, namespace, name });
    } catch (err) {
      if (isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
  }

  /** kube's removeSecretReference: the account (same uid, when the Secret recorded one) no longer lists the Secret. */
  private async removeSecretReference(key: string, gone: DeletedToken): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    await readModifyWrite(this.client, { ...SERVICE_ACCOUNTS, namespace, name: gone.saName }, (cur) => {
      if (!cur || (gone.saUid && gone.saUid !== cur.metadata?.uid)) return undefined;
      const refs = ((cur as { secrets?: Array<{ name?: string }> }).secrets ?? []);
      if (!refs.some((r) => r.name === name)) return undefined;
      const next = cloneObject(cur) as KubeObject & { secrets?: Array<{ name?: string }> };
      next.secrets = refs.filter((r) => r.name !== name);
      return next;
    });
  }
}
