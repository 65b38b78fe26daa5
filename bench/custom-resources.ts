import type { BenchConfig } from './config.js';
import { configMap, createMany, createNamespace, PAYLOAD } from './fixtures.js';
import { closedLoop, jsonRequest, type RequestSpec, type Target } from './http-client.js';
import type { PhaseResult } from './loop.js';
import { fanout, type WatchResult } from './watch.js';

/**
 * Custom resources over HTTPS beside ConfigMaps of about the same size on the
 * same server, phase by phase (create, get, list): what serving a CRD's kind
 * costs over a built-in one. Creates of a kind whose schema carries ten
 * x-kubernetes-validations rules run beside the kind with none.
 */

const GROUP = 'bench.example.com';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const NS = 'bench-crd';

/** A small structural schema: a few typed fields, two defaults, and the ConfigMap's payload so the bodies are the same size. */
function schema(rules: boolean): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    type: 'object',
    required: ['size'],
    properties: {
      size: { type: 'integer', minimum: 1, maximum: 100 },
      color: { type: 'string', enum: ['red', 'green', 'blue'], default: 'red' },
      replicas: { type: 'integer', default: 1 },
      owner: { type: 'string', maxLength: 64 },
      tags: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 16 } },
      payload: { type: 'string', maxLength: 4096 },
    },
  };
  if (rules) {
    spec['x-kubernetes-validations'] = [
      { rule: 'self.size <= 100', message: 'size too large' },
      { rule: 'self.size >= 1' },
      { rule: "self.color in ['red', 'green', 'blue']" },
      { rule: 'self.replicas >= 0 && self.replicas <= 10' },
      { rule: "!has(self.owner) || self.owner.startsWith('team-')" },
      { rule: '!has(self.tags) || self.tags.all(t, t.size() > 0)' },
      { rule: '!has(self.tags) || self.tags.size() <= 8' },
      { rule: '!has(self.payload) || self.payload.size() <= 4096' },
      { rule: 'self.size * self.replicas <= 1000', messageExpression: "'too big for ' + self.owner" },
      { rule: "!has(self.owner) || self.owner != 'team-none'" },
    ];
  }
  // A top-level string map like a ConfigMap's data, so the watch bench's writer (data.seq, data.sentAt) writes these too.
  const data = { type: 'object', additionalProperties: { type: 'string' } };
  return { type: 'object', properties: { spec, data, status: { type: 'object', properties: { ready: { type: 'boolean' } } } } };
}

function crd(plural: string, kind: string, rules: boolean): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, kind, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema(rules) } }],
    },
  });
}

function widget(kind: string, name: string): string {
  return JSON.stringify({
    apiVersion: `${GROUP}/v1`,
    kind,
    metadata: { name, labels: { app: 'bench' } },
    spec: { size: 3, owner: 'team-bench', tags: ['a', 'b'], payload: PAYLOAD },
  });
}

async function establish(target: Target, plural: string, kind: string, rules: boolean): Promise<void> {
  const created = await jsonRequest<{ message?: string }>(target, { method: 'POST', path: CRDS, body: crd(plural, kind, rules) });
  if (created.status !== 201) throw new Error(`creating CRD ${plural}: HTTP ${created.status} ${created.json.message ?? ''}`);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const got = await jsonRequest<{ status?: { conditions?: { type: string; status: string }[] } }>(target, { method: 'GET', path: `${CRDS}/${plural}.${GROUP}` });
    const established = got.json.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
    // Established can be reported a moment before the kind's handler serves; wait for both.
    if (established && (await jsonRequest(target, { method: 'GET', path: `/apis/${GROUP}/v1/${plural}?limit=1` })).status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`CRD ${plural}.${GROUP} not established within 30 s`);
}

export interface CustomResourcesResult {
  phases: PhaseResult[];
  watch: WatchResult[];
}

export async function customResourcesSection(cfg: BenchConfig, target: Target, log: (msg: string) => void): Promise<CustomResourcesResult> {
  const results: PhaseResult[] = [];
  const n = cfg.concurrency;
  const listSize = cfg.quick ? 1000 : 10_000;
  const cms = `/api/v1/namespaces/${NS}/configmaps`;
  const widgets = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;
  const ruled = `/apis/${GROUP}/v1/namespaces/${NS}/ruledwidgets`;
  const phase = async (name: string, next: (i: number) => RequestSpec, expect = 200): Promise<void> => {
    results.push(await closedLoop(name, target, n, cfg.phaseMs, next, { expect }));
  };

  await createNamespace(target, NS);
  await establish(target, 'widgets', 'Widget', false);
  await establish(target, 'ruledwidgets', 'RuledWidget', true);
  await createMany(target, 1, () => ({ path: cms, body: configMap('probe') }));
  await createMany(target, 1, () => ({ path: widgets, body: widget('Widget', 'probe') }));
  await createMany(target, 1, () => ({ path: ruled, body: widget('RuledWidget', 'probe') }));

  // Warm-up (connections, JIT, the kinds' first writes), not reported: without it the first create phase pays for all of them.
  for (const [path, body] of [[cms, (i: number) => configMap(`w-${i}`)], [widgets, (i: number) => widget('Widget', `w-${i}`)], [ruled, (i: number) => widget('RuledWidget', `w-${i}`)]] as const) {
    await closedLoop('warm-up', target, n, Math.min(cfg.phaseMs, 1000), (i) => ({ method: 'POST', path, body: body(i) }), { expect: 201 });
  }
  log('crd: creates');
  await phase('create ConfigMap (1 KiB)', (i) => ({ method: 'POST', path: cms, body: configMap(`c-${i}`) }), 201);
  await phase('create Widget (custom resource, no rules)', (i) => ({ method: 'POST', path: widgets, body: widget('Widget', `c-${i}`) }), 201);
  await phase('create RuledWidget (ten x-kubernetes-validations rules)', (i) => ({ method: 'POST', path: ruled, body: widget('RuledWidget', `c-${i}`) }), 201);
  await phase('create Widget again (no rules)', (i) => ({ method: 'POST', path: widgets, body: widget('Widget', `d-${i}`) }), 201);
  log('crd: gets');
  await phase('get ConfigMap', () => ({ method: 'GET', path: `${cms}/probe` }));
  await phase('get Widget', () => ({ method: 'GET', path: `${widgets}/probe` }));

  log(`crd: lists of ${listSize}`);
  const listCms = `/api/v1/namespaces/${NS}-list/configmaps`;
  const listWidgets = `/apis/${GROUP}/v1/namespaces/${NS}-list/widgets`;
  await createNamespace(target, `${NS}-list`);
  await createMany(target, listSize, (i) => ({ path: listCms, body: configMap(`cm-${i}`) }), 32);
  await createMany(target, listSize, (i) => ({ path: listWidgets, body: widget('Widget', `w-${i}`) }), 32);
  const size = listSize.toLocaleString('en-US');
  await phase(`list ${size} ConfigMaps`, () => ({ method: 'GET', path: listCms }));
  await phase(`list ${size} Widgets`, () => ({ method: 'GET', path: listWidgets }));

  log(`crd: watch fan-out (${cfg.watchers} watchers)`);
  const label = `${cfg.watchers.toLocaleString('en-US')} watchers, ${cfg.watchRate} writes/s`;
  const watchNs = `${NS}-watch`;
  await createNamespace(target, watchNs);
  const payload = { payload: PAYLOAD };
  const watch: WatchResult[] = [];
  const cmTemplate = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: { app: 'bench' } }, data: payload };
  watch.push((await fanout({ name: `ConfigMaps: ${label}`, target, path: `/api/v1/namespaces/${watchNs}/configmaps`, cfg, template: cmTemplate, keepSample: false })).result);
  const widgetTemplate = { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { labels: { app: 'bench' } }, spec: { size: 3, owner: 'team-bench' }, data: payload };
  watch.push((await fanout({ name: `Widgets: ${label}`, target, path: `/apis/${GROUP}/v1/namespaces/${watchNs}/widgets`, cfg, template: widgetTemplate, keepSample: false })).result);
  return { phases: results, watch };
}
