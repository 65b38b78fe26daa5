import type { BenchConfig } from './config.js';
import { createNamespace } from './fixtures.js';
import { closedLoop, jsonRequest, type Target } from './http-client.js';
import type { PhaseResult } from './loop.js';

/**
 * Writes of big objects: a Deployment with 100 containers and a ConfigMap
 * with 1,000 entries, each changed one field at a time by a strategic merge
 * patch and by server-side apply, beside a plain PUT of the same object (the
 * baseline: the same write without a patch to compute or fields to track).
 * Each client writes its own object, so the phases measure the write path,
 * not contention.
 */

const NAMESPACE = 'writes';

/** A Deployment with 100 containers (also the object of schema-write-path.ts). */
export function deployment(name: string, image: string): Record<string, unknown> {
  const containers = Array.from({ length: 100 }, (_, i) => ({
    name: `c${i}`,
    image: i === 0 ? image : `registry.example.com/team/app-${i}:1.0.${i}`,
    ports: [{ containerPort: 8000 + i, name: `p${i}` }],
    env: [
      { name: 'MODE', value: 'production' },
      { name: 'INDEX', value: String(i) },
    ],
    resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '100m', memory: '64Mi' } },
  }));
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NAMESPACE, labels: { app: name } },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers } } },
  };
}

function configMap(name: string, value: string): Record<string, unknown> {
  const data: Record<string, string> = {};
  for (let i = 0; i < 1000; i++) data[`key-${String(i).padStart(4, '0')}`] = i === 0 ? value : `value-${i}`;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data };
}

interface Kind {
  label: string;
  path: string;
  build: (name: string, version: string) => Record<string, unknown>;
  /** A strategic merge patch changing the one field the phases change. */
  patch: (version: string) => Record<string, unknown>;
}

const KINDS: Kind[] = [
  {
    label: 'Deployment, 100 containers',
    path: `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`,
    build: (name, v) => deployment(name, `nginx:1.${v}`),
    patch: (v) => ({ spec: { template: { spec: { containers: [{ name: 'c0', image: `nginx:1.${v}` }] } } } }),
  },
  {
    label: 'ConfigMap, 1,000 entries',
    path: `/api/v1/namespaces/${NAMESPACE}/configmaps`,
    build: (name, v) => configMap(name, `v${v}`),
    patch: (v) => ({ data: { 'key-0000': `v${v}` } }),
  },
];

export async function writesSection(cfg: BenchConfig, target: Target): Promise<PhaseResult[]> {
  const clients = cfg.writeClients;
  const results: PhaseResult[] = [];
  await createNamespace(target, NAMESPACE);
  for (const kind of KINDS) {
    const names = Array.from({ length: clients }, (_, i) => `obj-${i}`);
    for (const name of names) {
      const r = await jsonRequest(target, { method: 'POST', path: kind.path, body: JSON.stringify(kind.build(name, '0')) });
      if (r.status !== 201) throw new Error(`creating ${kind.label} ${name}: ${r.status}`);
    }
    const object = (client: number): string => `${kind.path}/${names[client]}`;
    results.push(
      await closedLoop(`baseline: PUT ${kind.label}`, target, clients, cfg.phaseMs, (i, c) => ({
        method: 'PUT',
        path: object(c),
        body: JSON.stringify(kind.build(names[c]!, String(i + 1))),
      })),
    );
    results.push(
      await closedLoop(`strategic merge patch ${kind.label}`, target, clients, cfg.phaseMs, (i, c) => ({
        method: 'PATCH',
        path: object(c),
        body: JSON.stringify(kind.patch(String(i + 1))),
        contentType: 'application/strategic-merge-patch+json',
      })),
    );
    results.push(
      await closedLoop(`server-side apply ${kind.label}`, target, clients, cfg.phaseMs, (i, c) => ({
        method: 'PATCH',
        path: `${object(c)}?fieldManager=bench&force=true`,
        body: JSON.stringify(kind.build(names[c]!, String(i + 1))),
        contentType: 'application/apply-patch+yaml',
      })),
    );
  }
  return results;
}
