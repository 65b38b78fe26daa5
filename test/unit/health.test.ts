/**
 * /livez, /readyz and /healthz bodies and codes as kube-apiserver's healthz
 * package writes them: `ok`, the verbose check list, `exclude`, a failing
 * check (500, reason withheld), and individual check paths.
 */

import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';

import { HealthChecks, type HealthCheck, type HealthEndpoint, type HealthResponse } from '../../src/observability/health.js';

function setup(): { health: HealthChecks; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const check = (name: string, endpoints: HealthEndpoint[], fn: () => Promise<void> | void): HealthCheck => ({
    name,
    endpoints,
    check: () => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return fn();
    },
  });
  const health = new HealthChecks();
  health.add(check('ping', ['livez', 'readyz', 'healthz'], () => undefined));
  health.add(check('etcd', ['livez', 'readyz', 'healthz'], async () => undefined));
  health.add(check('informer-sync', ['readyz'], async () => Promise.reject(new Error('not synced'))));
  health.add(check('poststarthook/bootstrap', ['healthz'], () => undefined));
  return { health, calls };
}

async function serve(endpoint: HealthEndpoint, query = '', check?: string): Promise<HealthResponse | undefined> {
  return setup().health.serve(endpoint, check, new URLSearchParams(query));
}

describe('health endpoints', () => {
  const cases: Array<{ name: string; endpoint: HealthEndpoint; query: string; code: number; body: string; warnings?: string[] }> = [
    { name: 'livez passes quietly', endpoint: 'livez', query: '', code: 200, body: 'ok' },
    { name: 'livez verbose', endpoint: 'livez', query: 'verbose', code: 200, body: '[+]ping ok\n[+]etcd ok\nlivez check passed\n' },
    // Present at all means verbose, whatever the value.
    { name: 'verbose=false is still verbose', endpoint: 'livez', query: 'verbose=false', code: 200, body: '[+]ping ok\n[+]etcd ok\nlivez check passed\n' },
    { name: 'verbose=1', endpoint: 'livez', query: 'verbose=1', code: 200, body: '[+]ping ok\n[+]etcd ok\nlivez check passed\n' },
    { name: 'healthz has its own checks', endpoint: 'healthz', query: 'verbose', code: 200, body: '[+]ping ok\n[+]etcd ok\n[+]poststarthook/bootstrap ok\nhealthz check passed\n' },
    // A failure is always verbose and never shows the reason.
    {
      name: 'a failing check: 500, reason withheld',
      endpoint: 'readyz',
      query: '',
      code: 500,
      body: '[+]ping ok\n[+]etcd ok\n[-]informer-sync failed: reason withheld\nreadyz check failed\n',
    },
    { name: 'excluding the failing check', endpoint: 'readyz', query: 'exclude=informer-sync', code: 200, body: 'ok' },
    {
      name: 'excluded checks are listed when verbose',
      endpoint: 'readyz',
      query: 'verbose&exclude=informer-sync&exclude=etcd',
      code: 200,
      body: '[+]ping ok\n[+]etcd excluded: ok\n[+]informer-sync excluded: ok\nreadyz check passed\n',
    },
    {
      name: 'unknown exclusions warn, sorted and quoted',
      endpoint: 'livez',
      query: 'verbose&exclude=zeta&exclude=alpha&exclude=ping',
      code: 200,
      body: '[+]ping excluded: ok\n[+]etcd ok\nwarn: some health checks cannot be excluded: no matches for "alpha","zeta"\nlivez check passed\n',
      warnings: ['cannot exclude some health checks, no matches for "alpha", "zeta"'],
    },
    // Each exclude value names one check: no comma lists.
    {
      name: 'a comma is part of the name',
      endpoint: 'livez',
      query: 'verbose&exclude=ping,etcd',
      code: 200,
      body: '[+]ping ok\n[+]etcd ok\nwarn: some health checks cannot be excluded: no matches for "ping,etcd"\nlivez check passed\n',
      warnings: ['cannot exclude some health checks, no matches for "ping,etcd"'],
    },
    {
      name: 'the warning is in a failure body too',
      endpoint: 'readyz',
      query: 'exclude=nope',
      code: 500,
      body: '[+]ping ok\n[+]etcd ok\n[-]informer-sync failed: reason withheld\nwarn: some health checks cannot be excluded: no matches for "nope"\nreadyz check failed\n',
      warnings: ['cannot exclude some health checks, no matches for "nope"'],
    },
    { name: 'a check for another endpoint cannot be excluded here', endpoint: 'livez', query: 'exclude=informer-sync', code: 200, body: 'ok', warnings: ['cannot exclude some health checks, no matches for "informer-sync"'] },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await serve(c.endpoint, c.query);
      assert.ok(r);
      assert.equal(r.code, c.code);
      assert.equal(r.body, c.body);
      assert.deepEqual(r.warnings, c.warnings ?? []);
    });
  }

  it('excluded checks do not run', async () => {
    const { health, calls } = setup();
    await health.serve('readyz', undefined, new URLSearchParams('exclude=informer-sync&exclude=etcd'));
    assert.equal(calls.get('informer-sync'), undefined);
    assert.equal(calls.get('etcd'), undefined);
    assert.equal(calls.get('ping'), 1);
  });
});

describe('individual checks', () => {
  const cases: Array<{ endpoint: HealthEndpoint; check: string; want: HealthResponse | undefined }> = [
    { endpoint: 'livez', check: 'ping', want: { code: 200, body: 'ok', warnings: [] } },
    { endpoint: 'readyz', check: 'etcd', want: { code: 200, body: 'ok', warnings: [] } },
    // The reason is shown on the check's own path.
    { endpoint: 'readyz', check: 'informer-sync', want: { code: 500, body: 'internal server error: not synced\n', warnings: [] } },
    { endpoint: 'livez', check: 'informer-sync', want: undefined },
    { endpoint: 'healthz', check: 'poststarthook/bootstrap', want: { code: 200, body: 'ok', warnings: [] } },
    { endpoint: 'readyz', check: 'nope', want: undefined },
  ];
  for (const c of cases) {
    it(`/${c.endpoint}/${c.check}`, async () => assert.deepEqual(await serve(c.endpoint, 'verbose', c.check), c.want));
  }
});

describe('check failures of every shape', () => {
  const failures: Array<{ name: string; fn: () => Promise<void> | void; reason: string }> = [
    { name: 'throws', fn: () => { throw new Error('boom'); }, reason: 'boom' },
    { name: 'rejects with a string', fn: () => Promise.reject('down'), reason: 'down' },
    { name: 'rejects with an Error', fn: async () => { throw new Error('etcd unreachable'); }, reason: 'etcd unreachable' },
  ];
  for (const f of failures) {
    it(f.name, async () => {
      const health = new HealthChecks();
      health.add({ name: 'x', endpoints: ['livez'], check: f.fn });
      const all = await health.serve('livez', undefined, new URLSearchParams());
      assert.deepEqual(all, { code: 500, body: '[-]x failed: reason withheld\nlivez check failed\n', warnings: [] });
      const one = await health.serve('livez', 'x', new URLSearchParams());
      assert.deepEqual(one, { code: 500, body: `internal server error: ${f.reason}\n`, warnings: [] });
    });
  }

  it('a check that hangs fails after 2s', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const health = new HealthChecks();
      health.add({ name: 'stuck', endpoints: ['readyz'], check: () => new Promise<void>(() => undefined) });
      const pending = health.serve('readyz', 'stuck', new URLSearchParams());
      await new Promise((r) => setImmediate(r));
      mock.timers.tick(2000);
      assert.deepEqual(await pending, { code: 500, body: 'internal server error: check timed out\n', warnings: [] });
    } finally {
      mock.timers.reset();
    }
  });
});
