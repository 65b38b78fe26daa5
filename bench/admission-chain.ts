import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { AdmissionChain, type AdmissionAttributes } from '../src/admission/admission.js';
import { AlwaysAdmit } from '../src/admission/always-admit.js';
import { DenyServiceExternalIPs } from '../src/admission/deny-service-external-ips.js';
import { LimitPodHardAntiAffinityTopology } from '../src/admission/limit-pod-hard-anti-affinity-topology.js';
import { AdmissionMetrics } from '../src/admission/metrics.js';
import { ApiCatalog } from '../src/api/catalog.js';

/**
 * The admission chain's own cost per write (one admit and one validate
 * phase over three in-process plugins that admit), without and with kube's
 * step and controller histograms: what the chain adds to a request besides
 * its plugins' work. `node dist/bench/admission-chain.js [iterations]`;
 * writes bench/results/admission-chain.md.
 */

const iterations = Number(process.argv[2] ?? 200_000);
const pods = ApiCatalog.load().resource('', 'v1', 'pods')!;
const attrs: AdmissionAttributes = { operation: 'CREATE', resource: pods, subresource: '', namespace: 'a', name: 'p', dryRun: false, object: { metadata: { name: 'p' }, spec: {} } };
const plugins = [new AlwaysAdmit(), new DenyServiceExternalIPs(), new LimitPodHardAntiAffinityTopology()];

async function perWrite(chain: AdmissionChain): Promise<number> {
  for (let i = 0; i < iterations / 10; i++) {
    await chain.admit(attrs);
    await chain.validate(attrs);
  }
  const started = performance.now();
  for (let i = 0; i < iterations; i++) {
    await chain.admit(attrs);
    await chain.validate(attrs);
  }
  return ((performance.now() - started) * 1000) / iterations;
}

const bare = await perWrite(new AdmissionChain(plugins));
const timed = await perWrite(new AdmissionChain(plugins, { metrics: new AdmissionMetrics() }));
const lines = [
  '# Admission chain overhead',
  '',
  `${new Date().toISOString()}, ${iterations} writes each, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}.`,
  '',
  '| chain | µs per write (admit + validate, 3 plugins) |',
  '|---|---|',
  `| no metrics | ${bare.toFixed(2)} |`,
  `| step + controller histograms | ${timed.toFixed(2)} |`,
  '',
];
writeFileSync(join('bench', 'results', 'admission-chain.md'), lines.join('\n'));
process.stdout.write(lines.join('\n'));
