import { badRequest } from '../machinery/errors.js';
import { isRecord } from '../machinery/json.js';
import { isQualifiedName } from '../machinery/name-validation.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { listOf, podSpecOf } from './pod-spec.js';
import { addOrUpdateToleration } from './tolerations.js';

/**
 * The ExtendedResourceToleration admission plugin
 * (plugin/pkg/admission/extendedresourcetoleration): a pod requesting an
 * extended resource (example.com/gpu) tolerates the NoSchedule taint of
 * that name, which operators put on the nodes that have it.
 */
export class ExtendedResourceToleration implements AdmissionPlugin {
  readonly name = 'ExtendedResourceToleration';

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource || attrs.resource.group !== '' || attrs.resource.name !== 'pods') return;
    if (!isRecord(attrs.object)) throw badRequest('expected *core.Pod but got <nil>');
    const spec = podSpecOf(attrs.object);
    const resources = new Set<string>();
    for (const c of [...listOf(spec.containers), ...listOf(spec.initContainers)]) {
      const requests = c.resources?.requests;
      if (isRecord(requests)) for (const name of Object.keys(requests)) if (isExtendedResourceName(name)) resources.add(name);
    }
    for (const key of [...resources].sort()) {
      const next = addOrUpdateToleration(listOf(spec.tolerations), { key, operator: 'Exists', effect: 'NoSchedule' });
      if (next) spec.tolerations = next;
    }
  }
}

/** helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io, valid as a quota name. */
export function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes('kubernetes.io/')) return false;
  if (name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}
