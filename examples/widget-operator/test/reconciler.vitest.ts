import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, it } from 'vitest';
import { scenarios, startHarness, stopHarness, type Harness } from './scenarios.js';

/** The example operator's suite under Vitest, from the TypeScript source (`vitest run` in examples/widget-operator). */

let harness: Harness | undefined;

beforeAll(async () => {
  harness = await startHarness(fileURLToPath(new URL('../config', import.meta.url)));
});

afterAll(() => stopHarness(harness));

for (const [name, scenario] of scenarios) it(name, () => scenario(harness!));
