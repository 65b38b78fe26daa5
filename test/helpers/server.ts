import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, existsSync } from 'node:fs';
import { request as httpsRequest, type Agent, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';

/**
 * Test harness: starts the real server (as a child process, exactly as a user
 * runs it) on a free port with its own data dir, and talks to it over HTTPS
 * with the admin credentials it wrote.
 */

export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');

export interface Credentials {
  ca: string;
  cert: string;
  key: string;
}

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  kubeconfig: string;
  proc: ChildProcess;
  creds: Credentials;
  /** Output of the process so far. */
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
}

export interface StartOptions {
  backend?: 'memory' | 'sqlite' | 'etcd3';
  dataDir?: string;
  args?: string[];
  port?: number;
  /**
   * Keep RBAC as `capstan serve` sets it up. Otherwise authenticated users
   * are bound to cluster-admin once the server is ready (tests written
   * before RBAC, whose non-admin users may do everything, as the interim
   * authorizer let them).
   */
  strictRbac?: boolean;
}

/** The binding that gives every authenticated user of a test server everything (see StartOptions.strictRbac). */
export const AUTHENTICATED_ADMIN_BINDING = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'capstan-tests:authenticated-cluster-admin' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }],
};

export function tempDir(prefix = 'capstan-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  let dataDir = opts.dataDir;
  if (dataDir === undefined) {
    dataDir = tempDir();
    cpSync(await generatedPki(), join(dataDir, 'pki'), { recursive: true });
  }
  return spawnServer(dataDir, opts);
}

/**
 * The PKI a first start generates (its certificates and RSA service account
 * key are about a third of a fresh start's CPU), made once per build of the
 * generating code by a real `capstan serve` and shared by the test processes
 * through the temp dir: servers started without a data dir get a copy, as if
 * they had started before. Tests of the generation itself pass their own data dir.
 */
let pkiTemplate: Promise<string> | undefined;
function generatedPki(): Promise<string> {
  pkiTemplate ??= (async () => {
    const hash = createHash('sha256');
    for (const f of ['src/server/pki.js', 'src/authn/service-account-keys.js', 'src/server/apiserver.js']) hash.update(readFileSync(join(ROOT, 'dist', f)));
    const dir = join(tmpdir(), `capstan-test-pki-${hash.digest('hex').slice(0, 16)}`);
    if (existsSync(dir)) return dir;
    const made = tempDir('capstan-test-pki-making-');
    const server = await spawnServer(made, { strictRbac: true });
    await server.stop();
    try {
      renameSync(join(made, 'pki'), dir);
    } catch (err) {
      // Another test process made it first.
      if (!existsSync(dir)) throw err;
    }
    removeDir(made);
    return dir;
  })();
  return pkiTemplate;
}

async function spawnServer(dataDir: string, opts: StartOptions): Promise<TestServer> {
  const args = [MAIN, 'serve', '--secure-port', String(opts.port ?? 0), '--data-dir', dataDir, '--storage-backend', opts.backend ?? 'memory', ...(opts.args ?? [])];
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      // Leave no process behind when the caller gets no handle to stop it.
      proc.kill('SIGKILL');
      reject(new Error(`server did not become ready:\n${out}`));
    }, 30_000);
    const onData = (): void => {
      const m = /ready at (https:\/\/\S+) /.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.stdout!.off('data', onData);
        resolveUrl(m[1]!);
      }
    };
    proc.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready:\n${out}`));
    });
  });
  const kubeconfig = join(dataDir, 'admin.kubeconfig');
  const creds = credentialsFrom(kubeconfig);
  if (!opts.strictRbac) {
    const bound = await http({ url, creds }, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: AUTHENTICATED_ADMIN_BINDING });
    if (bound.status !== 201 && bound.status !== 409) throw new Error(`could not bind authenticated users to cluster-admin: ${bound.status} ${bound.text}`);
  }
  return {
    url,
    port: Number(new URL(url).port),
    dataDir,
    kubeconfig,
    proc,
    creds,
    output: () => out,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (proc.exitCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
}

export function credentialsFrom(kubeconfigPath: string): Credentials {
  const kc = load(readFileSync(kubeconfigPath, 'utf8')) as {
    clusters: Array<{ cluster: Record<string, string> }>;
    users: Array<{ user: Record<string, string> }>;
  };
  const d = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString('utf8');
  return {
    ca: d(kc.clusters[0]!.cluster['certificate-authority-data']),
    cert: d(kc.users[0]!.user['client-certificate-data']),
    key: d(kc.users[0]!.user['client-key-data']),
  };
}

/** URL and admin credentials of an in-process ApiServer, for http(). */
export function inProcessClient(server: { url: string; adminKubeconfig(): { caPem?: string; clientCertPem: string; clientKeyPem: string } }): { url: string; creds: Credentials } {
  const kc = server.adminKubeconfig();
  return { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
  /** The body's bytes (protobuf answers). */
  body: Buffer;
}

export interface HttpOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Send no client certificate (anonymous). */
  anonymous?: boolean;
  /** A keep-alive agent to reuse connections (default: a new connection per request). */
  agent?: Agent;
}

/** One HTTPS request as the admin user (or anonymously). */
export function http(server: { url: string; creds: Credentials }, method: string, path: string, opts: HttpOptions = {}): Promise<HttpResponse> {
  const u = new URL(path, server.url);
  const body = opts.body === undefined ? undefined : typeof opts.body === 'string' || Buffer.isBuffer(opts.body) ? opts.body : JSON.stringify(opts.body);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  // Node sends DELETE bodies unframed unless the length is given.
  if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
  const reqOpts: RequestOptions = {
    method,
    hostname: u.hostname,
    port: u.port,
    path: u.pathname + u.search,
    headers,
    ca: server.creds.ca,
    ...(opts.anonymous ? {} : { cert: server.creds.cert, key: server.creds.key }),
    agent: opts.agent ?? false,
  };
  return new Promise((resolveRes, reject) => {
    const req = httpsRequest(reqOpts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolveRes({ status: res.statusCode ?? 0, headers: res.headers, text, json, body: bytes });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

let kubectlPath: string | null | undefined;

/** The kubectl binary, or null when none is installed. */
export function findKubectl(): string | null {
  if (kubectlPath !== undefined) return kubectlPath;
  const r = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' });
  kubectlPath = r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
  return kubectlPath;
}

/** Runs kubectl against the server; resolves with its exit code and output. */
export function kubectl(server: { kubeconfig: string }, args: string[], input?: string, timeoutMs = 60_000): Promise<KubectlResult> {
  const bin = findKubectl();
  if (!bin) throw new Error('kubectl not found');
  return new Promise((resolveRun) => {
    const proc = spawn(bin, ['--kubeconfig', server.kubeconfig, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, KUBECONFIG: server.kubeconfig, HOME: process.env.HOME ?? tmpdir() },
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
    if (input !== undefined) proc.stdin.write(input);
    proc.stdin.end();
  });
}

/** Why a kubectl test cannot run here, or undefined when it can (CI requires kubectl). */
export function kubectlMissing(): string | undefined {
  if (findKubectl()) return undefined;
  if (process.env.CAPSTAN_REQUIRE_KUBECTL === '1') throw new Error('CAPSTAN_REQUIRE_KUBECTL=1 but kubectl is not on PATH');
  return 'skipped: kubectl not found';
}

export function removeDir(dir: string): void {
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}

/** Polls `fn` until it returns a truthy value or the time is up. */
export async function eventually<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs}ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
