/**
 * kube's admission webhook metrics (k8s.io/apiserver/pkg/admission/metrics),
 * kept here and written out by /metrics (observability/metrics.ts) in
 * Prometheus text: one set per server (AdmissionMetrics.webhooks), so servers
 * sharing a process (capstan/testing) do not count each other's calls. `type` is "admit"
 * for mutating webhooks and "validating" for validating ones, as kube labels
 * them.
 */

export type WebhookStep = 'admit' | 'validating';
export type RejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

const DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];

interface Histogram {
  buckets: number[];
  sum: number;
  count: number;
}

type Labels = Record<string, string>;

class Series<V> {
  private readonly values = new Map<string, { labels: Labels; value: V }>();

  constructor(private readonly fresh: () => V) {}

  at(labels: Labels): V {
    // Go's client writes label pairs sorted by name
    const sorted = Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
    const key = JSON.stringify(sorted);
    let entry = this.values.get(key);
    if (!entry) this.values.set(key, (entry = { labels: sorted, value: this.fresh() }));
    return entry.value;
  }

  entries(): { labels: Labels; value: V }[] {
    return [...this.values.values()];
  }
}

/** kube truncates codes above 600 to keep the label's values bounded. */
function codeLabel(code: number): string {
  return String(code > 600 ? 600 : code);
}

export class WebhookMetrics {
  private readonly requests = new Series(() => ({ n: 0 }));
  private readonly rejections = new Series(() => ({ n: 0 }));
  private readonly failOpens = new Series(() => ({ n: 0 }));
  private readonly durations = new Series<Histogram>(() => ({ buckets: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 }));

  /** kube's ObserveWebhook: the call's latency and apiserver_admission_webhook_request_total. */
  observe(name: string, step: WebhookStep, operation: string, seconds: number, rejected: boolean, code: number): void {
    this.requests.at({ name, type: step, operation, code: codeLabel(code), rejected: String(rejected) }).n++;
    const h = this.durations.at({ name, type: step, operation, rejected: String(rejected) });
    DURATION_BUCKETS.forEach((b, i) => {
      if (seconds <= b) h.buckets[i]!++;
    });
    h.sum += seconds;
    h.count++;
  }

  rejection(name: string, step: WebhookStep, operation: string, errorType: RejectionErrorType, code: number): void {
    this.rejections.at({ name, type: step, operation, error_type: errorType, rejection_code: codeLabel(code) }).n++;
  }

  failOpen(name: string, step: WebhookStep): void {
    this.failOpens.at({ name, type: step }).n++;
  }

  /** The metrics in Prometheus text exposition format (nothing before the first call). */
  exposition(): string {
    const out: string[] = [];
    const labelText = (l: Labels, extra?: [string, string]): string => {
      const pairs = Object.entries(l).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
      if (extra) pairs.push(`${extra[0]}="${extra[1]}"`);
      return `{${pairs.join(',')}}`;
    };
    const counter = (name: string, help: string, series: Series<{ n: number }>): void => {
      const entries = series.entries();
      if (entries.length === 0) return;
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      for (const e of entries) out.push(`${name}${labelText(e.labels)} ${e.value.n}`);
    };
    const durations = this.durations.entries();
    if (durations.length > 0) {
      const name = 'apiserver_admission_webhook_admission_duration_seconds';
      out.push(`# HELP ${name} [STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).`, `# TYPE ${name} histogram`);
      for (const e of durations) {
        DURATION_BUCKETS.forEach((b, i) => out.push(`${name}_bucket${labelText(e.labels, ['le', String(b)])} ${e.value.buckets[i]}`));
        out.push(`${name}_bucket${labelText(e.labels, ['le', '+Inf'])} ${e.value.count}`);
        out.push(`${name}_sum${labelText(e.labels)} ${e.value.sum}`, `${name}_count${labelText(e.labels)} ${e.value.count}`);
      }
    }
    counter('apiserver_admission_webhook_fail_open_count', '[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).', this.failOpens);
    counter('apiserver_admission_webhook_rejection_count', '[ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.', this.rejections);
    counter('apiserver_admission_webhook_request_total', '[ALPHA] Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.', this.requests);
    return out.length > 0 ? `${out.join('\n')}\n` : '';
  }
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/** The process's webhook metrics (kube's admissionmetrics.Metrics). */
