/**
 * Leader election over a coordination.k8s.io Lease (client-go's
 * leaderelection with a LeaseLock): candidates share one in-process Registry
 * on a MemoryStore, as several Capstan processes share one store. Timings are
 * hundreds of milliseconds; assertions are about order and eventual state,
 * with waits far longer than the expected times, never about exact durations.
 */

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';

import { ApiCatalog } from '../../src/api/catalog.js';
import type { Controller } from '../../src/controllers/controller.js';
import { LeaderGatedController, runWhileLeading } from '../../src/controllers/leader-gated.js';
import { LeaderElector, recordOf, type LeaderElectorOptions, type LeaseStore } from '../../src/controllers/leader-election.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { Registry } from '../../src/registry/registry.js';
import type { ResourceStore } from '../../src/registry/resource-store.js';
import { isApiError, serviceUnavailable } from '../../src/machinery/errors.js';
import { KeyLayout } from '../../src/storage/keys.js';
import { MemoryStore } from '../../src/storage/memory.js';

const catalog = ApiCatalog.load();
const LEASE = 'capstan-leader';
/** Short timings: the Lease says 1 s (whole seconds, rounded up); a silent leader steps down after 400 ms. */
const FAST = { leaseDurationMs: 600, renewDeadlineMs: 400, retryPeriodMs: 100 };
/** A lease that would take 10 s to expire: a takeover much sooner than that can only come from a release. */
const SLOW_EXPIRY = { leaseDurationMs: 10_000, renewDeadlineMs: 5_000, retryPeriodMs: 100 };
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The leases store of a fresh Registry. The registry does not run admission, so kube-system need not exist. */
function leasesStore(): ResourceStore {
  const registry = new Registry(new MemoryStore(), new KeyLayout());
  cleanups.push(() => registry.stop());
  return registry.storeFor(catalog.resource('coordination.k8s.io', 'v1', 'leases')!);
}

type Failure = 'throw' | 'unavailable' | 'hang' | undefined;

/** A test double around the real store: its writes fail as told. */
class FlakyLeases implements LeaseStore {
  failure: Failure;
  constructor(private readonly real: ResourceStore) {}

  update: LeaseStore['update'] = (namespace, opts, tryUpdate) => {
    switch (this.failure) {
      case 'throw':
        return Promise.reject(new Error('connection refused'));
      case 'unavailable':
        return Promise.reject(serviceUnavailable('etcdserver: request timed out'));
      case 'hang':
        return new Promise(() => undefined);
      default:
        return this.real.update(namespace, opts, tryUpdate);
    }
  };
}

interface Candidate {
  elector: LeaderElector;
  started: AbortSignal[];
  stopped: number;
  newLeaders: string[];
  logs: string[];
}

function candidate(identity: string, leases: LeaseStore, timings: Partial<LeaderElectorOptions>, events: string[] = [], extra: Partial<LeaderElectorOptions> = {}): Candidate {
  const c: Candidate = { elector: undefined as unknown as LeaderElector, started: [], stopped: 0, newLeaders: [], logs: [] };
  c.elector = new LeaderElector({
    leases,
    name: LEASE,
    identity,
    ...timings,
    onStartedLeading: (signal) => {
      c.started.push(signal);
      events.push(`${identity} started`);
    },
    onStoppedLeading: () => {
      c.stopped++;
      events.push(`${identity} stopped`);
    },
    onNewLeader: (id) => c.newLeaders.push(id),
    log: (m) => c.logs.push(m),
    ...extra,
  });
  cleanups.push(() => c.elector.stop());
  return c;
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for: ${what}`);
    await sleep(10);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function readLease(leases: ResourceStore): Promise<KubeObject> {
  return leases.get('kube-system', LEASE);
}

/** Samples isLeader of every elector every few ms; counts samples where more than one leads. */
function sampleLeaders(electors: LeaderElector[]): { samples: number; overlaps: number; stop: () => void } {
  const result = { samples: 0, overlaps: 0, stop: () => clearInterval(timer) };
  const timer = setInterval(() => {
    result.samples++;
    if (electors.filter((e) => e.isLeader).length > 1) result.overlaps++;
  }, 3);
  cleanups.push(result.stop);
  return result;
}

describe('LeaderElector', () => {
  it('of two candidates exactly one leads, and the Lease records it', async () => {
    const leases = leasesStore();
    const a = candidate('a', leases, FAST);
    const b = candidate('b', leases, FAST);
    const sampler = sampleLeaders([a.elector, b.elector]);
    a.elector.start();
    b.elector.start();
    await waitFor('a leader', () => a.elector.isLeader || b.elector.isLeader);
    const [leader, follower] = a.elector.isLeader ? [a, b] : [b, a];
    await waitFor('the follower to see the leader', () => follower.elector.leader === leader.elector.identity);

    const first = recordOf(await readLease(leases));
    assert.equal(first.holderIdentity, leader.elector.identity);
    assert.equal(first.leaseDurationSeconds, 1, '600 ms is written as whole seconds, rounded up');
    assert.match(first.acquireTime, MICRO_TIME);
    assert.match(first.renewTime, MICRO_TIME);
    assert.equal(first.leaseTransitions, 0);

    // The leader renews: renewTime moves, acquireTime and the transitions stay.
    await waitFor('a renewal', async () => recordOf(await readLease(leases)).renewTime !== first.renewTime);
    await sleep(3 * FAST.retryPeriodMs);
    const later = recordOf(await readLease(leases));
    assert.equal(later.holderIdentity, leader.elector.identity);
    assert.equal(later.acquireTime, first.acquireTime);
    assert.equal(later.leaseTransitions, 0);

    assert.equal(leader.elector.isLeader, true);
    assert.equal(follower.elector.isLeader, false);
    assert.equal(leader.started.length, 1);
    assert.equal(leader.started[0]!.aborted, false);
    assert.equal(follower.started.length, 0);
    assert.deepEqual(follower.newLeaders, [leader.elector.identity]);
    assert.deepEqual(leader.newLeaders, [leader.elector.identity]);
    assert.equal(leader.elector.leader, leader.elector.identity);
    sampler.stop();
    assert.ok(sampler.samples > 10, `sampled ${sampler.samples} times`);
    assert.equal(sampler.overlaps, 0);
  });

  it('stopping the leader releases the Lease: another takes over long before it would expire', async () => {
    const leases = leasesStore();
    const events: string[] = [];
    const a = candidate('a', leases, SLOW_EXPIRY, events);
    const b = candidate('b', leases, SLOW_EXPIRY, events);
    a.elector.start();
    await waitFor('a to lead', () => a.elector.isLeader);
    b.elector.start();
    await waitFor('b to see a', () => b.elector.leader === 'a');
    const acquiredByA = recordOf(await readLease(leases)).acquireTime;

    await a.elector.stop();
    assert.equal(a.elector.isLeader, false);
    assert.equal(a.started[0]!.aborted, true, "a's leader-only work was told to stop");
    assert.equal(a.stopped, 1);
    const released = recordOf(await readLease(leases));
    assert.equal(released.holderIdentity, '');
    assert.equal(released.leaseDurationSeconds, 1);

    // b last saw a renew at most ~100 ms ago, so without the release it would
    // wait 10 s; the 5 s limit of waitFor proves the release was used.
    await waitFor('b to lead', () => b.elector.isLeader, 5000);
    const taken = recordOf(await readLease(leases));
    assert.equal(taken.holderIdentity, 'b');
    assert.equal(taken.leaseDurationSeconds, 10);
    assert.equal(taken.leaseTransitions, 1);
    assert.notEqual(taken.acquireTime, acquiredByA);
    assert.deepEqual(events, ['a started', 'a stopped', 'b started']);
    assert.deepEqual(b.newLeaders, ['a', 'b'], 'the empty holder of a released Lease is no new leader');
  });

  it('a leader that cannot renew steps down before the Lease expires, then another takes over; never two leaders', async () => {
    const leases = leasesStore();
    const events: string[] = [];
    const flaky = new FlakyLeases(leases);
    const a = candidate('a', flaky, FAST, events);
    const b = candidate('b', leases, FAST, events);
    a.elector.start();
    await waitFor('a to lead', () => a.elector.isLeader);
    b.elector.start();
    await waitFor('b to see a', () => b.elector.leader === 'a');
    // No tolerance: a stops renewDeadline (400 ms) after its last successful
    // renewal began; b may take over only once the Lease has not changed for
    // leaseDurationSeconds (1 s) since b saw that renewal, which is later.
    const sampler = sampleLeaders([a.elector, b.elector]);

    flaky.failure = 'throw';
    await waitFor('a to step down', () => !a.elector.isLeader);
    assert.equal(a.stopped, 1);
    assert.equal(a.started[0]!.aborted, true);
    assert.equal(recordOf(await readLease(leases)).holderIdentity, 'a', 'the Lease still names a: it has not expired yet');
    await waitFor('b to lead', () => b.elector.isLeader);

    assert.deepEqual(events, ['a started', 'a stopped', 'b started']);
    const taken = recordOf(await readLease(leases));
    assert.equal(taken.holderIdentity, 'b');
    assert.equal(taken.leaseTransitions, 1);
    assert.ok(a.logs.some((m) => m.includes('connection refused')), 'the failure is reported');

    // a's store heals: a stays a follower of the renewing b.
    flaky.failure = undefined;
    await waitFor('a to see b', () => a.elector.leader === 'b');
    await sleep(5 * FAST.retryPeriodMs);
    assert.equal(a.elector.isLeader, false);
    assert.equal(b.elector.isLeader, true);
    sampler.stop();
    assert.ok(sampler.samples > 10, `sampled ${sampler.samples} times`);
    assert.equal(sampler.overlaps, 0);
  });

  it('store errors, thrown errors and hung calls are failed rounds, never crashes', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown): void => void unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    cleanups.push(() => process.off('unhandledRejection', onUnhandled));

    const leases = leasesStore();
    const flaky = new FlakyLeases(leases);
    const a = candidate('a', flaky, FAST, [], {
      onStartedLeading: () => {
        throw new Error('a callback that throws');
      },
    });
    flaky.failure = 'throw';
    a.elector.start();
    await waitFor('a thrown Error to be reported', () => a.logs.some((m) => m.includes('connection refused')));
    flaky.failure = 'unavailable';
    await waitFor('a 503 to be reported', () => a.logs.some((m) => m.includes('503 ServiceUnavailable')));
    flaky.failure = 'hang';
    await waitFor('a hung call to time out', () => a.logs.some((m) => m.includes('no answer from the store')));
    assert.equal(a.elector.isLeader, false);

    flaky.failure = undefined;
    await waitFor('a to lead once the store answers', () => a.elector.isLeader);
    assert.ok(a.logs.some((m) => m.includes('a callback that throws')), 'the throwing callback is reported');
    // It keeps renewing after the throwing callback.
    const renewed = recordOf(await readLease(leases)).renewTime;
    await waitFor('a renewal', async () => recordOf(await readLease(leases)).renewTime !== renewed);
    assert.deepEqual(unhandled, []);
  });

  it('a leader whose store fails for less than renewDeadline keeps leading', async () => {
    const leases = leasesStore();
    const flaky = new FlakyLeases(leases);
    const a = candidate('a', flaky, SLOW_EXPIRY);
    a.elector.start();
    await waitFor('a to lead', () => a.elector.isLeader);
    const sampler = sampleLeaders([a.elector]);
    flaky.failure = 'unavailable';
    await waitFor('failed renewals', () => a.logs.some((m) => m.includes('503')));
    await sleep(3 * SLOW_EXPIRY.retryPeriodMs);
    flaky.failure = undefined;
    const before = recordOf(await readLease(leases)).renewTime;
    await waitFor('a renewal', async () => recordOf(await readLease(leases)).renewTime !== before);
    assert.equal(a.elector.isLeader, true);
    assert.equal(a.stopped, 0);
    assert.equal(a.started[0]!.aborted, false);
    sampler.stop();
  });

  it('a Lease deleted under the leader is created again', async () => {
    const leases = leasesStore();
    const a = candidate('a', leases, FAST);
    a.elector.start();
    await waitFor('a to lead', () => a.elector.isLeader);
    await leases.delete('kube-system', LEASE);
    await waitFor('the Lease again', async () => {
      try {
        return recordOf(await readLease(leases)).holderIdentity === 'a';
      } catch (err) {
        if (isApiError(err, 'NotFound')) return false;
        throw err;
      }
    });
    assert.equal(a.elector.isLeader, true);
  });

  it('defaults the identity to <hostname>_<uuid> and refuses timings where a leader could outlive its Lease', () => {
    const leases = leasesStore();
    assert.match(new LeaderElector({ leases, name: LEASE }).identity, /^.+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.throws(() => new LeaderElector({ leases, name: LEASE, leaseDurationMs: 400, renewDeadlineMs: 400, retryPeriodMs: 100 }), RangeError);
    assert.throws(() => new LeaderElector({ leases, name: LEASE, leaseDurationMs: 600, renewDeadlineMs: 110, retryPeriodMs: 100 }), RangeError);
    assert.throws(() => new LeaderElector({ leases, name: LEASE, retryPeriodMs: 0 }), RangeError);
  });
});

/** A controller that records its starts and stops. */
class RecordingController implements Controller {
  running = false;
  constructor(
    readonly name: string,
    private readonly events: string[],
    private readonly startGate: Promise<void> = Promise.resolve(),
  ) {}

  async start(): Promise<void> {
    this.events.push(`${this.name} start`);
    await this.startGate;
    this.running = true;
  }

  stop(): void {
    this.running = false;
    this.events.push(`${this.name} stop`);
  }
}

describe('leader-gated work', () => {
  it('LeaderGatedController runs a fresh controller on the leader only, and moves with leadership', async () => {
    const leases = leasesStore();
    const events: string[] = [];
    const a = candidate('a', leases, SLOW_EXPIRY);
    const b = candidate('b', leases, SLOW_EXPIRY);
    let built = 0;
    const gated = (c: Candidate): LeaderGatedController =>
      new LeaderGatedController(c.elector, 'namespace', () => new RecordingController(`${c.elector.identity}#${++built}`, events));
    const onA = gated(a);
    const onB = gated(b);
    cleanups.push(() => onA.stop(), () => onB.stop());
    await onA.start();
    await onB.start();
    assert.deepEqual(events, [], 'nothing runs before anyone leads');

    a.elector.start();
    await waitFor('a to lead', () => a.elector.isLeader);
    b.elector.start();
    await waitFor('b to see a', () => b.elector.leader === 'a');
    assert.deepEqual(events, ['a#1 start']);

    await a.elector.stop();
    assert.deepEqual(events, ['a#1 start', 'a#1 stop']);
    await waitFor('b to lead', () => b.elector.isLeader);
    assert.deepEqual(events, ['a#1 start', 'a#1 stop', 'b#2 start']);

    onB.stop();
    assert.deepEqual(events, ['a#1 start', 'a#1 stop', 'b#2 start', 'b#2 stop']);
    await b.elector.stop();
    assert.equal(events.length, 4, 'a stopped gate does not stop its controller twice');
  });

  it('runWhileLeading stops a job again when the term ended while it was still starting', async () => {
    const leases = leasesStore();
    const events: string[] = [];
    const a = candidate('a', leases, FAST);
    let openGate!: () => void;
    const job = new RecordingController('compactor', events, new Promise<void>((r) => (openGate = r)));
    const stopFollowing = runWhileLeading(a.elector, () => job);
    cleanups.push(stopFollowing);
    a.elector.start();
    await waitFor('the job to start', () => events.length === 1);
    await a.elector.stop();
    assert.deepEqual(events, ['compactor start', 'compactor stop']);
    openGate();
    await waitFor('the second stop', () => events.length === 3);
    assert.deepEqual(events, ['compactor start', 'compactor stop', 'compactor stop']);
    assert.equal(job.running, false);
  });

  it('runWhileLeading retries a job whose start failed, with a fresh job, while the term lasts', async () => {
    const leases = leasesStore();
    const events: string[] = [];
    const a = candidate('a', leases, FAST);
    let attempts = 0;
    const stopFollowing = runWhileLeading(
      a.elector,
      () => {
        const n = ++attempts;
        return n === 1 ? new RecordingController('job#1', events, Promise.reject(new Error('store unavailable'))) : new RecordingController(`job#${n}`, events);
      },
      () => undefined,
    );
    cleanups.push(stopFollowing);
    a.elector.start();
    await waitFor('the second attempt to run', () => events.includes('job#2 start'), 5000);
    assert.deepEqual(events, ['job#1 start', 'job#1 stop', 'job#2 start']);
    await a.elector.stop();
    assert.deepEqual(events, ['job#1 start', 'job#1 stop', 'job#2 start', 'job#2 stop']);
  });
});
