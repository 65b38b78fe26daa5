import { compareQuantities, parseQuantity, quantityFromJson, type Quantity } from '../../api/quantity.js';
import type { KubeObject } from '../../machinery/object.js';
import { valueAt } from '../../machinery/object.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../admission.js';
import { admissionForbidden } from '../forbidden.js';
import { claimClass } from './storage-class.js';

/**
 * PersistentVolumeClaimResize (plugin/pkg/admission/storage/persistentvolume/resize):
 * a claim's storage request may grow only while the claim is Bound, its
 * class is unchanged and that StorageClass has allowVolumeExpansion: true.
 */
export class PersistentVolumeClaimResize implements AdmissionPlugin {
  readonly name = 'PersistentVolumeClaimResize';

  constructor(private readonly getStorageClass: (name: string) => Promise<KubeObject | undefined>) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.resource.name !== 'persistentvolumeclaims' || attrs.subresource) return;
    const pvc = attrs.object;
    const old = attrs.oldObject;
    if (!pvc || !old) return;
    if (compareQuantities(requestedStorage(pvc), requestedStorage(old)) <= 0) return;
    if (valueAt(old, 'status', 'phase') !== 'Bound') {
      throw admissionForbidden(attrs, 'Only bound persistent volume claims can be expanded');
    }
    if (!(await this.allowResize(pvc, old))) {
      throw admissionForbidden(attrs, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    }
  }

  private async allowResize(pvc: KubeObject, old: KubeObject): Promise<boolean> {
    const cls = claimClass(pvc);
    const oldCls = claimClass(old);
    if (cls === '' || oldCls === '' || cls !== oldCls) return false;
    const sc = await this.getStorageClass(cls);
    return sc?.allowVolumeExpansion === true;
  }
}

const ZERO: Quantity = parseQuantity('0');

/** spec.resources.requests.storage; a missing request is the zero quantity, as Go's map lookup gives. */
function requestedStorage(pvc: KubeObject): Quantity {
  return quantityFromJson(valueAt(pvc, 'spec', 'resources', 'requests', 'storage')) ?? ZERO;
}
