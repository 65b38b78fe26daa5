import type { WriteAttributes } from '../write-attributes.js';
import { forbidden, notFound } from '../../machinery/errors.js';
import { jsonEqual, type KubeObject } from '../../machinery/object.js';
import { nodeIdentity } from './authorizer.js';
import { podReferences } from './graph.js';

/**
 * The NodeRestriction admission plugin (plugin/pkg/admission/noderestriction)
 * for what a node (`system:node:<name>` in `system:nodes`) writes: only
 * mirror pods bound to itself and owned by its Node, referencing no
 * secrets, configmaps, claims or service account; status and evictions
 * only of its own pods; of a PVC's status only the resize-related fields;
 * service account tokens only bound to its own pods; only its own Node (no taint changes, no
 * `node-restriction.kubernetes.io/` labels nor kubernetes.io ones outside
 * the kubelet's set), Lease and CSINode. It runs in
 * the mutating phase, as kube's does. The server installs it with the Node
 * authorizer (kubeadm enables both).
 */

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const NODE_RESTRICTION_LABELS = 'node-restriction.kubernetes.io';

export interface NodeRestrictionLookups {
  pod(namespace: string, name: string): Promise<KubeObject | undefined>;
  node(name: string): Promise<KubeObject | undefined>;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

export class NodeRestriction {
  readonly name = 'NodeRestriction';

  constructor(private readonly lookups: NodeRestrictionLookups) {}

  async admit(a: WriteAttributes): Promise<void> {
    if (!a.user) return;
    const node = nodeIdentity(a.user);
    if (node === undefined) return;
    const deny = (why: string): never => {
      // admission.NewForbidden: the request's name, else the object's name or generateName, else "Unknown".
      const meta = a.object?.metadata;
      const name = a.name || meta?.name || meta?.generateName || 'Unknown';
      throw forbidden({ group: a.resource.group, resource: a.resource.name }, name, why);
    };
    if (node === '') deny(`could not determine node from user "${a.user.username}"`);
    const gr = `${a.resource.name}.${a.resource.group}`;
    switch (gr) {
      case 'pods.':
        if (a.subresource === '') return this.pod(node, a, deny);
        if (a.subresource === 'status') return this.podStatus(node, a, deny);
        if (a.subresource === 'eviction') return this.eviction(node, a, deny);
        return deny(`unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
      case 'nodes.':
        return this.nodeObject(node, a, deny);
      case 'persistentvolumeclaims.':
        if (a.subresource !== 'status') deny('may only update PVC status');
        return this.pvcStatus(node, a, deny);
      case 'serviceaccounts.':
        return this.tokenRequest(node, a, deny);
      case 'leases.coordination.k8s.io':
        if (a.namespace !== NODE_LEASE_NAMESPACE) deny(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
        if ((a.operation === 'CREATE' ? a.object?.metadata?.name : a.name) !== node) deny('can only access node lease with the same name as the requesting node');
        return;
      case 'csinodes.storage.k8s.io':
        if ((a.operation === 'CREATE' ? a.object?.metadata?.name : a.name) !== node) deny('can only access CSINode with the same name as the requesting node');
        return;
    }
  }

  private async pod(node: string, a: WriteAttributes, deny: (why: string) => never): Promise<void> {
    if (a.operation === 'DELETE') {
      const existing = a.oldObject ?? (await this.lookups.pod(a.namespace, a.name));
      if (!existing) throw notFound({ group: '', resource: 'pods' }, a.name);
      if (obj(existing.spec).nodeName !== node) deny(`node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    }
    if (a.operation !== 'CREATE') return deny(`unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`);
    const pod = a.object ?? {};
    if (!(MIRROR_POD_ANNOTATION in (pod.metadata?.annotations ?? {}))) deny(`pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
    const spec = obj(pod.spec);
    if (spec.nodeName !== node) deny(`node "${node}" can only create pods with spec.nodeName set to itself`);
    const owners: unknown[] = Array.isArray(pod.metadata?.ownerReferences) ? pod.metadata!.ownerReferences : [];
    if (owners.length > 1) deny(`node "${node}" can only create pods with a single owner reference set to itself`);
    if (owners.length === 0) deny(`node "${node}" can only create pods with an owner reference set to itself`);
    const owner = obj(owners[0]);
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) deny(`node "${node}" can only create pods with an owner reference set to itself`);
    if (owner.controller !== true) deny(`node "${node}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) deny(`node "${node}" must not set blockOwnerDeletion on an owner reference`);
    const nodeObj = await this.lookups.node(node);
    if (!nodeObj) throw notFound({ group: '', resource: 'nodes' }, node);
    if (owner.uid !== nodeObj.metadata?.uid) deny(`node ${node} UID mismatch: expected ${String(owner.uid ?? '')} got ${nodeObj.metadata?.uid ?? ''}`);
    if (spec.serviceAccountName) deny(`node "${node}" can not create pods that reference a service account`);
    // podReferences names the default service account for every pod; the checks below are about the others.
    const refs = podReferences(pod).filter(([type]) => type !== 'serviceaccount');
    if (refs.some(([type]) => type === 'secret')) deny(`node "${node}" can not create pods that reference secrets`);
    if (refs.some(([type]) => type === 'configmap')) deny(`node "${node}" can not create pods that reference configmaps`);
    const volumes = Array.isArray(spec.volumes) ? (spec.volumes as unknown[]) : [];
    for (const v of volumes) {
      for (const src of Array.isArray(obj(obj(v).projected).sources) ? (obj(obj(v).projected).sources as unknown[]) : []) {
        if (obj(src).clusterTrustBundle) deny(`node "${node}" can not create pods that reference clustertrustbundles`);
      }
    }
    if (volumes.some((v) => obj(v).persistentVolumeClaim)) deny(`node "${node}" can not create pods that reference persistentvolumeclaims`);
  }

  private podStatus(node: string, a: WriteAttributes, deny: (why: string) => never): void {
    if (a.operation !== 'UPDATE') return deny(`unexpected operation "${a.operation}"`);
    const old = a.oldObject ?? {};
    if (obj(old.spec).nodeName !== node) deny(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
    if (!jsonEqual(old.metadata?.labels ?? {}, a.object?.metadata?.labels ?? {})) deny(`node "${node}" cannot update labels through pod status`);
    // Entries are compared by name and claim name only, as kube's resourceClaimStatusesEqual does.
    const claims = (p: KubeObject | undefined): unknown[] => {
      const list = obj(p?.status).resourceClaimStatuses;
      return Array.isArray(list) ? list.map((c) => [obj(c).name, obj(c).resourceClaimName ?? null]) : [];
    };
    if (!jsonEqual(claims(old), claims(a.object))) deny(`node "${node}" cannot update resource claim statues`);
  }

  /** kube's admitPVCStatus, with RecoverVolumeExpansionFailure on (GA): a kubelet reports a resize, and nothing else. */
  private pvcStatus(node: string, a: WriteAttributes, deny: (why: string) => never): void {
    if (a.operation !== 'UPDATE') return deny(`unexpected operation "${a.operation}"`);
    const before = pvcOutsideResize(a.oldObject);
    const after = pvcOutsideResize(a.object);
    const diff = differences(before, after);
    if (diff.length > 0) deny(`node "${node}" is not allowed to update fields other than status.capacity and status.conditions: ${diff.join('\n')}`);
  }

  /** kube's admitServiceAccount: a node's TokenRequest must be bound to a pod (by name and uid) that runs on that node. */
  private async tokenRequest(node: string, a: WriteAttributes, deny: (why: string) => never): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
    const ref = obj(obj(a.object?.spec).boundObjectRef);
    if (ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || typeof ref.name !== 'string' || ref.name === '') return deny('node requested token not bound to a pod');
    if (typeof ref.uid !== 'string' || ref.uid === '') return deny('node requested token with a pod binding without a uid');
    const pod = await this.lookups.pod(a.namespace, ref.name);
    if (!pod) throw notFound({ group: '', resource: 'pods' }, ref.name);
    if (ref.uid !== pod.metadata?.uid) deny(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    if (obj(pod.spec).nodeName !== node) deny('node requested token bound to a pod scheduled on a different node');
  }

  private async eviction(node: string, a: WriteAttributes, deny: (why: string) => never): Promise<void> {
    if (a.operation !== 'CREATE') return deny(`unexpected operation ${a.operation}`);
    const podName = a.name || a.object?.metadata?.name;
    if (!podName) return deny('could not determine pod from request data');
    const pod = await this.lookups.pod(a.namespace, podName);
    if (!pod) throw notFound({ group: '', resource: 'pods' }, podName);
    if (obj(pod.spec).nodeName !== node) deny(`node ${node} can only evict pods with spec.nodeName set to itself`);
  }

  private nodeObject(node: string, a: WriteAttributes, deny: (why: string) => never): void {
    const requested = a.operation === 'CREATE' && !a.name ? (a.object?.metadata?.name ?? '') : a.name;
    if (requested !== node) deny(`node "${node}" is not allowed to modify node "${requested}"`);
    const spec = obj(a.object?.spec);
    const labels = a.object?.metadata?.labels ?? {};
    if (a.operation === 'CREATE') {
      if (spec.configSource != null) deny(`node "${node}" is not allowed to create pods with a non-nil configSource`);
      const forbiddenLabels = restrictedLabels(labels, {});
      if (forbiddenLabels.length > 0) deny(`node "${node}" is not allowed to set the following labels: ${forbiddenLabels.join(', ')}`);
    }
    if (a.operation === 'UPDATE') {
      const oldSpec = obj(a.oldObject?.spec);
      if (spec.configSource != null && !jsonEqual(spec.configSource, oldSpec.configSource)) deny(`node "${node}" is not allowed to update configSource to a new non-nil configSource`);
      if (!jsonEqual(spec.taints ?? null, oldSpec.taints ?? null)) deny(`node "${node}" is not allowed to modify taints`);
      const forbiddenLabels = restrictedLabels(labels, a.oldObject?.metadata?.labels ?? {});
      if (forbiddenLabels.length > 0) deny(`is not allowed to modify labels: ${forbiddenLabels.join(', ')}`);
    }
  }
}

/** A PVC without what a kubelet may change on resize, nor what says nothing of the object (resourceVersion, managedFields). */
function pvcOutsideResize(pvc: KubeObject | undefined): Obj {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = obj(pvc?.metadata);
  const { capacity: _c, conditions: _co, allocatedResources: _ar, allocatedResourceStatuses: _ars, ...status } = obj(pvc?.status);
  return { ...obj(pvc), metadata, status };
}

/**
 * The paths where two objects differ, as `-path: before` / `+path: after`
 * lines; as in apimachinery's semantic equality, an empty map or list is
 * the same as none. (kube prints go-cmp's diff here, whose form is
 * deliberately unstable, so only the sentence before it is the contract.)
 */
function differences(before: unknown, after: unknown, path = ''): string[] {
  const empty = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v as Obj).length === 0);
  if (empty(before) && empty(after)) return [];
  const isMap = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
  if (isMap(before) && isMap(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => differences(before[k], after[k], `${path}.${k}`));
  }
  if (jsonEqual(before, after)) return [];
  return [`-${path}: ${JSON.stringify(before ?? null)}`, `+${path}: ${JSON.stringify(after ?? null)}`];
}

/** The labels a kubelet may set on its own Node (k8s.io/kubelet's KubeletLabels and KubeletLabelNamespaces). */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const labelNamespace = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (ns: string, parent: string): boolean => ns === parent || ns.endsWith(`.${parent}`);

function isKubeletLabel(key: string): boolean {
  return KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((n) => inNamespace(labelNamespace(key), n));
}

/** kube's getForbiddenLabels over the changed labels: node-restriction ones, and kubernetes.io / k8s.io ones outside the kubelet's set. */
function restrictedLabels(now: Record<string, string>, before: Record<string, string>): string[] {
  const changed = new Set<string>();
  for (const [k, v] of Object.entries(now)) if (before[k] !== v) changed.add(k);
  for (const [k, v] of Object.entries(before)) if (now[k] !== v) changed.add(k);
  return [...changed]
    .filter((k) => {
      const ns = labelNamespace(k);
      if (inNamespace(ns, NODE_RESTRICTION_LABELS)) return true;
      return (inNamespace(ns, 'kubernetes.io') || inNamespace(ns, 'k8s.io')) && !isKubeletLabel(k);
    })
    .sort();
}
