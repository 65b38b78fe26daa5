import type { ApiCatalog } from '../api/catalog.js';
import { TypeChecker } from '../admission/policy/type-check.js';
import type { ValidatingAdmissionPolicy } from '../admission/policy/types.js';
import type { ApiClient } from '../machinery/client.js';
import { Informer, WorkQueue } from '../registry/informer.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { Controller } from './controller.js';
import { VAP_STATUS as VAP_STATUS_CONTROLLER } from './controller-names.js';

/**
 * kube-controller-manager's ValidatingAdmissionPolicy status controller, on
 * the leader: for each policy whose generation is past
 * status.observedGeneration, the type checker's expression warnings go to
 * status.typeChecking with observedGeneration, by a forced server-side apply
 * of the status subresource under the controller's name.
 */

export { VAP_STATUS_CONTROLLER };

export class ValidatingAdmissionPolicyStatus implements Controller {
  readonly name = VAP_STATUS_CONTROLLER;
  private readonly informer: Informer;
  private readonly queue: WorkQueue;
  private readonly typeChecker: TypeChecker;

  constructor(policies: ResourceStore, catalog: ApiCatalog, private readonly client: ApiClient) {
    this.typeChecker = new TypeChecker(catalog);
    this.queue = new WorkQueue((name) => this.reconcile(name));
    this.informer = new Informer(policies, (type, policy) => {
      if (type !== 'DELETED') this.queue.add(policy.metadata?.name ?? '');
    });
  }

  async start(): Promise<void> {
    void this.informer.start();
    await this.informer.waitForSync();
  }

  stop(): void {
    this.informer.stop();
    this.queue.stop();
  }

  private async reconcile(name: string): Promise<void> {
    const policy = this.informer.get(name) as ValidatingAdmissionPolicy | undefined;
    if (!policy) return;
    const generation = Number(policy.metadata?.generation ?? 0);
    const observed = Number((policy.status as { observedGeneration?: number } | undefined)?.observedGeneration ?? 0);
    if (generation <= observed) return;
    const expressionWarnings = this.typeChecker.check(policy.spec ?? {});
    await this.client.patch(
      { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies', name, subresource: 'status' },
      'apply',
      {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name },
        // an empty list is left out, as client-go's apply configuration leaves it
        status: { observedGeneration: generation, typeChecking: expressionWarnings.length > 0 ? { expressionWarnings } : {} },
      },
      { fieldManager: VAP_STATUS_CONTROLLER, force: true },
    );
  }
}
