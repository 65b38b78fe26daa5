/**
 * kube-aggregator's APIService availability metrics
 * (pkg/controllers/status/metrics): the gauge
 * `aggregator_unavailable_apiservice{name}` (1 while an APIService's
 * Available condition is not True, 0 once it is; gone with the APIService)
 * and the counter `aggregator_unavailable_apiservice_total{name,reason}`
 * (a status write of this process that turned Available from True to
 * anything else, by the new condition's reason).
 *
 * kube sets the gauge from the availability controllers that run in every
 * kube-apiserver; here every process reads the conditions as stored (its
 * APIService informer), since only the leader writes them.
 */

export interface MetricSamples {
  name: string;
  help: string;
  labelNames: readonly string[];
  samples(): Array<{ labels: Record<string, string>; value: number }>;
}

export class AggregatorMetrics {
  private readonly availability = new Map<string, boolean>();
  private readonly unavailableCounts = new Map<string, { name: string; reason: string; count: number }>();

  /** An APIService's Available condition as stored (undefined: it has none yet, or the APIService is gone). */
  setAvailability(name: string, available: boolean | undefined): void {
    if (available === undefined) this.availability.delete(name);
    else this.availability.set(name, available);
  }

  /** kube's SetUnavailableCounter: counts a status write that took an available APIService away. */
  statusWritten(name: string, wasAvailable: boolean, isAvailable: boolean, reason: string | undefined): void {
    if (!wasAvailable || isAvailable) return;
    const why = reason || 'UnknownReason';
    const key = JSON.stringify([name, why]);
    const entry = this.unavailableCounts.get(key) ?? { name, reason: why, count: 0 };
    entry.count++;
    this.unavailableCounts.set(key, entry);
  }

  readonly unavailableGauge: MetricSamples = {
    name: 'aggregator_unavailable_apiservice',
    help: 'Gauge of APIServices which are marked as unavailable broken down by APIService name.',
    labelNames: ['name'],
    samples: () => [...this.availability].map(([name, available]) => ({ labels: { name }, value: available ? 0 : 1 })),
  };

  readonly unavailableCounter: MetricSamples = {
    name: 'aggregator_unavailable_apiservice_total',
    help: 'Counter of APIServices which are marked as unavailable broken down by APIService name and reason.',
    labelNames: ['name', 'reason'],
    samples: () => [...this.unavailableCounts.values()].map((e) => ({ labels: { name: e.name, reason: e.reason }, value: e.count })),
  };
}
