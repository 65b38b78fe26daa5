import { spawnSync } from 'node:child_process';

import { runProcess } from './process.js';

/**
 * Debian's python3-kubernetes, as the e2e tests run it. The package installs
 * into the system interpreter, not into whatever python3 comes first on PATH
 * (pyenv and the like).
 */
export const PYTHON = '/usr/bin/python3';

/** undefined when `import <modules>` works; else the skip reason (a failure under CAPSTAN_REQUIRE_PYTHON_CLIENT=1). */
export function pythonClientMissing(modules: string): string | undefined {
  const probe = spawnSync(PYTHON, ['-c', `import ${modules}`], { encoding: 'utf8' });
  if (probe.status === 0) return undefined;
  const why = 'the Python kubernetes client is not installed (apt-get install -y python3-kubernetes)';
  if (process.env['CAPSTAN_REQUIRE_PYTHON_CLIENT'] === '1') throw new Error(`CAPSTAN_REQUIRE_PYTHON_CLIENT=1 but ${why}`);
  return `skipped: ${why}`;
}

/**
 * Runs a script that prints one JSON line `{"step": …, "value": …}` per step
 * (HOME set to `home`, so the client's caches stay there) and returns the
 * steps in order; throws with the output when the script fails.
 */
export async function runPythonSteps(script: string, args: string[], home: string): Promise<Map<string, unknown>> {
  const r = await runProcess(PYTHON, [script, ...args], { env: { ...process.env, HOME: home }, timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`the script failed${r.timedOut ? ' (timed out)' : ''}:\n${r.output}`);
  return new Map(
    r.output
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { step: string; value: unknown })
      .map((s) => [s.step, s.value]),
  );
}
