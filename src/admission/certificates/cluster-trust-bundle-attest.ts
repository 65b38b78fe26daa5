import type { Authorizer } from '../../authz/authorizer.js';
import { onlyGcFields } from '../../authz/rbac/escalation.js';
import { strconvQuote } from '../../machinery/go-compat.js';
import { valueAt } from '../../machinery/object.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../admission.js';
import { admissionForbidden } from '../forbidden.js';
import { CERTIFICATES_GROUP, isAuthorizedForSignerName } from './signer-authorization.js';

/**
 * ClusterTrustBundleAttest (plugin/pkg/admission/certificates/ctbattest):
 * creating or updating a ClusterTrustBundle that names a signer needs
 * `attest` on that signer; updates touching only what the garbage collector
 * writes pass. kube runs it only with the ClusterTrustBundle feature, which
 * is also what serves the resource: here it acts whenever the resource is served.
 */
export class ClusterTrustBundleAttest implements AdmissionPlugin {
  readonly name = 'ClusterTrustBundleAttest';

  constructor(private readonly authorizer: Authorizer) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== CERTIFICATES_GROUP || attrs.resource.name !== 'clustertrustbundles') return;
    const bundle = attrs.object;
    if (!bundle) throw admissionForbidden(attrs, 'expected type ClusterTrustBundle, got: <nil>');
    const signerName = valueAt(bundle, 'spec', 'signerName');
    if (typeof signerName !== 'string' || signerName === '') return;
    if (attrs.operation === 'UPDATE' && attrs.oldObject && onlyGcFields(bundle, attrs.oldObject)) return;
    if (!attrs.user || (await isAuthorizedForSignerName(this.authorizer, attrs.user, 'attest', signerName))) return;
    throw admissionForbidden(attrs, `user not permitted to attest for signerName ${strconvQuote(signerName)}`);
  }
}
