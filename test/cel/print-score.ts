import { runConformance, scoreBySuite } from './conformance.js';

/** `node dist/test/cel/print-score.js`: the conformance score per file, and the failing cases with reasons. */
const t0 = performance.now();
const outcomes = runConformance();
const ms = performance.now() - t0;
let passed = 0;
for (const [suite, s] of scoreBySuite(outcomes)) {
  passed += s.passed;
  console.log(`${suite.padEnd(20)} ${s.passed}/${s.total}`);
}
console.log(`${'total'.padEnd(20)} ${passed}/${outcomes.length} (${Math.round(ms)} ms)`);
if (process.argv.includes('--failures')) for (const o of outcomes) if (!o.passed) console.log(`${o.id}\t${o.reason}`);
