import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, it } from '@jest/globals';
import { scenarios, startHarness, stopHarness, type Harness } from './scenarios.js';

/** The example operator's suite under Jest (native ESM, run from its compiled copy in dist/; see jest.config.mjs). */

const CRDS = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..', '..', 'examples', 'widget-operator', 'config');

let harness: Harness | undefined;

beforeAll(async () => {
  harness = await startHarness(CRDS);
});

afterAll(() => stopHarness(harness));

for (const [name, scenario] of scenarios) it(name, () => scenario(harness!));
