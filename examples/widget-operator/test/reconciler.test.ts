import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { scenarios, startHarness, stopHarness, type Harness } from './scenarios.js';

/** The example operator's suite under node:test (run from its compiled copy in dist/). */

const CRDS = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..', '..', 'examples', 'widget-operator', 'config');

let harness: Harness | undefined;

before(async () => {
  harness = await startHarness(CRDS);
});

after(() => stopHarness(harness));

for (const [name, scenario] of scenarios) it(name, () => scenario(harness!));
