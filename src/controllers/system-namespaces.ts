import { isApiError } from '../machinery/errors.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { Controller } from './controller.js';

/**
 * kube-apiserver's bootstrap and system-namespaces controllers: `default`,
 * `kube-system`, `kube-public` and `kube-node-lease` exist from the first
 * start and are recreated (every minute) if they ever go missing.
 */

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const RECHECK_MS = 60_000;
/** While a follower waits for the leader to create them. */
const WAIT_MS = 500;
const START_WAIT_MS = 5000;

export class SystemNamespaces implements Controller {
  readonly name = 'system-namespaces';
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** True once every system namespace has been seen or created. */
  done = false;

  /**
   * `mayCreate` says whether this process may create missing namespaces now:
   * with several processes on one store, only the leader does (the others
   * wait until they see them, which is what their readiness waits for).
   */
  constructor(
    private readonly namespaces: ResourceStore,
    private readonly mayCreate: () => boolean = () => true,
  ) {}

  /**
   * Resolves once the namespaces exist or, on a follower whose leader has
   * not created them yet, after a short wait (polling goes on, readiness
   * waits): a server that says it is ready can be used at once.
   */
  async start(): Promise<void> {
    await this.ensure();
    const deadline = Date.now() + START_WAIT_MS;
    while (!this.done && !this.stopped && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      await this.ensure().catch(() => undefined);
    }
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
    let missing = 0;
    for (const name of SYSTEM_NAMESPACES) {
      try {
        await this.namespaces.get(undefined, name);
        continue;
      } catch (err) {
        if (!isApiError(err, 'NotFound')) throw err;
      }
      if (!this.mayCreate()) {
        missing++;
        continue;
      }
      try {
        await this.namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, undefined);
      } catch (err) {
        if (!isApiError(err, 'AlreadyExists')) throw err;
      }
    }
    if (missing === 0) this.done = true;
  }
}
