import type { KubeObject } from '../../machinery/object.js';
import { DefaultClassPlugin } from '../default-class.js';
import { claimHasClass, isDefaultStorageClass } from './storage-class.js';

/**
 * DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault):
 * a PersistentVolumeClaim created without a class (neither
 * spec.storageClassName, even "", nor the beta annotation) gets the default
 * StorageClass; with several marked default, the newest (kube 1.36); with
 * none, the claim is left alone.
 */
export function defaultStorageClass(storageClasses: () => readonly KubeObject[], startLister?: () => Promise<void>): DefaultClassPlugin {
  return new DefaultClassPlugin(
    'DefaultStorageClass',
    { group: '', resource: 'persistentvolumeclaims', hasClass: claimHasClass, isDefault: isDefaultStorageClass, specField: 'storageClassName' },
    storageClasses,
    startLister,
  );
}
