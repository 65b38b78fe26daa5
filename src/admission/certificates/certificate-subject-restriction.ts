import { valueAt } from '../../machinery/object.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../admission.js';
import { admissionForbidden } from '../forbidden.js';
import { csrOrganizations } from '../../machinery/pkcs10.js';
import { CERTIFICATES_GROUP } from './signer-authorization.js';

export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

/**
 * CertificateSubjectRestriction (plugin/pkg/admission/certificates/subjectrestriction):
 * no CertificateSigningRequest for the kube-apiserver-client signer may ask
 * for the system:masters group (subject organization), which no
 * authorization could ever take back.
 */
export class CertificateSubjectRestriction implements AdmissionPlugin {
  readonly name = 'CertificateSubjectRestriction';

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== CERTIFICATES_GROUP || attrs.resource.name !== 'certificatesigningrequests' || attrs.subresource !== '') return;
    const csr = attrs.object;
    if (!csr) throw admissionForbidden(attrs, 'expected type CertificateSigningRequest, got: <nil>');
    if (valueAt(csr, 'spec', 'signerName') !== KUBE_APISERVER_CLIENT_SIGNER) return;
    let organizations: string[];
    try {
      const request = valueAt(csr, 'spec', 'request');
      organizations = csrOrganizations(Buffer.from(typeof request === 'string' ? request : '', 'base64'));
    } catch (err) {
      throw admissionForbidden(attrs, `failed to parse CSR: ${(err as Error).message}`);
    }
    if (organizations.includes('system:masters')) {
      throw admissionForbidden(attrs, `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`);
    }
  }
}
