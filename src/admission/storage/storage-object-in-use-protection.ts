import type { KubeObject } from '../../machinery/object.js';
import { metaOf } from '../../machinery/object.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../admission.js';

/** pkg/volume/util's finalizers, removed by the PVC and PV protection controllers once nothing uses the object. */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

/**
 * StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection):
 * every PersistentVolumeClaim and PersistentVolume is created with its
 * protection finalizer, so one in use by a pod (or bound to a claim) is not
 * deleted before its controller lets it go.
 */
export class StorageObjectInUseProtection implements AdmissionPlugin {
  readonly name = 'StorageObjectInUseProtection';

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.subresource || !attrs.object) return;
    if (attrs.resource.name === 'persistentvolumes') addFinalizer(attrs.object, PV_PROTECTION_FINALIZER);
    else if (attrs.resource.name === 'persistentvolumeclaims') addFinalizer(attrs.object, PVC_PROTECTION_FINALIZER);
  }
}

function addFinalizer(obj: KubeObject, finalizer: string): void {
  const meta = metaOf(obj);
  const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
  if (finalizers.includes(finalizer)) return;
  meta.finalizers = [...finalizers, finalizer];
}
