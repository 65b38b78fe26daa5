/**
 * A labelled counter kept as plain numbers, the companion of HistogramVec:
 * the code that counts needs no metrics library; observability/ renders it
 * in Prometheus' text format at scrape time. `help` carries kube's stability
 * prefix (`[ALPHA] `, `[BETA] `) as /metrics shows it.
 */
export class CounterVec {
  private readonly counts = new Map<string, { labels: Record<string, string>; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  /** Adds `by` (default 1); `values` are the label values in `labelNames` order. */
  inc(values: readonly string[], by = 1): void {
    let key = values[0] ?? '';
    for (let i = 1; i < values.length; i++) key += `\u0000${values[i]}`;
    let s = this.counts.get(key);
    if (!s) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((n, i) => (labels[n] = values[i] ?? ''));
      s = { labels, value: 0 };
      this.counts.set(key, s);
    }
    s.value += by;
  }

  samples(): Array<{ labels: Record<string, string>; value: number }> {
    return [...this.counts.values()].map((s) => ({ labels: { ...s.labels }, value: s.value }));
  }
}
