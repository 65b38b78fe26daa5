import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { FLAG_SPECS } from '../../src/server/options.js';
import { ROOT } from '../helpers/server.js';

/** docs/compatibility.md stays true: every row has a status and names test files and flags that exist. */

const STATUSES = new Set(['implemented', 'partly', 'not']);

it('every row of the compatibility table names a test file or flag that exists', () => {
  const text = readFileSync(join(ROOT, 'docs', 'compatibility.md'), 'utf8');
  const rows = text.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Area') && !l.startsWith('|---'));
  assert.ok(rows.length >= 20, `${rows.length} rows`);
  const flags = new Set(FLAG_SPECS.map((f) => `--${f.name}`));
  for (const row of rows) {
    const [area, status, where] = row.split('|').slice(1).map((c) => c.trim());
    assert.ok(STATUSES.has(status!), `${area}: status "${status}"`);
    const named = [...where!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    assert.ok(named.length > 0, `${area} names nothing`);
    for (const n of named) {
      if (n.startsWith('--')) assert.ok(flags.has(n), `${area}: capstan serve has no flag ${n}`);
      else assert.ok(existsSync(join(ROOT, n)), `${area}: ${n} does not exist`);
    }
  }
});
