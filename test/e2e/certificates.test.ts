import assert from 'node:assert/strict';
import { webcrypto, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { encodePem } from '../../src/machinery/pem.js';
import { loadX509 } from '../../src/machinery/x509.js';
import { etcdMissing, startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';
import { userKubeconfig } from '../helpers/users.js';

/**
 * certificatesigningrequest-signing-controller and -cleaner-controller as a
 * kubectl user sees them: a CSR made with a real key and approved with
 * `kubectl certificate approve` gets a certificate from the cluster CA that
 * authenticates as the CSR's subject (RBAC decides 403 or 200); a request a
 * signer refuses gets kube's Failed condition; old CSRs are deleted; the
 * --cluster-signing-* flags pick the CA; on etcd only the leader signs.
 */

const skip = kubectlMissing();
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const HOUR = 3600_000;
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

interface Requester {
  keyPem: string;
  request: string;
}

/** A key pair and a PKCS#10 request for `subject`, made as a client would (WebCrypto and @peculiar/x509). */
async function requester(subject: string, sans: Array<{ type: 'dns' | 'ip'; value: string }> = []): Promise<Requester> {
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: EC, extensions: sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : [] });
  return { keyPem: encodePem('PRIVATE KEY', new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey))), request: Buffer.from(csr.toString('pem')).toString('base64') };
}

function csrManifest(name: string, request: string, signerName: string, usages: string[], expirationSeconds?: number): string {
  return JSON.stringify({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName, usages, ...(expirationSeconds ? { expirationSeconds } : {}) } });
}

async function ok(server: { kubeconfig: string }, args: string[], input?: string): Promise<string> {
  const r = await kubectl(server, args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The certificate kubectl shows once the CSR is issued. */
async function issued(server: { kubeconfig: string }, name: string): Promise<string> {
  return eventually(async () => {
    const b64 = await ok(server, ['get', 'csr', name, '-o', 'jsonpath={.status.certificate}']);
    return b64 ? Buffer.from(b64, 'base64').toString() : undefined;
  }, 30_000, 100);
}

/** A kubeconfig that authenticates with the client certificate `certPem`. */
function clientKubeconfig(server: TestServer, dir: string, user: string, certPem: string, keyPem: string): { kubeconfig: string } {
  const certFile = join(dir, `${user}.crt`);
  const keyFile = join(dir, `${user}.key`);
  writeFileSync(certFile, certPem);
  writeFileSync(keyFile, keyPem, { mode: 0o600 });
  const kubeconfig = join(dir, `${user}.kubeconfig`);
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.creds.ca).toString('base64') } }],
      users: [{ name: user, user: { 'client-certificate': certFile, 'client-key': keyFile } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user } }],
      'current-context': 'c',
    }),
  );
  return { kubeconfig };
}

function ago(ms: number): string {
  return new Date(Date.now() - ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

describe('CSR signing and cleaning with kubectl', { skip }, () => {
  let server: TestServer;
  let dir: string;

  before(async () => {
    server = await startServer({ backend: 'memory', strictRbac: true });
    dir = tempDir('capstan-csr-');
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    if (dir) removeDir(dir);
  });

  it('kubectl certificate approve issues a certificate from the cluster CA that authenticates as the CSR subject', async () => {
    const alice = await requester('CN=alice, O=devs');
    await ok(server, ['create', '-f', '-'], csrManifest('alice', alice.request, 'kubernetes.io/kube-apiserver-client', ['client auth', 'digital signature'], 3600));
    await ok(server, ['certificate', 'approve', 'alice']);
    const certPem = await issued(server, 'alice');
    assert.match(await ok(server, ['get', 'csr', 'alice']), /kubernetes\.io\/kube-apiserver-client\s+.*60m\s+Approved,Issued/);

    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(readFileSync(join(server.dataDir, 'pki', 'ca.crt')));
    assert.ok(cert.verify(ca.publicKey), 'signed by <cert-dir>/ca.crt');
    assert.ok(cert.checkIssued(ca));
    assert.equal(cert.subject, 'O=devs\nCN=alice');
    assert.equal(cert.ca, false);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    // expirationSeconds: an hour (short lifetimes are not backdated at the end), from five minutes ago.
    assert.equal(Date.parse(cert.validTo) - Date.parse(cert.validFrom), HOUR + 5 * 60_000);

    const asAlice = clientKubeconfig(server, dir, 'alice', certPem, alice.keyPem);
    const denied = await kubectl(asAlice, ['get', 'ns']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope/);
    assert.match(await ok(asAlice, ['auth', 'whoami']), /Username\s+alice[\s\S]*Groups\s+\[devs system:authenticated\]/);
    await ok(server, ['create', 'clusterrolebinding', 'devs-view', '--clusterrole=view', '--group=devs']);
    assert.match(await eventually(async () => {
      const r = await kubectl(asAlice, ['get', 'ns']);
      return r.code === 0 ? r.stdout : undefined;
    }, 20_000, 100), /^default\s+Active/m);
  });

  it('a request its signer refuses gets kube\'s Failed condition and no certificate', async () => {
    const node = await requester('CN=system:node:n1, O=devs', [{ type: 'dns', value: 'n1.example' }]);
    await ok(server, ['create', '-f', '-'], csrManifest('serving', node.request, 'kubernetes.io/kubelet-serving', ['server auth', 'digital signature']));
    await ok(server, ['certificate', 'approve', 'serving']);
    const failed = await eventually(async () => {
      const csr = JSON.parse(await ok(server, ['get', 'csr', 'serving', '-o', 'json'])) as { status: { certificate?: string; conditions: Array<Record<string, string>> } };
      return csr.status.conditions.find((c) => c.type === 'Failed') ? csr : undefined;
    }, 30_000, 100);
    const condition = failed.status.conditions.find((c) => c.type === 'Failed')!;
    assert.equal(condition.status, 'True');
    assert.equal(condition.reason, 'SignerValidationFailure');
    assert.equal(condition.message, 'subject organization is not system:nodes');
    assert.ok(condition.lastUpdateTime && condition.lastTransitionTime, 'the /status strategy fills the timestamps');
    assert.equal(failed.status.certificate, undefined);
    assert.match(await ok(server, ['get', 'csr', 'serving']), /Approved,Failed/);
  });

  it('the cleaner deletes CSRs denied or approved and issued more than an hour ago, and keeps the others', async () => {
    const old = await requester('CN=old');
    for (const name of ['old-denied', 'old-approved', 'fresh-denied']) await ok(server, ['create', '-f', '-'], csrManifest(name, old.request, 'kubernetes.io/kube-apiserver-client', ['client auth']));
    // Conditions whose lastUpdateTime the approver set two hours ago, as a client may.
    for (const [name, type] of [['old-denied', 'Denied'], ['old-approved', 'Approved']] as const) {
      const csr = JSON.parse((await http(server, 'GET', `${CSRS}/${name}`)).text) as Record<string, unknown>;
      csr.status = { conditions: [{ type, status: 'True', reason: 'Test', message: 'long ago', lastUpdateTime: ago(2 * HOUR) }] };
      assert.equal((await http(server, 'PUT', `${CSRS}/${name}/approval`, { body: csr })).status, 200);
    }
    await ok(server, ['certificate', 'deny', 'fresh-denied']);
    const gone = async (name: string): Promise<boolean> => (await http(server, 'GET', `${CSRS}/${name}`)).status === 404;
    await eventually(async () => (await gone('old-denied')) && (await gone('old-approved')), 30_000, 100);
    for (const name of ['fresh-denied', 'alice', 'serving']) assert.equal((await http(server, 'GET', `${CSRS}/${name}`)).status, 200, `${name} stays`);
    assert.match((await http(server, 'GET', '/metrics')).text, /^workqueue_adds_total\{name="certificatesigningrequest_cleaner"\} [1-9]/m);
  });
});

describe('CSR requester and validation (kube\'s csrStrategy)', { skip }, () => {
  let server: TestServer;
  let dir: string;

  before(async () => {
    server = await startServer({ backend: 'memory', strictRbac: true, args: ['--controllers=*,-csrsigning'] });
    dir = tempDir('capstan-csr-requester-');
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    if (dir) removeDir(dir);
  });

  it('a non-admin\'s CSR records its requester (REQUESTOR column), whatever the manifest claims; kubectl certificate approve timestamps the condition', async () => {
    await ok(server, ['create', 'clusterrole', 'csr-requester', '--verb=create,get,list,update', '--resource=certificatesigningrequests']);
    await ok(server, ['create', 'clusterrolebinding', 'csr-requesters', '--clusterrole=csr-requester', '--group=requesters']);
    const carol = await userKubeconfig(server, dir, 'carol', ['requesters']);
    const req = await requester('CN=carol');
    const manifest = JSON.parse(csrManifest('carol', req.request, 'example.com/signer', ['client auth'])) as { spec: Record<string, unknown> };
    Object.assign(manifest.spec, { username: 'mallory', uid: 'forged', groups: ['system:masters'], extra: { forged: ['yes'] } });
    await eventually(async () => ((await kubectl(carol, ['create', '-f', '-'], JSON.stringify(manifest))).code === 0 ? true : undefined), 20_000, 100);

    const table = await ok(server, ['get', 'csr', 'carol']);
    assert.match(table, /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$/m);
    assert.match(table, /^carol\s+\S+\s+example\.com\/signer\s+carol\s+<none>\s+Pending$/m);
    const stored = JSON.parse(await ok(server, ['get', 'csr', 'carol', '-o', 'json'])) as { spec: Record<string, unknown>; status: Record<string, unknown> };
    assert.equal(stored.spec.username, 'carol');
    assert.deepEqual(stored.spec.groups, ['requesters', 'system:authenticated']);
    assert.equal(stored.spec.uid, undefined);
    assert.equal(stored.spec.extra, undefined);
    assert.deepEqual(stored.status, {});
    // csrStrategy's GetResetFields: no write through the main resource owns spec.
    assert.doesNotMatch(JSON.stringify((stored as unknown as { metadata: { managedFields?: unknown } }).metadata.managedFields ?? []), /f:spec/);

    // The main resource changes metadata only: spec stays as created (csrStrategy.PrepareForUpdate).
    const changed = { ...stored, metadata: { ...(stored as unknown as { metadata: Record<string, unknown> }).metadata, labels: { team: 'a' } }, spec: { ...stored.spec, usages: ['server auth'] } };
    await ok(carol, ['replace', '-f', '-'], JSON.stringify(changed));
    const replaced = JSON.parse(await ok(server, ['get', 'csr', 'carol', '-o', 'json'])) as { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> };
    assert.deepEqual([replaced.metadata.labels, replaced.spec.usages], [{ team: 'a' }, ['client auth']]);

    await ok(server, ['certificate', 'approve', 'carol']);
    const approved = JSON.parse(await ok(server, ['get', 'csr', 'carol', '-o', 'json'])) as { status: { conditions: Array<Record<string, string>> } };
    const [condition] = approved.status.conditions;
    assert.equal(condition!.type, 'Approved');
    assert.match(condition!.lastUpdateTime!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(condition!.lastTransitionTime, condition!.lastUpdateTime);
    assert.match(await ok(server, ['get', 'csr', 'carol']), /^carol\s+.*\s+carol\s+<none>\s+Approved$/m);

    // /status may not add approval conditions; /approval may not remove them (kube's 422 texts).
    const addDenied = { ...approved, status: { conditions: [...approved.status.conditions, { type: 'Denied', status: 'True' }] } };
    const viaStatus = await http(server, 'PUT', `${CSRS}/carol/status`, { body: addDenied });
    assert.equal(viaStatus.status, 422);
    assert.equal(viaStatus.json.reason, 'Invalid');
    assert.match(viaStatus.json.message, /status\.conditions: Forbidden: updates may not add a condition of type "Denied"/);
    const removeApproved = await http(server, 'PUT', `${CSRS}/carol/approval`, { body: { ...approved, status: { conditions: [] } } });
    assert.equal(removeApproved.status, 422);
    assert.equal(removeApproved.json.message, 'CertificateSigningRequest.certificates.k8s.io "carol" is invalid: status.conditions: Forbidden: updates may not remove a condition of type "Approved"');
  });

  it('refuses invalid requests with kube\'s 422 field errors', async () => {
    const req = await requester('CN=dave');
    const refused = async (name: string, request: string, signerName: string, usages: string[], expirationSeconds?: number): Promise<string> => {
      const r = await kubectl(server, ['create', '-f', '-'], csrManifest(name, request, signerName, usages, expirationSeconds));
      assert.notEqual(r.code, 0, `${name} is refused`);
      return r.stderr.trim();
    };
    assert.equal(
      await refused('garbage', Buffer.from('hello').toString('base64'), 'example.com/signer', ['client auth']),
      'The CertificateSigningRequest "garbage" is invalid: spec.request: Invalid value: "aGVsbG8=": PEM block type must be CERTIFICATE REQUEST',
    );
    assert.equal(
      await refused('usages', req.request, 'example.com/signer', ['client auth', 'teleport', 'client auth'], 599),
      'The CertificateSigningRequest "usages" is invalid: \n' +
        `* spec.usages[1]: Unsupported value: "teleport": supported values: ${VALID_USAGES_TEXT}\n` +
        '* spec.usages[2]: Duplicate value: "client auth"\n' +
        '* spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)',
    );
    assert.equal(
      await refused('legacy', req.request, 'kubernetes.io/legacy-unknown', ['client auth']),
      'The CertificateSigningRequest "legacy" is invalid: spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    );
    assert.equal(
      await refused('nosigner', req.request, '', []),
      'The CertificateSigningRequest "nosigner" is invalid: \n* spec.usages: Required value\n* spec.signerName: Required value',
    );
    const viaHttp = await http(server, 'POST', CSRS, { body: JSON.parse(csrManifest('http', req.request, 'nodomain', ['client auth'])) });
    assert.equal(viaHttp.status, 422);
    assert.deepEqual(viaHttp.json.details.causes, [
      { reason: 'FieldValueInvalid', message: "Invalid value: \"nodomain\": must be a fully qualified domain and path of the form 'example.com/signer-name'", field: 'spec.signerName' },
    ]);
  });
});

const VALID_USAGES_TEXT = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
].map((u) => JSON.stringify(u)).join(', ');

describe('CSR signing with --cluster-signing-* flags', { skip }, () => {
  let server: TestServer | undefined;
  let dir: string;

  before(async () => {
    dir = tempDir('capstan-csr-flags-');
    const x509 = await loadX509();
    const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const ca = await x509.X509CertificateGenerator.createSelfSigned({ name: 'CN=other-ca', notBefore: new Date(Date.now() - HOUR), notAfter: new Date(Date.now() + 100 * HOUR), keys, signingAlgorithm: EC, extensions: [new x509.BasicConstraintsExtension(true, undefined, true)] });
    writeFileSync(join(dir, 'other.crt'), ca.toString('pem'));
    writeFileSync(join(dir, 'other.key'), encodePem('PRIVATE KEY', new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey))));
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    removeDir(dir);
  });

  it('signs with the given CA for the given duration; a bad CA file stops the start with kube\'s text', async () => {
    server = await startServer({ args: [`--cluster-signing-cert-file=${join(dir, 'other.crt')}`, `--cluster-signing-key-file=${join(dir, 'other.key')}`, '--cluster-signing-duration=2h', '--controllers=*,-csrcleaner'] });
    const bob = await requester('CN=bob');
    // kubernetes.io/legacy-unknown, which any usages suit, is refused on create through v1 (kube's validation): a client signer instead.
    await ok(server, ['create', '-f', '-'], csrManifest('bob', bob.request, 'kubernetes.io/kube-apiserver-client', ['client auth', 'digital signature']));
    await ok(server, ['certificate', 'approve', 'bob']);
    const cert = new X509Certificate(await issued(server, 'bob'));
    assert.ok(cert.verify(new X509Certificate(readFileSync(join(dir, 'other.crt'))).publicKey));
    assert.equal(Date.parse(cert.validTo) - Date.parse(cert.validFrom), 2 * HOUR + 5 * 60_000);
    assert.doesNotMatch((await http(server, 'GET', '/metrics')).text, /name="certificatesigningrequest_cleaner"/, '-csrcleaner turns the cleaner off');

    writeFileSync(join(dir, 'broken.crt'), 'not a certificate');
    await assert.rejects(startServer({ args: [`--cluster-signing-kubelet-serving-cert-file=${join(dir, 'broken.crt')}`, `--cluster-signing-kubelet-serving-key-file=${join(dir, 'other.key')}`] }), {
      message: new RegExp(`failed to start kubernetes\\.io/kubelet-serving certificate controller: error reading CA cert file "${join(dir, 'broken.crt').replace(/[.]/g, '\\.')}": tls: failed to find any PEM data in certificate input`),
    });
  });
});

describe('CSR signing on two processes on one etcd', { skip: skip ?? etcdMissing() }, () => {
  let etcd: TestEtcd;
  const servers: TestServer[] = [];
  let dir: string;

  before(async () => {
    etcd = await startEtcd();
    dir = tempDir('capstan-csr-etcd-');
    const args = ['--etcd-servers', etcd.endpoint, '--leader-elect-lease-duration', '3s', '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '500ms'];
    const first = await startServer({ backend: 'etcd3', args, strictRbac: true });
    servers.push(first);
    // The signing key is on the leader's disk: processes share the cert dir, so any of them may sign and all trust what is signed.
    servers.push(await startServer({ backend: 'etcd3', args: [...args, '--cert-dir', join(first.dataDir, 'pki')], strictRbac: true }));
  });

  after(async () => {
    for (const s of servers) await s.stop().catch(() => undefined);
    for (const s of servers) removeDir(s.dataDir);
    if (dir) removeDir(dir);
    await etcd?.stop();
  });

  it('only the leader signs; the certificate authenticates on every process', async () => {
    const leading = (s: TestServer): boolean => s.output().lastIndexOf('started leading') > s.output().lastIndexOf('stopped leading');
    const leader = await eventually(async () => (servers.filter(leading).length === 1 ? servers.find(leading) : undefined), 30_000, 200);
    const follower = servers.find((s) => s !== leader)!;
    const carol = await requester('CN=carol, O=ops');
    await ok(follower, ['create', '-f', '-'], csrManifest('carol', carol.request, 'kubernetes.io/kube-apiserver-client', ['client auth']));
    await ok(follower, ['certificate', 'approve', 'carol']);
    const certPem = await issued(follower, 'carol');
    const signs = async (s: TestServer): Promise<number> => Number(/^workqueue_adds_total\{name="certificate"\} (\d+)/m.exec((await http(s, 'GET', '/metrics')).text)?.[1] ?? 0);
    assert.ok((await signs(leader)) > 0, 'the leader signed');
    assert.equal(await signs(follower), 0, 'a follower runs no signer');
    for (const s of servers) {
      const whoami = await ok(clientKubeconfig(s, dir, `carol-${s.port}`, certPem, carol.keyPem), ['auth', 'whoami']);
      assert.match(whoami, /Username\s+carol[\s\S]*Groups\s+\[ops system:authenticated\]/);
    }
  });
});
