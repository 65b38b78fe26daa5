import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { Controller } from './controller.js';
import { createIfMissing } from './writes.js';

/**
 * kube-apiserver's bootstrap and system-namespaces controllers: `default`,
 * `kube-system`, `kube-public` and `kube-node-lease` exist from the first
 * start and are recreated (every minute) if they ever go missing. As in
 * kube, every server process runs it; creates that lose a race are fine.
 */

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };
const RECHECK_MS = 60_000;
/** While a create keeps failing (e.g. the store is away). */
const WAIT_MS = 500;

export class SystemNamespaces implements Controller {
  readonly name = 'system-namespaces';
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** True once every system namespace has been seen or created. */
  done = false;

  /** Reads from `namespaces` (the cache); creates through `client` (kube-apiserver's loopback). */
  constructor(
    private readonly namespaces: ResourceStore,
    private readonly client: ApiClient,
  ) {}

  /** Resolves once the namespaces exist (a server that says it is ready can be used at once). */
  async start(): Promise<void> {
    await this.ensure();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.ensure().catch(() => undefined).finally(() => this.schedule()), this.done ? RECHECK_MS : WAIT_MS);
    this.timer.unref();
  }

  async ensure(): Promise<void> {
    for (const name of SYSTEM_NAMESPACES) {
      try {
        await this.namespaces.get(undefined, name);
        continue;
      } catch (err) {
        if (!isApiError(err, 'NotFound')) throw err;
      }
      await createIfMissing(this.client, NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    this.done = true;
  }
}
