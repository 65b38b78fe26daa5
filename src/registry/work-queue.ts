/**
 * Controllers' work queue (client-go's rate-limited workqueue): a key is
 * queued once however often it is added (dedup); a key added while it is
 * being processed runs again afterwards; at most `workers` keys are
 * processed at a time, oldest first; a key whose work fails is retried after
 * its own exponentially growing delay (kube's ItemExponentialFailureRateLimiter:
 * base × 2^failures, capped) until a success forgets its failures.
 */

export interface RetryBackoff {
  baseMs: number;
  maxMs: number;
}

/** client-go's DefaultControllerRateLimiter per-item part: 5 ms doubling up to 1000 s. */
export const KUBE_CONTROLLER_BACKOFF: RetryBackoff = { baseMs: 5, maxMs: 1000 * 1000 };

/** The buckets of workqueue_work_duration_seconds (prometheus.ExponentialBuckets(10e-9, 10, 10)). */
export const WORK_DURATION_BUCKETS: readonly number[] = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

/** One queue's figures, read at scrape time (workqueue_* metrics, label `name`). */
export interface QueueFigures {
  depth: number;
  adds: number;
  retries: number;
  /** Cumulative counts per WORK_DURATION_BUCKETS bound. */
  durationBuckets: number[];
  durationSum: number;
  durationCount: number;
}

/** Every named queue of a server, for /metrics. */
export class WorkQueueMetrics {
  private readonly queues = new Map<string, QueueFigures>();

  figures(name: string): QueueFigures {
    let f = this.queues.get(name);
    if (!f) {
      f = { depth: 0, adds: 0, retries: 0, durationBuckets: WORK_DURATION_BUCKETS.map(() => 0), durationSum: 0, durationCount: 0 };
      this.queues.set(name, f);
    }
    return f;
  }

  all(): Array<{ name: string; figures: QueueFigures }> {
    return [...this.queues].map(([name, figures]) => ({ name, figures }));
  }
}

export interface WorkQueueOptions {
  /** The queue's metric label (kube names queues after their controller, e.g. garbage_collector_attempt_to_delete). */
  name?: string;
  metrics?: WorkQueueMetrics;
  /** Retry delays of a failing key; default KUBE_CONTROLLER_BACKOFF. */
  backoff?: RetryBackoff;
  /** Keys processed at once (default unbounded). */
  workers?: number;
  /** Told of each failure (the key is retried regardless). */
  onError?: (key: string, err: unknown) => void;
}

export class WorkQueue {
  private readonly pending = new Set<string>();
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly backoff: RetryBackoff;
  private readonly workers: number;
  private readonly figures: QueueFigures | undefined;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  /** `options` as a number: a fixed retry delay in ms. */
  constructor(
    private readonly work: (key: string) => Promise<void>,
    options: WorkQueueOptions | number = {},
  ) {
    const opts: WorkQueueOptions = typeof options === 'number' ? { backoff: { baseMs: options, maxMs: options } } : options;
    this.backoff = opts.backoff ?? KUBE_CONTROLLER_BACKOFF;
    this.workers = opts.workers ?? Infinity;
    this.figures = opts.name && opts.metrics ? opts.metrics.figures(opts.name) : undefined;
    this.onError = opts.onError;
  }

  private readonly onError: ((key: string, err: unknown) => void) | undefined;

  add(key: string): void {
    if (this.stopped) return;
    if (this.figures) this.figures.adds++;
    if (this.running.has(key)) {
      this.again.add(key);
      return;
    }
    if (this.pending.has(key)) return;
    this.pending.add(key);
    this.updateDepth();
    queueMicrotask(() => this.pump());
  }

  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.add(key);
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  /** Queues the key again after its next backoff delay (AddRateLimited). */
  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    if (this.figures) this.figures.retries++;
    this.addAfter(key, Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** n));
  }

  /** Forgets the key's failures, so its next retry waits the base delay again. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** How often the key has been retried since it was last forgotten. */
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  get length(): number {
    return this.pending.size;
  }

  /** Resolves when nothing is queued or running (retries waiting on a timer do not count). */
  idle(): Promise<void> {
    if (this.pending.size === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.workers && this.pending.size > 0) {
      const key = this.pending.values().next().value as string;
      this.pending.delete(key);
      this.updateDepth();
      void this.run(key);
    }
    if (this.pending.size === 0 && this.running.size === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  private async run(key: string): Promise<void> {
    this.running.add(key);
    const started = performance.now();
    try {
      await this.work(key);
      this.forget(key);
    } catch (err) {
      this.onError?.(key, err);
      if (process.env.CAPSTAN_DEBUG) process.stderr.write(`controller: ${key}: ${(err as Error).stack ?? String(err)}\n`);
      if (!this.stopped) this.addRateLimited(key);
    } finally {
      this.observe((performance.now() - started) / 1000);
      this.running.delete(key);
      if (this.again.delete(key)) this.add(key);
      this.pump();
    }
  }

  private observe(seconds: number): void {
    const f = this.figures;
    if (!f) return;
    f.durationSum += seconds;
    f.durationCount++;
    WORK_DURATION_BUCKETS.forEach((le, i) => {
      if (seconds <= le) f.durationBuckets[i]!++;
    });
  }

  private updateDepth(): void {
    if (this.figures) this.figures.depth = this.pending.size;
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.pending.clear();
    this.updateDepth();
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
