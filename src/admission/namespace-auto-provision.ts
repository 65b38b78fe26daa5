import { isApiError } from '../machinery/errors.js';
import type { ApiClient } from '../machinery/client.js';
import type { ObjectLookup } from '../registry/object-lookup.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { admissionForbidden } from './errors.js';
import { isNamespaceKind } from './namespace-exists.js';

/**
 * NamespaceAutoProvision: a create in a namespace that does not exist
 * creates the namespace first (not on dry-run). It runs before
 * NamespaceLifecycle, which then finds the namespace.
 */
export class NamespaceAutoProvision implements AdmissionPlugin {
  readonly name = 'NamespaceAutoProvision';

  constructor(
    private readonly namespaces: ObjectLookup,
    private readonly client: ApiClient,
  ) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.dryRun || !attrs.namespace || isNamespaceKind(attrs)) return;
    if (await this.namespaces(undefined, attrs.namespace)) return;
    try {
      await this.client.create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: attrs.namespace } });
    } catch (err) {
      if (isApiError(err, 'AlreadyExists')) return;
      if (isApiError(err)) throw admissionForbidden(attrs, err);
      throw err;
    }
  }
}
