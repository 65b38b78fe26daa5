import assert from 'node:assert/strict';
import { it } from 'node:test';

import { Environment } from '@marcbachmann/cel-js';

import { type KubernetesLibraryOptions, registerKubernetesLibraries } from '../../src/cel/libraries/index.js';

/** A cel-js environment with kube's options (optional types, undeclared variables dyn) and the Kubernetes libraries. */
export function celLibEnv(options: KubernetesLibraryOptions = {}): Environment {
  const env = new Environment({ enableOptionalTypes: true, unlistedVariablesAreDyn: true });
  return registerKubernetesLibraries(env, options);
}

/** One row of a library table: the expression and what it must yield, or the error text it must fail with. */
export type Row =
  | { expr: string; value: unknown; vars?: Record<string, unknown> }
  | { expr: string; error: string | RegExp; vars?: Record<string, unknown> }
  | { expr: string; compileError: string | RegExp; vars?: Record<string, unknown> };

/** The text a failure carries: cel-js keeps the bare message in `summary`. */
export function errorText(e: unknown): string {
  if (e && typeof e === 'object' && 'summary' in e && typeof (e as { summary: unknown }).summary === 'string') {
    return (e as { summary: string }).summary;
  }
  return e instanceof Error ? e.message : String(e);
}

function matches(text: string, want: string | RegExp): boolean {
  return typeof want === 'string' ? text === want : want.test(text);
}

/** Runs a table: each row is one test. */
export function runTable(rows: readonly Row[], env: Environment = celLibEnv()): void {
  for (const row of rows) {
    it(row.expr, () => {
      if ('compileError' in row) {
        const r = env.check(row.expr);
        assert.equal(r.valid, false, `expected a compile error, got type ${r.type}`);
        const text = errorText(r.error);
        assert.ok(matches(text, row.compileError), `compile error ${JSON.stringify(text)} does not match ${row.compileError}`);
        return;
      }
      if ('error' in row) {
        let text: string | undefined;
        try {
          const v = env.evaluate(row.expr, row.vars);
          assert.fail(`expected an error, got ${String(v)}`);
        } catch (e) {
          if (e instanceof assert.AssertionError) throw e;
          text = errorText(e);
        }
        assert.ok(matches(text, row.error), `error ${JSON.stringify(text)} does not match ${String(row.error)}`);
        return;
      }
      const check = env.check(row.expr);
      assert.ok(check.valid, `type check failed: ${errorText(check.error)}`);
      assert.deepEqual(env.evaluate(row.expr, row.vars), row.value);
    });
  }
}
