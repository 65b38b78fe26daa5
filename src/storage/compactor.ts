import type { Store } from './store.js';

/**
 * Periodic compaction that keeps at least `historyMs` of history: it notes
 * the store's revision at each tick and compacts to the newest noted
 * revision that is older than the window (etcd's periodic compactor).
 */
export class Compactor {
  private readonly marks: Array<{ at: number; revision: number }> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly historyMs: number,
    private readonly tickMs = Math.max(1000, Math.min(60_000, historyMs / 5)),
  ) {}

  start(): void {
    if (this.historyMs <= 0) return;
    this.timer = setInterval(() => void this.tick().catch(() => undefined), this.tickMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async tick(now = Date.now()): Promise<void> {
    this.marks.push({ at: now, revision: await this.store.currentRevision() });
    let target: number | undefined;
    while (this.marks.length > 0 && now - this.marks[0]!.at >= this.historyMs) target = this.marks.shift()!.revision;
    if (target !== undefined && target > this.store.compactedRevision()) await this.store.compact(target);
  }
}
