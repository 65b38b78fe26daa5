import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { http, ROOT, removeDir, startServer, tempDir } from '../helpers/server.js';

/** `capstan serve` as a user runs it: flags, exit codes, ready line, graceful stop. */

const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const run = (...args: string[]) => spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 20_000 });

describe('capstan CLI', () => {
  it('rejects unknown flags with exit code 2', () => {
    const r = run('serve', '--no-such-flag');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^Error: unknown flag: --no-such-flag\n/);
    const bad = run('serve', '--secure-port', 'abc');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /invalid argument "abc" for "--secure-port" flag/);
    const backend = run('serve', '--storage-backend', 'etcd3');
    assert.equal(backend.status, 2);
    assert.match(backend.stderr, /--etcd-servers must be specified/);
    assert.equal(run('frobnicate').status, 2);
  });

  it('refuses an unknown --runtime-config group with a clear error and exit code 2', () => {
    const r = run('serve', '--runtime-config', 'nosuch.example.com/v1=true', '--storage-backend', 'memory', '--data-dir', tempDir());
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^Error: unknown api groups nosuch\.example\.com\n/);
    assert.doesNotMatch(r.stderr, /\bat /, 'no stack trace');
  });

  it('logs each request at -v=3 and none at the default verbosity', async () => {
    for (const [args, logged] of [[['-v', '3'], true], [[], false]] as const) {
      const server = await startServer({ args: [...args] });
      try {
        assert.equal((await http(server, 'GET', '/version?probe=1')).status, 200);
      } finally {
        await server.stop();
      }
      const line = /"HTTP" verb="GET" URI="\/version\?probe=1" latency="[\d.]+ms" userAgent="[^"]*" audit-ID="[0-9a-f-]{36}" srcIP="[^"]+" resp=200/;
      assert.equal(line.test(server.output()), logged, server.output());
    }
  });

  it('prints help with the kube-apiserver flag names', () => {
    const r = run('serve', '--help');
    assert.equal(r.status, 0);
    for (const flag of ['--secure-port', '--bind-address', '--cert-dir', '--tls-cert-file', '--tls-private-key-file', '--client-ca-file', '--storage-backend', '--data-dir']) {
      assert.ok(r.stdout.includes(flag), flag);
    }
  });

  it('serves on a free port with --secure-port 0, prints one ready line and stops on SIGTERM', async () => {
    const dataDir = tempDir();
    try {
      const server = await startServer({ backend: 'sqlite', dataDir, port: 0 });
      try {
        assert.notEqual(server.port, 6443);
        const lines = server.output().split('\n').filter(Boolean);
        assert.equal(lines.length, 1, server.output());
        assert.match(lines[0]!, /ready at https:\/\/127\.0\.0\.1:\d+ in \d+ms; store: sqlite .*capstan\.db; kubeconfig: .*admin\.kubeconfig$/);
        assert.equal(await server.stop(), 0);
      } finally {
        // A failed assertion must not leave the server running (the test process would never exit).
        await server.kill();
      }
    } finally {
      removeDir(dataDir);
    }
  });
});
