import { createPublicKey } from 'node:crypto';

import { csrSubjectAttributes } from '../../admission/certificates/csr-subject.js';
import { firstPemBlock } from '../../machinery/pem.js';
import { loadX509 } from '../../machinery/x509.js';
import type { RequestFacts } from './signers.js';

/**
 * A CSR's `spec.request` as kube's signer reads it (certificates.ParseCSR,
 * then Go's x509.ParseCertificateRequest): the subject as a pkix.Name, the
 * subjectAltNames of its extension request, its public key.
 */

/** pkix.Name: the attributes Go keeps of a subject (other attribute types are dropped). */
export interface GoSubject {
  country: string[];
  province: string[];
  locality: string[];
  streetAddress: string[];
  postalCode: string[];
  organization: string[];
  organizationalUnit: string[];
  commonName: string;
  serialNumber: string;
}

export interface CertificateRequest {
  subject: GoSubject;
  facts: RequestFacts;
  /** The SubjectPublicKeyInfo, DER. */
  publicKey: ArrayBuffer;
  /** Whether the request's self-signature verifies (Go's CheckSignature); the error text when not. */
  checkSignature(): Promise<string | undefined>;
}

/** pkix.Name's attribute types, in the order Go writes them (Name.ToRDNSequence). */
export const SUBJECT_OIDS = {
  country: '2.5.4.6',
  province: '2.5.4.8',
  locality: '2.5.4.7',
  streetAddress: '2.5.4.9',
  postalCode: '2.5.4.17',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  commonName: '2.5.4.3',
  serialNumber: '2.5.4.5',
} as const;

const SAN_OID = '2.5.29.17';
/** ML-DSA-44/65/87 (FIPS 204) SubjectPublicKeyInfo algorithm identifiers, DER. */
const ML_DSA_OIDS = [0x11, 0x12, 0x13].map((last) => Buffer.from([0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, last]));

/** Parses `spec.request` (PEM bytes); throws an Error with Go's text. */
export async function parseCertificateRequest(pemBytes: Uint8Array): Promise<CertificateRequest> {
  const block = firstPemBlock(Buffer.from(pemBytes).toString('latin1'));
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const subject = goSubject(csrSubjectAttributes(pemBytes));
  const x509 = await loadX509();
  let csr: import('@peculiar/x509').Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(block.bytes);
  } catch (err) {
    throw new Error(`x509: malformed certificate request: ${(err as Error).message}`);
  }
  const names = { dns: [] as string[], ip: [] as string[], email: [] as string[], url: [] as string[] };
  const san = csr.getExtension(SAN_OID);
  if (san) {
    if (!(san instanceof x509.SubjectAlternativeNameExtension)) throw new Error('x509: malformed subjectAltName extension');
    for (const name of san.names.items) {
      if (name.type === 'dns' || name.type === 'ip' || name.type === 'email' || name.type === 'url') names[name.type].push(name.value);
    }
  }
  const publicKey = csr.publicKey.rawData;
  return {
    subject,
    facts: {
      commonName: subject.commonName,
      organizations: subject.organization,
      dnsNames: names.dns,
      ipAddresses: names.ip,
      emailAddresses: names.email,
      uris: names.url,
      mlDsa: ML_DSA_OIDS.some((oid) => Buffer.from(publicKey).includes(oid)),
    },
    publicKey,
    checkSignature: async () => {
      try {
        if (await csr.verify()) return undefined;
      } catch {
        // An algorithm WebCrypto does not verify: the same answer as a bad signature.
      }
      return verificationFailure(publicKey);
    },
  };
}

/** Name.FillFromRDNSequence: lists in order, the last CommonName and SerialNumber. */
function goSubject(attributes: ReadonlyArray<{ oid: string; value: string }>): GoSubject {
  const s: GoSubject = { country: [], province: [], locality: [], streetAddress: [], postalCode: [], organization: [], organizationalUnit: [], commonName: '', serialNumber: '' };
  for (const { oid, value } of attributes) {
    const field = (Object.keys(SUBJECT_OIDS) as Array<keyof GoSubject>).find((k) => SUBJECT_OIDS[k] === oid);
    if (field === undefined) continue;
    if (field === 'commonName' || field === 'serialNumber') s[field] = value;
    else s[field].push(value);
  }
  return s;
}

/** Go's CheckSignature error for the key's algorithm. */
function verificationFailure(spki: ArrayBuffer): string {
  let type: string | undefined;
  try {
    type = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' }).asymmetricKeyType;
  } catch {
    type = undefined;
  }
  if (type === 'rsa' || type === 'rsa-pss') return 'crypto/rsa: verification error';
  if (type === 'ec') return 'x509: ECDSA verification failure';
  if (type === 'ed25519') return 'x509: Ed25519 verification failure';
  return 'x509: cannot verify signature: algorithm unimplemented';
}
