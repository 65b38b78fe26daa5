import { isApiError } from '../server/errors.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { Controller } from './controller.js';

/**
 * kube-apiserver's bootstrap and system-namespaces controllers: `default`,
 * `kube-system`, `kube-public` and `kube-node-lease` exist from the first
 * start and are recreated (every minute) if they ever go missing.
 */

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const RECHECK_MS = 60_000;

export class SystemNamespaces implements Controller {
  readonly name = 'system-namespaces';
  private timer: NodeJS.Timeout | undefined;
  /** True once every system namespace has been seen or created. */
  done = false;

  constructor(private readonly namespaces: ResourceStore) {}

  async start(): Promise<void> {
    await this.ensure();
    this.timer = setInterval(() => void this.ensure().catch(() => undefined), RECHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async ensure(): Promise<void> {
    for (const name of SYSTEM_NAMESPACES) {
      try {
        await this.namespaces.get(undefined, name);
        continue;
      } catch (err) {
        if (!isApiError(err, 'NotFound')) throw err;
      }
      try {
        await this.namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, undefined);
      } catch (err) {
        if (!isApiError(err, 'AlreadyExists')) throw err;
      }
    }
    this.done = true;
  }
}
