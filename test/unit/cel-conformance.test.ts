import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { packageRootDir } from '../../src/api/files.js';
import { KUBE_EXTENSION_SUITES, runConformance, scoreBySuite } from '../cel/conformance.js';

/**
 * cel-spec's conformance data against the CEL library under src/cel/; the
 * files of extensions kube enables run over src/cel's Kubernetes libraries.
 * test/cel/known-failures.json lists every case known to fail, with why;
 * a case that passed and now fails (the score drops) fails this test.
 * CEL_CONFORMANCE_UPDATE=1 rewrites the list from the current run.
 */
const KNOWN = join(packageRootDir(), 'test', 'cel', 'known-failures.json');

describe('cel: conformance (@bufbuild/cel-spec)', () => {
  const outcomes = runConformance();
  const scores = scoreBySuite(outcomes);
  const passed = outcomes.filter((o) => o.passed).length;
  console.log(`CEL conformance: ${passed}/${outcomes.length} (${[...KUBE_EXTENSION_SUITES].join(', ')} over the Kubernetes libraries)`);
  for (const [suite, s] of scores) console.log(`  ${suite}: ${s.passed}/${s.total}`);

  if (process.env['CEL_CONFORMANCE_UPDATE'] === '1') {
    const list: Record<string, string> = {};
    for (const o of outcomes) if (!o.passed) list[o.id] = o.reason ?? '';
    writeFileSync(KNOWN, `${JSON.stringify(list, null, 1)}\n`);
  }
  const known = JSON.parse(readFileSync(KNOWN, 'utf8')) as Record<string, string>;

  it('no case outside the known failures fails', () => {
    const regressions = outcomes.filter((o) => !o.passed && !(o.id in known)).map((o) => `${o.id}: ${o.reason}`);
    assert.deepEqual(regressions, []);
  });
  it('the score is at least the recorded one', () => {
    assert.ok(passed >= outcomes.length - Object.keys(known).length, `${passed} passed`);
  });
});
