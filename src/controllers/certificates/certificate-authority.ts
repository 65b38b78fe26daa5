import { createPrivateKey, createPublicKey, webcrypto, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { encodePem, pemBlocks } from '../../machinery/pem.js';
import { loadX509 } from '../../machinery/x509.js';
import { SUBJECT_OIDS, type CertificateRequest, type GoSubject } from './certificate-request.js';
import { x509Usages } from './signers.js';

/**
 * A signer's certificate authority and what it signs
 * (pkg/controller/certificates/authority: CertificateAuthority.Sign with the
 * signer's PermissiveSigningPolicy): the request's subject and
 * subjectAltNames, the usages the CSR asks for, no CA rights, valid from five
 * minutes ago for the lifetime asked (less the five minutes when it is not
 * short), never past the CA's own expiry.
 */

export interface CaPem {
  cert: string;
  key: string;
}

/** Where a signer's CA comes from: files read again when they change (kube's dynamic CA content), or PEM held in memory. */
export type CaSource = { certFile: string; keyFile: string } | { pem: CaPem; name: string };

const BACKDATE_MS = 5 * 60 * 1000;
/** A lifetime under this is short: its end is not backdated. */
const SHORT_MS = 8 * 3600 * 1000;

type SigningAlgorithm = { name: 'RSASSA-PKCS1-v1_5'; hash: string } | { name: 'ECDSA'; hash: string } | { name: 'Ed25519' };

export class CertificateAuthority {
  private constructor(
    readonly raw: CaPem,
    private readonly cert: import('@peculiar/x509').X509Certificate,
    private readonly key: webcrypto.CryptoKey,
    private readonly algorithm: SigningAlgorithm,
    private readonly keyId: string | undefined,
  ) {}

  /** Parses a CA pair; errors read as kube's `error reading CA cert file "<name>": ...`. */
  static async load(pem: CaPem, name: string): Promise<CertificateAuthority> {
    const fail = (detail: string): Error => new Error(`error reading CA cert file ${JSON.stringify(name)}: ${detail}`);
    const blocks = pemBlocks(pem.cert);
    const certs = blocks.filter((b) => b.type === 'CERTIFICATE');
    if (certs.length === 0) throw fail(blocks.length === 0 ? 'tls: failed to find any PEM data in certificate input' : 'tls: failed to find certificate PEM data in certificate input');
    const keyBlock = pemBlocks(pem.key).find((b) => b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY'));
    if (!keyBlock) throw fail('tls: failed to find any PEM data in key input');
    let privateKey: KeyObject;
    let leaf: X509Certificate;
    try {
      const type = keyBlock.type === 'RSA PRIVATE KEY' ? 'pkcs1' : keyBlock.type === 'EC PRIVATE KEY' ? 'sec1' : 'pkcs8';
      privateKey = createPrivateKey({ key: keyBlock.bytes, format: 'der', type });
      leaf = new X509Certificate(certs[0]!.bytes);
    } catch (err) {
      throw fail(`tls: failed to parse private key: ${(err as Error).message}`);
    }
    const spki = (k: KeyObject): Buffer => k.export({ type: 'spki', format: 'der' });
    if (!spki(createPublicKey(privateKey)).equals(spki(leaf.publicKey))) throw fail('tls: private key does not match public key');
    if (certs.length !== 1) throw fail(`expected 1 certificate, found ${certs.length}`);
    const algorithm = signingAlgorithm(privateKey);
    if (!algorithm) throw fail('key did not implement crypto.Signer');
    const importParams = algorithm.name === 'ECDSA' ? { name: 'ECDSA', namedCurve: CURVES[privateKey.asymmetricKeyDetails?.namedCurve ?? '']! } : algorithm;
    const key = await webcrypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), importParams, false, ['sign']);
    const x509 = await loadX509();
    const cert = new x509.X509Certificate(certs[0]!.bytes);
    const ski = cert.getExtension(x509.SubjectKeyIdentifierExtension);
    return new CertificateAuthority(pem, cert, key, algorithm, ski?.keyId);
  }

  get notAfter(): Date {
    return this.cert.notAfter;
  }

  /** A PEM certificate for `request` (authority.Sign); throws kube's texts. */
  async sign(request: CertificateRequest, usages: readonly string[], lifetimeMs: number, now: number = Date.now()): Promise<string> {
    const failure = await request.checkSignature();
    if (failure) throw new Error(`unable to verify certificate request signature: ${failure}`);
    const { keyUsage, extKeyUsages } = x509Usages(usages);
    const signerNotAfter = this.cert.notAfter.getTime();
    const notBefore = now - BACKDATE_MS;
    let notAfter = lifetimeMs < SHORT_MS ? now + lifetimeMs : now + lifetimeMs - BACKDATE_MS;
    if (notAfter >= signerNotAfter) notAfter = signerNotAfter;
    if (notBefore >= signerNotAfter) throw new Error(`the signer has expired: NotAfter=${goTime(signerNotAfter)}`);
    if (now >= signerNotAfter) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${goTime(signerNotAfter)}`);

    const x509 = await loadX509();
    const subject = goSubjectName(request.subject);
    const extensions: import('@peculiar/x509').Extension[] = [];
    if (keyUsage !== 0) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
    if (extKeyUsages.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(extKeyUsages));
    extensions.push(new x509.BasicConstraintsExtension(false, undefined, true));
    if (this.keyId) extensions.push(new x509.AuthorityKeyIdentifierExtension(this.keyId));
    const f = request.facts;
    const names = [
      ...f.dnsNames.map((value) => ({ type: 'dns' as const, value })),
      ...f.emailAddresses.map((value) => ({ type: 'email' as const, value })),
      ...f.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
      ...f.uris.map((value) => ({ type: 'url' as const, value })),
    ];
    // RFC 5280: the subjectAltName is critical when it is all there is of the subject.
    if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names, subject.length === 0));
    let cert: import('@peculiar/x509').X509Certificate;
    try {
      cert = await x509.X509CertificateGenerator.create({
        subject: new x509.Name(subject),
        issuer: this.cert.subjectName,
        notBefore: new Date(notBefore),
        notAfter: new Date(notAfter),
        publicKey: request.publicKey,
        signingKey: this.key,
        signingAlgorithm: this.algorithm,
        extensions,
      });
    } catch (err) {
      throw new Error(`failed to sign certificate: ${(err as Error).message}`);
    }
    return encodePem('CERTIFICATE', new Uint8Array(cert.rawData));
  }
}

const CURVES: Readonly<Record<string, string>> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };
const CURVE_HASHES: Readonly<Record<string, string>> = { prime256v1: 'SHA-256', secp384r1: 'SHA-384', secp521r1: 'SHA-512' };

/** Go's signingParamsForKey: SHA-256 with RSA, the curve's hash with ECDSA, Ed25519 as it is. */
function signingAlgorithm(key: KeyObject): SigningAlgorithm | undefined {
  if (key.asymmetricKeyType === 'rsa') return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  if (key.asymmetricKeyType === 'ed25519') return { name: 'Ed25519' };
  const hash = key.asymmetricKeyType === 'ec' ? CURVE_HASHES[key.asymmetricKeyDetails?.namedCurve ?? ''] : undefined;
  return hash ? { name: 'ECDSA', hash } : undefined;
}

/** Name.ToRDNSequence: Go's attribute order, all values of a type in one RDN, PrintableString where the text allows it. */
function goSubjectName(s: GoSubject): Array<Record<string, Array<{ printableString: string } | { utf8String: string }>>> {
  const rdns: Array<Record<string, Array<{ printableString: string } | { utf8String: string }>>> = [];
  for (const field of Object.keys(SUBJECT_OIDS) as Array<keyof GoSubject>) {
    const raw = s[field];
    const values = typeof raw === 'string' ? (raw === '' ? [] : [raw]) : raw;
    if (values.length === 0) continue;
    rdns.push({ [SUBJECT_OIDS[field]]: values.map((v) => (/^[A-Za-z0-9 '()+,\-./:=?]*$/.test(v) ? { printableString: v } : { utf8String: v })) });
  }
  return rdns;
}

/** Go's %v of a time.Time in UTC with whole seconds. */
function goTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

/**
 * The CA a signer uses now: files are read on every use and parsed again
 * when their bytes change (kube's dynamiccertificates content, which a
 * rotation of the files reaches without a restart).
 */
export class CaLoader {
  private current: CertificateAuthority | undefined;

  constructor(private readonly source: CaSource) {}

  async load(): Promise<CertificateAuthority> {
    const { pem, name } = 'pem' in this.source ? this.source : { pem: { cert: readPem(this.source.certFile), key: readPem(this.source.keyFile) }, name: this.source.certFile };
    if (this.current && this.current.raw.cert === pem.cert && this.current.raw.key === pem.key) return this.current;
    this.current = await CertificateAuthority.load(pem, name);
    return this.current;
  }
}

function readPem(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `open ${path}: no such file or directory` : `open ${path}: ${(err as Error).message}`);
  }
}
