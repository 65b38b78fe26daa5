import type { Authorizer } from '../../authz/authorizer.js';
import { strconvQuote } from '../../machinery/go-compat.js';
import { valueAt } from '../../machinery/object.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../admission.js';
import { admissionForbidden } from '../forbidden.js';
import { CERTIFICATES_GROUP, isAuthorizedForSignerName } from './signer-authorization.js';

/**
 * CertificateApproval (plugin/pkg/admission/certificates/approval): an
 * update of certificatesigningrequests/approval needs `approve` on the
 * signer of the request as stored (so a changed signerName gains nothing).
 */
export class CertificateApproval implements AdmissionPlugin {
  readonly name = 'CertificateApproval';

  constructor(private readonly authorizer: Authorizer) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource !== 'approval' || attrs.resource.group !== CERTIFICATES_GROUP || attrs.resource.name !== 'certificatesigningrequests') return;
    const csr = attrs.oldObject;
    if (!csr) throw admissionForbidden(attrs, 'expected type CertificateSigningRequest, got: <nil>');
    const signerName = String(valueAt(csr, 'spec', 'signerName') ?? '');
    if (!attrs.user || (await isAuthorizedForSignerName(this.authorizer, attrs.user, 'approve', signerName))) return;
    throw admissionForbidden(attrs, `user not permitted to approve requests with signerName ${strconvQuote(signerName)}`);
  }
}
