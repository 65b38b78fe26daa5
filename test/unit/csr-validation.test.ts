import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { before, describe, it } from 'node:test';

import { fieldErrorString } from '../../src/machinery/errors.js';
import { isDns1123Label } from '../../src/machinery/name-validation.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { certificateRequestError } from '../../src/machinery/pkcs10.js';
import { loadX509 } from '../../src/machinery/x509.js';
import { prepareCreate, prepareMainUpdate } from '../../src/registry/csr-strategy.js';
import {
  validateCertificateSigningRequestCreate, validateCertificateSigningRequestUpdate, validateSignerName, VALID_USAGES,
} from '../../src/registry/validation/certificates.js';

/**
 * CertificateSigningRequest validation, each case cited to the rule of
 * kube 1.36's pkg/apis/certificates/validation/validation.go (vcsr below)
 * or pkg/registry/certificates/certificates/strategy.go it checks.
 */

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const RSA = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' } as const;

async function pemRequest(algorithm: typeof EC | typeof RSA): Promise<string> {
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=alice, O=devs', keys, signingAlgorithm: algorithm });
  return csr.toString('pem');
}

/** The PEM with the last byte of the signature flipped. */
function tampered(pem: string): string {
  const body = pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  const der = Buffer.from(body, 'base64');
  der[der.length - 1] ^= 0x01;
  return `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
}

let ecPem = '';
let rsaPem = '';
before(async () => {
  [ecPem, rsaPem] = await Promise.all([pemRequest(EC), pemRequest(RSA)]);
});

function csr(spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'req' },
    spec: { request: Buffer.from(ecPem).toString('base64'), signerName: 'example.com/signer', usages: ['client auth'], ...spec },
    ...(status ? { status } : {}),
  };
}

function createErrors(obj: KubeObject): string[] {
  return validateCertificateSigningRequestCreate(obj).map(fieldErrorString);
}

describe('CertificateSigningRequest create validation', () => {
  it('accepts a well-formed request signed by its key (ECDSA and RSA)', () => {
    assert.deepEqual(createErrors(csr()), []);
    assert.deepEqual(createErrors(csr({ request: Buffer.from(rsaPem).toString('base64') })), []);
  });

  it('vcsr validateCSR/ParseCSR: a request that is not a CERTIFICATE REQUEST PEM block, the bytes printed as json.Marshal writes them (base64)', () => {
    assert.deepEqual(createErrors(csr({ request: Buffer.from('hi').toString('base64') })), [
      'spec.request: Invalid value: "aGk=": PEM block type must be CERTIFICATE REQUEST',
    ]);
    assert.deepEqual(createErrors(csr({ request: undefined })), ['spec.request: Invalid value: null: PEM block type must be CERTIFICATE REQUEST']);
  });

  it('vcsr validateCSR/CheckSignature: a signature the key does not verify, in Go\'s words per key type', () => {
    assert.equal(certificateRequestError(Buffer.from(tampered(ecPem))), 'x509: ECDSA verification failure');
    assert.equal(certificateRequestError(Buffer.from(tampered(rsaPem))), 'crypto/rsa: verification error');
    const request = Buffer.from(tampered(ecPem)).toString('base64');
    const [err] = createErrors(csr({ request }));
    // json.Marshal of the []byte: its base64 text.
    assert.equal(err, `spec.request: Invalid value: "${request}": x509: ECDSA verification failure`);
  });

  it('vcsr usages: required, each one of allValidUsages (sorted list), no duplicates', () => {
    assert.deepEqual(createErrors(csr({ usages: [] })), ['spec.usages: Required value']);
    assert.deepEqual(createErrors(csr({ usages: ['client auth', 'flying'] })), [
      `spec.usages[1]: Unsupported value: "flying": supported values: ${VALID_USAGES.map((u) => JSON.stringify(u)).join(', ')}`,
    ]);
    assert.equal(VALID_USAGES.length, 23);
    assert.deepEqual([...VALID_USAGES].sort(), VALID_USAGES);
    assert.deepEqual(createErrors(csr({ usages: ['client auth', 'digital signature', 'client auth'] })), ['spec.usages[2]: Duplicate value: "client auth"']);
  });

  it('vcsr signerName: the legacy signer is refused on v1; ValidateSignerName\'s rules', () => {
    assert.deepEqual(createErrors(csr({ signerName: 'kubernetes.io/legacy-unknown' })), [
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]);
    assert.deepEqual(createErrors(csr({ signerName: undefined })), ['spec.signerName: Required value']);
    assert.deepEqual(validateSignerName('f', 'nodomain').map(fieldErrorString), [
      "f: Invalid value: \"nodomain\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
    ]);
    assert.deepEqual(validateSignerName('f', 'example/x').map(fieldErrorString), ['f: Invalid value: "example": should be a domain with at least two segments separated by dots']);
    assert.deepEqual(validateSignerName('f', 'Example.com/x').map(fieldErrorString), [
      `f: Invalid value: "Example.com": validating label "Example": ${isDns1123Label('Example')[0]}`,
    ]);
    assert.deepEqual(validateSignerName('f', `example.com/${'a'.repeat(600)}`).map(fieldErrorString).at(-1), 'f: Too long: may not be more than 571 bytes');
  });

  it('vcsr expirationSeconds: at least 600', () => {
    assert.deepEqual(createErrors(csr({ expirationSeconds: 599 })), ['spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)']);
    assert.deepEqual(createErrors(csr({ expirationSeconds: 600 })), []);
  });

  it('vcsr validateConditions: type required, True-only types, Approved/Denied exclusive, no duplicate types', () => {
    const errs = createErrors(csr({}, {
      conditions: [
        { type: 'Approved', status: 'False' },
        { type: 'Denied', status: 'True' },
        { type: '', status: 'Maybe' },
        { type: 'Denied', status: '' },
      ],
    }));
    assert.deepEqual(errs, [
      'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
      'status.conditions: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
      'status.conditions[2].type: Required value',
      'status.conditions[2].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'status.conditions[3].status: Required value',
      'status.conditions: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
      'status.conditions[3].type: Duplicate value: "Denied"',
    ]);
  });

  it('vcsr validateCertificate: status.certificate is CERTIFICATE PEM blocks only', () => {
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    assert.deepEqual(createErrors(csr({}, { certificate: b64('junk') })), ['status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block']);
    assert.deepEqual(createErrors(csr({}, { certificate: b64(ecPem) })), ['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"']);
  });
});

describe('CertificateSigningRequest update validation', () => {
  const approved = { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }] };
  const errors = (next: KubeObject, old: KubeObject, path: 'main' | 'status' | 'approval'): string[] =>
    validateCertificateSigningRequestUpdate(next, old, path).map(fieldErrorString);

  it('vcsr validateCertificateSigningRequestUpdate: Approved/Denied/Failed conditions cannot be removed, on any path', () => {
    assert.deepEqual(errors(csr({}, { conditions: [] }), csr({}, approved), 'approval'), ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
  });

  it('!allowSettingApprovalConditions: only /approval adds Approved or Denied', () => {
    const denied = csr({}, { conditions: [{ type: 'Denied', status: 'True' }] });
    assert.deepEqual(errors(denied, csr(), 'status'), ['status.conditions: Forbidden: updates may not add a condition of type "Denied"']);
    assert.deepEqual(errors(denied, csr(), 'approval'), []);
    const changed = csr({}, { conditions: [{ type: 'Approved', status: 'True', reason: 'Other' }] });
    assert.match(errors(changed, csr({}, approved), 'status')[0]!, /^status\.conditions: Forbidden: updates may not modify a condition of type "Approved"\n/);
  });

  it('!allowSettingCertificate: only /status sets status.certificate, and never replaces one', () => {
    const withCert = (pem: string): KubeObject => csr({}, { certificate: Buffer.from(pem).toString('base64') });
    // A certificate that is not valid PEM content is refused on its own; these tests are about the path rules.
    const certPem = '-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n';
    assert.ok(errors(withCert(certPem), csr(), 'approval').includes('status.certificate: Forbidden: updates may not set certificate content'));
    assert.ok(!errors(withCert(certPem), csr(), 'status').some((e) => e.includes('Forbidden')));
    const other = '-----BEGIN CERTIFICATE-----\nMQ==\n-----END CERTIFICATE-----\n';
    assert.ok(errors(withCert(other), withCert(certPem), 'status').includes('status.certificate: Forbidden: updates may not modify existing certificate content'));
  });

  it('getValidationOptions: what the stored object already has is tolerated (legacy signer, unknown and duplicate usages, both Approved and Denied)', () => {
    const legacy = csr({ signerName: 'kubernetes.io/legacy-unknown', usages: ['flying', 'flying'] }, { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] });
    assert.deepEqual(errors(legacy, legacy, 'main'), []);
    assert.equal(createErrors(legacy).length, 5);
  });
});

describe('CertificateSigningRequest strategy', () => {
  it('PrepareForCreate: the requester replaces what the client sent, status starts empty', () => {
    const obj = csr({ username: 'mallory', uid: 'x', groups: ['system:masters'], extra: { a: ['b'] } }, { conditions: [{ type: 'Approved', status: 'True' }] });
    prepareCreate(obj, { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { 'scopes.example.com': ['read'] } });
    const spec = obj.spec as Record<string, unknown>;
    assert.deepEqual([spec.username, spec.uid, spec.groups, spec.extra], ['alice', 'u-1', ['devs', 'system:authenticated'], { 'scopes.example.com': ['read'] }]);
    assert.deepEqual(obj.status, {});
    const anonymous = csr({ username: 'mallory', groups: ['g'] });
    prepareCreate(anonymous, undefined);
    assert.deepEqual([(anonymous.spec as Record<string, unknown>).username, (anonymous.spec as Record<string, unknown>).groups], [undefined, undefined]);
  });

  it('csrStrategy.PrepareForUpdate: the main resource keeps spec and status as stored', () => {
    const stored = csr({}, approved());
    const next = csr({ usages: ['server auth'], signerName: 'example.com/other' }, { conditions: [] });
    prepareMainUpdate(next, stored);
    assert.deepEqual([next.spec, next.status], [stored.spec, stored.status]);
  });
});

function approved(): Record<string, unknown> {
  return { conditions: [{ type: 'Approved', status: 'True' }] };
}
