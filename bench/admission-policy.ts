import { credentialsFrom, removeDir, startServer, tempDir } from '../test/helpers/server.js';
import type { BenchConfig } from './config.js';
import { configMap, createMany, createNamespace } from './fixtures.js';
import { closedLoop, makeAgent, oneRequest, type Target } from './http-client.js';
import type { PhaseResult } from './loop.js';

/**
 * The cost of a ValidatingAdmissionPolicy on the write path: ConfigMap
 * creates in a namespace that a 10-validation policy (with a variable and a
 * ConfigMap param) applies to, beside creates in a namespace its binding's
 * namespaceSelector leaves out, on the same server in the same run, before
 * and after.
 */

const RULES = 10;

const POLICY = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'bench-configmaps' },
  spec: {
    failurePolicy: 'Fail',
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
    variables: [{ name: 'maxKeys', expression: 'int(params.data.maxKeys)' }],
    validations: Array.from({ length: RULES }, (_, i) => [
      { expression: 'size(object.data) <= variables.maxKeys', messageExpression: "'at most ' + string(variables.maxKeys) + ' keys'" },
      { expression: "object.metadata.name.startsWith('bench-')", message: 'names start with bench-' },
      { expression: "!has(object.metadata.labels) || object.metadata.labels.all(k, k.size() < 64)" },
      { expression: "object.data.all(k, size(object.data[k]) < 65536)" },
      { expression: "request.userInfo.username != 'system:anonymous'" },
      { expression: "!('forbidden' in object.data)" },
      { expression: "object.metadata.namespace == request.namespace" },
      { expression: "!has(object.binaryData)" },
      { expression: "has(object.metadata.labels) && object.metadata.labels['app'] == 'bench'" },
      { expression: "request.operation == 'CREATE' || oldObject != null" },
    ][i]!),
  },
};

const BINDING = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'bench-configmaps' },
  spec: {
    policyName: 'bench-configmaps',
    validationActions: ['Deny'],
    paramRef: { name: 'bench-limits', namespace: 'bench-policy', parameterNotFoundAction: 'Deny' },
    matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'bench-policy' } } },
  },
};

export async function admissionPolicySection(cfg: BenchConfig, log: (msg: string) => void): Promise<PhaseResult[]> {
  const dataDir = tempDir('capstan-bench-admission-policy-');
  const server = await startServer({ backend: cfg.backend, dataDir });
  try {
    const admin: Target = { url: server.url, creds: credentialsFrom(server.kubeconfig), pid: server.proc.pid };
    await createNamespace(admin, 'bench-policy');
    await createNamespace(admin, 'bench-nopolicy');
    log(`admission-policy: a ${RULES}-validation policy on ConfigMaps in bench-policy`);
    await createMany(admin, 1, () => ({ path: '/api/v1/namespaces/bench-policy/configmaps', body: { metadata: { name: 'bench-limits' }, data: { maxKeys: '10' } } }), 1);
    await createMany(admin, 1, () => ({ path: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', body: POLICY }), 1);
    await createMany(admin, 1, () => ({ path: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', body: BINDING }), 1);
    // The policy reaches the plugin's informers a moment after its create returned: wait until it refuses.
    const agent = makeAgent(admin, 1);
    try {
      for (let tries = 0; ; tries++) {
        const r = await oneRequest(agent, admin, { method: 'POST', path: '/api/v1/namespaces/bench-policy/configmaps', body: JSON.stringify({ metadata: { name: `refused-${tries}` } }) });
        if (r.status === 422) break;
        if (tries > 200) throw new Error(`admission-policy bench: the policy does not apply (HTTP ${r.status})`);
        await new Promise((res) => setTimeout(res, 50));
      }
    } finally {
      agent.destroy();
    }
    const create = (namespace: string, phase: string) => (i: number, client: number) => ({
      method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, body: configMap(`bench-${phase}-${client}-${i}`),
    });
    const n = cfg.concurrency;
    await closedLoop('warm-up', admin, n, Math.min(cfg.phaseMs, 2000), create('bench-nopolicy', 'warm'), { expect: 201 });
    return [
      await closedLoop('create ConfigMap, no policy applies', admin, n, cfg.phaseMs, create('bench-nopolicy', 'a'), { expect: 201 }),
      await closedLoop(`create ConfigMap, ${RULES}-validation policy with a param`, admin, n, cfg.phaseMs, create('bench-policy', 'b'), { expect: 201 }),
      await closedLoop('create ConfigMap, no policy applies (again)', admin, n, cfg.phaseMs, create('bench-nopolicy', 'c'), { expect: 201 }),
    ];
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
}
