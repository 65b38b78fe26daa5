import { runConformance, scoreBySuite, type Engine } from './conformance.js';

/**
 * `node dist/test/cel/print-score.js [--bufbuild] [--failures]`: the
 * conformance score per cel-spec file (all cases, and without the cases that
 * need protobuf messages), for cel-js or, with --bufbuild, @bufbuild/cel.
 */
const engine: Engine = process.argv.includes('--bufbuild') ? 'bufbuild' : 'cel-js';
const t0 = performance.now();
const outcomes = runConformance(engine);
const ms = performance.now() - t0;
const noProto = outcomes.filter((o) => !o.protobuf);
const protoFree = scoreBySuite(noProto);
let passed = 0;
console.log(`${engine}: file                 all     without protobuf`);
for (const [suite, s] of scoreBySuite(outcomes)) {
  passed += s.passed;
  const p = protoFree.get(suite) ?? { passed: 0, total: 0 };
  console.log(`${suite.padEnd(20)} ${`${s.passed}/${s.total}`.padStart(9)} ${`${p.passed}/${p.total}`.padStart(9)}`);
}
const pf = noProto.filter((o) => o.passed).length;
console.log(`${'total'.padEnd(20)} ${`${passed}/${outcomes.length}`.padStart(9)} ${`${pf}/${noProto.length}`.padStart(9)} (${Math.round(ms)} ms)`);
if (process.argv.includes('--failures')) for (const o of outcomes) if (!o.passed) console.log(`${o.id}\t${o.reason}`);
