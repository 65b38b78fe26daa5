import { spawn } from 'node:child_process';

export interface ProcessResult {
  code: number | null;
  /** stdout and stderr interleaved as they came. */
  output: string;
  /** Killed at the time limit: it did not exit on its own. */
  timedOut: boolean;
}

/** Runs a command to its exit (killed, with `timedOut`, after `timeoutMs`); resolves with its code and output. */
export function runProcess(bin: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let timedOut = false;
    proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill('SIGKILL');
    }, opts.timeoutMs);
    proc.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}
