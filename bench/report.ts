import type { BenchConfig } from './config.js';
import type { EtcdResult, EtcdRow } from './etcd.js';
import type { PhaseResult } from './loop.js';
import type { FieldValidationResult, OpsResult } from './field-validation.js';
import type { CelBenchResult } from './cel.js';
import type { CustomResourcesResult } from './custom-resources.js';
import { renderTestServerMarkdown, type TestServerBenchResult } from './test-server.js';
import type { ListResult } from './list.js';
import type { StoreResult } from './store.js';
import type { WatchResult } from './watch.js';
import type { StalledResult } from './stalled-watch.js';
import { encodingsMarkdown, type EncodingsResult } from './encodings.js';
import type { DepthCheckRow } from './depth-checks.js';
import type { LastResortRow } from './last-resort.js';

/** bench/results/latest.json's shape, and its markdown rendering (latest.md). */

export interface Report {
  date: string;
  capstan: string;
  backend: string;
  node: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: number };
  /** 1-minute load average before and after the run: above 0 before means something else was using the CPUs. */
  loadAverage: { before: number; after: number };
  config: Omit<BenchConfig, 'sections'> & { sections: string[] };
  /** The original fields: 32-client phases and the first server's start. */
  concurrency: number;
  phaseMs: number;
  startupMs?: number;
  results: PhaseResult[];
  /** Big-object writes: PUT (baseline), strategic merge patch, server-side apply. */
  writes: PhaseResult[];
  /** Authenticated GETs by each method (absent in older reports). */
  authn?: PhaseResult[];
  /** One authentication in this process, by method (with the authn section). */
  authnCost?: OpsResult[];
  /** In-process field validation of a Deployment body beside JSON.parse / js-yaml. */
  fieldValidation?: FieldValidationResult;
  cel?: CelBenchResult;
  lists: ListResult[];
  watch: WatchResult[];
  /** Stalled watchers beside healthy ones, and the same run without them (absent in older reports). */
  stalled?: StalledResult[];
  store?: StoreResult;
  /** GET as a limited user under RBAC (1,000 RoleBindings and ClusterRoles) beside system:masters (absent when the section was not asked for). */
  rbac?: PhaseResult[];
  admissionPolicy?: PhaseResult[];
  encodings?: EncodingsResult;
  depthChecks?: DepthCheckRow[];
  lastResort?: LastResortRow[];
  /** Custom resources (with and without ten CEL rules) beside ConfigMaps on one server (absent when the section was not asked for). */
  customResources?: CustomResourcesResult;
  testServer?: TestServerBenchResult;
  admission?: PhaseResult[];
  /** Capstan on etcd with 1 and 3 processes beside the etcd client (absent when the section was not asked for). */
  etcd?: EtcdResult;
  totalSeconds: number;
}

const n = (x: number): string => x.toLocaleString('en-US');
const pct = (x: number): string => (x < 0 ? '?' : String(x));
const cpu = (p: { serverCpuPct: number; clientCpuPct: number }): string => `${pct(p.serverCpuPct)} / ${pct(p.clientCpuPct)}`;

function howToRead(r: Report): string[] {
  const c = r.config;
  return [
    '## How to read this',
    '',
    'Everything runs on one machine in one run: the load generator, Capstan and each baseline share the same CPUs, so compare rows within a run, not across machines. Each baseline is the least a Node server can do for the same job, i.e. the ceiling of the transport here:',
    '',
    '- **Requests**: `baseline: node:http cached 1 KiB body` is a bare plain-HTTP node:http server answering every request with one body from memory (the transport without TLS); `baseline: node:https …` is the same over TLS with the same certificates (client certificate requested), the ceiling for an HTTPS-only server like Capstan.',
    `- **Large lists**: ${c.listClients} concurrent clients (not 32: 32 parallel 50 MB responses would measure queueing), no \`Accept-Encoding\`, each phase at least ${c.listMs} ms and ${c.listMinRequests} lists, so p99 of a few dozen samples is close to the max. \`node:http\` is a bare plain-HTTP server returning the byte-identical list body Capstan served (no TLS: the issue's baseline); \`node:https\` is the same over TLS, so the gap between the two is what TLS costs and the gap to Capstan is Capstan's own work. \`JSON.stringify\` is this process encoding the same parsed list (what a server without cached item bytes would pay per list, before any I/O).`,
    `- **Watch fan-out**: ${n(c.watchers)} HTTPS watches (one socket each) on one namespace's ConfigMaps; a writer in a worker thread creates ${c.watchRate} ConfigMaps/s for ${c.watchSeconds} s (open loop). Latency is arrival at a watcher minus the time the create was sent (also in the object's \`data.sentAt\`), so it includes the write's commit and this process's own queueing. \`lost\` counts acknowledged writes some watcher never saw. The baseline is a bare node:https server holding as many chunked responses and writing each posted object (shaped like Capstan's events, so the same size) to all of them as one event line: once with one write per event per watcher (the naive server), once with the events that arrive in one event-loop turn joined into one write per watcher (what Capstan does: its store commits the writes of one turn together and watchers get the batch).`,
    `- **Stalled watchers**: each row is a fresh server (\`--v=1\`, default \`--max-watch-buffered-bytes\`): ${n(c.stalledWatchers)} watches on one namespace's ConfigMaps that read their response headers and then stop reading (paused responses, so the client stops reading its socket), beside ${c.stalledHealthy} healthy watchers, while a writer in a worker thread updates ${c.stalledRate} ConfigMaps/s (~${n(c.stalledPayload)} B payload each, PUT without resourceVersion) for ${c.stalledSeconds} s; the other row is the same without the stalled watchers. RSS is the server's VmRSS sampled every 250 ms: at the start of writing, the peak, and after the writes stopped and ${c.stalledSettleSeconds} s idle (final). Heap and external are the server's /metrics when the final RSS is read; kernel TCP buffers are the peak of /proc/<pid>/net/sockstat's TCP mem (both ends of every connection on this machine; Linux enters TCP memory pressure past tcp_mem's second value). Healthy latency is arrival minus the PUT's send time. GET is one ConfigMap, one request at a time on a kept-alive connection every 100 ms during the writes. \`cut\` counts the server's "Forcing … watcher close" log lines; at the end the stalled clients read again (for up to 30 s), and each stream is counted as ended with the chunked terminator, reset (the server destroyed a socket that would not drain), or still open.`,
    '- **Memory**: the server\'s VmRSS (from /proc) after a 1 s idle pause, without forcing GC, so it includes garbage not yet collected and SQLite\'s page cache; per object = (RSS − RSS of the same server when ready and empty) / objects. Heap and external (Buffer) figures are the server\'s own /metrics. The baselines are plain Node processes holding the same objects (one ConfigMap as Capstan serves it, with distinct names and uids) as parsed objects, as JSON strings, or both an object and its JSON bytes; they are measured after forced full GCs, so they are floors.',
    '- **CPU %**: CPU seconds per wall second of the serving process (Capstan or the baseline, from /proc) and of this load-generating process, over the phase; 100 = one core, and the machine has ' + String(r.machine.cpus) + '. A server near 100 % is bound by its single JavaScript thread; a sum near ' + String(r.machine.cpus * 100) + ' % means the machine, not the server, is the limit.',
    '- **Start-up**: spawn to the ready line, measured by this process; "reported" is what the server prints (from its own process start). A resource\'s watch cache starts on its first read, or during start-up when a built-in controller watches that resource, and then lists the store; right after loading, the store\'s history (5 minutes) still holds every create and a starting cache also replays it, so the store is restarted twice: as loaded, and after a compaction pass (the steady state). The first reads after a restart show what is left to do lazily.',
    '- **Writes of big objects**: a Deployment with 100 containers (~25 KB) and a ConfigMap with 1,000 entries (~20 KB), each client changing one field of its own object: the baseline is a plain PUT of the whole object (no patch to compute, no fields to track beyond the update); the strategic merge patch changes one container image / one key; server-side apply sends the whole configuration with `force=true` as one manager.',
    `- **Authentication**: a fresh server with \`--token-auth-file\`; ${r.concurrency} clients GET one ConfigMap, authenticated by the admin client certificate (the baseline: TLS verified it), by a static token, by a service account token from TokenRequest (a JWT: its signature is checked once and cached, the ServiceAccount looked up in the watch cache on each request), by an OIDC id token (\`--oidc-*\`, the provider on loopback in the bench process; verified once, cached 10 s), by a token webhook's token (the webhook on loopback; its answer cached for the cache TTL) and through the authenticating proxy (its client certificate, checked once per connection, and \`X-Remote-User\`); an unrecorded warm-up, then three alternating rounds of each.`,
    '- **Field validation**: in this process, no server: the scan for unknown and duplicate fields and type errors (`checkFields`) of one Deployment body at each level, beside the parse every request pays anyway (`JSON.parse`, js-yaml); best of three 300 ms runs per row.',
    '- **CEL**: in this process, no server: src/cel/ compiling (parse, type check, cost estimate; uncached and cache hit) and evaluating a CRD rule with all() over a 20-item list and an admission-policy rule, with runtime cost tracking, each beside a plain JavaScript function doing the same check, and @bufbuild/cel on the same CRD rule (the library not chosen); best of three 300 ms runs per row.',
    `- **Capstan on etcd**: the bench starts one single-member etcd on a temporary data dir (fsyncing its log as in production). The \`etcd client\` rows are this process calling that etcd directly with the \`etcd3\` npm client Capstan's store uses (one gRPC connection, ${r.concurrency} calls in flight, raw \`kv.put\`/\`kv.range\`): a put of the ConfigMap body the create phase sends, each to a new key; a range of one key; a range of 1,000 keys holding such bodies. When this process is near 100 % CPU in those rows, the client (gRPC and protobuf in one Node thread) is their limit, not etcd. Then Capstan on the etcd3 backend (the \`Backend\` line above is for the other sections): first one process, then that one and two more sharing its CA, with the same ${r.concurrency} HTTPS clients spread round-robin over the processes, each run in fresh namespaces. Create is a POST; update is a PUT of the client's own object with the resourceVersion it last got back (so no conflicts); each is one etcd transaction (compare and put), not a bare put. Get and list are consistent reads: one count-only range asks etcd for its current revision, then the watch cache answers, so a list never ranges over the 1,000 keys the way the baseline does and its ratio can exceed 1. \`Capstan / etcd client\` is Capstan's req/s over the req/s of the etcd client row for the same store operation (create and update vs put, get vs the range of one key, list vs the range of 1,000). CPU is Capstan (all its processes together) / etcd / this load-generating process. All of it runs on this one ${r.machine.cpus}-core machine: with three processes, Capstan, etcd and the load generator compete for the same cores, so the three-process rows show what spreading the load costs here, not how Capstan scales out over machines.`,
    '- **Authorization (rbac)**: a fresh `capstan serve` (default authorization: Node,RBAC; the Node authorizer has no opinion on this user) with 1,000 ClusterRoles and 1,000 RoleBindings in one namespace, each binding another user; the limited user is one of them (its client certificate made from the server\'s CA), allowed by its RoleBinding. GET of one ConfigMap as that user beside the same GET with the admin certificate (system:masters, allowed before RBAC is asked), before and after.',
    `- **Custom resources (crd)**: a fresh \`capstan serve\` with two CRDs in \`bench.example.com\` (namespaced, a structural schema with a few typed fields, two defaults and a string field holding the ConfigMap's 900-byte payload, so bodies are about the same size): \`Widget\` with no rules, \`RuledWidget\` with ten \`x-kubernetes-validations\` rules on its spec. ${r.concurrency} clients; each custom-resource phase runs right after the ConfigMap phase it is compared with, on the same server (the Widget create runs twice, before and after the ten-rule one, to show drift). The lists are of ${c.quick ? '1,000' : '10,000'} objects of each kind in their own namespace, created first (32 clients, untimed). Watch fan-out is the watch section's measurement (below), run on one namespace's ConfigMaps and then on one namespace's Widgets (the same payload in a top-level \`data\` map) on this server, without its bare baselines.`,
    `- **Admission webhooks (admission)**: ${r.concurrency} clients POST ConfigMaps; the server is started through bench/admission-server.ts (the same ApiServer as \`capstan serve\`, SQLite), first with every admission plugin disabled, then a fresh one with the default plugins and no webhook, then 1 and 5 validating webhooks (one configuration each time; kube calls them in parallel) and 1 and 5 mutating ones (called in turn, each answering a one-operation JSONPatch). The webhook is a separate Node process on loopback with its own CA (bench/webhook-server.ts) that answers at once, so the rows are the server's own cost per call: TLS on kept-alive connections, AdmissionReview encoding, matching, patch application. Each phase follows an unrecorded 1 s warm-up.`,
    '- **Admission policy (admission-policy)**: a fresh `capstan serve` with one ValidatingAdmissionPolicy on ConfigMaps (10 validations over object, request and a variable read from a ConfigMap param; failurePolicy Fail) and a binding (Deny) whose namespaceSelector picks one namespace. POST of new ConfigMaps in that namespace beside POSTs in a namespace the binding leaves out (the plugin still matches the policy and its binding there), before and after.',
    '- **Running it**: `npm run bench` (or `npx tsc -p tsconfig.json && node dist/bench/run.js`). `BENCH_QUICK=1` is a smoke run written to `quick.md`/`quick.json` instead; `BENCH_SECTIONS=core,writes,authn,validation,cel,list,watch,stalled,memory,etcd,rbac,crd,testing,admission,admission-policy,encodings,depth,last-resort` picks sections (etcd is skipped, with a line saying so, when etcd is not installed); sizes: `BENCH_PHASE_MS`, `BENCH_WRITE_CLIENTS`, `BENCH_LIST_SIZES`, `BENCH_LIST_CLIENTS`, `BENCH_LIST_MS`, `BENCH_LIST_MIN_REQUESTS`, `BENCH_STORE_OBJECTS`, `BENCH_WATCHERS`, `BENCH_WATCH_RATE`, `BENCH_WATCH_SECONDS`, `BENCH_STALLED_WATCHERS`, `BENCH_STALLED_HEALTHY`, `BENCH_STALLED_RATE`, `BENCH_STALLED_SECONDS`, `BENCH_STALLED_PAYLOAD`, `BENCH_STALLED_SETTLE_SECONDS`; `BENCH_BACKEND=memory` for the in-memory store (no restart then). No number here is asserted anywhere.',
    '',
  ];
}

function requestsTable(rs: PhaseResult[]): string[] {
  return ['| phase | clients | requests | errors | req/s | p50 ms | p99 ms | MB/s | server / client CPU % |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|', ...rs.map((p) => `| ${p.name} | ${p.clients} | ${p.requests} | ${p.errors} | ${p.rps} | ${p.p50ms} | ${p.p99ms} | ${p.mbPerSec} | ${cpu(p)} |`)];
}

function listsTable(lists: ListResult[]): string[] {
  const rows: string[] = ['| objects | body MB | target | clients | lists | errors | lists/s | p50 ms | p99 ms | MB/s | server / client CPU % |', '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const l of lists) {
    for (const p of l.phases) rows.push(`| ${n(l.objects)} | ${l.bodyMB} | ${p.name} | ${p.clients} | ${p.requests} | ${p.errors} | ${p.rps} | ${p.p50ms} | ${p.p99ms} | ${p.mbPerSec} | ${cpu(p)} |`);
    const s = l.stringify;
    rows.push(`| ${n(l.objects)} | ${l.bodyMB} | baseline: JSON.stringify in-process (${s.runs} runs; min ${s.minMs} ms) | 1 | ${s.runs} | 0 | ${Math.round((1000 / s.p50ms) * 100) / 100} | ${s.p50ms} | | ${s.mbPerSec} | |`);
  }
  return rows;
}

function watchTable(ws: WatchResult[]): string[] {
  return [
    '| target | watches open | connect s | writes/s | write ack p50 / p99 ms | delivered / expected | lost | duplicates | events/s | p50 ms | p99 ms | max ms | server / client CPU % |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...ws.map((w) => `| ${w.name} | ${n(w.connected)} | ${w.connectSeconds} | ${w.writesPerSec} | ${w.writeAckP50ms} / ${w.writeAckP99ms} | ${n(w.delivered)} / ${n(w.expected)} | ${n(w.lost)}${w.lost > 0 ? ` (${w.watchers - w.watchersComplete} watchers incomplete)` : ''} | ${w.duplicates} | ${n(w.eventsPerSec)} | ${w.p50ms} | ${w.p99ms} | ${w.maxMs} | ${cpu(w)} |`),
  ];
}

function stalledTable(rs: StalledResult[]): string[] {
  return [
    '| run | RSS start / peak / final MB | final heap used / total, external MB | kernel TCP buffers peak MB | PUT/s (acked / sent) | PUT ack p99 ms | healthy delivered / expected | healthy p50 / p99 / max ms | GET p50 / p99 ms (n) | cut | stalled: clean end / reset / open |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rs.map((r) => `| ${r.name} | ${r.rssStartMB} / ${r.rssPeakMB} / ${r.rssFinalMB} | ${r.finalHeapUsedMB} / ${r.finalHeapTotalMB}, ${r.finalExternalMB} | ${r.tcpMemPeakMB} | ${r.putsPerSec} (${n(r.putsAcked)} / ${n(r.puts)}) | ${r.putAckP99ms} | ${n(r.healthyDelivered)} / ${n(r.healthyExpected)} | ${r.healthyP50ms} / ${r.healthyP99ms} / ${r.healthyMaxMs} | ${r.getP50ms} / ${r.getP99ms} (${n(r.gets)}) | ${n(r.cut)} | ${n(r.stalledEndedClean)} / ${n(r.stalledReset)} / ${n(r.stalledOpen)} |`),
  ];
}

function storeTables(s: StoreResult): string[] {
  const rows: string[] = [
    `### Resident memory, ${n(s.objects)} ConfigMaps (~1 KiB; loaded in ${s.loadSeconds} s with 32 clients)`,
    '',
    '| reading | RSS MB | RSS per object, bytes | heap used MB | external MB | heap+external per object, bytes |',
    '|---|---:|---:|---:|---:|---:|',
    ...s.memory.map((m) => `| ${m.name} | ${m.rssMB} | ${m.perObjectBytes !== undefined ? n(m.perObjectBytes) : ''} | ${m.heapMB ?? ''} | ${m.externalMB ?? ''} | ${m.heapPerObjectBytes !== undefined ? n(m.heapPerObjectBytes) : ''} |`),
    ...s.memoryBaselines.map((b) => `| baseline: plain Node holding ${b.mode === 'objects' ? 'parsed objects' : b.mode === 'strings' ? 'JSON strings' : 'parsed objects + JSON Buffers'} (after forced GC) | ${b.rssAfterMB} | ${n(b.rssPerObject)} | | | ${n(b.heapPerObject)} |`),
    '',
    '### Start-up and first reads',
    '',
    '| | ms | reported by the server, ms |',
    '|---|---:|---:|',
    ...s.startup.map((st) => `| ${st.name} | ${st.readyMs} | ${st.reportedMs ?? ''} |`),
    ...s.readsAfterRestart.map((r) => `| after restart: ${r.name} | ${r.ms} | |`),
  ];
  return rows;
}

function etcdTable(rows: EtcdRow[]): string[] {
  const processes = (row: EtcdRow): string => (row.processes === 0 ? 'etcd client' : String(row.processes));
  const capstanCpu = (row: EtcdRow): string => (row.processes === 0 ? '–' : pct(row.serverCpuPct));
  return [
    '| phase | Capstan processes | clients | requests | errors | req/s | p50 ms | p99 ms | Capstan / etcd client | Capstan / etcd / load generator CPU % |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row.name} | ${processes(row)} | ${row.clients} | ${row.requests} | ${row.errors} | ${row.rps} | ${row.p50ms} | ${row.p99ms} | ${row.ratio ?? ''} | ${capstanCpu(row)} / ${pct(row.etcdCpuPct)} / ${pct(row.clientCpuPct)} |`),
  ];
}

function etcdSection(r: Report, e: EtcdResult): string[] {
  if (e.kind === 'skipped') return ['## Capstan on etcd', '', `Skipped: ${e.reason}`, ''];
  return [
    `## Capstan on etcd ${e.etcdVersion}: 1 and 3 processes beside the etcd client (${r.concurrency} concurrent clients, ${r.phaseMs} ms per phase)`,
    '',
    ...etcdTable(e.rows),
    '',
    `The etcd client puts ${n(e.valueBytes)}-byte values (the ConfigMap body the create phase sends); Capstan stores ${n(e.storedValueBytes)} bytes per such ConfigMap (its metadata added).`,
    '',
  ];
}

export function renderMarkdown(r: Report): string {
  const c = r.config;
  const out: string[] = [
    `# Capstan benchmark (${r.date})`,
    '',
    `Backend ${r.backend}, Node ${r.node}, ${r.machine.cpus} CPUs (${r.machine.cpuModel}), ${r.machine.memoryGiB} GiB${c.quick ? ', **BENCH_QUICK=1 (smoke run)**' : ''}. Sections: ${c.sections.join(', ')}. Whole run ${r.totalSeconds} s; 1-minute load average ${r.loadAverage.before} before, ${r.loadAverage.after} after (other work on the machine shows here).${r.startupMs !== undefined ? ` First server start to ready (process spawn included): ${r.startupMs} ms.` : ''}`,
    '',
    ...howToRead(r),
  ];
  if (r.results.length > 0) out.push(`## Requests (${r.concurrency} concurrent HTTPS clients, keep-alive, ${r.phaseMs} ms per phase)`, '', ...requestsTable(r.results), '');
  if (r.authn && r.authn.length > 0) out.push(`## Authentication methods (${r.concurrency} clients, ${r.phaseMs} ms per phase)`, '', ...requestsTable(r.authn), '');
  if (r.authnCost && r.authnCost.length > 0) {
    out.push('### One authentication, in-process (no HTTP; lookups from memory)', '', '| token | authentications/s | µs each |', '|---|---:|---:|', ...r.authnCost.map((row) => `| ${row.name} | ${n(row.opsPerSec)} | ${(1e6 / row.opsPerSec).toFixed(1)} |`), '');
  }
  if (r.writes.length > 0) {
    out.push(`## Writes of big objects (${r.config.writeClients} clients, each on its own object, ${r.phaseMs} ms per phase)`, '', ...requestsTable(r.writes), '');
  }
  if (r.fieldValidation) {
    const fv = r.fieldValidation;
    out.push(
      `## Field validation of a Deployment body, in-process (${n(fv.bodyBytes.json)} bytes JSON, ${n(fv.bodyBytes.yaml)} bytes YAML)`,
      '',
      '| operation | ops/s |',
      '|---|---:|',
      ...fv.rows.map((row) => `| ${row.name} | ${n(row.opsPerSec)} |`),
      '',
    );
  }
  if (r.cel) {
    out.push(
      '## CEL, in-process (src/cel/ over cel-js; best of three 300 ms runs)',
      '',
      '| operation | ops/s |',
      '|---|---:|',
      ...r.cel.rows.map((row) => `| ${row.name.replaceAll('|', '\\|')} | ${n(row.opsPerSec)} |`),
      '',
    );
  }
  const lists = [...r.lists, ...(r.store?.list ? [r.store.list] : [])];
  if (lists.length > 0) {
    out.push(`## Large lists served from the watch cache (no Accept-Encoding)`, '', ...listsTable(lists), '');
    out.push(`First list of each size, one client (its body is what the baselines serve): ${lists.map((l) => `${n(l.objects)}: ${l.firstListMs} ms`).join('; ')}.`, '');
  }
  if (r.watch.length > 0) out.push(`## Watch fan-out`, '', ...watchTable(r.watch), '');
  if (r.stalled && r.stalled.length > 0) out.push(`## Stalled watchers (${r.stalled[0]!.seconds} s of writes)`, '', ...stalledTable(r.stalled), '');
  if (r.store) out.push('## Store: memory and restart', '', ...storeTables(r.store), '');
  if (r.etcd) out.push(...etcdSection(r, r.etcd));
  if (r.admissionPolicy && r.admissionPolicy.length > 0) {
    out.push(`## Admission: ValidatingAdmissionPolicy beside no policy (${r.concurrency} clients, ${r.phaseMs} ms per phase)`, '', ...requestsTable(r.admissionPolicy), '');
  }
  if (r.rbac && r.rbac.length > 0) out.push(`## Authorization: RBAC beside system:masters (${r.concurrency} clients, ${r.phaseMs} ms per phase)`, '', ...requestsTable(r.rbac), '');
  if (r.admission && r.admission.length > 0) out.push(`## Admission webhooks: create latency and throughput (${r.concurrency} clients, ${r.phaseMs} ms per phase)`, '', ...requestsTable(r.admission), '');
  if (r.customResources) {
    out.push(`## Custom resources beside ConfigMaps (${r.concurrency} clients, ${r.phaseMs} ms per phase)`, '', ...requestsTable(r.customResources.phases), '');
    out.push('### Watch fan-out: ConfigMaps, then Widgets, on the same server', '', ...watchTable(r.customResources.watch), '');
  }
  if (r.testServer) out.push('## capstan/testing: in-process servers', '', renderTestServerMarkdown(r.testServer), '');
  if (r.encodings) out.push(...encodingsMarkdown(r.encodings, cpu));
  if (r.lastResort) {
    out.push(
      `## Tying escaped exceptions to their request: AsyncLocalStorage per request, in-process (Node ${process.version})`,
      '',
      'GET and create of a 1 KiB ConfigMap through an in-process server and its loopback client (8 in flight); CPU per request without and with an AsyncLocalStorage entered around each request, 12 alternating rounds of 400 (medians).',
      '',
      '| operation | CPU µs without | CPU µs with | cost |',
      '|---|---:|---:|---:|',
      ...r.lastResort.map((l) => `| ${l.operation} | ${l.offUs} | ${l.onUs} | ${l.costPct >= 0 ? '+' : ''}${l.costPct} % |`),
      '',
    );
  }
  if (r.depthChecks) {
    out.push(
      '## Nesting-depth check on the write path, in-process (issue 10: at most 3 % of a create)',
      '',
      'JSON body decode with the check (codec decode) and with it bypassed (JSON.parse alone), beside a whole create of the same ConfigMap (in-process server, memory store, loopback client; CPU per create, best of three runs).',
      '',
      '| body bytes | decode with check µs | decode, check bypassed µs | create CPU µs | check / create |',
      '|---:|---:|---:|---:|---:|',
      ...r.depthChecks.map((d) => `| ${n(d.bodyBytes)} | ${d.decodeWithCheckUs} | ${d.decodeBypassedUs} | ${d.createUs} | ${d.sharePct} % |`),
      '',
    );
  }
  return out.join('\n');
}
