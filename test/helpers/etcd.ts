import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir, removeDir, startServer, type TestServer } from './server.js';

/**
 * Test harness for a real etcd (Debian's etcd-server): one single-member
 * cluster on loopback ports with its own data dir, which a test can stop,
 * kill and start again on the same data and ports.
 */

export interface TestEtcd {
  /** Client URL, e.g. http://127.0.0.1:41234. */
  endpoint: string;
  dataDir: string;
  /** Stop (SIGTERM) and wait for exit; the data stays for start(). */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
  /** Start again on the same data dir and ports; resolves once healthy. */
  start(): Promise<void>;
  /** Stop and remove the data dir. */
  destroy(): Promise<void>;
  output(): string;
  /** The running etcd's pid (for CPU measurements), undefined while stopped. */
  pid(): number | undefined;
}

let etcdPath: string | null | undefined;

export function findEtcd(): string | null {
  if (etcdPath !== undefined) return etcdPath;
  const r = spawnSync('sh', ['-c', 'command -v etcd || ls /usr/bin/etcd 2>/dev/null'], { encoding: 'utf8' });
  etcdPath = r.status === 0 && r.stdout.trim() ? r.stdout.trim().split('\n')[0]! : null;
  return etcdPath;
}

/** Why an etcd test cannot run here, or undefined when it can (CI requires etcd). */
export function etcdMissing(): string | undefined {
  if (findEtcd()) return undefined;
  if (process.env.CAPSTAN_REQUIRE_ETCD === '1') throw new Error('CAPSTAN_REQUIRE_ETCD=1 but etcd is not installed (apt-get install -y etcd-server)');
  return 'skipped: etcd not installed (apt-get install -y etcd-server)';
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function startEtcd(): Promise<TestEtcd> {
  const bin = findEtcd();
  if (!bin) throw new Error('etcd not installed');
  const dataDir = tempDir('capstan-etcd-');
  const clientPort = await freePort();
  const peerPort = await freePort();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name', 'capstan-test',
    '--data-dir', dataDir,
    '--listen-client-urls', endpoint,
    '--advertise-client-urls', endpoint,
    '--listen-peer-urls', peer,
    '--initial-advertise-peer-urls', peer,
    '--initial-cluster', `capstan-test=${peer}`,
    // Tests write fast and fsync often; a small snapshot count keeps restarts quick.
    '--snapshot-count', '10000',
    '--log-level', 'error',
    '--logger', 'zap',
  ];
  let proc: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let out = '';

  const start = async (): Promise<void> => {
    const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    proc = p;
    p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    exited = new Promise((r) => p.once('exit', () => r()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (p.exitCode !== null) throw new Error(`etcd exited with ${p.exitCode}:\n${out}`);
      try {
        const res = await fetch(`${endpoint}/health`);
        const body = (await res.json()) as { health?: string };
        if (body.health === 'true') return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`etcd did not become healthy:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const signal = async (sig: NodeJS.Signals): Promise<void> => {
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill(sig);
    await exited;
  };
  try {
    await start();
  } catch (err) {
    // Leave nothing behind: a half-started etcd and its data dir.
    await signal('SIGKILL');
    removeDir(dataDir);
    throw err;
  }
  return {
    endpoint,
    dataDir,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    start,
    destroy: async () => {
      await signal('SIGKILL');
      removeDir(dataDir);
    },
    output: () => out,
    pid: () => (proc && proc.exitCode === null && proc.signalCode === null ? proc.pid : undefined),
  };
}

/**
 * `count` Capstan processes on one etcd: the first generates the PKI, the
 * others serve with its cert dir, so one set of credentials works on all.
 */
export async function startServersOnEtcd(etcd: TestEtcd, count: number): Promise<TestServer[]> {
  const args = (certDir?: string): string[] => ['--etcd-servers', etcd.endpoint, ...(certDir ? ['--cert-dir', certDir] : [])];
  const first = await startServer({ backend: 'etcd3', args: args() });
  const servers = [first];
  for (let i = 1; i < count; i++) servers.push(await startServer({ backend: 'etcd3', args: args(join(first.dataDir, 'pki')) }));
  return servers;
}

/** Stops the processes (removing their data dirs), then etcd. */
export async function stopServersOnEtcd(servers: readonly TestServer[], etcd: TestEtcd | undefined): Promise<void> {
  for (const s of servers) {
    await s.stop();
    removeDir(s.dataDir);
  }
  await etcd?.destroy();
}
