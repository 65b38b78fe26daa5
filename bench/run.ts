import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { credentialsFrom, removeDir, ROOT, startServer, tempDir } from '../test/helpers/server.js';
import { loadConfig } from './config.js';
import { coreSection } from './core.js';
import { etcdSection, type EtcdResult } from './etcd.js';
import { Filler } from './fixtures.js';
import type { Target } from './http-client.js';
import { round, type PhaseResult } from './loop.js';
import { listNamespace, listSection, type ListResult } from './list.js';
import { renderMarkdown, type Report } from './report.js';
import { storeSection, type StoreResult } from './store.js';
import { watchSection, type WatchResult } from './watch.js';
import { stalledSection, type StalledResult } from './stalled-watch.js';
import { writesSection } from './writes.js';
import { authnCostRows, authnSection } from './authn.js';
import type { OpsResult } from './field-validation.js';
import { rbacSection } from './rbac.js';
import { admissionPolicySection } from './admission-policy.js';
import { fieldValidationSection, type FieldValidationResult } from './field-validation.js';
import { celSection, type CelBenchResult } from './cel.js';
import { customResourcesSection, type CustomResourcesResult } from './custom-resources.js';
import { testServerSection, type TestServerBenchResult } from './test-server.js';
import { admissionSection } from './admission.js';
import { encodingsSection, type EncodingsResult } from './encodings.js';
import { depthChecksSection, type DepthCheckRow } from './depth-checks.js';
import { lastResortSection, type LastResortRow } from './last-resort.js';

/**
 * `npm run bench`: Capstan over HTTPS, each measurement beside a baseline in
 * the same run (see report.ts's "How to read this"). Two servers, each on its
 * own temporary data dir:
 *  1. core phases (32 clients), large lists (listSizes), watch fan-out;
 *     stalled watchers beside healthy ones, each run on a fresh server;
 *  2. memory while loading storeObjects ConfigMaps, the big list, a restart;
 * then, on its own etcd, Capstan on the etcd3 backend with one and three
 * processes beside the etcd client's own put/range (etcd.ts).
 * Writes bench/results/latest.json and latest.md (quick.* with BENCH_QUICK=1) and prints the markdown.
 * Sections and sizes come from the environment (config.ts; BENCH_QUICK=1 for a smoke run).
 */

async function main(): Promise<void> {
  const cfg = loadConfig();
  const loadBefore = round(loadavg()[0]!);
  const began = performance.now();
  const log = (msg: string): void => void process.stderr.write(`[bench ${round((performance.now() - began) / 1000, 1)}s] ${msg}\n`);
  let startupMs: number | undefined;
  let core: PhaseResult[] = [];
  let writes: PhaseResult[] = [];
  let authn: PhaseResult[] = [];
  let authnCost: OpsResult[] = [];
  let fieldValidation: FieldValidationResult | undefined;
  let cel: CelBenchResult | undefined;
  const lists: ListResult[] = [];
  let watch: WatchResult[] = [];
  let stalled: StalledResult[] = [];
  let store: StoreResult | undefined;
  let etcd: EtcdResult | undefined;
  let rbac: PhaseResult[] = [];
  let customResources: CustomResourcesResult | undefined;
  let testServer: TestServerBenchResult | undefined;
  let admission: PhaseResult[] = [];
  let admissionPolicy: PhaseResult[] = [];
  let encodings: EncodingsResult | undefined;
  let depthChecks: DepthCheckRow[] = [];
  let lastResort: LastResortRow[] = [];

  if (cfg.sections.has('core') || cfg.sections.has('writes') || cfg.sections.has('list') || cfg.sections.has('watch')) {
    const dataDir = tempDir('capstan-bench-');
    const t = performance.now();
    const server = await startServer({ backend: cfg.backend, dataDir });
    startupMs = round(performance.now() - t);
    const target: Target = { url: server.url, creds: credentialsFrom(server.kubeconfig), pid: server.proc.pid };
    const filler = new Filler(target);
    try {
      if (cfg.sections.has('core')) {
        log('core phases');
        core = await coreSection(cfg, target, dataDir, filler);
      }
      if (cfg.sections.has('writes')) {
        log('big-object writes');
        writes = await writesSection(cfg, target);
      }
      if (cfg.sections.has('list')) {
        for (const size of cfg.listSizes) {
          log(`list ${size}`);
          await filler.ensure(listNamespace(size), size);
          lists.push(await listSection(cfg, target, dataDir, listNamespace(size), size));
        }
      }
      if (cfg.sections.has('watch')) {
        log(`watch fan-out (${cfg.watchers} watchers)`);
        watch = await watchSection(cfg, target, dataDir);
      }
    } finally {
      await server.stop();
      removeDir(dataDir);
    }
  }

  if (cfg.sections.has('authn')) {
    const dataDir = tempDir('capstan-bench-authn-');
    log('authenticated GETs: client certificate, static token, service account token');
    try {
      authn = await authnSection(cfg, dataDir);
      log('authentication cost in-process');
      authnCost = await authnCostRows();
    } finally {
      removeDir(dataDir);
    }
  }

  if (cfg.sections.has('stalled')) stalled = await stalledSection(cfg, log);

  if (cfg.sections.has('validation')) {
    log('field validation (in-process)');
    fieldValidation = fieldValidationSection();
  }

  if (cfg.sections.has('cel')) {
    log('CEL (in-process)');
    cel = celSection();
  }

  if (cfg.sections.has('memory')) {
    const dataDir = tempDir('capstan-bench-store-');
    log(`store: memory, list and restart with ${cfg.storeObjects} objects`);
    try {
      store = await storeSection(cfg, dataDir, cfg.sections.has('list'));
    } finally {
      removeDir(dataDir);
    }
  }

  if (cfg.sections.has('etcd')) {
    log('etcd: Capstan on etcd (1 and 3 processes) beside the etcd client');
    etcd = await etcdSection(cfg, log);
    if (etcd.kind === 'skipped') log(`etcd: skipped: ${etcd.reason}`);
  }

  if (cfg.sections.has('rbac')) {
    log('rbac: GET as a limited user beside system:masters');
    rbac = await rbacSection(cfg, log);
  }

  if (cfg.sections.has('crd')) {
    const dataDir = tempDir('capstan-bench-crd-');
    log('crd: custom resources beside ConfigMaps on a fresh server');
    const server = await startServer({ backend: cfg.backend, dataDir });
    try {
      customResources = await customResourcesSection(cfg, { url: server.url, creds: credentialsFrom(server.kubeconfig), pid: server.proc.pid }, log);
    } finally {
      await server.stop();
      removeDir(dataDir);
    }
  }

  if (cfg.sections.has('testing')) {
    log('testing: capstan/testing starts, reset and idle memory beside a spawned capstan serve');
    testServer = await testServerSection(cfg.quick ? 5 : 20);
  }

  if (cfg.sections.has('admission')) {
    log('admission: creates with no admission, default plugins, and 1 or 5 webhooks');
    admission = await admissionSection(cfg, log);
  }

  if (cfg.sections.has('admission-policy')) {
    log('admission-policy: creates under a ValidatingAdmissionPolicy beside creates without');
    admissionPolicy = await admissionPolicySection(cfg, log);
  }

  if (cfg.sections.has('depth')) {
    log('depth: the nesting-depth check beside a create (in-process)');
    depthChecks = await depthChecksSection();
  }

  if (cfg.sections.has('last-resort')) {
    log('last-resort: AsyncLocalStorage around each request, off and on (in-process)');
    lastResort = await lastResortSection();
  }

  if (cfg.sections.has('encodings')) {
    log('encodings: get, list and watch in JSON, protobuf and CBOR on one server');
    encodings = await encodingsSection(cfg, log);
  }

  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const report: Report = {
    date: new Date().toISOString(),
    capstan: pkg.version,
    backend: cfg.backend,
    node: process.version,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', memoryGiB: round(totalmem() / 2 ** 30) },
    loadAverage: { before: loadBefore, after: round(loadavg()[0]!) },
    config: { ...cfg, sections: [...cfg.sections] },
    concurrency: cfg.concurrency,
    phaseMs: cfg.phaseMs,
    ...(startupMs !== undefined ? { startupMs } : {}),
    results: core,
    writes,
    ...(authn.length > 0 ? { authn, authnCost } : {}),
    ...(fieldValidation ? { fieldValidation } : {}),
    ...(cel ? { cel } : {}),
    lists,
    watch,
    stalled,
    ...(store ? { store } : {}),
    ...(etcd ? { etcd } : {}),
    ...(rbac.length > 0 ? { rbac } : {}),
    ...(customResources ? { customResources } : {}),
    ...(testServer ? { testServer } : {}),
    ...(admission.length > 0 ? { admission } : {}),
    ...(admissionPolicy.length > 0 ? { admissionPolicy } : {}),
    ...(encodings ? { encodings } : {}),
    ...(depthChecks.length > 0 ? { depthChecks } : {}),
    ...(lastResort.length > 0 ? { lastResort } : {}),
    totalSeconds: round((performance.now() - began) / 1000, 1),
  };
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  // A smoke run must not replace the committed full results.
  const stem = cfg.quick ? 'quick' : 'latest';
  writeFileSync(join(dir, `${stem}.json`), JSON.stringify(report, null, 2) + '\n');
  const md = renderMarkdown(report);
  writeFileSync(join(dir, `${stem}.md`), md);
  process.stdout.write(md);
}

await main();
