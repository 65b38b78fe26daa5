import type { KubeObject } from '../../machinery/object.js';

/**
 * What the Node authorizer knows of which objects a node may reach (kube's
 * plugin/pkg/auth/authorizer/node graph, kept from the pods, persistent
 * volumes and VolumeAttachments watch caches): a pod bound to a node reaches its secrets,
 * configmaps, service account and claims; a persistent volume is reached
 * through the claim it is bound to; a VolumeAttachment and a ResourceSlice
 * reach the node they name. A node with no pod is unknown.
 */

export type VertexType = 'pod' | 'secret' | 'configmap' | 'serviceaccount' | 'pvc' | 'pv' | 'resourceclaim' | 'volumeattachment' | 'resourceslice';

type Key = string;
const key = (type: VertexType, namespace: string, name: string): Key => `${type}/${namespace}/${name}`;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The objects one pod refers to (kube's podutil.VisitPodSecretNames / VisitPodConfigmapNames, claims, service account). */
export function podReferences(pod: KubeObject): Array<[VertexType, string]> {
  const spec = obj(pod.spec);
  const refs: Array<[VertexType, string]> = [];
  const add = (type: VertexType, name: unknown): void => {
    if (str(name)) refs.push([type, str(name)]);
  };
  for (const s of arr(spec.imagePullSecrets)) add('secret', obj(s).name);
  const containers = [...arr(spec.containers), ...arr(spec.initContainers), ...arr(spec.ephemeralContainers)];
  for (const c of containers) {
    for (const from of arr(obj(c).envFrom)) {
      add('secret', obj(obj(from).secretRef).name);
      add('configmap', obj(obj(from).configMapRef).name);
    }
    for (const e of arr(obj(c).env)) {
      const vf = obj(obj(e).valueFrom);
      add('secret', obj(vf.secretKeyRef).name);
      add('configmap', obj(vf.configMapKeyRef).name);
    }
  }
  const podName = str(pod.metadata?.name);
  for (const raw of arr(spec.volumes)) {
    const v = obj(raw);
    add('secret', obj(v.secret).secretName);
    add('configmap', obj(v.configMap).name);
    for (const p of arr(obj(v.projected).sources)) {
      add('secret', obj(obj(p).secret).name);
      add('configmap', obj(obj(p).configMap).name);
    }
    for (const driver of ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos', 'csi']) {
      const src = obj(v[driver]);
      add('secret', driver === 'azureFile' ? src.secretName : driver === 'csi' ? obj(src.nodePublishSecretRef).name : obj(src.secretRef).name);
    }
    add('pvc', obj(v.persistentVolumeClaim).claimName);
    // A generic ephemeral volume's claim is named <pod>-<volume>.
    if (v.ephemeral && podName) add('pvc', `${podName}-${str(v.name)}`);
  }
  for (const c of arr(obj(pod.status).resourceClaimStatuses)) add('resourceclaim', obj(c).resourceClaimName);
  add('serviceaccount', spec.serviceAccountName || 'default');
  return refs;
}

export class NodeGraph {
  /** pod key → its node, and what it refers to. */
  private readonly pods = new Map<Key, { node: string; refs: Key[] }>();
  /** object key → the pods (keys) that refer to it. */
  private readonly referrers = new Map<Key, Map<Key, number>>();
  /** pv name → the claim key it is bound to. */
  private readonly pvClaims = new Map<string, Key>();
  /** VolumeAttachment name → the node it attaches to. */
  private readonly attachments = new Map<string, string>();
  /** ResourceSlice name → the node it publishes resources of. */
  private readonly slices = new Map<string, string>();
  /** node → how many pods are bound to it. */
  private readonly nodes = new Map<string, number>();

  onPod(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: KubeObject): void {
    const ns = str(pod.metadata?.namespace);
    const podKey = key('pod', ns, str(pod.metadata?.name));
    this.removePod(podKey);
    const node = str(obj(pod.spec).nodeName);
    if (type === 'DELETED' || !node) return;
    const refs = podReferences(pod).map(([t, name]) => key(t, ns, name));
    this.pods.set(podKey, { node, refs });
    this.nodes.set(node, (this.nodes.get(node) ?? 0) + 1);
    for (const r of refs) {
      let m = this.referrers.get(r);
      if (!m) this.referrers.set(r, (m = new Map()));
      m.set(podKey, (m.get(podKey) ?? 0) + 1);
    }
  }

  private removePod(podKey: Key): void {
    const old = this.pods.get(podKey);
    if (!old) return;
    this.pods.delete(podKey);
    const left = (this.nodes.get(old.node) ?? 1) - 1;
    if (left > 0) this.nodes.set(old.node, left);
    else this.nodes.delete(old.node);
    for (const r of old.refs) {
      const m = this.referrers.get(r);
      m?.delete(podKey);
      if (m?.size === 0) this.referrers.delete(r);
    }
  }

  onPersistentVolume(type: 'ADDED' | 'MODIFIED' | 'DELETED', pv: KubeObject): void {
    const name = str(pv.metadata?.name);
    this.pvClaims.delete(name);
    const ref = obj(obj(pv.spec).claimRef);
    if (type !== 'DELETED' && str(ref.name)) this.pvClaims.set(name, key('pvc', str(ref.namespace), str(ref.name)));
  }

  onVolumeAttachment(type: 'ADDED' | 'MODIFIED' | 'DELETED', va: KubeObject): void {
    const name = str(va.metadata?.name);
    const node = str(obj(va.spec).nodeName);
    if (type === 'DELETED' || !node) this.attachments.delete(name);
    else this.attachments.set(name, node);
  }

  onResourceSlice(type: 'ADDED' | 'MODIFIED' | 'DELETED', slice: KubeObject): void {
    const name = str(slice.metadata?.name);
    const node = str(obj(slice.spec).nodeName);
    if (type === 'DELETED' || !node) this.slices.delete(name);
    else this.slices.set(name, node);
  }

  hasNode(node: string): boolean {
    return this.nodes.has(node);
  }

  /** Whether the object is related to the node (kube's hasPathFrom); the error text when not. */
  pathFrom(node: string, type: VertexType, namespace: string, name: string): string | undefined {
    // A VolumeAttachment names its node itself (kube's graph adds its node vertex).
    if (type === 'volumeattachment') return this.attachments.get(name) === node ? undefined : `node '${node}' cannot get unknown ${type} ${namespace}/${name}`;
    if (type === 'resourceslice') return this.slices.get(name) === node ? undefined : `node '${node}' cannot get unknown ${type} ${namespace}/${name}`;
    if (!this.nodes.has(node)) return `unknown node '${node}' cannot get ${type} ${namespace}/${name}`;
    const start = type === 'pv' ? this.pvClaims.get(name) : key(type, namespace, name);
    if (type === 'pod') {
      const pod = this.pods.get(key('pod', namespace, name));
      return pod?.node === node ? undefined : `node '${node}' cannot get unknown pod ${namespace}/${name}`;
    }
    const pods = start ? this.referrers.get(start) : undefined;
    if (!pods) return `node '${node}' cannot get unknown ${type} ${namespace}/${name}`;
    for (const podKey of pods.keys()) if (this.pods.get(podKey)?.node === node) return undefined;
    return `node '${node}' cannot get ${type} ${namespace}/${name}, no relationship to this object was found in the node authorizer graph`;
  }
}
