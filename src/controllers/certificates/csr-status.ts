import type { KubeObject } from '../../machinery/object.js';

/**
 * What a CertificateSigningRequest's status says, as kube's certificate
 * controllers read it (certificate_controller_utils.go and the cleaner).
 */

export interface CsrCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export function csrConditions(csr: KubeObject): CsrCondition[] {
  const c = (csr.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(c) ? c.filter((x): x is CsrCondition => !!x && typeof x === 'object' && !Array.isArray(x)) : [];
}

/** IsCertificateRequestApproved: an Approved condition and no Denied one (whatever their status). */
export function isApproved(csr: KubeObject): boolean {
  const types = csrConditions(csr).map((c) => c.type);
  return types.includes('Approved') && !types.includes('Denied');
}

/** HasTrueCondition: a condition of the type whose status is True or empty. */
export function hasTrueCondition(csr: KubeObject, type: string): boolean {
  return csrConditions(csr).some((c) => c.type === type && (!c.status || c.status === 'True'));
}

/** status.certificate's bytes (PEM), or undefined when none was issued. */
export function issuedCertificate(csr: KubeObject): Buffer | undefined {
  const cert = (csr.status as { certificate?: unknown } | undefined)?.certificate;
  if (typeof cert !== 'string' || cert === '') return undefined;
  const bytes = Buffer.from(cert, 'base64');
  return bytes.length > 0 ? bytes : undefined;
}
