import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

import type { AdmissionAttributes, AdmissionOperation } from '../../src/admission/admission.js';
import { CertificateApproval } from '../../src/admission/certificates/certificate-approval.js';
import { CertificateSigning } from '../../src/admission/certificates/certificate-signing.js';
import { CertificateSubjectRestriction } from '../../src/admission/certificates/certificate-subject-restriction.js';
import { ClusterTrustBundleAttest } from '../../src/admission/certificates/cluster-trust-bundle-attest.js';
import { csrOrganizations } from '../../src/machinery/pkcs10.js';
import { ApiCatalog } from '../../src/api/catalog.js';
import type { AuthorizationAttributes, Authorizer } from '../../src/authz/authorizer.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';

/**
 * The certificate admission plugins on kube's test cases
 * (certificates/{approval,signing,subjectrestriction,ctbattest}): the
 * authorizer is asked about the synthetic `signers` resource, by exact
 * signer name then by `<domain>/*`, and refusals carry kube's words.
 */

const catalog = ApiCatalog.load({ runtimeConfig: 'certificates.k8s.io/v1beta1=true' });
const USER = { username: 'jane', groups: ['system:authenticated'] };

/** Allows exactly the (verb, signer name) pairs given; records every question. */
function signerAuthorizer(allowed: Array<[string, string]>, opts: { error?: string } = {}): Authorizer & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    async authorize(a) {
      asked.push(a);
      const ok = a.group === 'certificates.k8s.io' && a.resource === 'signers' && a.version === '*' && allowed.some(([verb, name]) => verb === a.verb && name === a.name);
      return { decision: ok ? 'Allow' : 'NoOpinion', reason: '', ...(opts.error ? { error: opts.error } : {}) };
    },
  };
}

function attrs(operation: AdmissionOperation, resource: string, object: KubeObject | undefined, oldObject: KubeObject | undefined, subresource: string): AdmissionAttributes {
  const info = catalog.resource('certificates.k8s.io', resource === 'clustertrustbundles' ? 'v1beta1' : 'v1', resource)!;
  return {
    operation,
    resource: info,
    subresource,
    namespace: '',
    name: String((object ?? oldObject)?.metadata?.name ?? ''),
    ...(object ? { object } : {}),
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
    user: USER,
  };
}

function csr(signerName: string, status: Record<string, unknown> = {}, request = ''): KubeObject {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'req' }, spec: { signerName, request, usages: ['client auth'] }, status };
}

async function refused(run: Promise<void>, message: string): Promise<void> {
  await assert.rejects(run, (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.equal(err.message, message);
    return true;
  });
}

const APPROVED = { conditions: [{ type: 'Approved', status: 'True', reason: 'OK', message: 'ok' }] };

describe('CertificateApproval', () => {
  const cases: Array<{ name: string; allowed: Array<[string, string]>; signer: string; error?: string }> = [
    { name: 'approve on the exact signer', allowed: [['approve', 'example.com/foo']], signer: 'example.com/foo' },
    { name: 'approve on the signer domain wildcard', allowed: [['approve', 'example.com/*']], signer: 'example.com/foo' },
    { name: 'approve on another signer', allowed: [['approve', 'example.com/bar']], signer: 'example.com/foo', error: 'user not permitted to approve requests with signerName "example.com/foo"' },
    { name: 'sign is not approve', allowed: [['sign', 'example.com/foo']], signer: 'example.com/foo', error: 'user not permitted to approve requests with signerName "example.com/foo"' },
    { name: 'another domain wildcard', allowed: [['approve', 'example.org/*']], signer: 'example.com/foo', error: 'user not permitted to approve requests with signerName "example.com/foo"' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const authz = signerAuthorizer(c.allowed);
      const run = new CertificateApproval(authz).validate(attrs('UPDATE', 'certificatesigningrequests', csr(c.signer, APPROVED), csr(c.signer), 'approval'));
      if (c.error) await refused(run, `certificatesigningrequests.certificates.k8s.io "req" is forbidden: ${c.error}`);
      else await run;
    });
  }

  it('checks the signer of the stored request, not a changed one', async () => {
    const authz = signerAuthorizer([['approve', 'example.com/mine']]);
    await refused(
      new CertificateApproval(authz).validate(attrs('UPDATE', 'certificatesigningrequests', csr('example.com/mine', APPROVED), csr('example.com/theirs'), 'approval')),
      'certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to approve requests with signerName "example.com/theirs"',
    );
    assert.deepEqual(authz.asked.map((a) => [a.verb, a.name, a.user.username]), [['approve', 'example.com/theirs', 'jane'], ['approve', 'example.com/*', 'jane']]);
  });

  it('an authorizer error does not allow', async () => {
    const authz = signerAuthorizer([['approve', 'example.com/foo']], { error: 'webhook down' });
    await refused(new CertificateApproval(authz).validate(attrs('UPDATE', 'certificatesigningrequests', csr('example.com/foo', APPROVED), csr('example.com/foo'), 'approval')), 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to approve requests with signerName "example.com/foo"');
  });

  it('leaves other subresources and the main resource alone', async () => {
    const authz = signerAuthorizer([]);
    const plugin = new CertificateApproval(authz);
    await plugin.validate(attrs('UPDATE', 'certificatesigningrequests', csr('example.com/foo', APPROVED), csr('example.com/foo'), ''));
    assert.equal(authz.asked.length, 0);
    assert.equal(plugin.handles('UPDATE'), true);
    assert.equal(plugin.handles('CREATE'), false);
  });
});

describe('CertificateSigning', () => {
  const issued = { ...APPROVED, certificate: 'LS0tLS1CRUdJTg==' };
  const cases: Array<{ name: string; allowed: Array<[string, string]>; old: KubeObject; new: KubeObject; error?: string }> = [
    { name: 'sign on the exact signer', allowed: [['sign', 'example.com/foo']], old: csr('example.com/foo', APPROVED), new: csr('example.com/foo', issued) },
    { name: 'sign on the domain wildcard', allowed: [['sign', 'example.com/*']], old: csr('example.com/foo', APPROVED), new: csr('example.com/foo', issued) },
    { name: 'no sign permission, certificate set', allowed: [], old: csr('example.com/foo', APPROVED), new: csr('example.com/foo', issued), error: 'user not permitted to sign requests with signerName "example.com/foo"' },
    {
      name: 'no sign permission, conditions changed',
      allowed: [],
      old: csr('example.com/foo', APPROVED),
      new: csr('example.com/foo', { conditions: [...APPROVED.conditions, { type: 'Failed', status: 'True' }] }),
      error: 'user not permitted to sign requests with signerName "example.com/foo"',
    },
    { name: 'no sign permission, neither certificate nor conditions changed', allowed: [], old: csr('example.com/foo', issued), new: csr('example.com/foo', issued) },
    { name: 'approve is not sign', allowed: [['approve', 'example.com/foo']], old: csr('example.com/foo', APPROVED), new: csr('example.com/foo', issued), error: 'user not permitted to sign requests with signerName "example.com/foo"' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const run = new CertificateSigning(signerAuthorizer(c.allowed)).validate(attrs('UPDATE', 'certificatesigningrequests', c.new, c.old, 'status'));
      if (c.error) await refused(run, `certificatesigningrequests.certificates.k8s.io "req" is forbidden: ${c.error}`);
      else await run;
    });
  }
});

/** A CSR made by openssl with these subject organizations; undefined where openssl is missing. */
function opensslCsr(organizations: string[]): string | undefined {
  const subj = `${organizations.map((o) => `/O=${o}`).join('')}/CN=jane`;
  const r = spawnSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', '/dev/null', '-subj', subj], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : undefined;
}

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

/** DER pieces, to build requests openssl would not write. */
const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  const len = body.length < 0x80 ? Buffer.from([body.length]) : Buffer.from([0x81, body.length]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
};
const ORG_OID = Buffer.from([0x55, 0x04, 0x0a]);
const handMadeCsr = (values: Buffer[]): string => {
  const name = tlv(0x30, ...values.map((v) => tlv(0x31, tlv(0x30, tlv(0x06, ORG_OID), v))));
  const info = tlv(0x30, tlv(0x02, Buffer.from([0])), name, tlv(0x30), tlv(0xa0));
  const der = tlv(0x30, info, tlv(0x30), tlv(0x03, Buffer.from([0])));
  return `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
};

describe('CertificateSubjectRestriction', () => {
  const plugin = new CertificateSubjectRestriction();
  const create = (signer: string, pem: string) => plugin.validate(attrs('CREATE', 'certificatesigningrequests', csr(signer, {}, Buffer.from(pem).toString('base64')), undefined, ''));

  it('refuses system:masters for kubernetes.io/kube-apiserver-client', { skip: !hasOpenssl && 'openssl missing' }, async () => {
    await refused(create('kubernetes.io/kube-apiserver-client', opensslCsr(['dev', 'system:masters'])!), 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
  });

  it('allows other groups, and system:masters for other signers', { skip: !hasOpenssl && 'openssl missing' }, async () => {
    await create('kubernetes.io/kube-apiserver-client', opensslCsr(['dev', 'ops'])!);
    await create('example.com/client', opensslCsr(['system:masters'])!);
  });

  it('reads the organization in any ASN.1 string type', async () => {
    assert.deepEqual(csrOrganizations(Buffer.from(handMadeCsr([tlv(0x13, Buffer.from('printable')), tlv(0x0c, Buffer.from('système')), tlv(0x1e, Buffer.from('bmp', 'utf16le').swap16())]))), ['printable', 'système', 'bmp']);
    await refused(create('kubernetes.io/kube-apiserver-client', handMadeCsr([tlv(0x13, Buffer.from('system:masters'))])), 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
  });

  it('refuses a request that is not a CSR', async () => {
    await refused(create('kubernetes.io/kube-apiserver-client', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: failed to parse CSR: PEM block type must be CERTIFICATE REQUEST');
    await refused(create('kubernetes.io/kube-apiserver-client', 'garbage'), 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: failed to parse CSR: PEM block type must be CERTIFICATE REQUEST');
    const truncated = '-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n';
    await assert.rejects(create('kubernetes.io/kube-apiserver-client', truncated), /failed to parse CSR: asn1: /);
  });
});

describe('ClusterTrustBundleAttest', () => {
  const bundle = (signerName: string | undefined, labels?: Record<string, string>): KubeObject => ({
    apiVersion: 'certificates.k8s.io/v1beta1',
    kind: 'ClusterTrustBundle',
    metadata: { name: signerName ? `${signerName.replace('/', ':')}:b` : 'plain', ...(labels ? { labels } : {}) },
    spec: { ...(signerName ? { signerName } : {}), trustBundle: 'PEM' },
  });
  const cases: Array<{ name: string; op: AdmissionOperation; allowed: Array<[string, string]>; new: KubeObject; old?: KubeObject; error?: string }> = [
    { name: 'no signer: no check', op: 'CREATE', allowed: [], new: bundle(undefined) },
    { name: 'attest on the signer', op: 'CREATE', allowed: [['attest', 'example.com/foo']], new: bundle('example.com/foo') },
    { name: 'attest on the domain wildcard', op: 'CREATE', allowed: [['attest', 'example.com/*']], new: bundle('example.com/foo') },
    { name: 'no attest', op: 'CREATE', allowed: [['sign', 'example.com/foo']], new: bundle('example.com/foo'), error: 'user not permitted to attest for signerName "example.com/foo"' },
    { name: 'no attest, update of the bundle', op: 'UPDATE', allowed: [], new: { ...bundle('example.com/foo'), spec: { signerName: 'example.com/foo', trustBundle: 'NEW' } }, old: bundle('example.com/foo'), error: 'user not permitted to attest for signerName "example.com/foo"' },
    { name: 'no attest, update of labels', op: 'UPDATE', allowed: [], new: bundle('example.com/foo', { a: 'b' }), old: bundle('example.com/foo'), error: 'user not permitted to attest for signerName "example.com/foo"' },
    {
      name: 'no attest, update of ownerReferences and finalizers only',
      op: 'UPDATE',
      allowed: [],
      new: { ...bundle('example.com/foo'), metadata: { ...bundle('example.com/foo').metadata, finalizers: ['x/y'], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u' }] } },
      old: bundle('example.com/foo'),
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const run = new ClusterTrustBundleAttest(signerAuthorizer(c.allowed)).validate(attrs(c.op, 'clustertrustbundles', c.new, c.old, ''));
      if (c.error) await refused(run, `clustertrustbundles.certificates.k8s.io "${c.new.metadata?.name}" is forbidden: ${c.error}`);
      else await run;
    });
  }
});
