import { X509Certificate, webcrypto, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

import { encodePem } from '../machinery/pem.js';
import { loadX509, type X509Module } from '../machinery/x509.js';

/**
 * The server's own certificate authority and the certificates it signs: the
 * serving certificate and the admin client certificate (CN capstan-admin,
 * O system:masters). Generated once under the cert dir and reused on later
 * starts, regenerated when expired or when the serving names changed.
 *
 * @peculiar/x509 is only loaded when something must be generated, so a normal
 * start pays nothing for it.
 */

export interface PemPair {
  cert: string;
  key: string;
}

export interface ServerPki {
  /** The serving certificate chain and key. */
  serving: PemPair;
  /** PEM bundle that verifies client certificates, when client-cert auth is on. */
  clientCa?: string;
  /** CA that signed the serving cert, for the kubeconfig (absent for user-provided certs we cannot vouch for). */
  servingCa?: string;
  /** Admin client credentials signed by the client CA, when we own that CA. */
  admin?: PemPair;
  /** The generated CA, when the server trusts the client certificates it signs (what CSRs are signed with by default). */
  ca?: PemPair;
}

export interface PkiOptions {
  /** Where generated certificates are kept and reused; without it they are made in memory and never written. */
  certDir?: string;
  /** Extra names for the serving certificate (hostnames or IPs). */
  servingNames: string[];
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  adminUser: string;
  adminGroups: string[];
}

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DEFAULT_SERVING_NAMES = [
  'localhost',
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
  '127.0.0.1',
  '::1',
];
const DAY_MS = 24 * 3600 * 1000;


export async function ensurePki(opts: PkiOptions): Promise<ServerPki> {
  const certDir = opts.certDir;
  if (certDir !== undefined) mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const lib = loadX509;

  /** The pair kept as `<name>.crt`/`.key` in the cert dir while `reusable` accepts it, else a new one (saved there). */
  const kept = async (name: string, reusable: (certPem: string) => boolean, create: () => Promise<PemPair>): Promise<PemPair> => {
    if (certDir === undefined) return create();
    const certPath = join(certDir, `${name}.crt`);
    const keyPath = join(certDir, `${name}.key`);
    if (existsSync(certPath) && existsSync(keyPath)) {
      const cert = readFileSync(certPath, 'utf8');
      if (reusable(cert)) return { cert, key: readFileSync(keyPath, 'utf8') };
    }
    const pair = await create();
    writePair(certPath, keyPath, pair);
    return pair;
  };

  const ca = await kept('ca', (pem) => stillValid(pem, []), async () => createCa(await lib(), 'capstan-ca'));

  const pki: ServerPki = { serving: ca };
  if (opts.tlsCertFile || opts.tlsPrivateKeyFile) {
    if (!opts.tlsCertFile || !opts.tlsPrivateKeyFile) {
      throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    }
    pki.serving = { cert: readFileSync(opts.tlsCertFile, 'utf8'), key: readFileSync(opts.tlsPrivateKeyFile, 'utf8') };
  } else {
    const names = [...new Set([...DEFAULT_SERVING_NAMES, ...opts.servingNames])];
    pki.serving = await kept(
      'apiserver',
      (pem) => stillValid(pem, names, ca.cert),
      async () => issue(await lib(), ca, { commonName: 'capstan-apiserver', organizations: [], names, usage: 'server' }),
    );
    pki.servingCa = ca.cert;
  }

  if (opts.clientCaFile) {
    pki.clientCa = readFileSync(opts.clientCaFile, 'utf8');
  } else {
    pki.clientCa = ca.cert;
  }

  // An admin credential is only useful when the CA we can sign with is one the
  // server trusts for client certificates.
  if (pki.clientCa.includes(ca.cert.trim())) {
    pki.ca = ca;
    const subjectOk = (pem: string): boolean => {
      const subject = new X509Certificate(pem).subject;
      return subject.includes(`CN=${opts.adminUser}`) && opts.adminGroups.every((g) => subject.includes(`O=${g}`));
    };
    pki.admin = await kept(
      'admin',
      (pem) => stillValid(pem, [], ca.cert) && subjectOk(pem),
      async () => issue(await lib(), ca, { commonName: opts.adminUser, organizations: opts.adminGroups, names: [], usage: 'client' }),
    );
  }
  return pki;
}

/** A client certificate for `commonName` (the user) in `organizations` (its groups), signed by `ca` (tests, tooling). */
export async function issueClientCert(ca: PemPair, commonName: string, organizations: string[]): Promise<PemPair> {
  return issue(await loadX509(), ca, { commonName, organizations, names: [], usage: 'client' });
}

function writePair(certPath: string, keyPath: string, pair: PemPair): void {
  writeFileSync(certPath, pair.cert, { mode: 0o644 });
  writeFileSync(keyPath, pair.key, { mode: 0o600 });
}

/** Valid for at least another day, covering every wanted name, and signed by `issuerPem` when given. */
function stillValid(pem: string, names: string[], issuerPem?: string): boolean {
  try {
    const cert = new X509Certificate(pem);
    if (Date.parse(cert.validTo) - Date.now() < DAY_MS) return false;
    if (issuerPem && !cert.verify(new X509Certificate(issuerPem).publicKey)) return false;
    const san = cert.subjectAltName ?? '';
    return names.every((n) => (isIP(n) ? san.includes(`IP Address:${n}`) || (n === '::1' && san.includes('IP Address:0:0:0:0:0:0:0:1')) : san.includes(`DNS:${n}`)));
  } catch {
    return false;
  }
}

function serial(): string {
  const b = randomBytes(16);
  b[0]! &= 0x7f;
  return b.toString('hex');
}

async function exportKey(key: webcrypto.CryptoKey): Promise<string> {
  return encodePem('PRIVATE KEY', new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', key)));
}

async function importKey(pem: string): Promise<webcrypto.CryptoKey> {
  const body = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return webcrypto.subtle.importKey('pkcs8', Buffer.from(body, 'base64'), EC, true, ['sign']);
}

async function createCa(x509: X509Module, commonName: string): Promise<PemPair> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 10 * 365 * DAY_MS),
    keys,
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: await exportKey(keys.privateKey) };
}

interface IssueRequest {
  commonName: string;
  organizations: string[];
  names: string[];
  usage: 'server' | 'client';
}

async function issue(x509: X509Module, ca: PemPair, req: IssueRequest): Promise<PemPair> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const caCert = new x509.X509Certificate(ca.cert);
  const subject = [`CN=${escapeRdn(req.commonName)}`, ...req.organizations.map((o) => `O=${escapeRdn(o)}`)].join(', ');
  const now = Date.now();
  const extensions: import('@peculiar/x509').Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([req.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
    await x509.AuthorityKeyIdentifierExtension.create(caCert),
  ];
  if (req.names.length > 0) {
    extensions.push(
      new x509.SubjectAlternativeNameExtension(req.names.map((n) => (isIP(n) ? { type: 'ip' as const, value: n } : { type: 'dns' as const, value: n }))),
    );
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: caCert.subject,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 365 * DAY_MS),
    signingAlgorithm: EC,
    publicKey: keys.publicKey,
    signingKey: await importKey(ca.key),
    extensions,
  });
  return { cert: cert.toString('pem') + '\n', key: await exportKey(keys.privateKey) };
}

function escapeRdn(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, '\\$1');
}
