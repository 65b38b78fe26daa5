import type { Controller } from './controller.js';
import type { LeaderElector } from './leader-election.js';

/**
 * Leader-only work: started when this process starts leading, stopped when
 * it stops, so that of several processes on one store exactly one runs it.
 */

const START_RETRY_MIN_MS = 1000;
const START_RETRY_MAX_MS = 30_000;

/** Work that can be started and stopped; stop() must be safe to call twice. */
export interface LeaderOnlyJob {
  start(): void | Promise<void>;
  stop(): void;
}

/**
 * Runs a job during each term of leadership of `elector`. `makeJob` is
 * called at the start of every term: it returns a fresh job, or the same one
 * when it can be restarted (the Compactor can; controllers built on informers
 * cannot, their informers stay stopped). Returns a function that stops
 * following the elector and stops the current term's job.
 */
export function runWhileLeading(
  elector: LeaderElector,
  makeJob: () => LeaderOnlyJob,
  log: (message: string) => void = (message) => process.stderr.write(`capstan: ${message}\n`),
): () => void {
  const running = new Set<() => void>();
  const removeListener = elector.addLeadershipListener((term) => {
    let job: LeaderOnlyJob | undefined;
    let retry: NodeJS.Timeout | undefined;
    let failures = 0;
    const stopJob = (): void => {
      try {
        job?.stop();
      } catch (err) {
        log(`leader-only job failed to stop: ${(err as Error).message}`);
      }
    };
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      running.delete(end);
      term.removeEventListener('abort', end);
      if (retry) clearTimeout(retry);
      stopJob();
    };
    const run = (): void => {
      retry = undefined;
      job = makeJob();
      const current = job;
      void (async () => current.start())().then(
        // A start still running when the term ended may have set up timers or
        // watches after that stop(): stop once more.
        () => {
          failures = 0;
          if (ended) stopJob();
        },
        (err: unknown) => {
          log(`leader-only job failed to start: ${(err as Error).message}`);
          stopJob();
          if (ended) return;
          // A store hiccup at the start of a term must not leave the work undone
          // until leadership changes: try again, backing off, while the term lasts.
          const delay = Math.min(START_RETRY_MAX_MS, START_RETRY_MIN_MS * 2 ** failures++);
          retry = setTimeout(run, delay);
          retry.unref();
        },
      );
    };
    running.add(end);
    term.addEventListener('abort', end, { once: true });
    run();
  });
  return () => {
    removeListener();
    for (const end of [...running]) end();
  };
}

/**
 * A Controller that runs only while this process leads: the server starts
 * and stops it like any other controller; the controller inside, built by
 * `create` for each term, starts and stops with leadership. start() returns
 * at once, so a follower's readiness never waits for leader-only informers.
 */
export class LeaderGatedController implements Controller {
  private stopFollowing: (() => void) | undefined;

  constructor(
    private readonly elector: LeaderElector,
    readonly name: string,
    private readonly create: () => Controller,
  ) {}

  async start(): Promise<void> {
    this.stopFollowing ??= runWhileLeading(this.elector, this.create);
  }

  stop(): void {
    this.stopFollowing?.();
    this.stopFollowing = undefined;
  }
}
