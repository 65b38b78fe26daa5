import assert from 'node:assert/strict';
import { webcrypto, X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';

import { CertificateAuthority, type CaPem } from '../../src/controllers/certificates/certificate-authority.js';
import { parseCertificateRequest } from '../../src/controllers/certificates/certificate-request.js';
import { certificateLifetimeMs, KUBE_APISERVER_CLIENT, KUBE_APISERVER_CLIENT_KUBELET, KUBELET_SERVING, LEGACY_UNKNOWN, signerValidationError, x509Usages, type RequestFacts } from '../../src/controllers/certificates/signers.js';
import { encodePem } from '../../src/machinery/pem.js';
import { loadX509 } from '../../src/machinery/x509.js';

/**
 * certificatesigningrequest-signing-controller's parts: the built-in
 * signers' checks with kube's texts, the lifetime rule, the usage mapping,
 * and certificates built as kube's authority.Sign builds them.
 */

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const RSA = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' } as const;
const HOUR = 3600_000;
const NOW = Date.UTC(2026, 10, 1, 12, 0, 0);

function facts(over: Partial<RequestFacts> = {}): RequestFacts {
  return { commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: [], ipAddresses: [], emailAddresses: [], uris: [], mlDsa: false, ...over };
}

async function makeCa(opts: { algorithm?: typeof EC | typeof RSA; notAfter?: number; withSki?: boolean } = {}): Promise<CaPem> {
  const x509 = await loadX509();
  const algorithm = opts.algorithm ?? EC;
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=test-ca',
    notBefore: new Date(NOW - 24 * HOUR),
    notAfter: new Date(opts.notAfter ?? NOW + 10 * 8760 * HOUR),
    keys,
    signingAlgorithm: algorithm,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), ...(opts.withSki === false ? [] : [await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)])],
  });
  return { cert: cert.toString('pem'), key: encodePem('PRIVATE KEY', new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey))) };
}

async function makeCsr(name: string, sans: Array<{ type: 'dns' | 'ip' | 'email' | 'url'; value: string }> = []): Promise<Uint8Array> {
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: EC, extensions: sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : [] });
  return Buffer.from(csr.toString('pem'));
}

describe('built-in signers\' checks', () => {
  it('kubelet-serving: system:nodes only, a DNS or IP name, no email or URI, its usages, a system:node: CN', () => {
    const usages = ['digital signature', 'key encipherment', 'server auth'];
    const ok = facts({ dnsNames: ['n1.example'] });
    assert.equal(signerValidationError(KUBELET_SERVING, ok, usages), undefined);
    assert.equal(signerValidationError(KUBELET_SERVING, ok, ['server auth', 'digital signature']), undefined, 'the set without key encipherment (non-RSA keys)');
    assert.equal(signerValidationError(KUBELET_SERVING, facts({ organizations: ['devs'], dnsNames: ['x'] }), usages), 'subject organization is not system:nodes');
    assert.equal(signerValidationError(KUBELET_SERVING, facts({ organizations: ['system:nodes', 'x'], dnsNames: ['x'] }), usages), 'subject organization is not system:nodes');
    assert.equal(signerValidationError(KUBELET_SERVING, facts(), usages), 'DNS or IP subjectAltName is required');
    assert.equal(signerValidationError(KUBELET_SERVING, facts({ ipAddresses: ['10.0.0.1'], emailAddresses: ['a@b'] }), usages), 'Email subjectAltNames are not allowed');
    assert.equal(signerValidationError(KUBELET_SERVING, facts({ ipAddresses: ['10.0.0.1'], uris: ['spiffe://x'] }), usages), 'URI subjectAltNames are not allowed');
    assert.equal(signerValidationError(KUBELET_SERVING, ok, ['server auth']), 'usages did not match [digital signature key encipherment server auth]');
    assert.equal(signerValidationError(KUBELET_SERVING, facts({ commonName: 'n1', dnsNames: ['x'] }), usages), 'subject common name does not begin with system:node:');
  });

  it('kube-apiserver-client-kubelet: system:nodes, no subjectAltNames, a system:node: CN, its usages', () => {
    const usages = ['client auth', 'digital signature', 'key encipherment'];
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT_KUBELET, facts(), usages), undefined);
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT_KUBELET, facts(), ['digital signature', 'client auth', 'client auth']), undefined, 'a set: duplicates collapse');
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT_KUBELET, facts({ dnsNames: ['x'] }), usages), 'DNS subjectAltNames are not allowed');
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT_KUBELET, facts({ emailAddresses: ['a@b'] }), usages), 'Email subjectAltNames are not allowed');
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT_KUBELET, facts({ ipAddresses: ['::1'] }), usages), 'IP subjectAltNames are not allowed');
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT_KUBELET, facts({ uris: ['u:x'] }), usages), 'URI subjectAltNames are not allowed');
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT_KUBELET, facts({ commonName: 'bob' }), usages), 'subject common name does not begin with system:node:');
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT_KUBELET, facts(), ['client auth']), 'usages did not match [client auth digital signature key encipherment]');
  });

  it('kube-apiserver-client: client auth required, only digital signature and key encipherment besides; any subject', () => {
    const anyone = facts({ commonName: 'alice', organizations: ['devs'], dnsNames: ['x'] });
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT, anyone, ['client auth']), undefined);
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT, anyone, ['key encipherment', 'client auth', 'digital signature']), undefined);
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT, anyone, ['client auth', 'server auth']), 'invalid usage for client certificate: server auth');
    assert.equal(signerValidationError(KUBE_APISERVER_CLIENT, anyone, ['digital signature']), 'missing required usage for client certificate: client auth');
    assert.equal(
      signerValidationError(KUBE_APISERVER_CLIENT, { ...anyone, mlDsa: true }, ['client auth', 'key encipherment']),
      'validating usages for ml-dsa key: usage key encipherment cannot be used with an ML-DSA signed certificate request\nusages must contain at least one of [cert sign content commitment crl sign digital signature]',
    );
  });

  it('legacy-unknown: no restrictions', () => {
    assert.equal(signerValidationError(LEGACY_UNKNOWN, facts({ commonName: '', organizations: [] }), ['any', 'code signing']), undefined);
  });
});

describe('certificate lifetime and usages', () => {
  it('expirationSeconds when shorter than the signer duration, never under ten minutes', () => {
    assert.equal(certificateLifetimeMs(8760 * HOUR, undefined), 8760 * HOUR);
    assert.equal(certificateLifetimeMs(8760 * HOUR, 3600), HOUR);
    assert.equal(certificateLifetimeMs(8760 * HOUR, 600), 600_000);
    assert.equal(certificateLifetimeMs(8760 * HOUR, 60), 600_000);
    assert.equal(certificateLifetimeMs(HOUR, 7200), HOUR);
  });

  it('maps usages to key usage bits and extended key usages in Go\'s order; unknown ones are kube\'s error', () => {
    assert.deepEqual(x509Usages(['client auth', 'signing', 'digital signature', 'key encipherment', 'server auth', 's/mime', 'email protection']), {
      keyUsage: 0b101,
      extKeyUsages: ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.4'],
    });
    assert.deepEqual(x509Usages(['cert sign', 'crl sign', 'decipher only']), { keyUsage: (1 << 5) | (1 << 6) | (1 << 8), extKeyUsages: [] });
    assert.throws(() => x509Usages(['client auth', 'bogus', 'x y']), { message: 'unrecognized usage values: ["bogus" "x y"]' });
  });
});

describe('signing', () => {
  it('copies the subject in pkix.Name order and the subjectAltNames, sets the usages, no CA rights, the CA\'s key id', async () => {
    const x509 = await loadX509();
    const caPem = await makeCa();
    const ca = await CertificateAuthority.load(caPem, 'ca.crt');
    const request = await parseCertificateRequest(await makeCsr('CN=alice, O=devs, O=qa, C=NZ', [{ type: 'dns', value: 'a.example' }, { type: 'ip', value: '10.1.2.3' }, { type: 'email', value: 'a@example.com' }]));
    assert.deepEqual(request.facts, { commonName: 'alice', organizations: ['devs', 'qa'], dnsNames: ['a.example'], ipAddresses: ['10.1.2.3'], emailAddresses: ['a@example.com'], uris: [], mlDsa: false });
    const pem = await ca.sign(request, ['client auth', 'digital signature'], 2 * HOUR, NOW);
    assert.match(pem, /^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n$/);
    const cert = new x509.X509Certificate(pem);
    assert.deepEqual(cert.subjectName.toJSON(), [{ C: ['NZ'] }, { O: ['devs', 'qa'] }, { CN: ['alice'] }]);
    assert.equal(cert.issuer, 'CN=test-ca');
    const san = cert.getExtension(x509.SubjectAlternativeNameExtension)!;
    assert.deepEqual(san.names.toJSON(), [{ type: 'dns', value: 'a.example' }, { type: 'email', value: 'a@example.com' }, { type: 'ip', value: '10.1.2.3' }]);
    assert.equal(san.critical, false);
    const ku = cert.getExtension(x509.KeyUsagesExtension)!;
    assert.equal(ku.usages, x509.KeyUsageFlags.digitalSignature);
    assert.equal(ku.critical, true);
    assert.deepEqual([...cert.getExtension(x509.ExtendedKeyUsageExtension)!.usages], ['1.3.6.1.5.5.7.3.2']);
    const bc = cert.getExtension(x509.BasicConstraintsExtension)!;
    assert.equal(bc.ca, false);
    assert.equal(bc.critical, true);
    const caCert = new x509.X509Certificate(caPem.cert);
    assert.equal(cert.getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId, caCert.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId);
    assert.ok(new X509Certificate(pem).verify(new X509Certificate(caPem.cert).publicKey), 'signed by the CA');
    // Two hours is short (< 8 h): backdated start, end not backdated.
    assert.equal(cert.notBefore.getTime(), NOW - 5 * 60_000);
    assert.equal(cert.notAfter.getTime(), NOW + 2 * HOUR);
  });

  it('backdates the end of long lifetimes, never ends after the CA, refuses with an expired CA', async () => {
    const x509 = await loadX509();
    const request = await parseCertificateRequest(await makeCsr('CN=bob'));
    const ca = await CertificateAuthority.load(await makeCa(), 'ca.crt');
    const long = new x509.X509Certificate(await ca.sign(request, ['client auth'], 8760 * HOUR, NOW));
    assert.equal(long.notAfter.getTime(), NOW + 8760 * HOUR - 5 * 60_000);
    assert.deepEqual(long.subjectName.toJSON(), [{ CN: ['bob'] }]);

    const soon = NOW + 3 * HOUR;
    const shortCa = await CertificateAuthority.load(await makeCa({ notAfter: soon }), 'ca.crt');
    assert.equal(new x509.X509Certificate(await shortCa.sign(request, ['client auth'], 8760 * HOUR, NOW)).notAfter.getTime(), soon);
    await assert.rejects(shortCa.sign(request, ['client auth'], HOUR, soon + 1000), { message: 'refusing to sign a certificate that expired in the past: NotAfter=2026-11-01 15:00:00 +0000 UTC' });
    await assert.rejects(shortCa.sign(request, ['client auth'], HOUR, soon + 10 * 60_000), { message: 'the signer has expired: NotAfter=2026-11-01 15:00:00 +0000 UTC' });
  });

  it('signs with an RSA CA (SHA-256 with RSA), without an authority key id when the CA has no subject key id', async () => {
    const x509 = await loadX509();
    const caPem = await makeCa({ algorithm: RSA, withSki: false });
    const ca = await CertificateAuthority.load(caPem, 'ca.crt');
    const cert = new x509.X509Certificate(await ca.sign(await parseCertificateRequest(await makeCsr('CN=carol')), ['client auth'], HOUR, NOW));
    assert.equal((cert.signatureAlgorithm as { name?: string }).name, 'RSASSA-PKCS1-v1_5');
    assert.equal(cert.getExtension(x509.AuthorityKeyIdentifierExtension), null);
    assert.ok(new X509Certificate(cert.toString('pem')).verify(new X509Certificate(caPem.cert).publicKey));
  });

  it('refuses a request whose signature does not verify, and unknown usages, with kube\'s texts', async () => {
    const ca = await CertificateAuthority.load(await makeCa(), 'ca.crt');
    const pem = Buffer.from(await makeCsr('CN=mallory')).toString();
    const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    der[der.length - 5]! ^= 0xff; // inside the signature
    const tampered = await parseCertificateRequest(Buffer.from(encodePem('CERTIFICATE REQUEST', der)));
    await assert.rejects(ca.sign(tampered, ['client auth'], HOUR, NOW), { message: /^unable to verify certificate request signature: x509: ECDSA verification failure$/ });
    await assert.rejects(ca.sign(await parseCertificateRequest(Buffer.from(pem)), ['client auth', 'bogus'], HOUR, NOW), { message: 'unrecognized usage values: ["bogus"]' });
    await assert.rejects(parseCertificateRequest(Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')), { message: 'PEM block type must be CERTIFICATE REQUEST' });
  });

  it('loads a CA only when the key matches the one certificate, with kube\'s texts', async () => {
    const a = await makeCa();
    const b = await makeCa();
    await assert.rejects(CertificateAuthority.load({ cert: a.cert, key: b.key }, '/etc/ca.crt'), { message: 'error reading CA cert file "/etc/ca.crt": tls: private key does not match public key' });
    await assert.rejects(CertificateAuthority.load({ cert: a.cert + b.cert, key: a.key }, '/etc/ca.crt'), { message: 'error reading CA cert file "/etc/ca.crt": expected 1 certificate, found 2' });
    await assert.rejects(CertificateAuthority.load({ cert: 'nothing', key: a.key }, '/etc/ca.crt'), { message: 'error reading CA cert file "/etc/ca.crt": tls: failed to find any PEM data in certificate input' });
    await assert.rejects(CertificateAuthority.load({ cert: a.cert, key: a.cert }, '/etc/ca.crt'), { message: 'error reading CA cert file "/etc/ca.crt": tls: failed to find any PEM data in key input' });
  });
});
