import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dump } from 'js-yaml';

import { kubectl, kubectlMissing, removeDir, ROOT, startServer, tempDir, type TestServer } from '../helpers/server.js';

/**
 * Real kubectl with tokens: `--token` with a static token, `kubectl create
 * token` and then the token, `kubectl auth whoami` for each identity, and
 * the exec-plugin kubeconfig that `capstan kubeconfig --service-account`
 * writes (kubectl runs `capstan credential` for its token).
 */

const skip = kubectlMissing();
const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');

describe('kubectl with tokens', { skip }, () => {
  let server: TestServer;
  const dir = tempDir('capstan-kubectl-authn-');
  /** A kubeconfig with the server and its CA but no client certificate: the token is the only credential. */
  const tokenKubeconfig = (name: string, token: string): { kubeconfig: string } => {
    const path = join(dir, `${name}.kubeconfig`);
    writeFileSync(
      path,
      dump({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.creds.ca).toString('base64') } }],
        users: [{ name: 'u', user: { token } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    return { kubeconfig: path };
  };
  const ok = async (target: { kubeconfig: string }, args: string[]): Promise<string> => {
    const r = await kubectl(target, args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
    return r.stdout;
  };
  const whoami = async (target: { kubeconfig: string }) => JSON.parse(await ok(target, ['auth', 'whoami', '-o', 'json'])).status.userInfo;

  before(async () => {
    writeFileSync(join(dir, 'tokens.csv'), 'static-token,alice,uid-alice,"dev,ops"\n');
    server = await startServer({ args: ['--token-auth-file', join(dir, 'tokens.csv')] });
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    removeDir(dir);
  });

  it('--token with a static token', async () => {
    const alice = tokenKubeconfig('alice', 'static-token');
    assert.deepEqual(await whoami(alice), { username: 'alice', uid: 'uid-alice', groups: ['dev', 'ops', 'system:authenticated'] });
    assert.match(await ok(alice, ['get', 'ns', '-o', 'name']), /namespace\/default/);
    // --token itself, over a kubeconfig with another (wrong) token.
    assert.equal((await whoami({ kubeconfig: tokenKubeconfig('other', 'wrong').kubeconfig }).catch(() => undefined)), undefined);
    assert.equal(JSON.parse(await ok(tokenKubeconfig('other2', 'wrong'), ['--token', 'static-token', 'auth', 'whoami', '-o', 'json'])).status.userInfo.username, 'alice');
    const wrong = await kubectl(tokenKubeconfig('wrong', 'not-a-token'), ['get', 'ns']);
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /You must be logged in to the server \(Unauthorized\)/);
  });

  it('kubectl create token, then the token', async () => {
    assert.deepEqual((await whoami(server)).username, 'capstan-admin');
    await ok(server, ['create', 'serviceaccount', 'builder']);
    await ok(server, ['run', 'runner', '--image', 'busybox', '--overrides', JSON.stringify({ spec: { serviceAccountName: 'builder' } })]);
    const token = (await ok(server, ['create', 'token', 'builder', '--duration', '20m', '--audience', 'https://kubernetes.default.svc.cluster.local', '--bound-object-kind', 'Pod', '--bound-object-name', 'runner'])).trim();
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number; iat: number; 'kubernetes.io': { pod: { name: string } } };
    assert.equal(claims.exp - claims.iat, 1200);
    assert.equal(claims['kubernetes.io'].pod.name, 'runner');
    const info = await whoami(tokenKubeconfig('builder', token));
    assert.equal(info.username, 'system:serviceaccount:default:builder');
    assert.deepEqual(info.extra['authentication.kubernetes.io/pod-name'], ['runner']);
    const tooShort = await kubectl(server, ['create', 'token', 'builder', '--duration', '1m']);
    assert.notEqual(tooShort.code, 0);
    assert.match(tooShort.stderr, /may not specify a duration less than 10 minutes/);
  });

  it('the exec plugin kubeconfig of capstan kubeconfig --service-account', async () => {
    const path = join(dir, 'sa.kubeconfig');
    const made = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const p = spawn(process.execPath, [MAIN, 'kubeconfig', '--data-dir', server.dataDir, '--service-account', 'default/builder', '--output', path], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('exit', (code) => resolve({ code, stderr }));
    });
    assert.equal(made.code, 0, made.stderr);
    const info = await whoami({ kubeconfig: path });
    assert.equal(info.username, 'system:serviceaccount:default:builder');
    assert.match(await ok({ kubeconfig: path }, ['get', 'pods', '-o', 'name']), /pod\/runner/);
  });
});
