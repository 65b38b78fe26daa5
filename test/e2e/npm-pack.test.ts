import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runProcess } from '../helpers/process.js';
import { kubectl, kubectlMissing, removeDir, ROOT, tempDir } from '../helpers/server.js';

/**
 * The package as a user gets it: `npm pack` → `npm install <tarball>` into
 * an empty project (dependencies from the npm registry) → `npx capstan
 * serve` answers `kubectl get ns`, and a script importing capstan/testing
 * runs. Installed without optional dependencies, as when better-sqlite3's
 * native addon cannot build: the memory store must still work and the
 * SQLite store must say what is missing. Skipped when the registry is
 * unreachable, unless CAPSTAN_REQUIRE_NPM_PACK=1 (CI).
 */

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

async function registryUnreachable(): Promise<string | undefined> {
  const ping = await runProcess(NPM, ['ping'], { timeoutMs: 30_000 }).catch((err: Error) => ({ code: -1, output: err.message, timedOut: false }));
  if (ping.code === 0) return undefined;
  const why = ping.timedOut ? 'npm ping timed out' : ping.output.trim().split('\n').pop();
  if (process.env.CAPSTAN_REQUIRE_NPM_PACK === '1') throw new Error(`CAPSTAN_REQUIRE_NPM_PACK=1 but the npm registry is unreachable: ${why}`);
  return `skipped: npm registry unreachable (${why})`;
}

const skip = await registryUnreachable();

/** `npx capstan serve …` in `cwd` until its ready line (the URL), or its exit. */
function serve(cwd: string, args: string[]): { ready: Promise<string>; exited: Promise<number | null>; output: () => string; stop: () => Promise<number | null> } {
  // Its own process group: npx does not pass SIGTERM on to the server it started, so stop() signals the group.
  const proc = spawn(NPX, ['--no-install', 'capstan', 'serve', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time:\n${out}`)), 120_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /ready at (https:\/\/\S+) /.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it was ready:\n${out}`));
    });
  });
  ready.catch(() => undefined);
  return {
    ready,
    exited,
    output: () => out,
    stop: async () => {
      try {
        process.kill(-proc.pid!, 'SIGTERM');
      } catch {
        // The group is gone already.
      }
      return exited;
    },
  };
}

describe('npm pack → install into an empty project', { skip }, () => {
  let dir: string;
  let project: string;

  before(async () => {
    dir = tempDir('capstan-pack-');
    // --ignore-scripts: the tarball of what `npm test` has just built (prepack would rebuild dist/ under the other tests).
    const pack = await runProcess(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, timeoutMs: 120_000 });
    assert.equal(pack.code, 0, pack.output);
    const [info] = JSON.parse(pack.output.slice(pack.output.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = new Set(info!.files.map((f) => f.path));
    for (const f of ['package.json', 'CHANGELOG.md', 'dist/src/cli/main.js', 'dist/src/testing/index.js', 'dist/src/testing/index.d.ts', 'dist/src/server/apiserver.d.ts', 'src/api/generated/catalog.json', 'src/api/generated/definitions.json', 'src/codec/protobuf/generated/k8s-proto.json']) {
      assert.ok(files.has(f), `the tarball lacks ${f}`);
    }
    assert.deepEqual([...files].filter((f) => /^(dist\/)?(test|bench|examples)\/|\.ts$/.test(f) && !f.endsWith('.d.ts')), []);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'empty-project', version: '1.0.0', private: true, type: 'module' }));
    project = dir;
    const installed = await runProcess(NPM, ['install', '--omit=optional', '--no-audit', '--no-fund', join(dir, info!.filename)], { cwd: project, timeoutMs: 600_000 });
    assert.equal(installed.code, 0, installed.output);
    assert.ok(existsSync(join(project, 'node_modules', 'capstan', 'package.json')));
    assert.ok(!existsSync(join(project, 'node_modules', 'better-sqlite3')), 'better-sqlite3 is optional and was omitted');
  });

  after(() => removeDir(dir));

  it('npx capstan serve answers kubectl get ns with the kubeconfig it wrote', { skip: kubectlMissing() }, async () => {
    const data = join(dir, 'data');
    const server = serve(project, ['--secure-port', '0', '--data-dir', data, '--storage-backend', 'memory']);
    try {
      await server.ready;
      const r = await kubectl({ kubeconfig: join(data, 'admin.kubeconfig') }, ['get', 'ns', '-o', 'name']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.stdout.trim().split('\n').sort(), ['namespace/default', 'namespace/kube-node-lease', 'namespace/kube-public', 'namespace/kube-system']);
    } finally {
      // npx ends by the signal too (no exit code to check).
      await server.stop();
    }
  });

  it('says what is missing when the SQLite store has no better-sqlite3', async () => {
    const server = serve(project, ['--secure-port', '0', '--data-dir', join(dir, 'sqlite-data')]);
    await assert.rejects(server.ready, /optional dependency better-sqlite3, which is not installed/);
    assert.notEqual(await server.exited, 0);
  });

  it('runs a script importing capstan/testing', async () => {
    const script = join(project, 'check.mjs');
    writeFileSync(
      script,
      [
        "import { startTestServer } from 'capstan/testing';",
        'const kube = await startTestServer();',
        "const ns = await kube.freshNamespace('pack');",
        "await kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } }, { namespace: ns });",
        "const cm = await kube.client.get({ group: '', version: 'v1', resource: 'configmaps', namespace: ns, name: 'c' });",
        'console.log(`configmap data ${JSON.stringify(cm.data)}`);',
        'await kube.stop();',
      ].join('\n'),
    );
    const r = await runProcess(process.execPath, [script], { cwd: project, timeoutMs: 120_000 });
    assert.equal(r.timedOut, false, `the script did not exit on its own:\n${r.output}`);
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /configmap data \{"k":"v"\}/);
  });
});
