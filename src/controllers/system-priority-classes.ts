import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/object.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { Controller } from './controller.js';
import { createIfMissing } from './writes.js';

/**
 * kube-apiserver's scheduling/bootstrap-system-priority-classes post-start
 * hook: the PriorityClasses system-node-critical and system-cluster-critical
 * exist once the server is ready. Every process runs it at start (creates
 * that lose a race are fine); one deleted later is not recreated until the
 * next start, as in kube.
 */

/** SystemCriticalPriority: twice HighestUserDefinablePriority (1e9). */
const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;
const PRIORITY_CLASSES = { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' };
/** While a create keeps failing (e.g. the store is away). */
const WAIT_MS = 500;

export const SYSTEM_PRIORITY_CLASSES: readonly KubeObject[] = [
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: SYSTEM_CRITICAL_PRIORITY,
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

export class SystemPriorityClasses implements Controller {
  readonly name = 'system-priority-classes';
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** True once both classes have been seen or created (the hook's health check). */
  done = false;

  /** Reads from `priorityClasses` (the cache); creates through `client` (kube-apiserver's loopback). */
  constructor(
    private readonly priorityClasses: ResourceStore,
    private readonly client: ApiClient,
  ) {}

  /** Resolves after a first attempt (a ready server has the classes); failures are retried and hold readiness back. */
  async start(): Promise<void> {
    await this.ensure().catch(() => this.retry());
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private retry(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.ensure().catch(() => this.retry()), WAIT_MS);
    this.timer.unref();
  }

  async ensure(): Promise<void> {
    for (const pc of SYSTEM_PRIORITY_CLASSES) {
      try {
        await this.priorityClasses.get(undefined, pc.metadata!.name!);
        continue;
      } catch (err) {
        if (!isApiError(err, 'NotFound')) throw err;
      }
      await createIfMissing(this.client, PRIORITY_CLASSES, structuredClone(pc));
    }
    this.done = true;
  }
}
