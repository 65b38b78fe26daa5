/**
 * A labelled latency histogram kept as plain numbers (cumulative bucket
 * counts, sum, count per label set), so the code that observes needs no
 * metrics library; observability/ renders it in Prometheus' text format at
 * scrape time. Label values are kept in the order of `labelNames`.
 */

export interface HistogramSeries {
  labels: Record<string, string>;
  /** counts[i]: observations ≤ buckets[i] (cumulative); the +Inf bucket is `count`. */
  counts: number[];
  sum: number;
  count: number;
}

export class HistogramVec {
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly buckets: readonly number[],
  ) {}

  /** One observation; `values` are the label values in `labelNames` order (no object per call on the hot path). */
  observe(values: readonly string[], value: number): void {
    let key = values[0] ?? '';
    for (let i = 1; i < values.length; i++) key += `\u0000${values[i]}`;
    let s = this.series.get(key);
    if (!s) {
      const own: Record<string, string> = {};
      this.labelNames.forEach((n, i) => (own[n] = values[i] ?? ''));
      s = { labels: own, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  all(): readonly HistogramSeries[] {
    return [...this.series.values()];
  }
}
