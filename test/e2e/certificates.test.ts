import assert from 'node:assert/strict';
import { webcrypto, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { encodePem } from '../../src/machinery/pem.js';
import { loadX509 } from '../../src/machinery/x509.js';
import { etcdMissing, startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';

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
    await ok(server, ['create', '-f', '-'], csrManifest('bob', bob.request, 'kubernetes.io/legacy-unknown', ['client auth', 'code signing']));
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
