import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../admission.js';
import { newestDefaultClass } from '../default-class.js';
import { claimHasClass, isDefaultStorageClass } from './storage-class.js';

/**
 * DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault):
 * a PersistentVolumeClaim created without a class (neither
 * spec.storageClassName, even "", nor the beta annotation) gets the default
 * StorageClass; with several marked default, the newest (kube 1.36); with
 * none, the claim is left alone.
 */
export class DefaultStorageClass implements AdmissionPlugin {
  readonly name = 'DefaultStorageClass';

  constructor(
    private readonly storageClasses: () => readonly KubeObject[],
    private readonly startLister: () => Promise<void> = async () => {},
  ) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  start(): Promise<void> {
    return this.startLister();
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.resource.name !== 'persistentvolumeclaims' || attrs.subresource) return;
    const pvc = attrs.object;
    if (!pvc || claimHasClass(pvc)) return;
    const def = newestDefaultClass(this.storageClasses(), isDefaultStorageClass);
    if (!def) return;
    const spec = pvc.spec && typeof pvc.spec === 'object' && !Array.isArray(pvc.spec) ? (pvc.spec as Record<string, unknown>) : {};
    pvc.spec = { ...spec, storageClassName: def.metadata?.name };
  }
}
