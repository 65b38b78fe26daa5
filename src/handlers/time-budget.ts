import { performance } from 'node:perf_hooks';

/**
 * kube-apiserver's cacher dispatch budget (cacher/time_budget.go): the time
 * that may be spent waiting for watchers that cannot take an event, before
 * they are closed. It grows by 50 ms every second up to 100 ms; a wait takes
 * all of it and gives back what it did not use. Refilled lazily here (kube
 * uses a ticker), which only smooths the steps.
 */
export class TimeBudget {
  private budgetMs = 0;
  private refilledAt: number;

  constructor(
    private readonly refreshPerSecondMs = 50,
    private readonly maxMs = 100,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.refilledAt = now();
  }

  takeAvailable(): number {
    this.refill();
    const taken = this.budgetMs;
    this.budgetMs = 0;
    return taken;
  }

  returnUnused(ms: number): void {
    if (ms <= 0) return;
    this.budgetMs = Math.min(this.maxMs, this.budgetMs + ms);
  }

  private refill(): void {
    const t = this.now();
    this.budgetMs = Math.min(this.maxMs, this.budgetMs + ((t - this.refilledAt) / 1000) * this.refreshPerSecondMs);
    this.refilledAt = t;
  }
}
