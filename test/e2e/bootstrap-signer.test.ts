import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compactVerify } from 'jose';

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, http, removeDir, ROOT, startServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);

/**
 * bootstrap-signer-controller (`--controllers=*,bootstrapsigner`, off by
 * default as in kube-controller-manager): kube-public/cluster-info carries
 * this server's kubeconfig and a detached JWS per signing token, verified
 * here with a JOSE library (HS256, the full token as key, as SPEC.md says); expired, non-signing and deleted tokens have none; anonymous
 * clients can read it.
 */

function tokenSecret(id: string, secret: string, opts: { signing?: boolean; expiration?: string } = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: {
      'token-id': id,
      'token-secret': secret,
      ...(opts.signing !== false ? { 'usage-bootstrap-signing': 'true' } : {}),
      ...(opts.expiration ? { expiration: opts.expiration } : {}),
    },
  };
}

const SECRETS = '/api/v1/namespaces/kube-system/secrets';
const CLUSTER_INFO = '/api/v1/namespaces/kube-public/configmaps/cluster-info';

describe('bootstrap signer', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ backend: 'memory', args: ['--controllers=*,bootstrapsigner'] });
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('signs cluster-info for every signing token, verifiable with a JOSE library, readable anonymously', async () => {
    const past = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const tokens = { abcdef: '0123456789abcdef', ghijkl: 'fedcba9876543210' };
    for (const [id, secret] of Object.entries(tokens)) assert.equal((await http(server, 'POST', SECRETS, { body: tokenSecret(id, secret) })).status, 201);
    assert.equal((await http(server, 'POST', SECRETS, { body: tokenSecret('nosign', '0000000000000000', { signing: false }) })).status, 201);
    assert.equal((await http(server, 'POST', SECRETS, { body: tokenSecret('expire', '1111111111111111', { expiration: past }) })).status, 201);
    const data = await eventually(async () => {
      const res = await http(server, 'GET', CLUSTER_INFO);
      const d = res.json?.data as Record<string, string> | undefined;
      return d && d['jws-kubeconfig-abcdef'] && d['jws-kubeconfig-ghijkl'] ? d : undefined;
    }, 30_000, 100);
    assert.deepEqual(Object.keys(data).sort(), ['jws-kubeconfig-abcdef', 'jws-kubeconfig-ghijkl', 'kubeconfig']);
    assert.match(data.kubeconfig!, /certificate-authority-data: \S+/);
    assert.ok(data.kubeconfig!.includes(`server: ${server.url.replace('0.0.0.0', '127.0.0.1')}`), data.kubeconfig);
    const payload = Buffer.from(data.kubeconfig!).toString('base64url');
    for (const [id, secret] of Object.entries(tokens)) {
      const [header, empty, signature] = data[`jws-kubeconfig-${id}`]!.split('.');
      assert.equal(empty, '', 'detached: no payload between the periods');
      // SPEC.md: the full token is the shared secret.
      const verified = await compactVerify(`${header}.${payload}.${signature}`, new TextEncoder().encode(`${id}.${secret}`));
      assert.deepEqual(verified.protectedHeader, { alg: 'HS256', kid: id });
      assert.equal(new TextDecoder().decode(verified.payload), data.kubeconfig);
      await assert.rejects(compactVerify(`${header}.${payload}.${signature}`, new TextEncoder().encode(secret)));
    }
    // kubeadm's discovery: an anonymous GET.
    const anonymous = await http(server, 'GET', CLUSTER_INFO, { anonymous: true });
    assert.equal(anonymous.status, 200, anonymous.text);
    assert.equal(anonymous.json.data.kubeconfig, data.kubeconfig);
  });

  it('drops the signature of a deleted token', async () => {
    assert.equal((await http(server, 'DELETE', `${SECRETS}/bootstrap-token-ghijkl`)).status, 200);
    await eventually(async () => {
      const d = (await http(server, 'GET', CLUSTER_INFO)).json.data as Record<string, string>;
      return !('jws-kubeconfig-ghijkl' in d) && 'jws-kubeconfig-abcdef' in d;
    }, 30_000, 100);
  });

  it('capstan token create, list and delete, as kubeadm token does; a created token signs cluster-info', async () => {
    const cli = (...args: string[]) => run(process.execPath, [join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'token', ...args, '--kubeconfig', server.kubeconfig]);
    const created = (await cli('create', '--description', 'for the test', '--ttl', '2h')).stdout.trim();
    const m = /^([a-z0-9]{6})\.([a-z0-9]{16})$/.exec(created);
    assert.ok(m, created);
    const id = m[1]!;
    const secret = await http(server, 'GET', `${SECRETS}/bootstrap-token-${id}`);
    assert.equal(secret.status, 200);
    const field = (k: string): string => Buffer.from(secret.json.data[k] ?? '', 'base64').toString('utf8');
    assert.equal(field('usage-bootstrap-signing'), 'true');
    assert.equal(field('usage-bootstrap-authentication'), 'true');
    assert.equal(field('auth-extra-groups'), 'system:bootstrappers:kubeadm:default-node-token');
    assert.equal(field('description'), 'for the test');
    const list = (await cli('list')).stdout;
    assert.match(list, /^TOKEN\s+TTL\s+EXPIRES\s+USAGES\s+DESCRIPTION\s+EXTRA GROUPS$/m);
    const row = list.split('\n').find((l) => l.startsWith(created));
    assert.ok(row, list);
    assert.match(row, /\s1h59m\d+s\s/);
    assert.match(row, /\sauthentication,signing\s+for the test\s+system:bootstrappers:kubeadm:default-node-token$/);
    await eventually(async () => `jws-kubeconfig-${id}` in ((await http(server, 'GET', CLUSTER_INFO)).json.data as object), 30_000, 100);
    assert.equal((await cli('delete', created)).stdout, `bootstrap token "${id}" deleted\n`);
    assert.equal((await http(server, 'GET', `${SECRETS}/bootstrap-token-${id}`)).status, 404);
    await eventually(async () => !(`jws-kubeconfig-${id}` in ((await http(server, 'GET', CLUSTER_INFO)).json.data as object)), 30_000, 100);
  });
});
