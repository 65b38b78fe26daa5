import { formatSummary, runFuzz } from './runner.js';

/**
 * `npm run fuzz`: a long fuzz run against an in-process server.
 * FUZZ_CASES (default 200000) and FUZZ_SEED (default: random, printed) set it up;
 * GENERATE_HOSTILE_SIZES=1 adds the inputs the limits work owns (see generators.ts).
 */

const cases = Number(process.env.FUZZ_CASES ?? 200_000);
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
process.stdout.write(`fuzz: ${cases} cases, seed ${seed} (replay with FUZZ_SEED=${seed})\n`);
let last = 0;
try {
  const summary = await runFuzz({
    cases,
    seed,
    progress: (n) => {
      if (n - last >= 10_000) {
        last = n;
        process.stdout.write(`  ${n} cases, RSS ${Math.round(process.memoryUsage.rss() / 1024 / 1024)} MiB\n`);
      }
    },
  });
  process.stdout.write(formatSummary(summary) + '\n');
} catch (err) {
  process.stdout.write(`fuzz failed (seed ${seed}):\n${(err as Error).message}\n${process.env.FUZZ_STACK === "1" ? String((err as Error).stack) : ""}\n`);
  process.exitCode = 1;
}
