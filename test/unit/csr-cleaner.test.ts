import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { describe, it } from 'node:test';

import { cleanupDeadline } from '../../src/controllers/certificates/csr-cleaner.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { loadX509 } from '../../src/machinery/x509.js';

/** certificatesigningrequest-cleaner-controller's deadlines (pkg/controller/certificates/cleaner constants). */

const HOUR = 3600_000;
const T = Date.UTC(2026, 10, 1, 12, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

function csr(status: Record<string, unknown> = {}, created = T): KubeObject {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'c', uid: 'u', creationTimestamp: iso(created) }, spec: {}, status };
}

async function certificate(notAfter: number): Promise<string> {
  const x509 = await loadX509();
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({ name: 'CN=x', notBefore: new Date(notAfter - HOUR), notAfter: new Date(notAfter), keys, signingAlgorithm: alg });
  return Buffer.from(cert.toString('pem')).toString('base64');
}

describe('CSR cleaner deadlines', () => {
  it('pending (no condition at all): a day after creation', () => {
    assert.deepEqual(cleanupDeadline(csr()), { at: T + 24 * HOUR, reason: 'it is more than pendingExpiration duration old and unhandled' });
  });

  it('denied or failed: an hour after the condition\'s lastUpdateTime', () => {
    assert.deepEqual(cleanupDeadline(csr({ conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: iso(T + HOUR) }] })), { at: T + 2 * HOUR, reason: 'it is more than deniedExpiration duration old and denied' });
    assert.deepEqual(cleanupDeadline(csr({ conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: iso(T) }, { type: 'Failed', status: 'True', lastUpdateTime: iso(T + 5 * 60_000) }] })), {
      at: T + HOUR + 5 * 60_000,
      reason: 'it is more than deniedExpiration duration old and failed',
    });
  });

  it('approved: only once issued, an hour after approval, or when the certificate expires if sooner', async () => {
    const approved = [{ type: 'Approved', status: 'True', lastUpdateTime: iso(T) }];
    assert.equal(cleanupDeadline(csr({ conditions: approved })), undefined, 'approved, not issued: kept');
    assert.deepEqual(cleanupDeadline(csr({ conditions: approved, certificate: await certificate(T + 30 * 24 * HOUR) })), { at: T + HOUR, reason: 'it is more than approvedExpiration duration old and approved' });
    const early = await certificate(T + 10 * 60_000);
    assert.deepEqual(cleanupDeadline(csr({ conditions: approved, certificate: early })), { at: T + 10 * 60_000, reason: 'the associated certificate is expired' });
    // A certificate that cannot be read never counts as expired (isExpired returns false).
    assert.deepEqual(cleanupDeadline(csr({ conditions: approved, certificate: Buffer.from('not a certificate').toString('base64') })), { at: T + HOUR, reason: 'it is more than approvedExpiration duration old and approved' });
  });

  it('a condition without lastUpdateTime (or the zero time) starts no clock', () => {
    assert.equal(cleanupDeadline(csr({ conditions: [{ type: 'Denied', status: 'True' }] })), undefined);
    assert.equal(cleanupDeadline(csr({ conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: '0001-01-01T00:00:00Z' }] })), undefined);
  });
});
