import { notFound } from '../machinery/errors.js';
import type { ObjectLookup } from '../registry/object-lookup.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';

/**
 * NamespaceExists: a create, update or delete in a namespace that does not
 * exist is refused with the namespace's NotFound (kube reads its informer,
 * then the store: the lookup does both).
 */
export class NamespaceExists implements AdmissionPlugin {
  readonly name = 'NamespaceExists';

  constructor(private readonly namespaces: ObjectLookup) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE' || operation === 'DELETE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!attrs.namespace || isNamespaceKind(attrs)) return;
    if (!(await this.namespaces(undefined, attrs.namespace))) throw notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
  }
}

/** kube's `a.GetKind().GroupKind() == api.Kind("Namespace")`. */
export function isNamespaceKind(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === '' && attrs.resource.kind === 'Namespace';
}
