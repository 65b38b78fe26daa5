import type { JsonObject } from '../machinery/json.js';
import { nowTimestamp, type KubeObject } from '../machinery/object.js';

/**
 * Reading an apiextensions.k8s.io/v1 CustomResourceDefinition (as stored)
 * and kube's helpers over it (apiextensions-apiserver pkg/apihelpers):
 * conditions, the storage and served versions, per-version subresources and
 * columns.
 */

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_RESOURCE = 'customresourcedefinitions';
/** kube's CustomResourceCleanupFinalizer. */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdColumn {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CrdScale {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface CrdSubresources {
  status?: JsonObject;
  scale?: CrdScale;
}

export interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JsonObject };
  subresources?: CrdSubresources;
  additionalPrinterColumns?: CrdColumn[];
  selectableFields?: Array<{ jsonPath?: string }>;
}

export interface CrdConversion {
  strategy?: string;
  webhook?: {
    conversionReviewVersions?: string[];
    clientConfig?: { url?: string; caBundle?: string; service?: { namespace?: string; name?: string; path?: string; port?: number } };
  };
}

export interface CrdSpec {
  group?: string;
  names?: CrdNames;
  scope?: string;
  versions?: CrdVersion[];
  conversion?: CrdConversion;
  preserveUnknownFields?: boolean;
}

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface CrdStatus {
  acceptedNames?: CrdNames;
  conditions?: CrdCondition[];
  storedVersions?: string[];
}

export interface Crd extends KubeObject {
  spec?: CrdSpec;
  status?: CrdStatus;
}

export function crdSpec(crd: KubeObject): CrdSpec {
  const spec = crd.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as CrdSpec) : {};
}

export function crdStatus(crd: KubeObject): CrdStatus {
  const status = crd.status;
  return typeof status === 'object' && status !== null && !Array.isArray(status) ? (status as CrdStatus) : {};
}

export function crdVersions(crd: KubeObject): CrdVersion[] {
  const v = crdSpec(crd).versions;
  return Array.isArray(v) ? v.filter((x): x is CrdVersion => typeof x === 'object' && x !== null) : [];
}

export function findCondition(crd: KubeObject, type: string): CrdCondition | undefined {
  const conditions = crdStatus(crd).conditions;
  return Array.isArray(conditions) ? conditions.find((c) => c?.type === type) : undefined;
}

export function conditionTrue(crd: KubeObject, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/** kube's SetCRDCondition: lastTransitionTime moves only when the status changes. Mutates `crd`. */
export function setCondition(crd: KubeObject, next: CrdCondition): void {
  const status = (crd.status = { ...crdStatus(crd) }) as CrdStatus;
  const conditions = [...(status.conditions ?? [])];
  const now = nowTimestamp();
  const i = conditions.findIndex((c) => c.type === next.type);
  if (i < 0) conditions.push({ ...next, lastTransitionTime: now });
  else {
    const old = conditions[i]!;
    const lastTransitionTime = old.status !== next.status || !old.lastTransitionTime ? now : old.lastTransitionTime;
    conditions[i] = { type: next.type, status: next.status, lastTransitionTime, ...(next.reason ? { reason: next.reason } : {}), ...(next.message ? { message: next.message } : {}) };
  }
  status.conditions = conditions;
}

/** Same status, reason and message (kube's IsCRDConditionEquivalent). */
export function conditionEquivalent(a: CrdCondition | undefined, b: CrdCondition | undefined): boolean {
  if (!a || !b) return a === b;
  return a.type === b.type && a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '');
}

export function hasFinalizer(crd: KubeObject, finalizer: string): boolean {
  return (crd.metadata?.finalizers ?? []).includes(finalizer);
}

/** The subresources of one version (v1 keeps them per version). */
export function versionSubresources(v: CrdVersion): CrdSubresources {
  const s = v.subresources;
  return typeof s === 'object' && s !== null ? s : {};
}
