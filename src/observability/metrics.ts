import type { AuthenticationConfigMetrics } from '../authn/authentication-config-controller.js';
import type { WatchCacheStats } from '../cache/watch-cache.js';
import type { DeprecatedApiRequests } from '../api/deprecated-api-requests.js';
import type { CounterFamily } from '../admission/pod-security/metrics.js';
import type { AdmissionMetrics } from '../admission/metrics.js';
import type { FeatureGates } from '../machinery/feature-gates.js';
import type { CounterVec } from '../machinery/counter.js';
import type { HistogramVec } from '../machinery/histogram.js';
import { WORK_DURATION_BUCKETS, type WorkQueueMetrics } from '../registry/work-queue.js';

/**
 * /metrics in Prometheus text format (prom-client). Watch cache figures are
 * read at scrape time; kube-apiserver's metric names are used where it has
 * one (apiserver_storage_objects, apiserver_watch_cache_resource_version),
 * `capstan_` ones where it has none. prom-client loads on the first scrape.
 */

export interface CacheStatsSource {
  cacheStats(): Array<{ group: string; resource: string; stats: WatchCacheStats }>;
}

/** Watch streams: watchers closed for not keeping up, and the bytes held for all watchers. */
export interface WatchStreamStatsSource {
  terminatedWatchers(): Array<{ group: string; resource: string; count: number }>;
  bufferedBytes(): number;
}

/** A gauge another layer keeps: its series, read at each scrape. */
export interface GaugeFamily {
  name: string;
  help: string;
  labelNames: readonly string[];
  samples(): Array<{ labels: Record<string, string>; value: number }>;
}

type PromClient = typeof import('prom-client');

export class Metrics {
  private registry: import('prom-client').Registry | undefined;

  constructor(
    private readonly caches: CacheStatsSource,
    private readonly watches?: WatchStreamStatsSource,
    /** Reloads of --authentication-config, when the server has one. */
    private readonly authnConfig?: AuthenticationConfigMetrics,
    private readonly deprecatedApis?: DeprecatedApiRequests,
    /** Counters kept by admission plugins (PodSecurity's), read at scrape time. */
    private readonly admissionCounters?: () => readonly CounterFamily[],
    private readonly admission?: AdmissionMetrics,
    /** The in-process controllers' queues. */
    private readonly workQueues?: WorkQueueMetrics,
    private readonly featureGates?: FeatureGates,
    /** Histograms kept by other layers (CRD conversion webhooks', the authorizers'). */
    private readonly histograms: readonly HistogramVec[] = [],
    /** Counters kept by other layers (the authorizers'), their help with kube's stability prefix. */
    private readonly counters: readonly CounterVec[] = [],
    /** ALPHA gauges kept by other layers (the aggregator's APIService availability), read at scrape time. */
    private readonly gauges?: () => readonly GaugeFamily[],
  ) {}

  private async build(): Promise<import('prom-client').Registry> {
    const prom: PromClient = await import('prom-client');
    const registry = new prom.Registry();
    prom.collectDefaultMetrics({ register: registry });
    const caches = this.caches;
    const perCache = (name: string, help: string, value: (s: WatchCacheStats) => number, labels: 'resource' | 'group-resource' = 'group-resource'): void => {
      const labelNames = labels === 'resource' ? ['resource'] : ['group', 'resource'];
      new prom.Gauge({
        name,
        help,
        labelNames,
        registers: [registry],
        collect() {
          this.reset();
          for (const c of caches.cacheStats()) {
            const l: Record<string, string> = labels === 'resource' ? { resource: c.group ? `${c.resource}.${c.group}` : c.resource } : { group: c.group, resource: c.resource };
            this.set(l, value(c.stats));
          }
        },
      });
    };
    if (this.featureGates) featureEnabledGauge(prom, registry, this.featureGates);
    perCache('apiserver_storage_objects', 'Number of stored objects at the time of last check split by kind.', (s) => s.objects, 'resource');
    perCache('apiserver_watch_cache_resource_version', 'Current resource version of watch cache broken by resource type.', (s) => s.revision);
    perCache('capstan_watch_cache_history_events', 'Events held in the watch cache history.', (s) => s.historyEvents);
    perCache('capstan_watch_cache_watchers', 'Watches served by the watch cache.', (s) => s.watchers);
    perCache('capstan_watch_cache_oldest_event_age_seconds', 'Age of the oldest event in the watch cache history (how far back watches can resume).', (s) => s.oldestEventAgeSeconds);
    perCache('capstan_watch_cache_oldest_revision', 'The oldest revision a watch can start from.', (s) => s.oldestRevision);
    const watches = this.watches;
    if (watches) {
      new prom.Counter({
        name: 'apiserver_terminated_watchers_total',
        help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
        labelNames: ['group', 'resource'],
        registers: [registry],
        collect() {
          this.reset();
          for (const t of watches.terminatedWatchers()) this.inc({ group: t.group, resource: t.resource }, t.count);
        },
      });
      new prom.Gauge({
        name: 'capstan_watch_buffered_bytes',
        help: 'Bytes held for all watchers: events queued for clients that read slower than events come, and unsent socket buffers (bounded by --max-watch-buffered-bytes).',
        registers: [registry],
        collect() {
          this.set(watches.bufferedBytes());
        },
      });
    }
    if (this.authnConfig) this.authenticationConfigMetrics(prom, registry, this.authnConfig);
    const deprecatedApis = this.deprecatedApis;
    if (deprecatedApis) {
      // kube's endpoints/metrics deprecatedRequestGauge (STABLE): 1 per deprecated API requested since start.
      new prom.Gauge({
        name: 'apiserver_requested_deprecated_apis',
        help: '[STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
        // Sorted, as Go's client writes label pairs.
        labelNames: ['group', 'removed_release', 'resource', 'subresource', 'version'],
        registers: [registry],
        collect() {
          this.reset();
          for (const r of deprecatedApis.all()) {
            this.set({ group: r.group, removed_release: r.removedRelease, resource: r.resource, subresource: r.subresource, version: r.version }, 1);
          }
        },
      });
    }
    for (const family of this.admissionCounters?.() ?? []) {
      new prom.Counter({
        name: family.name,
        help: `[ALPHA] ${family.help}`,
        // Sorted, as Go's client writes label pairs.
        labelNames: [...family.labelNames].sort(),
        registers: [registry],
        collect() {
          this.reset();
          for (const s of family.samples()) this.inc(Object.fromEntries(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1))), s.value);
        },
      });
    }
    for (const family of this.gauges?.() ?? []) {
      new prom.Gauge({
        name: family.name,
        help: `[ALPHA] ${family.help}`,
        labelNames: [...family.labelNames].sort(),
        registers: [registry],
        collect() {
          this.reset();
          for (const s of family.samples()) this.set(Object.fromEntries(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1))), s.value);
        },
      });
    }
    if (this.admission) {
      registerHistogram(registry, this.admission.step);
      registerHistogram(registry, this.admission.controller);
    }
    if (this.workQueues) this.workQueueMetrics(prom, registry, this.workQueues);
    for (const h of this.histograms) registerHistogram(registry, h);
    for (const c of this.counters) {
      new prom.Counter({
        name: c.name,
        help: c.help,
        // Sorted, as Go's client writes label pairs.
        labelNames: [...c.labelNames].sort(),
        registers: [registry],
        collect() {
          this.reset();
          for (const s of c.samples()) this.inc(Object.fromEntries(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1))), s.value);
        },
      });
    }
    return registry;
  }

  /** client-go's workqueue metrics (component-base/metrics/prometheus/workqueue), label `name` per queue. */
  private workQueueMetrics(prom: PromClient, registry: import('prom-client').Registry, queues: WorkQueueMetrics): void {
    new prom.Gauge({
      name: 'workqueue_depth',
      help: '[ALPHA] Current depth of workqueue',
      labelNames: ['name'],
      registers: [registry],
      collect() {
        this.reset();
        for (const q of queues.all()) this.set({ name: q.name }, q.figures.depth);
      },
    });
    new prom.Counter({
      name: 'workqueue_adds_total',
      help: '[ALPHA] Total number of adds handled by workqueue',
      labelNames: ['name'],
      registers: [registry],
      collect() {
        this.reset();
        for (const q of queues.all()) this.inc({ name: q.name }, q.figures.adds);
      },
    });
    new prom.Counter({
      name: 'workqueue_retries_total',
      help: '[ALPHA] Total number of retries handled by workqueue',
      labelNames: ['name'],
      registers: [registry],
      collect() {
        this.reset();
        for (const q of queues.all()) this.inc({ name: q.name }, q.figures.retries);
      },
    });
    // A histogram whose figures the queues keep themselves: written out as prom-client writes one.
    const name = 'workqueue_work_duration_seconds';
    registry.registerMetric({
      name,
      help: '[ALPHA] How long in seconds processing an item from workqueue takes.',
      type: 'histogram',
      aggregator: 'sum',
      get: () => ({
        name,
        help: '[ALPHA] How long in seconds processing an item from workqueue takes.',
        type: 'histogram',
        aggregator: 'sum',
        values: queues.all().flatMap(({ name: queue, figures: f }) => [
          ...WORK_DURATION_BUCKETS.map((le, i) => ({ metricName: `${name}_bucket`, labels: { le: String(le), name: queue }, value: f.durationBuckets[i] ?? 0 })),
          { metricName: `${name}_bucket`, labels: { le: '+Inf', name: queue }, value: f.durationCount },
          { metricName: `${name}_sum`, labels: { name: queue }, value: f.durationSum },
          { metricName: `${name}_count`, labels: { name: queue }, value: f.durationCount },
        ]),
      }),
      reset: () => {},
    } as unknown as import('prom-client').Metric);
  }

  /** kube-apiserver's authentication config controller metrics (k8s.io/apiserver/pkg/server/options/authenticationconfig/metrics). */
  private authenticationConfigMetrics(prom: PromClient, registry: import('prom-client').Registry, m: AuthenticationConfigMetrics): void {
    const id = m.apiServerIdHash;
    new prom.Counter({
      name: 'apiserver_authentication_config_controller_automatic_reloads_total',
      help: '[BETA] Total number of automatic reloads of authentication configuration split by status and apiserver identity.',
      labelNames: ['status', 'apiserver_id_hash'],
      registers: [registry],
      collect() {
        this.reset();
        if (m.reloads.success > 0) this.inc({ status: 'success', apiserver_id_hash: id }, m.reloads.success);
        if (m.reloads.failure > 0) this.inc({ status: 'failure', apiserver_id_hash: id }, m.reloads.failure);
      },
    });
    new prom.Gauge({
      name: 'apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds',
      help: '[BETA] Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.',
      labelNames: ['status', 'apiserver_id_hash'],
      registers: [registry],
      collect() {
        this.reset();
        if (m.lastReload.success > 0) this.set({ status: 'success', apiserver_id_hash: id }, m.lastReload.success);
        if (m.lastReload.failure > 0) this.set({ status: 'failure', apiserver_id_hash: id }, m.lastReload.failure);
      },
    });
    new prom.Gauge({
      name: 'apiserver_authentication_config_controller_last_config_info',
      help: '[BETA] Information about the last applied authentication configuration with hash as label, split by apiserver identity.',
      labelNames: ['apiserver_id_hash', 'hash'],
      registers: [registry],
      collect() {
        this.reset();
        if (m.configHash) this.set({ apiserver_id_hash: id, hash: m.configHash }, 1);
      },
    });
  }

  async scrape(): Promise<{ body: string; contentType: string }> {
    this.registry ??= await this.build();
    // admission webhooks keep kube's series themselves (admission sits below this layer)
    return { body: (await this.registry.metrics()) + (this.admission?.webhooks.exposition() ?? ''), contentType: this.registry.contentType };
  }
}

/**
 * component-base's kubernetes_feature_enabled: one series per known gate,
 * stage as featuregate.PreRelease spells it (GA is the empty string).
 */
function featureEnabledGauge(prom: PromClient, registry: import('prom-client').Registry, gates: FeatureGates): void {
  new prom.Gauge({
    name: 'kubernetes_feature_enabled',
    help: '[BETA] This metric records the data about the stage and enablement of a k8s feature.',
    labelNames: ['name', 'stage'],
    registers: [registry],
    collect() {
      this.reset();
      for (const g of gates.all()) this.set({ name: g.name, stage: g.stage === 'GA' ? '' : g.stage }, g.enabled ? 1 : 0);
    },
  });
}

/**
 * A HistogramVec kept outside prom-client, rendered as a histogram at each
 * scrape (prom-client's registry asks a metric only for name, help, type and
 * its values). Label pairs in name order, as Go's client writes them.
 */
function registerHistogram(registry: import('prom-client').Registry, h: HistogramVec): void {
  const metric = {
    name: h.name,
    help: h.help,
    type: 'histogram',
    aggregator: 'sum',
    get: () => {
      const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
      for (const s of h.all()) {
        const labels = Object.fromEntries(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
        h.buckets.forEach((le, i) => values.push({ metricName: `${h.name}_bucket`, labels: { ...labels, le }, value: s.counts[i]! }));
        values.push({ metricName: `${h.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: s.count });
        values.push({ metricName: `${h.name}_sum`, labels, value: s.sum });
        values.push({ metricName: `${h.name}_count`, labels, value: s.count });
      }
      return { name: h.name, help: h.help, type: 'histogram', aggregator: 'sum', values };
    },
  };
  registry.registerMetric(metric as unknown as import('prom-client').Metric);
}
