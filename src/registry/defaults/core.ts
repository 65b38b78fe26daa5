import type { KubeObject } from '../../machinery/object.js';
import { defaultPersistentVolumeSources, defaultPodTemplate } from './pod-spec.js';
import { defaultPvcSpec } from './pvc.js';
import {
  defaultPtr,
  defaultString,
  ensureObject,
  isEmptyCollection,
  isEmptyString,
  isNil,
  isObject,
  objectAt,
  objectsAt,
  type JsonObject,
} from './util.js';

/** core/v1 defaulting for everything but Pods (pod.ts) and pod specs (pod-spec.ts). */

export function defaultService(svc: KubeObject): void {
  const spec = ensureObject(svc, 'spec');
  defaultString(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const clientIP = objectAt(objectAt(spec, 'sessionAffinityConfig') ?? {}, 'clientIP');
    // Three hours, v1.DefaultClientIPServiceAffinitySeconds.
    if (!clientIP || isNil(clientIP.timeoutSeconds)) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  defaultString(spec, 'type', 'ClusterIP');
  for (const port of objectsAt(spec, 'ports')) {
    defaultString(port, 'protocol', 'TCP');
    // targetPort is an IntOrString: 0 and "" both mean unset. It takes Port's int32, 0 when unset (a `ports: [null]` item).
    if (isNil(port.targetPort) || port.targetPort === 0 || port.targetPort === '') port.targetPort = isNil(port.port) ? 0 : port.port;
  }
  const type = spec.type;
  const externallyAccessible =
    type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
  if (externallyAccessible) defaultString(spec, 'externalTrafficPolicy', 'Cluster');
  if (isNil(spec.internalTrafficPolicy) && (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP')) {
    spec.internalTrafficPolicy = 'Cluster';
  }
  if (type === 'LoadBalancer') {
    defaultPtr(spec, 'allocateLoadBalancerNodePorts', true);
    const ingress = objectsAt(objectAt(objectAt(svc, 'status') ?? {}, 'loadBalancer') ?? {}, 'ingress');
    for (const ing of ingress) if (!isEmptyString(ing.ip) && isNil(ing.ipMode)) ing.ipMode = 'VIP';
  }
}

export function defaultSecret(secret: KubeObject): void {
  defaultString(secret, 'type', 'Opaque');
}

export function defaultNamespace(ns: KubeObject): void {
  // The name label (kubernetes.io/metadata.name) cannot be set for generateName
  // creates here; the namespace strategy repeats it after the name is known.
  const name = ns.metadata?.name;
  if (typeof name === 'string' && name.length > 0) {
    ns.metadata!.labels = { ...(ns.metadata!.labels ?? {}), 'kubernetes.io/metadata.name': name };
  }
  defaultString(ensureObject(ns, 'status'), 'phase', 'Active');
}

export function defaultPersistentVolume(pv: KubeObject): void {
  defaultString(ensureObject(pv, 'status'), 'phase', 'Pending');
  const spec = ensureObject(pv, 'spec');
  defaultString(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  defaultPtr(spec, 'volumeMode', 'Filesystem');
  defaultPersistentVolumeSources(spec);
}

export function defaultPersistentVolumeClaim(pvc: KubeObject): void {
  defaultString(ensureObject(pvc, 'status'), 'phase', 'Pending');
  defaultPvcSpec(ensureObject(pvc, 'spec'));
}

export function defaultEndpoints(ep: KubeObject): void {
  for (const subset of objectsAt(ep, 'subsets')) {
    for (const port of objectsAt(subset, 'ports')) defaultString(port, 'protocol', 'TCP');
  }
}

export function defaultReplicationController(rc: KubeObject): void {
  const spec = ensureObject(rc, 'spec');
  const template = objectAt(spec, 'template');
  const labels = template && objectAt(objectAt(template, 'metadata') ?? {}, 'labels');
  if (labels) {
    if (isEmptyCollection(spec.selector)) spec.selector = { ...labels };
    const meta = (rc.metadata ??= {});
    if (isEmptyCollection(meta.labels)) meta.labels = { ...(labels as Record<string, string>) };
  }
  defaultPtr(spec, 'replicas', 1);
  if (template) defaultPodTemplate(template);
}

export function defaultPodTemplateObject(pt: KubeObject): void {
  defaultPodTemplate(ensureObject(pt, 'template'));
}

export function defaultNode(node: KubeObject): void {
  const status = objectAt(node, 'status');
  if (status && isNil(status.allocatable) && isObject(status.capacity)) status.allocatable = { ...status.capacity };
}

export function defaultLimitRange(lr: KubeObject): void {
  for (const item of objectsAt(ensureObject(lr, 'spec'), 'limits')) {
    if (item.type !== 'Container') continue;
    const def = isObject(item.default) ? item.default : (item.default = {});
    const defReq = isObject(item.defaultRequest) ? item.defaultRequest : (item.defaultRequest = {});
    // Limit falls back to max; request falls back to the limit, then to min.
    for (const [k, v] of Object.entries(objectAt(item, 'max') ?? {})) if (!(k in def)) (def as JsonObject)[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in defReq)) (defReq as JsonObject)[k] = v;
    for (const [k, v] of Object.entries(objectAt(item, 'min') ?? {})) if (!(k in defReq)) (defReq as JsonObject)[k] = v;
    // Empty maps are omitted on the wire (omitempty).
    if (Object.keys(def).length === 0) delete item.default;
    if (Object.keys(defReq).length === 0) delete item.defaultRequest;
  }
}
