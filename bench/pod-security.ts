import { performance } from 'node:perf_hooks';
import { parseVersion } from '../src/admission/pod-security/api.js';
import { loadPodSecurityConfiguration } from '../src/admission/pod-security/configuration.js';
import { PodSecurityEvaluator, aggregateResults } from '../src/admission/pod-security/evaluator.js';
import { PodSecurityMetrics } from '../src/admission/pod-security/metrics.js';
import { PodSecurityAdmission } from '../src/admission/pod-security/pod-security-admission.js';
import type { KubeObject } from '../src/machinery/object.js';

/**
 * PodSecurity's own cost, in process (no HTTP): evaluating one pod at
 * restricted:latest (what every pod write in an enforcing namespace pays),
 * and the dry run of a new enforce level over a namespace of 3000 pods (kube
 * gives it 1 s and at most 3000 pods). Run: `node dist/bench/pod-security.js`.
 */

function pod(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${i}`, annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default' } },
    spec: {
      volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'c' } }],
      initContainers: [{ name: 'init', image: 'busybox', securityContext: { privileged: i % 2 === 0 } }],
      containers: [
        { name: 'app', image: 'nginx', ports: [{ containerPort: 80 }], livenessProbe: { httpGet: { path: '/' } }, securityContext: { capabilities: { add: ['NET_ADMIN'] } } },
        { name: 'sidecar', image: 'envoy', securityContext: { runAsUser: 1000 } },
      ],
    },
  };
}

async function main(): Promise<void> {
  const evaluator = new PodSecurityEvaluator();
  const lv = { level: 'restricted' as const, version: parseVersion('latest').version };
  const pods = Array.from({ length: 3000 }, (_, i) => pod(i));
  for (let i = 0; i < 2000; i++) aggregateResults(evaluator.evaluatePod(lv, pods[i % 3000]!.metadata!, pods[i % 3000]!.spec as object));
  const n = 100_000;
  let t = performance.now();
  for (let i = 0; i < n; i++) aggregateResults(evaluator.evaluatePod(lv, pods[i % 3000]!.metadata!, pods[i % 3000]!.spec as object));
  const perPodUs = ((performance.now() - t) * 1000) / n;

  const core = new PodSecurityAdmission(loadPodSecurityConfiguration(undefined), evaluator, { getNamespace: async () => undefined, listPods: async () => pods }, new PodSecurityMetrics());
  const runs: number[] = [];
  let warnings: string[] = [];
  for (let r = 0; r < 5; r++) {
    t = performance.now();
    warnings = await core.evaluatePodsInNamespace('bench', lv);
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  console.log(`restricted:latest evaluation of one violating pod: ${perPodUs.toFixed(1)} µs (mean of ${n})`);
  console.log(`dry run of restricted over 3000 pods: median ${runs[2]!.toFixed(1)} ms (min ${runs[0]!.toFixed(1)}, max ${runs[4]!.toFixed(1)}; 5 runs), ${warnings.length} warnings`);
}

await main();
