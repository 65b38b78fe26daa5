import type { KubeObject } from '../../machinery/object.js';
import { specOf } from '../default-class.js';

/** kube's storage class annotations (pkg/apis/storage/util, pkg/apis/core). */
export const IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
export const BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** storageutil.IsDefaultAnnotation. */
export function isDefaultStorageClass(sc: KubeObject): boolean {
  const a = sc.metadata?.annotations ?? {};
  return a[IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true' || a[BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true';
}

/** helper.PersistentVolumeClaimHasClass: the beta annotation (whatever its value) or spec.storageClassName set, even to "". */
export function claimHasClass(pvc: KubeObject): boolean {
  const annotations = pvc.metadata?.annotations ?? {};
  if (Object.hasOwn(annotations, BETA_STORAGE_CLASS_ANNOTATION)) return true;
  const name = specOf(pvc).storageClassName;
  return name !== undefined && name !== null;
}

/** helper.GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName, else "". */
export function claimClass(pvc: KubeObject): string {
  const annotations = pvc.metadata?.annotations ?? {};
  if (Object.hasOwn(annotations, BETA_STORAGE_CLASS_ANNOTATION)) return String(annotations[BETA_STORAGE_CLASS_ANNOTATION]);
  const name = specOf(pvc).storageClassName;
  return typeof name === 'string' ? name : '';
}
