import type { BenchConfig } from './config.js';
import { configMap, createNamespace, fill } from './fixtures.js';
import { closedLoop, jsonRequest, type HttpLoopOptions, type RequestSpec, type Target } from './http-client.js';
import type { PhaseResult } from './loop.js';

/**
 * The etcd section's Capstan phases against one or several processes on one
 * etcd: create, update, get and list of ~1 KiB ConfigMaps with the core
 * section's 32 clients, spread round-robin over the processes. Each run gets
 * its own namespaces, so a second run on the same etcd starts from nothing.
 */

export interface CapstanPhases<R> {
  create: R;
  update: R;
  get: R;
  list: R;
  /** etcd key of a ConfigMap these phases read, to show what Capstan stores per object. */
  storedKey: string;
}

interface ObjectMeta {
  metadata: { resourceVersion: string };
}

/** `measure` wraps each phase (the etcd section adds etcd's CPU to each row). */
export async function capstanPhases<R>(cfg: BenchConfig, targets: readonly Target[], namespace: string, listSize: number, measure: (run: () => Promise<PhaseResult>) => Promise<R>): Promise<CapstanPhases<R>> {
  const n = cfg.concurrency;
  const first = targets[0]!;
  const listNamespace = `${namespace}-list`;
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const listPath = `/api/v1/namespaces/${listNamespace}/configmaps`;

  await createNamespace(first, namespace);
  await createNamespace(first, listNamespace);
  await post(first, path, configMap('probe'));
  // Each update client owns one object, so updates never conflict with each other and every error is Capstan's.
  const versions = await Promise.all(Array.from({ length: n }, async (_, c) => (await post(first, path, configMap(`u-${c}`))).metadata.resourceVersion));
  await fill(first, listNamespace, 0, listSize);
  await warmUp(targets, path, listPath, listSize);

  const phase = (name: string, next: (i: number, client: number) => RequestSpec, opts?: HttpLoopOptions): Promise<R> => measure(() => closedLoop(name, targets, n, cfg.phaseMs, next, opts));
  const create = await phase('create ConfigMap (1 KiB)', (i) => ({ method: 'POST', path, body: configMap(`c-${i}`) }), { expect: 201 });
  const update = await phase(
    'update ConfigMap (PUT with its resourceVersion)',
    (i, c) => ({ method: 'PUT', path: `${path}/u-${c}`, body: configMap(`u-${c}`, { update: String(i) }, versions[c]) }),
    { onBody: (body, c) => (versions[c] = (JSON.parse(body.toString('utf8')) as ObjectMeta).metadata.resourceVersion) },
  );
  const get = await phase('get ConfigMap', () => ({ method: 'GET', path: `${path}/probe` }));
  const list = await phase(`list ${listSize.toLocaleString('en-US')} ConfigMaps`, () => ({ method: 'GET', path: listPath }));
  return { create, update, get, list, storedKey: `/registry/configmaps/${namespace}/probe` };
}

async function post(target: Target, path: string, body: string): Promise<ObjectMeta> {
  const r = await jsonRequest<ObjectMeta>(target, { method: 'POST', path, body });
  if (r.status !== 201) throw new Error(`POST ${path}: HTTP ${r.status}`);
  return r.json;
}

/**
 * Before timing: every process has seen the objects (its watch caches start
 * lazily and catch up with writes made through another process) and has
 * admitted one create, so no phase times a cold start.
 */
async function warmUp(targets: readonly Target[], path: string, listPath: string, listSize: number): Promise<void> {
  for (const [t, target] of targets.entries()) {
    const probe = await jsonRequest<ObjectMeta>(target, { method: 'GET', path: `${path}/probe` });
    if (probe.status !== 200) throw new Error(`warm-up GET ${path}/probe on process ${t + 1}: HTTP ${probe.status}`);
    const list = await jsonRequest<{ items: unknown[] }>(target, { method: 'GET', path: listPath });
    if (list.status !== 200 || list.json.items.length < listSize) throw new Error(`warm-up list on process ${t + 1}: HTTP ${list.status}, ${list.json.items?.length} items`);
    await post(target, path, configMap(`warm-${t}`));
  }
}
