import type { WatchCacheStats } from '../cache/watch-cache.js';

/**
 * /metrics in Prometheus text format (prom-client). Watch cache figures are
 * read at scrape time; kube-apiserver's metric names are used where it has
 * one (apiserver_storage_objects, apiserver_watch_cache_resource_version),
 * `capstan_` ones where it has none. prom-client loads on the first scrape.
 */

export interface CacheStatsSource {
  cacheStats(): Array<{ group: string; resource: string; stats: WatchCacheStats }>;
}

type PromClient = typeof import('prom-client');

export class Metrics {
  private registry: import('prom-client').Registry | undefined;

  constructor(private readonly caches: CacheStatsSource) {}

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
    perCache('apiserver_storage_objects', 'Number of stored objects at the time of last check split by kind.', (s) => s.objects, 'resource');
    perCache('apiserver_watch_cache_resource_version', 'Current resource version of watch cache broken by resource type.', (s) => s.revision);
    perCache('capstan_watch_cache_history_events', 'Events held in the watch cache history.', (s) => s.historyEvents);
    perCache('capstan_watch_cache_watchers', 'Watches served by the watch cache.', (s) => s.watchers);
    perCache('capstan_watch_cache_oldest_event_age_seconds', 'Age of the oldest event in the watch cache history (how far back watches can resume).', (s) => s.oldestEventAgeSeconds);
    perCache('capstan_watch_cache_oldest_revision', 'The oldest revision a watch can start from.', (s) => s.oldestRevision);
    return registry;
  }

  async scrape(): Promise<{ body: string; contentType: string }> {
    this.registry ??= await this.build();
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
