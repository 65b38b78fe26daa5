import type { KubeObject } from '../../machinery/object.js';
import { defaultPtr, ensureObject, isEmptyCollection } from './util.js';

/** storage.k8s.io/v1 defaulting. */

export function defaultStorageClass(sc: KubeObject): void {
  defaultPtr(sc, 'reclaimPolicy', 'Delete');
  defaultPtr(sc, 'volumeBindingMode', 'Immediate');
}

export function defaultCSIDriver(driver: KubeObject): void {
  const spec = ensureObject(driver, 'spec');
  defaultPtr(spec, 'attachRequired', true);
  defaultPtr(spec, 'podInfoOnMount', false);
  defaultPtr(spec, 'storageCapacity', false);
  defaultPtr(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
  if (isEmptyCollection(spec.volumeLifecycleModes)) spec.volumeLifecycleModes = ['Persistent'];
  defaultPtr(spec, 'requiresRepublish', false);
  defaultPtr(spec, 'seLinuxMount', false);
}
