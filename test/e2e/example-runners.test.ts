import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runProcess } from '../helpers/process.js';
import { ROOT } from '../helpers/server.js';

/**
 * The example operator's Vitest and Jest suites (its node:test suite runs
 * with the others). Each runner must pass all three scenarios and exit on
 * its own: capstan/testing's stop() leaves nothing that keeps it alive, so
 * a runner still there at the time limit fails the test.
 */

const EXAMPLE = join(ROOT, 'examples', 'widget-operator');
const LIMIT_MS = 180_000;
// Color codes would split the counts the assertions read.
const ENV = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: 'true' };

function runnerMissing(bin: string): string | undefined {
  if (existsSync(join(ROOT, 'node_modules', bin))) return undefined;
  if (process.env.CI) throw new Error(`${bin} is a devDependency but is not installed`);
  return `skipped: ${bin} not installed (npm install)`;
}

describe('the example operator under other test runners', { concurrency: true }, () => {
  it('passes under Vitest and Vitest exits on its own', { skip: runnerMissing('vitest') }, async () => {
    const r = await runProcess(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], { cwd: EXAMPLE, env: ENV, timeoutMs: LIMIT_MS });
    assert.equal(r.timedOut, false, `vitest did not exit within ${LIMIT_MS} ms:\n${r.output}`);
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /Tests\s+3 passed \(3\)/, r.output);
    assert.doesNotMatch(r.output, /hanging|close timed out/i, r.output);
  });

  it('passes under Jest (native ESM) and Jest exits on its own', { skip: runnerMissing('jest') }, async () => {
    const args = ['--experimental-vm-modules', join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '-c', join(EXAMPLE, 'jest.config.mjs')];
    const r = await runProcess(process.execPath, args, { cwd: ROOT, env: ENV, timeoutMs: LIMIT_MS });
    assert.equal(r.timedOut, false, `jest did not exit within ${LIMIT_MS} ms:\n${r.output}`);
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /Tests:\s+3 passed, 3 total/, r.output);
    assert.doesNotMatch(r.output, /did not exit/, r.output);
  });
});
