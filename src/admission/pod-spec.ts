import { isRecord } from '../machinery/json.js';
import type { KubeObject } from '../machinery/object.js';
import type { AdmissionAttributes } from './admission.js';

/**
 * The parts of a v1 Pod the pod admission plugins read and change, typed
 * over the decoded JSON (fields may be absent or, from a hostile client, of
 * the wrong type: readers check before use).
 */

export type ResourceList = Record<string, unknown>;

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface VolumeMount {
  name?: string;
  mountPath?: string;
  readOnly?: boolean;
}

export interface Container {
  name?: string;
  image?: string;
  imagePullPolicy?: string;
  restartPolicy?: string;
  resources?: { limits?: ResourceList; requests?: ResourceList };
  volumeMounts?: VolumeMount[];
  env?: Array<{ name?: string; valueFrom?: { secretKeyRef?: { name?: string } } }>;
  envFrom?: Array<{ secretRef?: { name?: string } }>;
}

export interface Volume {
  name?: string;
  secret?: { secretName?: string };
  projected?: { sources?: Array<Record<string, unknown>> };
  image?: { pullPolicy?: string };
  [source: string]: unknown;
}

export interface PodSpec {
  serviceAccountName?: string;
  /** The deprecated alias of serviceAccountName, which v1 objects carry too. */
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Volume[];
  imagePullSecrets?: Array<{ name?: string }>;
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: string;
  runtimeClassName?: string;
  overhead?: ResourceList;
  resources?: { limits?: ResourceList; requests?: ResourceList };
}

/** Whether the request is about pods proper (no subresource) with a Pod body. */
export function isPodRequest(attrs: AdmissionAttributes, subresources: readonly string[] = ['']): boolean {
  return attrs.resource.group === '' && attrs.resource.name === 'pods' && subresources.includes(attrs.subresource) && isRecord(attrs.object);
}

/** The pod's spec, created empty when absent so plugins can write to it. */
export function podSpecOf(pod: KubeObject): PodSpec {
  if (!isRecord(pod.spec)) pod.spec = {};
  return pod.spec as PodSpec;
}

/** The list at `v` when it is one (a malformed field reads as empty). */
export function listOf<T>(v: T[] | undefined): T[] {
  return Array.isArray(v) ? v.filter((e): e is T => isRecord(e)) : [];
}

/** kube's VisitContainers order: init containers, containers, ephemeral containers, with each one's field path. */
export function allContainers(spec: PodSpec): Array<{ container: Container; path: string }> {
  const out: Array<{ container: Container; path: string }> = [];
  for (const field of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
    listOf(spec[field]).forEach((container, i) => out.push({ container, path: `spec.${field}[${i}]` }));
  }
  return out;
}

/** A string-keyed map field (labels, nodeSelector), created when absent. */
export function stringMapOf(holder: Record<string, unknown>, field: string): Record<string, string> {
  if (!isRecord(holder[field])) holder[field] = {};
  return holder[field] as Record<string, string>;
}
