import { makeAgent, oneRequest, type Target } from './http-client.js';

/** The objects the bench writes: ~1 KiB ConfigMaps, as the list sizes assume. */

export const PAYLOAD = 'x'.repeat(900);

/** With `resourceVersion`, a PUT of it only succeeds on that version (optimistic concurrency, as controllers update). */
export function configMap(name: string, data: Record<string, string> = {}, resourceVersion?: string): string {
  const metadata = { name, labels: { app: 'bench' }, ...(resourceVersion !== undefined ? { resourceVersion } : {}) };
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { ...data, payload: PAYLOAD } });
}

export async function createNamespace(target: Target, name: string): Promise<void> {
  const agent = makeAgent(target, 1);
  try {
    const r = await oneRequest(agent, target, { method: 'POST', path: '/api/v1/namespaces', body: JSON.stringify({ metadata: { name } }) });
    if (r.status !== 201 && r.status !== 409) throw new Error(`creating namespace ${name}: HTTP ${r.status}`);
  } finally {
    agent.destroy();
  }
}

/** Creates ConfigMaps cm-<from>…cm-<to-1> in a namespace with 32 concurrent clients. */
export async function fill(target: Target, namespace: string, from: number, to: number): Promise<void> {
  const clients = 32;
  const agent = makeAgent(target, clients);
  let i = from;
  let failed = 0;
  try {
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (i < to) {
          const n = i++;
          const r = await oneRequest(agent, target, { method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, body: configMap(`cm-${n}`) });
          if (r.status !== 201) failed++;
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  if (failed > 0) throw new Error(`fill ${namespace}: ${failed} creates failed`);
}

/** POSTs `count` objects (a body string, or an object to encode) with a few concurrent clients; setup, never timed. */
export async function createMany(target: Target, count: number, spec: (i: number) => { path: string; body: unknown }, clients = 16): Promise<void> {
  const agent = makeAgent(target, clients);
  let i = 0;
  let failed = 0;
  let lastStatus = 0;
  try {
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (i < count) {
          const s = spec(i++);
          const r = await oneRequest(agent, target, { method: 'POST', path: s.path, body: typeof s.body === 'string' ? s.body : JSON.stringify(s.body) });
          if (r.status !== 201) {
            failed++;
            lastStatus = r.status;
          }
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  if (failed > 0) throw new Error(`bench setup: ${failed} of ${count} creates failed (last HTTP ${lastStatus})`);
}

/** Namespaces filled so far on one server, so phases that list the same size share the objects. */
export class Filler {
  private readonly filled = new Map<string, number>();
  constructor(private readonly target: Target) {}

  async ensure(namespace: string, count: number): Promise<void> {
    const have = this.filled.get(namespace);
    if (have === undefined) await createNamespace(this.target, namespace);
    if ((have ?? 0) < count) await fill(this.target, namespace, have ?? 0, count);
    this.filled.set(namespace, Math.max(have ?? 0, count));
  }
}
