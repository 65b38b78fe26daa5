import { bootstrapSecretField, bootstrapTokenTtl, BOOTSTRAP_SECRET_TYPE } from '../authn/bootstrap-token.js';
import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { Informer, WorkQueue, type ResourceFollower } from '../registry/informer.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';

/**
 * kube-controller-manager's token-cleaner-controller (off by default, as in
 * kube): deletes bootstrap token Secrets in kube-system once their
 * `expiration` has passed (an unparseable one counts as passed), with a uid
 * precondition; a Secret not yet expired is looked at again when it expires.
 */

const TOKEN_NAMESPACE = 'kube-system';
/** setTimeout's longest delay; a token expiring later is looked at again then. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class TokenCleaner implements Controller {
  readonly name = 'token-cleaner-controller';
  private readonly secrets: ResourceFollower;
  private readonly queue: WorkQueue;

  constructor(
    secrets: ResourceStore,
    private readonly client: ApiClient,
    shared: ControllerShared = {},
    private readonly now: () => number = Date.now,
  ) {
    const follow = followerFactory(shared);
    this.queue = new WorkQueue((key) => this.sync(key), { name: 'token_cleaner', ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.secrets = follow(secrets, (type, secret) => {
      if (type !== 'DELETED' && secret.metadata?.namespace === TOKEN_NAMESPACE && secret.type === BOOTSTRAP_SECRET_TYPE) this.queue.add(Informer.keyOf(secret));
    });
  }

  async start(): Promise<void> {
    await this.secrets.start();
  }

  stop(): void {
    this.secrets.stop();
    this.queue.stop();
  }

  private async sync(key: string): Promise<void> {
    const secret = this.secrets.get(key);
    if (!secret || secret.type !== BOOTSTRAP_SECRET_TYPE) return;
    const ttl = bootstrapTokenTtl(bootstrapSecretField(secret, 'expiration'), this.now());
    if (ttl === undefined) return;
    if (ttl !== 'expired') {
      this.queue.addAfter(key, Math.min(ttl + 1, MAX_DELAY_MS));
      return;
    }
    const m = secret.metadata!;
    try {
      await this.client.delete({ group: '', version: 'v1', resource: 'secrets', namespace: m.namespace!, name: m.name! }, m.uid ? { preconditions: { uid: m.uid } } : {});
    } catch (err) {
      // Gone already, or replaced (the uid precondition failed): nothing to clean.
      if (isApiError(err, 'NotFound') || isApiError(err, 'Conflict')) return;
      throw err;
    }
  }
}
