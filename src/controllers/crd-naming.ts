import type { ApiClient, ObjectRef } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { cloneObject, jsonEqual, type KubeObject } from '../machinery/object.js';
import { conditionEquivalent, conditionTrue, crdSpec, crdStatus, CRD_GROUP, CRD_RESOURCE, findCondition, setCondition, type CrdCondition } from '../apiextensions/crd.js';
import { calculateNames } from '../apiextensions/naming.js';
import { apiApprovalState, isProtectedGroup } from '../apiextensions/versions.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';
import { WorkQueue, type ResourceFollower } from '../registry/informer.js';

/**
 * kube's CRD status controllers, on the leader: the naming controller
 * (status.acceptedNames and NamesAccepted, Established False until then),
 * the establishing controller (Established True once the names are served
 * here: "InitialNamesAccepted") and the API approval controller
 * (KubernetesAPIApprovalPolicyConformant for *.k8s.io and *.kubernetes.io
 * groups). Writes go through the status subresource, as kube's do.
 */

/** How soon to look again when this process does not serve the accepted names yet, and for how long (a CRD shadowed by a built-in resource is never served). */
const SERVE_WAIT_MS = 50;
const SERVE_WAIT_TRIES = 100;

const APPROVAL_REASONS = { Approved: 'ApprovedAnnotation', Bypassed: 'UnapprovedAnnotation', Invalid: 'InvalidAnnotation', Missing: 'MissingAnnotation' } as const;

function approvalCondition(crd: KubeObject): CrdCondition | undefined {
  if (!isProtectedGroup(crdSpec(crd).group ?? '')) return undefined;
  const { state, reason } = apiApprovalState(crd.metadata?.annotations);
  return { type: 'KubernetesAPIApprovalPolicyConformant', status: state === 'Approved' ? 'True' : 'False', reason: APPROVAL_REASONS[state], message: reason };
}

export class CrdNaming implements Controller {
  readonly name = 'crd-naming';
  private readonly informer: ResourceFollower;
  private readonly queue: WorkQueue;
  private readonly waits = new Map<string, number>();

  constructor(
    crds: ResourceStore,
    private readonly client: ApiClient,
    /** Whether this process serves the CRD's resource yet (the establishing controller waits for it). */
    private readonly served: (group: string, plural: string) => boolean,
    shared: ControllerShared = {},
  ) {
    const follow = followerFactory(shared);
    this.queue = new WorkQueue((name) => this.sync(name), { name: 'crd_naming_condition_controller', backoff: { baseMs: 1000, maxMs: 1000 }, ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.informer = follow(crds, (type, crd) => {
      if (type === 'DELETED') this.requeueGroup(crdSpec(crd).group ?? '', '');
      else this.queue.add(crd.metadata?.name ?? '');
    });
  }

  async start(): Promise<void> {
    await this.informer.start();
  }

  stop(): void {
    this.informer.stop();
    this.queue.stop();
  }

  private requeueGroup(group: string, except: string): void {
    for (const crd of this.informer.list()) {
      const name = crd.metadata?.name ?? '';
      if (name !== except && crdSpec(crd).group === group) this.queue.add(name);
    }
  }

  private ref(name: string): ObjectRef {
    return { group: CRD_GROUP, version: 'v1', resource: CRD_RESOURCE, name, subresource: 'status' };
  }

  private async writeStatus(crd: KubeObject): Promise<boolean> {
    try {
      await this.client.update(this.ref(crd.metadata!.name!), crd);
      return true;
    } catch (err) {
      // A newer version is on its way through the informer, or the CRD is gone.
      if (isApiError(err, 'Conflict') || isApiError(err, 'NotFound')) return false;
      throw err;
    }
  }

  private async sync(name: string): Promise<void> {
    const cached = this.informer.get(name);
    if (!cached) return;
    const naming = calculateNames(cached, this.informer.list());
    const approval = approvalCondition(cached);
    const namesChanged = !jsonEqual(crdStatus(cached).acceptedNames ?? {}, naming.acceptedNames) || !conditionEquivalent(naming.namesAccepted, findCondition(cached, 'NamesAccepted'));
    const approvalChanged = approval !== undefined && !conditionEquivalent(approval, findCondition(cached, approval.type));
    if (namesChanged || approvalChanged) {
      const crd = cloneObject(cached);
      if (namesChanged) {
        crd.status = { ...crdStatus(crd), acceptedNames: naming.acceptedNames };
        setCondition(crd, naming.namesAccepted);
        setCondition(crd, naming.established);
      }
      if (approval) setCondition(crd, approval);
      // Accepting names may release others' wanted names: the group's other CRDs look again.
      if ((await this.writeStatus(crd)) && namesChanged) this.requeueGroup(crdSpec(crd).group ?? '', name);
      return;
    }
    if (!conditionTrue(cached, 'NamesAccepted') || conditionTrue(cached, 'Established')) return;
    const spec = crdSpec(cached);
    const tries = this.waits.get(name) ?? 0;
    if (!this.served(spec.group ?? '', spec.names?.plural ?? '') && tries < SERVE_WAIT_TRIES) {
      this.waits.set(name, tries + 1);
      this.queue.addAfter(name, SERVE_WAIT_MS);
      return;
    }
    this.waits.delete(name);
    const crd = cloneObject(cached);
    setCondition(crd, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    await this.writeStatus(crd);
  }
}
