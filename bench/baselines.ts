import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Credentials } from '../test/helpers/server.js';
import type { BareServerConfig } from './bare-server.js';
import type { Target } from './http-client.js';

/** Starting and stopping bench/bare-server.ts processes. */

const BARE_SERVER = fileURLToPath(new URL('./bare-server.js', import.meta.url));

export interface Bare {
  target: Target;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/**
 * A bare server using Capstan's own serving certificate (from its data dir),
 * so HTTPS baselines pay for the same handshake and cipher.
 */
export async function startBare(mode: BareServerConfig['mode'], protocol: BareServerConfig['protocol'], creds: Credentials, dataDir: string, body?: Buffer | string, coalesce = false): Promise<Bare> {
  const config: BareServerConfig = {
    mode,
    protocol,
    coalesce,
    keyFile: join(dataDir, 'pki', 'apiserver.key'),
    certFile: join(dataDir, 'pki', 'apiserver.crt'),
    caFile: join(dataDir, 'pki', 'ca.crt'),
  };
  if (body !== undefined) {
    config.bodyFile = join(dataDir, `baseline-body-${process.hrtime.bigint()}.json`);
    writeFileSync(config.bodyFile, body);
  }
  const proc = spawn(process.execPath, [BARE_SERVER, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /port (\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error('baseline server exited before listening')));
  });
  return {
    target: { url: `${protocol}://127.0.0.1:${port}`, creds, pid: proc.pid },
    proc,
    stop: async () => {
      if (proc.exitCode === null) proc.kill();
      await exited;
    },
  };
}
