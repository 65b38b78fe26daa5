import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueClientCert } from '../src/server/pki.js';
import { credentialsFrom, removeDir, startServer, tempDir } from '../test/helpers/server.js';
import type { BenchConfig } from './config.js';
import { configMap, createMany, createNamespace } from './fixtures.js';
import { closedLoop, makeAgent, oneRequest, type Target } from './http-client.js';
import type { PhaseResult } from './loop.js';

/**
 * The cost of RBAC on the request path: GET of one ConfigMap by a user whose
 * permission comes from one RoleBinding among 1,000 RoleBindings (to 1,000
 * ClusterRoles, each binding another user), beside the same GET as
 * system:masters (allowed before RBAC is asked) on the same server in the
 * same run. `capstan serve` with its default authorization (RBAC).
 */

const ROLES = 1000;

export async function rbacSection(cfg: BenchConfig, log: (msg: string) => void): Promise<PhaseResult[]> {
  const dataDir = tempDir('capstan-bench-rbac-');
  const server = await startServer({ backend: cfg.backend, dataDir, strictRbac: true });
  try {
    const admin: Target = { url: server.url, creds: credentialsFrom(server.kubeconfig), pid: server.proc.pid };
    const ca = { cert: readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'), key: readFileSync(join(dataDir, 'pki', 'ca.key'), 'utf8') };
    const pair = await issueClientCert(ca, 'user-500', ['bench-users']);
    const limited: Target = { url: server.url, creds: { ca: admin.creds.ca, cert: pair.cert, key: pair.key }, pid: server.proc.pid };
    await createNamespace(admin, 'bench-rbac');
    const agent = makeAgent(admin, 1);
    await oneRequest(agent, admin, { method: 'POST', path: '/api/v1/namespaces/bench-rbac/configmaps', body: configMap('probe') });
    agent.destroy();
    log(`rbac: ${ROLES} ClusterRoles and ${ROLES} RoleBindings`);
    await createMany(admin, ROLES, (i) => ({
      path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      body: {
        metadata: { name: `bench-role-${i}` },
        rules: [
          { apiGroups: [''], resources: ['configmaps', `things-${i}`], verbs: ['get', 'list'] },
          { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'], resourceNames: [`d-${i}`] },
        ],
      },
    }));
    await createMany(admin, ROLES, (i) => ({
      path: '/apis/rbac.authorization.k8s.io/v1/namespaces/bench-rbac/rolebindings',
      body: {
        metadata: { name: `bench-binding-${i}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `bench-role-${i}` },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `user-${i}` }],
      },
    }));
    const get = (): { method: string; path: string } => ({ method: 'GET', path: '/api/v1/namespaces/bench-rbac/configmaps/probe' });
    // The binding may reach the authorizer's view a moment after its create returned.
    for (let tries = 0; ; tries++) {
      const a = makeAgent(limited, 1);
      const r = await oneRequest(a, limited, get());
      a.destroy();
      if (r.status === 200) break;
      if (tries > 100) throw new Error(`rbac bench: the limited user gets ${r.status}`);
      await new Promise((res) => setTimeout(res, 50));
    }
    const n = cfg.concurrency;
    // Warm-up (connections, JIT), not reported.
    await closedLoop('warm-up', admin, n, Math.min(cfg.phaseMs, 2000), get);
    return [
      await closedLoop('GET ConfigMap as system:masters', admin, n, cfg.phaseMs, get),
      await closedLoop(`GET ConfigMap as a limited user (RBAC: ${ROLES} RoleBindings, ${ROLES} ClusterRoles)`, limited, n, cfg.phaseMs, get),
      await closedLoop('GET ConfigMap as system:masters (again)', admin, n, cfg.phaseMs, get),
    ];
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
}
