import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../admission/storage/storage-object-in-use-protection.js';
import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { cloneObject, type KubeObject } from '../machinery/object.js';
import { Informer, WorkQueue, type ResourceFollower } from '../registry/informer.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';

/**
 * kube-controller-manager's persistentvolumeclaim-protection-controller and
 * persistentvolume-protection-controller (pkg/controller/volume/
 * pvcprotection, pvprotection). The StorageObjectInUseProtection admission
 * plugin puts kubernetes.io/pvc-protection and kubernetes.io/pv-protection
 * on every claim and volume; these controllers take them off a deleted
 * object once nothing uses it (so the delete completes), and add them to
 * live objects that lack them. Their inputs are API objects (pods naming
 * claims, a volume's phase), so they run here; a pod counts as using a
 * claim only once it names a node, as in kube.
 */

const PVCS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const PVS = { group: '', version: 'v1', resource: 'persistentvolumes' };
const PODS = { group: '', version: 'v1', resource: 'pods' };

interface PodVolume {
  name?: string;
  persistentVolumeClaim?: { claimName?: string };
  ephemeral?: unknown;
}

function volumesOf(pod: KubeObject): PodVolume[] {
  const v = (pod.spec as { volumes?: unknown } | undefined)?.volumes;
  return Array.isArray(v) ? (v as PodVolume[]) : [];
}

/** protectionutil.IsDeletionCandidate. */
function isDeletionCandidate(obj: KubeObject, finalizer: string): boolean {
  return !!obj.metadata?.deletionTimestamp && (obj.metadata.finalizers ?? []).includes(finalizer);
}

/** protectionutil.NeedToAddFinalizer. */
function needsFinalizer(obj: KubeObject, finalizer: string): boolean {
  return !obj.metadata?.deletionTimestamp && !(obj.metadata?.finalizers ?? []).includes(finalizer);
}

/** kube's podIsShutDown: force-deleted, or done with by its kubelet (grace period 0). */
function podIsShutDown(pod: KubeObject): boolean {
  return !!pod.metadata?.deletionTimestamp && pod.metadata.deletionGracePeriodSeconds === 0;
}

/** kube's podUsesPVC: a scheduled pod naming the claim, or owning it as one of its generic ephemeral volumes. */
export function podUsesClaim(pod: KubeObject, claim: KubeObject): boolean {
  if (!(pod.spec as { nodeName?: string } | undefined)?.nodeName) return false;
  const claimName = claim.metadata?.name;
  return volumesOf(pod).some((v) => {
    if (v.persistentVolumeClaim) return v.persistentVolumeClaim.claimName === claimName;
    if (!v.ephemeral || podIsShutDown(pod) || `${pod.metadata?.name}-${v.name}` !== claimName) return false;
    // ephemeral.VolumeIsForPod: the claim is controlled by this very pod.
    return (claim.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.uid === pod.metadata?.uid);
  });
}

/** Adds or removes a finalizer with an update carrying the resourceVersion read (a conflict is retried by the queue). */
async function updateFinalizers(client: ApiClient, ref: { group: string; version: string; resource: string; namespace?: string; name: string }, obj: KubeObject, finalizers: string[]): Promise<void> {
  const next = cloneObject(obj);
  next.metadata = { ...next.metadata, finalizers };
  try {
    await client.update(ref, next);
  } catch (err) {
    if (!isApiError(err, 'NotFound')) throw err;
  }
}

export class PvcProtection implements Controller {
  readonly name = 'persistentvolumeclaim-protection-controller';
  private readonly claims: ResourceFollower;
  private readonly pods: ResourceFollower;
  private readonly queue: WorkQueue;

  constructor(claims: ResourceStore, pods: ResourceStore, private readonly client: ApiClient, shared: ControllerShared = {}) {
    const follow = followerFactory(shared);
    this.queue = new WorkQueue((key) => this.sync(key), { name: 'pvcprotection', ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.claims = follow(claims, (type, pvc) => {
      if (type !== 'DELETED' && (needsFinalizer(pvc, PVC_PROTECTION_FINALIZER) || isDeletionCandidate(pvc, PVC_PROTECTION_FINALIZER))) this.queue.add(Informer.keyOf(pvc));
    });
    this.pods = follow(pods, (type, pod) => {
      // Only a pod going away (or not or no longer running on a node) can free a claim.
      const phase = (pod.status as { phase?: string } | undefined)?.phase;
      const terminated = phase === 'Succeeded' || phase === 'Failed';
      if (type !== 'DELETED' && !terminated && (pod.spec as { nodeName?: string } | undefined)?.nodeName) return;
      for (const v of volumesOf(pod)) {
        const name = v.persistentVolumeClaim ? v.persistentVolumeClaim.claimName : v.ephemeral ? `${pod.metadata?.name}-${v.name}` : undefined;
        if (name) this.queue.add(`${pod.metadata?.namespace}/${name}`);
      }
    });
  }

  async start(): Promise<void> {
    await this.pods.start();
    await this.claims.start();
  }

  stop(): void {
    this.claims.stop();
    this.pods.stop();
    this.queue.stop();
  }

  private async sync(key: string): Promise<void> {
    const pvc = this.claims.get(key);
    if (!pvc) return;
    const ref = { ...PVCS, namespace: pvc.metadata!.namespace!, name: pvc.metadata!.name! };
    const finalizers = pvc.metadata?.finalizers ?? [];
    if (isDeletionCandidate(pvc, PVC_PROTECTION_FINALIZER)) {
      if (await this.isBeingUsed(pvc)) return;
      await updateFinalizers(this.client, ref, pvc, finalizers.filter((f) => f !== PVC_PROTECTION_FINALIZER));
      return;
    }
    if (needsFinalizer(pvc, PVC_PROTECTION_FINALIZER)) await updateFinalizers(this.client, ref, pvc, [...finalizers, PVC_PROTECTION_FINALIZER]);
  }

  /** The informer's pods first; none found there, a live list (a pod may not be in the cache yet), as kube does. */
  private async isBeingUsed(pvc: KubeObject): Promise<boolean> {
    const namespace = pvc.metadata?.namespace;
    if (this.pods.list().some((p) => p.metadata?.namespace === namespace && podUsesClaim(p, pvc))) return true;
    const live = await this.client.list({ ...PODS, namespace: namespace! });
    return (live.items ?? []).some((p) => podUsesClaim(p, pvc));
  }
}

export class PvProtection implements Controller {
  readonly name = 'persistentvolume-protection-controller';
  private readonly volumes: ResourceFollower;
  private readonly queue: WorkQueue;

  constructor(volumes: ResourceStore, private readonly client: ApiClient, shared: ControllerShared = {}) {
    const follow = followerFactory(shared);
    this.queue = new WorkQueue((key) => this.sync(key), { name: 'pvprotection', ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.volumes = follow(volumes, (type, pv) => {
      if (type !== 'DELETED' && (needsFinalizer(pv, PV_PROTECTION_FINALIZER) || isDeletionCandidate(pv, PV_PROTECTION_FINALIZER))) this.queue.add(Informer.keyOf(pv));
    });
  }

  async start(): Promise<void> {
    await this.volumes.start();
  }

  stop(): void {
    this.volumes.stop();
    this.queue.stop();
  }

  private async sync(key: string): Promise<void> {
    const pv = this.volumes.get(key);
    if (!pv) return;
    const ref = { ...PVS, name: pv.metadata!.name! };
    const finalizers = pv.metadata?.finalizers ?? [];
    if (isDeletionCandidate(pv, PV_PROTECTION_FINALIZER)) {
      // kube's isBeingUsed: a Bound volume is in use.
      if ((pv.status as { phase?: string } | undefined)?.phase === 'Bound') return;
      await updateFinalizers(this.client, ref, pv, finalizers.filter((f) => f !== PV_PROTECTION_FINALIZER));
      return;
    }
    if (needsFinalizer(pv, PV_PROTECTION_FINALIZER)) await updateFinalizers(this.client, ref, pv, [...finalizers, PV_PROTECTION_FINALIZER]);
  }
}
