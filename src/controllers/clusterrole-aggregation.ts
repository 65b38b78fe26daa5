import { RBAC_API_VERSION, RBAC_GROUP } from '../authz/rbac/bootstrap-policy.js';
import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { jsonEqual, type KubeObject } from '../machinery/object.js';
import { labelSelectorMatches } from '../machinery/selectors.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';
import { WorkQueue, type ResourceFollower } from '../registry/informer.js';

/**
 * kube-controller-manager's clusterrole-aggregation controller
 * (pkg/controller/clusterroleaggregation): a ClusterRole with an
 * aggregationRule gets, as its rules, the rules of every other ClusterRole
 * its selectors pick (in name order, each rule once), written by
 * server-side apply as the manager `clusterrole-aggregation-controller`.
 * Any ClusterRole change requeues every aggregated one.
 */

const FIELD_MANAGER = 'clusterrole-aggregation-controller';

function selectorsOf(role: KubeObject): unknown[] {
  const rule = role.aggregationRule as { clusterRoleSelectors?: unknown } | undefined;
  return Array.isArray(rule?.clusterRoleSelectors) ? rule.clusterRoleSelectors : [];
}

/** The rules an aggregated role should have, from the roles its selectors pick. */
export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): unknown[] {
  const sorted = [...all].sort((a, b) => String(a.metadata?.name).localeCompare(String(b.metadata?.name)));
  const rules: unknown[] = [];
  for (const selector of selectorsOf(role)) {
    for (const other of sorted) {
      if (other.metadata?.name === role.metadata?.name) continue;
      if (!labelSelectorMatches(selector, other.metadata?.labels)) continue;
      for (const rule of Array.isArray(other.rules) ? other.rules : []) if (!rules.some((r) => jsonEqual(r, rule))) rules.push(rule);
    }
  }
  return rules;
}

export class ClusterRoleAggregation implements Controller {
  readonly name = 'clusterrole-aggregation';
  private readonly informer: ResourceFollower;
  private readonly queue: WorkQueue;

  constructor(clusterRoles: ResourceStore, private readonly client: ApiClient, shared: ControllerShared = {}) {
    const follow = followerFactory(shared);
    this.queue = new WorkQueue((name) => this.sync(name), { name: 'ClusterRoleAggregator', backoff: { baseMs: 1000, maxMs: 1000 }, ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.informer = follow(clusterRoles, () => this.enqueueAggregated());
  }

  async start(): Promise<void> {
    await this.informer.start();
    this.enqueueAggregated();
  }

  stop(): void {
    this.informer.stop();
    this.queue.stop();
  }

  private enqueueAggregated(): void {
    if (!this.informer.hasSynced) return;
    for (const role of this.informer.list()) if (selectorsOf(role).length > 0) this.queue.add(role.metadata!.name!);
  }

  private async sync(name: string): Promise<void> {
    const role = this.informer.get(name);
    if (!role || selectorsOf(role).length === 0) return;
    const rules = aggregatedRules(role, this.informer.list());
    if (jsonEqual(rules, Array.isArray(role.rules) ? role.rules : [])) return;
    try {
      await this.client.patch(
        { group: RBAC_GROUP, version: 'v1', resource: 'clusterroles', name },
        'apply',
        { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: { name }, rules },
        { fieldManager: FIELD_MANAGER, force: true },
      );
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
    }
  }
}
