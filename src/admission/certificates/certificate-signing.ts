import type { Authorizer } from '../../authz/authorizer.js';
import { strconvQuote } from '../../machinery/go-compat.js';
import { jsonEqual, valueAt } from '../../machinery/object.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../admission.js';
import { admissionForbidden } from '../forbidden.js';
import { CERTIFICATES_GROUP, isAuthorizedForSignerName } from './signer-authorization.js';

/**
 * CertificateSigning (plugin/pkg/admission/certificates/signing): an update
 * of certificatesigningrequests/status that changes status.certificate or
 * status.conditions needs `sign` on the signer of the request as stored.
 */
export class CertificateSigning implements AdmissionPlugin {
  readonly name = 'CertificateSigning';

  constructor(private readonly authorizer: Authorizer) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource !== 'status' || attrs.resource.group !== CERTIFICATES_GROUP || attrs.resource.name !== 'certificatesigningrequests') return;
    const old = attrs.oldObject;
    const csr = attrs.object;
    if (!old) throw admissionForbidden(attrs, 'expected type CertificateSigningRequest, got: <nil>');
    if (!csr) throw admissionForbidden(attrs, 'expected type CertificateSigningRequest, got: <nil>');
    const unchanged =
      jsonEqual(valueAt(old, 'status', 'certificate'), valueAt(csr, 'status', 'certificate')) &&
      jsonEqual(valueAt(old, 'status', 'conditions'), valueAt(csr, 'status', 'conditions'));
    if (unchanged) return;
    const signerName = String(valueAt(old, 'spec', 'signerName') ?? '');
    if (!attrs.user || (await isAuthorizedForSignerName(this.authorizer, attrs.user, 'sign', signerName))) return;
    throw admissionForbidden(attrs, `user not permitted to sign requests with signerName ${strconvQuote(signerName)}`);
  }
}
