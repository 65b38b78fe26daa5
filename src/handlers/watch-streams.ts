import type { ServerResponse } from 'node:http';
import { getHeapStatistics } from 'node:v8';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../machinery/logger.js';
import { TimeBudget } from './time-budget.js';
import { WatchStream, type WatchedResource, type WatchStreamCoordinator, type WatchStreamHooks, type WatchStreamLimits } from './watch-stream.js';

/**
 * Every watch stream of one server: the bytes they hold together (bounded by
 * --max-watch-buffered-bytes), kube's per-resource dispatch budget for
 * watchers that cannot keep up, cuts spread over loop turns, and the one
 * shutdown listener that ends them all.
 */

export const DEFAULT_WATCH_STREAM_LIMITS: WatchStreamLimits = {
  socketBytes: 16 * 1024,
  queueEvents: 200,
  queueBytes: 8 * 1024 * 1024,
  endGraceMs: 10_000,
  cleanEndBytes: 4 * 1024 * 1024,
  slowReaderRecheckMs: 500,
};

/** --max-watch-buffered-bytes 0: a quarter of the JavaScript heap limit. */
export function defaultMaxWatchBufferedBytes(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 4);
}

/** Cut watchers are closed in slices of this much loop time, so many cuts never stall other work. */
const CLOSE_SLICE_MS = 2;

/** Over the global bound, watchers are cut until the total is back under this share of it. */
const SHED_TO = 0.9;

export interface WatchStreamsOptions {
  /** Bytes held for all watchers together (queued frames and unsent socket bytes); 0: the default. */
  maxBufferedBytes: number;
  /** Aborted on shutdown: every watch ends. */
  shutdown: AbortSignal;
  /** --min-request-timeout in seconds (watch.ts's watchTimeoutMs); 1800 when not given. */
  minRequestTimeout?: number;
  limits?: Partial<WatchStreamLimits>;
}

/** Watchers that became blocked while one wait was running share its timer, as kube's dispatch does. */
interface BudgetRound {
  resource: string;
  members: Set<WatchStream>;
  startedAt: number;
  ms: number;
  timer: NodeJS.Timeout;
}

export class WatchStreams implements WatchStreamCoordinator {
  readonly limits: WatchStreamLimits;
  readonly maxBufferedBytes: number;
  readonly minRequestTimeout: number;
  private readonly streams = new Set<WatchStream>();
  private total = 0;
  private readonly budgets = new Map<string, TimeBudget>();
  private readonly rounds = new Map<string, BudgetRound>();
  private closing: Array<WatchStream | undefined> = [];
  private closingHead = 0;
  private closingScheduled = false;
  private shedScheduled = false;
  /** Blocked watchers spared at their round's end because they still read: looked at again every slowReaderRecheckMs. */
  private readonly slow = new Set<WatchStream>();
  private slowTimer: NodeJS.Timeout | undefined;
  /** Watchers ended because they did not keep up, by group and resource (kube's apiserver_terminated_watchers_total). */
  private readonly terminated = new Map<string, { group: string; resource: string; count: number }>();

  constructor(private readonly opts: WatchStreamsOptions) {
    this.limits = { ...DEFAULT_WATCH_STREAM_LIMITS, ...opts.limits };
    this.maxBufferedBytes = opts.maxBufferedBytes > 0 ? opts.maxBufferedBytes : defaultMaxWatchBufferedBytes();
    this.minRequestTimeout = opts.minRequestTimeout ?? 1800;
    opts.shutdown.addEventListener('abort', () => this.endAll(), { once: true });
  }

  /** A stream for one watch response; undefined when the server is shutting down. */
  open(res: ServerResponse, resource: WatchedResource, identifier: string, logger: Logger, hooks: WatchStreamHooks): WatchStream | undefined {
    if (this.opts.shutdown.aborted) return undefined;
    const stream = new WatchStream(res, this, resource, identifier, logger, hooks);
    this.streams.add(stream);
    return stream;
  }

  get count(): number {
    return this.streams.size;
  }

  /** Bytes held for all watchers now. */
  bufferedBytes(): number {
    return this.total;
  }

  terminatedWatchers(): Array<{ group: string; resource: string; count: number }> {
    return [...this.terminated.values()];
  }

  held(_stream: WatchStream, delta: number): void {
    this.total += delta;
    if (this.total > this.maxBufferedBytes && !this.shedScheduled) {
      this.shedScheduled = true;
      // After the current dispatch has reached every watcher, so the furthest behind are known.
      queueMicrotask(() => this.shed());
    }
  }

  /**
   * kube's cacher: a watcher that cannot take an event may hold up dispatch for
   * the budget available now (at most 100 ms, 50 ms more each second); if it
   * still cannot when that runs out, it is closed.
   */
  blocked(stream: WatchStream): void {
    let round = this.rounds.get(stream.resource);
    if (!round) {
      const ms = this.budget(stream.resource).takeAvailable();
      const r: BudgetRound = { resource: stream.resource, members: new Set(), startedAt: performance.now(), ms, timer: setTimeout(() => this.expire(r), ms) };
      r.timer.unref();
      this.rounds.set(stream.resource, r);
      round = r;
    }
    round.members.add(stream);
  }

  unblocked(stream: WatchStream): void {
    this.slow.delete(stream);
    const round = this.rounds.get(stream.resource);
    if (!round?.members.delete(stream) || round.members.size > 0) return;
    clearTimeout(round.timer);
    this.rounds.delete(round.resource);
    this.budget(round.resource).returnUnused(round.ms - (performance.now() - round.startedAt));
  }

  scheduleClose(stream: WatchStream): void {
    this.closing.push(stream);
    if (this.closingScheduled) return;
    this.closingScheduled = true;
    setImmediate(() => this.runCloses());
  }

  removed(stream: WatchStream): void {
    this.streams.delete(stream);
    this.slow.delete(stream);
  }

  private budget(resource: string): TimeBudget {
    let b = this.budgets.get(resource);
    if (!b) this.budgets.set(resource, (b = new TimeBudget()));
    return b;
  }

  /**
   * The round's time is up: a watcher still blocked is closed, unless its
   * socket still takes bytes. kube's writers are goroutines that each block
   * on their own socket, so a slow reader there drains its channel as fast as
   * it reads; here one thread writes every socket, and when the kernel runs
   * short of TCP buffer memory (a thousand stalled connections hold GBs) every
   * socket slows at once, healthy ones too, without being unresponsive.
   */
  private expire(round: BudgetRound): void {
    this.rounds.delete(round.resource);
    // After this turn's I/O: a turn that ran long held back every socket's write completions, not just this round's.
    setImmediate(() => {
      for (const s of round.members) this.judge(s);
    });
  }

  private judge(s: WatchStream): void {
    if (!s.isBlocked || s.isDone) return void this.slow.delete(s);
    if (s.lookIsReadingSlowly()) {
      this.slow.add(s);
      this.slowTimer ??= setTimeout(() => setImmediate(() => this.judgeSlow()), this.limits.slowReaderRecheckMs).unref();
      return;
    }
    this.slow.delete(s);
    this.countTerminated(s);
    if (s.logger.v(1)) s.logger.info(`Forcing ${s.resource} watcher close due to unresponsiveness: ${s.identifier}. queued events = ${s.queuedEventCount}, held bytes = ${s.heldBytes}`);
    s.cut();
  }

  private judgeSlow(): void {
    this.slowTimer = undefined;
    for (const s of [...this.slow]) this.judge(s);
  }

  /** Over the global bound: the watchers holding the most (furthest behind) go first. */
  private shed(): void {
    this.shedScheduled = false;
    if (this.total <= this.maxBufferedBytes) return;
    const target = this.maxBufferedBytes * SHED_TO;
    const candidates = [...this.streams].filter((s) => s.isOpen).sort((a, b) => b.heldBytes - a.heldBytes);
    for (const s of candidates) {
      if (this.total <= target) break;
      this.countTerminated(s);
      if (s.logger.v(1)) s.logger.info(`Forcing ${s.resource} watcher close: watchers hold more than --max-watch-buffered-bytes=${this.maxBufferedBytes}: ${s.identifier}. held bytes = ${s.heldBytes}`);
      s.cut();
    }
  }

  private countTerminated(s: WatchStream): void {
    const key = s.resource;
    const entry = this.terminated.get(key);
    if (entry) entry.count++;
    else this.terminated.set(key, { group: s.watched.group, resource: s.watched.resource, count: 1 });
  }

  private runCloses(): void {
    const until = performance.now() + CLOSE_SLICE_MS;
    while (this.closingHead < this.closing.length) {
      const s = this.closing[this.closingHead]!;
      this.closing[this.closingHead++] = undefined;
      s.close();
      if (performance.now() >= until) break;
    }
    if (this.closingHead < this.closing.length) {
      setImmediate(() => this.runCloses());
      return;
    }
    this.closing = [];
    this.closingHead = 0;
    this.closingScheduled = false;
  }

  private endAll(): void {
    for (const s of [...this.streams]) s.end();
  }
}
