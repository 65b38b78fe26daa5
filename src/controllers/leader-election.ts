import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

import type { ApiClient } from '../machinery/client.js';
import { cloneObject, nowMicroTimestamp, type KubeObject } from '../machinery/object.js';
import { isApiError } from '../machinery/errors.js';
import { readModifyWrite } from './writes.js';

/**
 * Leader election over a coordination.k8s.io/v1 Lease, after client-go's
 * tools/leaderelection with a LeaseLock (what kube-controller-manager runs):
 * several Capstan processes on one store agree that exactly one of them does
 * the leader-only work (controllers, compaction), and another one takes over
 * when it dies.
 *
 * - The Lease records holderIdentity, leaseDurationSeconds, acquireTime,
 *   renewTime (MicroTime) and leaseTransitions.
 * - A Lease held by someone else counts as expired once it has not changed
 *   for leaseDurationSeconds as measured by OUR monotonic clock from the
 *   moment WE first saw its current content (client-go's observedTime). The
 *   remote timestamps are informational only, so clock skew between
 *   processes does not matter (only differing clock rates would).
 * - The leader renews every retryPeriod. If it has not renewed successfully
 *   for renewDeadline (< leaseDuration) it stops leading: because the others
 *   measure expiry from when they saw its last renewal (which is after that
 *   renewal started), it stops before anyone else may start.
 * - Writes are compare-and-swap on resourceVersion, so of several
 *   candidates for an expired Lease exactly one wins each round.
 *
 * Where client-go differs: RunOrDie's callers exit the process when leadership
 * is lost. A Capstan process must keep serving requests, so it steps down
 * (aborts the term's signal, calls onStoppedLeading) and runs for election
 * again; leader-only work must therefore stop when the signal aborts.
 * onStoppedLeading is called only when a term ends (client-go also calls it
 * when the elector stops without ever leading).
 */

/**
 * What the elector needs of the leases: read-modify-write of one Lease from
 * its current content (undefined when missing, then created), starting over
 * when another writer got there first. A ResourceStore is one; the server
 * hands it `apiLeases`, which writes through the API.
 */
export interface LeaseStore {
  update(namespace: string, opts: { name: string }, tryUpdate: (current: KubeObject | undefined) => KubeObject): Promise<unknown>;
}

const LEASES = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };

/** Leases read and written through the API (kube's LeaseLock over client-go). */
export function apiLeases(client: ApiClient): LeaseStore {
  return {
    update: (namespace, { name }, tryUpdate) => readModifyWrite(client, { ...LEASES, namespace, name }, tryUpdate),
  };
}

export interface LeaderElectorOptions {
  /** The coordination.k8s.io leases (a ResourceStore, or apiLeases over a client). */
  leases: LeaseStore;
  /** The Lease's name, e.g. `capstan-leader`. */
  name: string;
  /** The Lease's namespace (default `kube-system`). */
  namespace?: string;
  /** This candidate's identity (default `<hostname>_<uuid>`, as kube-controller-manager's). */
  identity?: string;
  /** How long a Lease that stops changing stays valid for the others (default 15 s; whole seconds are written, rounded up). */
  leaseDurationMs?: number;
  /** How long the leader keeps leading without a successful renewal (default 10 s; must be below leaseDuration). */
  renewDeadlineMs?: number;
  /** The interval between attempts to acquire or renew (default 2 s). */
  retryPeriodMs?: number;
  /** Called when this process starts leading; `signal` aborts when the term ends. */
  onStartedLeading?: (signal: AbortSignal) => void | Promise<void>;
  /** Called when a term of leadership ends (after the term's signal aborted). */
  onStoppedLeading?: () => void;
  /** Called when a different (non-empty) holder is observed, this process included. */
  onNewLeader?: (identity: string) => void;
  /** Where transitions and store errors are reported (default: stderr). */
  log?: (message: string) => void;
}

export const LEADER_ELECTION_DEFAULTS = {
  namespace: 'kube-system',
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
} as const;

/** The election state in a Lease's spec (client-go's LeaderElectionRecord). */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

/** client-go's JitterFactor: acquire retries wait retryPeriod plus up to 1.2 × retryPeriod. */
const JITTER_FACTOR = 1.2;

/** The Lease is held by another candidate and has not expired: no write this round. */
class HeldByAnother extends Error {}
/** stop() began: an attempt still in flight must not write any more. */
class Stopping extends Error {}
/** On release: the Lease is gone or no longer ours, nothing to give up. */
class NotOurs extends Error {}

type AttemptOutcome = 'ours' | 'held' | 'failed';

/** One term of leadership. */
interface Term {
  readonly end: AbortController;
  /** Fires when renewDeadline passes without a successful renewal. */
  deadline?: NodeJS.Timeout;
}

export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

export class LeaderElector {
  readonly identity: string;
  readonly namespace: string;
  readonly name: string;
  private readonly leases: LeaseStore;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly log: (message: string) => void;

  /** The Lease content last seen, and when (performance.now()) it was first seen like that. */
  private observed: LeaderElectionRecord | undefined;
  private observedKey = '';
  private observedAt = 0;
  private reportedLeader = '';
  private lastError = '';

  private term: Term | undefined;
  private readonly listeners = new Set<(signal: AbortSignal) => void | Promise<void>>();
  private loop: Promise<void> | undefined;
  private stopped = false;
  private stopping: Promise<void> | undefined;
  private wakeFromPause: (() => void) | undefined;

  constructor(private readonly options: LeaderElectorOptions) {
    this.leases = options.leases;
    this.name = options.name;
    this.namespace = options.namespace ?? LEADER_ELECTION_DEFAULTS.namespace;
    this.identity = options.identity ?? defaultIdentity();
    this.leaseDurationMs = options.leaseDurationMs ?? LEADER_ELECTION_DEFAULTS.leaseDurationMs;
    this.renewDeadlineMs = options.renewDeadlineMs ?? LEADER_ELECTION_DEFAULTS.renewDeadlineMs;
    this.retryPeriodMs = options.retryPeriodMs ?? LEADER_ELECTION_DEFAULTS.retryPeriodMs;
    const lease = `${this.namespace}/${this.name}`;
    this.log = options.log ?? ((message) => process.stderr.write(`capstan: leader election ${lease}: ${message}\n`));
    // client-go's NewLeaderElector checks: the leader must give up before the others may take over.
    if (!(this.retryPeriodMs > 0)) throw new RangeError('retryPeriod must be greater than zero');
    if (!(this.renewDeadlineMs > JITTER_FACTOR * this.retryPeriodMs)) throw new RangeError(`renewDeadline must be greater than retryPeriod*${JITTER_FACTOR}`);
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) throw new RangeError('leaseDuration must be greater than renewDeadline');
    if (!this.identity) throw new RangeError('identity must not be empty');
  }

  /** True while this process is in a term of leadership. */
  get isLeader(): boolean {
    return this.term !== undefined;
  }

  /** The holder of the Lease as last observed ('' before the first observation or after a release). */
  get leader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  /**
   * Calls `listener` at the start of every term of leadership (at once when
   * leading now) with the term's signal, which aborts when the term ends.
   * Returns a function that removes the listener.
   */
  addLeadershipListener(listener: (signal: AbortSignal) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    if (this.term) this.notify(listener, this.term.end.signal);
    return () => this.listeners.delete(listener);
  }

  /** Starts running for election in the background. Never throws; store errors are retried. */
  start(): void {
    if (this.loop || this.stopped) return;
    this.loop = this.run();
  }

  /**
   * Stops the election. When leading: the term's signal aborts (leader-only
   * work stops), the Lease is released (holder emptied, duration 1 s, as
   * client-go's ReleaseOnCancel) so another process takes over at its next
   * retry, then onStoppedLeading is called. Resolves when all that is done
   * (at most about 2 × renewDeadline when the store does not answer).
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.stopped = true;
    this.wakeFromPause?.();
    const term = this.term;
    if (term) this.leaveTerm(term, 'stopping');
    // The attempt in flight ends first, so a renewal cannot land after the release.
    await this.loop;
    // Also when a term ended already (renew deadline) or an attempt won just
    // as stop() began: as long as the Lease names us, nobody else may lead.
    if (term || this.leader === this.identity) await this.release();
    if (term) this.callback('onStoppedLeading', () => this.options.onStoppedLeading?.());
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const startedAt = performance.now();
      const outcome = await this.attempt();
      if (outcome === 'ours' && !this.stopped) {
        const term = this.beginTerm(startedAt);
        await this.renewWhileLeading(term);
      } else {
        await this.pause(this.retryPeriodMs * (1 + Math.random() * JITTER_FACTOR));
      }
    }
  }

  private async renewWhileLeading(term: Term): Promise<void> {
    while (this.term === term) {
      await this.pause(this.retryPeriodMs);
      if (this.term !== term) return;
      const startedAt = performance.now();
      const outcome = await this.attempt();
      // The renew deadline may have ended the term while the attempt ran: a
      // late success does not revive it (the next election round will).
      if (this.term !== term) return;
      if (outcome === 'ours') this.armDeadline(term, startedAt);
      else if (outcome === 'held') this.endTerm(term, `the lease is held by ${this.leader}`);
    }
  }

  /**
   * One round of client-go's tryAcquireOrRenew, as one read-modify-write:
   * LeaseStore.update reads the Lease fresh (a consistent read, never an
   * older cached copy), creates it when missing, and retries on a write race
   * with fresh content.
   * Bounded by renewDeadline, so a store call that hangs is a failed round.
   */
  private async attempt(): Promise<AttemptOutcome> {
    let written: LeaderElectionRecord | undefined;
    const round = this.leases
      .update(this.namespace, { name: this.name }, (current) => {
        written = this.nextRecord(current);
        return this.leaseWith(current, written);
      })
      .then(
        (): AttemptOutcome => 'ours',
        (err: unknown): AttemptOutcome => {
          if (err instanceof HeldByAnother) return 'held';
          if (!(err instanceof Stopping)) this.reportError(err);
          return 'failed';
        },
      );
    const outcome = await settleWithin(round, this.renewDeadlineMs);
    if (outcome === TIMED_OUT) {
      this.reportError(new Error(`no answer from the store within ${this.renewDeadlineMs}ms`));
      return 'failed';
    }
    if (outcome === 'ours' && written) {
      this.observe(written);
      this.lastError = '';
    }
    return outcome;
  }

  /** The record to write this round, or throws HeldByAnother / Stopping. */
  private nextRecord(current: KubeObject | undefined): LeaderElectionRecord {
    if (this.stopped) throw new Stopping();
    const now = nowMicroTimestamp();
    const ours = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.leaseDurationMs / 1000)),
      acquireTime: now,
      renewTime: now,
    };
    if (!current) return { ...ours, leaseTransitions: 0 };
    const seen = recordOf(current);
    this.observe(seen);
    const holder = seen.holderIdentity;
    if (holder && holder !== this.identity && !this.observedExpired()) throw new HeldByAnother(holder);
    if (holder === this.identity) return { ...ours, acquireTime: seen.acquireTime, leaseTransitions: seen.leaseTransitions };
    return { ...ours, leaseTransitions: seen.leaseTransitions + 1 };
  }

  private leaseWith(current: KubeObject | undefined, record: LeaderElectionRecord): KubeObject {
    // The current resourceVersion stays in metadata: the write is conditional on it.
    const lease: KubeObject = current
      ? cloneObject(current)
      : { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.name, namespace: this.namespace } };
    lease.spec = { ...(isRecord(current?.spec) ? current.spec : {}), ...record };
    return lease;
  }

  /** Notes the Lease's content; content not seen before restarts the expiry clock. */
  private observe(record: LeaderElectionRecord): void {
    const key = JSON.stringify(record);
    if (key === this.observedKey) return;
    this.observed = record;
    this.observedKey = key;
    this.observedAt = performance.now();
    const holder = record.holderIdentity;
    if (holder && holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      queueMicrotask(() => this.callback('onNewLeader', () => this.options.onNewLeader?.(holder)));
    }
  }

  private observedExpired(): boolean {
    const durationMs = (this.observed?.leaseDurationSeconds ?? 0) * 1000;
    return performance.now() >= this.observedAt + durationMs;
  }

  private beginTerm(renewStartedAt: number): Term {
    const term: Term = { end: new AbortController() };
    this.term = term;
    this.armDeadline(term, renewStartedAt);
    this.log(`${this.identity} started leading`);
    this.callback('onStartedLeading', () => this.options.onStartedLeading?.(term.end.signal));
    for (const listener of this.listeners) this.notify(listener, term.end.signal);
    return term;
  }

  /** (Re)arms the renew deadline, counted from the start of the last successful renewal. */
  private armDeadline(term: Term, renewStartedAt: number): void {
    clearTimeout(term.deadline);
    const remaining = renewStartedAt + this.renewDeadlineMs - performance.now();
    term.deadline = setTimeout(() => this.endTerm(term, `no renewal within ${this.renewDeadlineMs}ms`), Math.max(0, remaining));
    term.deadline.unref();
  }

  private endTerm(term: Term, reason: string): void {
    if (!this.leaveTerm(term, reason)) return;
    this.callback('onStoppedLeading', () => this.options.onStoppedLeading?.());
  }

  /** Ends the term: isLeader turns false, then the term's signal aborts. False when it had ended already. */
  private leaveTerm(term: Term, reason: string): boolean {
    if (this.term !== term) return false;
    this.term = undefined;
    clearTimeout(term.deadline);
    this.log(`${this.identity} stopped leading: ${reason}`);
    term.end.abort();
    return true;
  }

  /** Gives the Lease up if it is still ours: no holder, shortest duration. */
  private async release(): Promise<void> {
    let released: LeaderElectionRecord | undefined;
    const round = this.leases
      .update(this.namespace, { name: this.name }, (current) => {
        if (!current || recordOf(current).holderIdentity !== this.identity) throw new NotOurs();
        const now = nowMicroTimestamp();
        released = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: recordOf(current).leaseTransitions };
        return this.leaseWith(current, released);
      })
      .then(
        () => true,
        (err: unknown) => {
          if (!(err instanceof NotOurs)) this.reportError(err);
          return false;
        },
      );
    const done = await settleWithin(round, this.renewDeadlineMs);
    if (done === true && released) {
      this.observe(released);
      this.log(`${this.identity} released the lease`);
    } else if (done === TIMED_OUT) {
      this.reportError(new Error(`no answer from the store within ${this.renewDeadlineMs}ms while releasing`));
    }
  }

  /** Waits, or less when stop() is called. */
  private pause(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeFromPause = done;
    });
  }

  private notify(listener: (signal: AbortSignal) => void | Promise<void>, signal: AbortSignal): void {
    this.callback('leadership listener', () => listener(signal));
  }

  /** Runs user code so that neither a throw nor a rejection reaches the election loop. */
  private callback(what: string, fn: () => unknown): void {
    try {
      const result = fn();
      if (result instanceof Promise) result.catch((err: unknown) => this.log(`${what} failed: ${describe(err)}`));
    } catch (err) {
      this.log(`${what} failed: ${describe(err)}`);
    }
  }

  /** Store errors are failed rounds; each distinct one is reported once in a row. */
  private reportError(err: unknown): void {
    const message = describe(err);
    if (message === this.lastError) return;
    this.lastError = message;
    this.log(`attempt failed: ${message}`);
  }
}

/** The election record of a Lease; absent fields read as Go's zero values. */
export function recordOf(lease: KubeObject): LeaderElectionRecord {
  const spec = isRecord(lease.spec) ? lease.spec : {};
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  const count = (v: unknown): number => (typeof v === 'number' ? v : 0);
  return {
    holderIdentity: text(spec.holderIdentity),
    leaseDurationSeconds: count(spec.leaseDurationSeconds),
    acquireTime: text(spec.acquireTime),
    renewTime: text(spec.renewTime),
    leaseTransitions: count(spec.leaseTransitions),
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(err: unknown): string {
  if (isApiError(err)) return `${err.code} ${err.reason ?? ''}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

const TIMED_OUT = Symbol('timed out');

/** The promise's value, or TIMED_OUT when it takes longer than `ms` (it keeps running). */
function settleWithin<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
