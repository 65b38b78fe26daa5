/**
 * The generic registry (kube-apiserver's genericregistry.Store) over a
 * MemoryStore, built as registry.ts builds it: create / get / update / delete
 * / list / watch with kube's rules: generateName retries, optimistic
 * concurrency, unconditional and no-op updates, the status split and
 * generation, finalizers and graceful deletion, preconditions, chunked lists
 * and their snapshots, compaction, and watch selector transitions.
 */

import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';

import { ApiError } from '../../src/machinery/errors.js';
import type { KubeObject, ObjectMeta } from '../../src/machinery/object.js';
import { ResourceStore, generateName } from '../../src/registry/resource-store.js';
import type { WatchSink } from '../../src/cache/resource-reader.js';
import type { WatcherEvent as WatchEvent } from '../../src/cache/watch-cache.js';
import type { WatchStart } from '../../src/cache/read-semantics.js';
import type { CachedObject } from '../../src/codec/cached-object.js';
import { parseFieldSelector, parseLabelSelector } from '../../src/machinery/selectors.js';
import { fieldExtractorFor } from '../../src/registry/field-selectors.js';
import { strategyFor } from '../../src/registry/strategies.js';
import type { Strategy } from '../../src/registry/strategy.js';
import { KeyLayout } from '../../src/storage/keys.js';
import { MemoryStore } from '../../src/storage/memory.js';

const keys = new KeyLayout();

function open(group: string, resource: string, kind: string, namespaced: boolean, opts: { store?: MemoryStore; strategy?: Partial<Strategy> } = {}): { rs: ResourceStore; store: MemoryStore } {
  const store = opts.store ?? new MemoryStore();
  const fields = fieldExtractorFor(group, resource, namespaced);
  const rs = new ResourceStore(
    { group, resource, kind, namespaced, prefix: keys.resourcePrefix(group, resource), fields: fields.extract },
    // The generic store's rules, without the type's own validation (these objects are minimal).
    { ...strategyFor(group, resource, kind), validate: undefined, validateUpdate: undefined, ...opts.strategy },
    store,
  );
  return { rs, store };
}
const configmaps = (opts: { store?: MemoryStore; strategy?: Partial<Strategy> } = {}) => open('', 'configmaps', 'ConfigMap', true, opts);
const deployments = () => open('apps', 'deployments', 'Deployment', true);
const pods = () => open('', 'pods', 'Pod', true);

function cm(name: string, meta: ObjectMeta = {}, data: Record<string, string> = { k: 'v' }): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta }, data };
}

function deploy(name: string): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas: 1 }, status: { replicas: 5 } };
}

function pod(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } };
}

/** Resolves the rejection of `p` as an ApiError with `code` (and `reason`, `message`). */
async function rejectsWith(p: Promise<unknown>, code: number, reason?: string, message?: string | RegExp): Promise<ApiError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ApiError, `expected an ApiError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (reason !== undefined) assert.equal(caught.reason, reason);
  if (typeof message === 'string') assert.equal(caught.message, message);
  else if (message) assert.match(caught.message, message);
  return caught;
}

/** Updates through a function of the current object (a copy is passed). */
function edit(rs: ResourceStore, name: string, fn: (o: KubeObject) => void, opts: { subresource?: '' | 'status'; dryRun?: boolean } = {}) {
  return rs.update('ns', { name, ...opts }, (cur) => {
    assert.ok(cur, `${name} should exist`);
    const next = structuredClone(cur);
    fn(next);
    return next;
  });
}

const CONSISTENT = { kind: 'consistent' } as const;
const INITIAL: WatchStart = { kind: 'initial', at: CONSISTENT, initialEventsEndBookmark: false };

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

function collector(): { events: WatchEvent[]; sink: WatchSink; ended: () => ApiError | undefined | 'open' } {
  const events: WatchEvent[] = [];
  let ended: ApiError | undefined | 'open' = 'open';
  return {
    events,
    sink: { onEvents: (e) => events.push(...e), onEnd: (err) => (ended = err) },
    ended: () => ended,
  };
}

const summary = (events: WatchEvent[]): string[] => events.map((e) => `${e.type} ${e.object.object.metadata!.name}`);

describe('create', () => {
  it('stamps the server-owned fields; the stored bytes carry no resourceVersion', async () => {
    const { rs, store } = configmaps();
    const obj = await rs.create(
      cm('a', { uid: 'mine', selfLink: '/x', deletionTimestamp: '2000-01-01T00:00:00Z', deletionGracePeriodSeconds: 3, generation: 7, creationTimestamp: '2000-01-01T00:00:00Z' }),
      'ns',
    );
    const meta = obj.metadata!;
    assert.match(meta.uid!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(meta.namespace, 'ns');
    assert.equal(meta.resourceVersion, String(await store.currentRevision()));
    assert.match(meta.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.notEqual(meta.creationTimestamp, '2000-01-01T00:00:00Z');
    for (const gone of ['selfLink', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) assert.equal(meta[gone], undefined, gone);
    const raw = await store.get('/registry/configmaps/ns/a');
    assert.equal(JSON.parse(raw!.value).metadata.resourceVersion, undefined);
    assert.deepEqual(await rs.get('ns', 'a'), obj);
  });

  it('cluster-scoped objects lose a namespace', async () => {
    const { rs, store } = open('rbac.authorization.k8s.io', 'clusterroles', 'ClusterRole', false);
    const obj = await rs.create({ metadata: { name: 'r', namespace: 'stray' }, rules: [] }, undefined);
    assert.equal(obj.metadata!.namespace, undefined);
    assert.ok(await store.get('/registry/clusterroles/r'));
  });

  it('refuses a resourceVersion with the storage layer\'s reasonless 500; "0" is no version', async () => {
    const { rs } = configmaps();
    const err = await rejectsWith(rs.create(cm('a', { resourceVersion: '5' }), 'ns'), 500, undefined, 'resourceVersion should not be set on objects to be created');
    assert.equal(err.status.reason, undefined);
    assert.equal((await rs.create(cm('b', { resourceVersion: '0' }), 'ns')).metadata!.name, 'b');
  });

  it('AlreadyExists for a taken name', async () => {
    const { rs } = configmaps();
    await rs.create(cm('a'), 'ns');
    const err = await rejectsWith(rs.create(cm('a'), 'ns'), 409, 'AlreadyExists', 'configmaps "a" already exists');
    assert.deepEqual(err.status.details, { name: 'a', kind: 'configmaps' });
    // The same name in another namespace is another object.
    await rs.create(cm('a'), 'other');
  });

  const invalids: Array<{ name: string; obj: KubeObject; message: RegExp; fields: string[] }> = [
    { name: 'a bad name', obj: cm('Bad_Name'), message: /^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/, fields: ['metadata.name'] },
    { name: 'no name', obj: { metadata: {} }, message: /^ConfigMap "" is invalid: metadata\.name: Required value: name or generateName is required$/, fields: ['metadata.name'] },
    { name: 'a bad label and finalizer', obj: cm('a', { labels: { k: '-' }, finalizers: ['mine'] }), message: /^ConfigMap "a" is invalid: \[metadata\.labels: .*, metadata\.finalizers\[0\]: /, fields: ['metadata.labels', 'metadata.finalizers[0]'] },
  ];
  for (const c of invalids) {
    it(`422 for ${c.name}`, async () => {
      const { rs, store } = configmaps();
      const err = await rejectsWith(rs.create(c.obj, 'ns'), 422, 'Invalid', c.message);
      assert.deepEqual(err.status.details!.causes!.map((x) => x.field), c.fields);
      assert.equal(await store.currentRevision(), 0);
    });
  }

  it('dry run validates and answers, but stores nothing', async () => {
    const { rs, store } = configmaps();
    const obj = await rs.create(cm('a'), 'ns', { dryRun: true });
    assert.equal(obj.metadata!.name, 'a');
    assert.equal(obj.metadata!.resourceVersion, undefined);
    assert.ok(obj.metadata!.uid);
    assert.equal(await store.currentRevision(), 0);
    await rejectsWith(rs.get('ns', 'a'), 404, 'NotFound');
    await rs.create(cm('a'), 'ns');
    await rejectsWith(rs.create(cm('a'), 'ns', { dryRun: true }), 409, 'AlreadyExists');
  });

  it('per-type create: generation and initial status', async () => {
    const d = await deployments().rs.create(deploy('web'), 'ns');
    assert.equal(d.metadata!.generation, 1);
    assert.deepEqual(d.status, {});
    const p = await pods().rs.create({ ...pod('p'), status: { phase: 'Running' } }, 'ns');
    assert.equal(p.metadata!.generation, 1);
    assert.deepEqual(p.status, { phase: 'Pending', qosClass: 'BestEffort' });
  });
});

describe('generateName', () => {
  afterEach(() => mock.restoreAll());

  it('appends five characters from kube\'s alphabet; long bases are cut to 58', () => {
    assert.match(generateName('web-'), /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const long = generateName('x'.repeat(70));
    assert.equal(long.length, 63);
    assert.ok(long.startsWith('x'.repeat(58)));
  });

  it('creates a generated name, validating the prefix', async () => {
    const { rs } = configmaps();
    const obj = await rs.create({ metadata: { generateName: 'web-' } }, 'ns');
    assert.match(obj.metadata!.name!, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(obj.metadata!.generateName, 'web-');
    await rejectsWith(rs.create({ metadata: { generateName: 'Web-' } }, 'ns'), 422, 'Invalid', /metadata\.generateName: Invalid value: "Web-"/);
  });

  it('retries a name that is taken', async () => {
    const { rs } = configmaps();
    await rs.create(cm('web-bbbbb'), 'ns');
    let calls = 0;
    // The first name drawn is "web-bbbbb" (taken), the second "web-99999".
    mock.method(Math, 'random', () => (calls++ < 5 ? 0 : 0.999));
    const obj = await rs.create({ metadata: { generateName: 'web-' } }, 'ns');
    assert.equal(obj.metadata!.name, 'web-99999');
    assert.equal(calls, 10);
  });

  it('gives up after 8 attempts with NewGenerateNameConflict', async () => {
    const { rs } = configmaps();
    await rs.create(cm('web-bbbbb'), 'ns');
    const random = mock.method(Math, 'random', () => 0);
    const err = await rejectsWith(
      rs.create({ metadata: { generateName: 'web-' } }, 'ns'),
      409,
      'AlreadyExists',
      'configmaps "web-bbbbb" already exists, the server was not able to generate a unique name for the object',
    );
    assert.equal(err.status.details!.retryAfterSeconds, 1);
    assert.equal(random.mock.callCount(), 8 * 5);
  });

  it('an explicit name is never retried', async () => {
    const { rs } = configmaps();
    await rs.create(cm('web-bbbbb'), 'ns');
    const random = mock.method(Math, 'random', () => 0);
    await rejectsWith(rs.create(cm('web-bbbbb', { generateName: 'web-' }), 'ns'), 409, 'AlreadyExists', 'configmaps "web-bbbbb" already exists');
    assert.equal(random.mock.callCount(), 0);
  });
});

describe('get', () => {
  afterEach(() => mock.timers.reset());

  it('NotFound names the resource', async () => {
    const { rs } = open('apps', 'deployments', 'Deployment', true);
    const err = await rejectsWith(rs.get('ns', 'nope'), 404, 'NotFound', 'deployments.apps "nope" not found');
    assert.deepEqual(err.status.details, { name: 'nope', group: 'apps', kind: 'deployments' });
  });

  it('waits for a resourceVersion the store has not reached yet', async () => {
    const { rs } = configmaps();
    const created = await rs.create(cm('a'), 'ns');
    const pending = rs.get('ns', 'a', { kind: 'notOlderThan', revision: Number(created.metadata!.resourceVersion) + 1 });
    await edit(rs, 'a', (o) => (o.data = { k: 'w' }));
    assert.deepEqual((await pending).data, { k: 'w' });
  });

  it('504 Too large resource version after 3s', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const { rs } = configmaps();
    await rs.create(cm('a'), 'ns');
    const pending = rs.get('ns', 'a', { kind: 'notOlderThan', revision: 9 });
    pending.catch(() => undefined);
    for (let i = 0; i < 70; i++) {
      await flush();
      mock.timers.tick(50);
    }
    const err = await rejectsWith(pending, 504, 'Timeout', 'Timeout: Too large resource version: 9, current: 1');
    assert.deepEqual(err.status.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
    assert.deepEqual(err.headers, { 'Retry-After': '1' });
  });
});

describe('update', () => {
  it('a conditional update writes a new revision and keeps server-owned fields', async () => {
    const { rs, store } = configmaps();
    const c = await rs.create(cm('a'), 'ns');
    const r = await rs.update('ns', { name: 'a' }, () => ({ ...cm('a', { resourceVersion: c.metadata!.resourceVersion, creationTimestamp: '2000-01-01T00:00:00Z' }), data: { k: 'w' } }));
    assert.equal(r.created, false);
    assert.deepEqual(r.object.data, { k: 'w' });
    assert.equal(r.object.metadata!.resourceVersion, String(await store.currentRevision()));
    assert.ok(Number(r.object.metadata!.resourceVersion) > Number(c.metadata!.resourceVersion));
    assert.equal(r.object.metadata!.uid, c.metadata!.uid);
    assert.equal(r.object.metadata!.creationTimestamp, c.metadata!.creationTimestamp);
    assert.equal(r.object.metadata!.namespace, 'ns');
  });

  it('a stale resourceVersion is a Conflict', async () => {
    const { rs } = configmaps();
    const c = await rs.create(cm('a'), 'ns');
    await edit(rs, 'a', (o) => (o.data = { k: '2' }));
    const err = await rejectsWith(
      edit(rs, 'a', (o) => ((o.metadata!.resourceVersion = c.metadata!.resourceVersion), (o.data = { k: '3' }))),
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    );
    assert.deepEqual(err.status.details, { name: 'a', kind: 'configmaps' });
  });

  it('the resourceVersion is checked before the object is validated', async () => {
    const { rs } = configmaps();
    const c = await rs.create(cm('a'), 'ns');
    await edit(rs, 'a', (o) => (o.data = { k: '2' }));
    await rejectsWith(
      edit(rs, 'a', (o) => ((o.metadata!.resourceVersion = c.metadata!.resourceVersion), (o.metadata!.labels = { k: '-' }))),
      409,
      'Conflict',
    );
  });

  it('without a resourceVersion: unconditional where the strategy allows it', async () => {
    const { rs } = configmaps();
    await rs.create(cm('a'), 'ns');
    await edit(rs, 'a', (o) => (o.data = { k: '2' }));
    const r = await rs.update('ns', { name: 'a' }, () => cm('a', {}, { k: '3' }));
    assert.deepEqual(r.object.data, { k: '3' });
    // "0" counts as no resourceVersion.
    const zero = await rs.update('ns', { name: 'a' }, () => cm('a', { resourceVersion: '0' }, { k: '4' }));
    assert.deepEqual(zero.object.data, { k: '4' });
  });

  it('without a resourceVersion: 422 where it is not allowed, naming the resource as kind', async () => {
    const { rs } = configmaps({ strategy: { allowUnconditionalUpdate: false } });
    await rs.create(cm('a'), 'ns');
    for (const rv of [undefined, '0']) {
      const err = await rejectsWith(
        rs.update('ns', { name: 'a' }, () => cm('a', rv ? { resourceVersion: rv } : {}, { k: '3' })),
        422,
        'Invalid',
        'configmaps "a" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
      );
      assert.equal(err.status.details!.kind, 'configmaps');
    }
  });

  it('a no-op update writes nothing and returns the current object', async () => {
    const { rs, store } = configmaps();
    const c = await rs.create(cm('a', { labels: { x: 'y' } }), 'ns');
    const before = await store.currentRevision();
    const r = await rs.update('ns', { name: 'a' }, (cur) => structuredClone(cur!));
    assert.deepEqual(r.object, c);
    assert.equal(await store.currentRevision(), before);
    // Key order does not make a change either.
    const reordered = await rs.update('ns', { name: 'a' }, (cur) => ({ data: cur!.data, metadata: cur!.metadata, kind: cur!.kind, apiVersion: cur!.apiVersion }));
    assert.equal(reordered.object.metadata!.resourceVersion, c.metadata!.resourceVersion);
    assert.equal(await store.currentRevision(), before);
  });

  it('a write race re-runs the update function on fresh state', async () => {
    const { rs, store } = configmaps();
    await rs.create(cm('a'), 'ns');
    let runs = 0;
    const r = await rs.update('ns', { name: 'a' }, async (cur) => {
      runs++;
      if (runs === 1) {
        // Someone else writes between our read and our write.
        const kv = await store.get('/registry/configmaps/ns/a');
        await store.update(kv!.key, JSON.stringify({ ...JSON.parse(kv!.value), data: { k: 'theirs' } }), kv!.modRevision);
      }
      return { ...structuredClone(cur!), data: { ...(cur!.data as object), mine: 'yes' }, metadata: { ...cur!.metadata, resourceVersion: undefined } };
    });
    assert.equal(runs, 2);
    assert.deepEqual(r.object.data, { k: 'theirs', mine: 'yes' });
  });

  it('a different uid is a failed precondition', async () => {
    const { rs } = configmaps();
    const c = await rs.create(cm('a'), 'ns');
    await rejectsWith(
      edit(rs, 'a', (o) => (o.metadata!.uid = 'someone-else')),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in precondition: someone-else, UID in object meta: ${c.metadata!.uid}`,
    );
  });

  it('metadata is validated on update', async () => {
    const { rs } = configmaps();
    await rs.create(cm('a'), 'ns');
    await rejectsWith(edit(rs, 'a', (o) => (o.metadata!.labels = { 'a/b/c': 'x' })), 422, 'Invalid', /^ConfigMap "a" is invalid: metadata\.labels: Invalid value: "a\/b\/c"/);
  });

  it('a missing object: NotFound, or created where the strategy allows it', async () => {
    await rejectsWith(configmaps().rs.update('ns', { name: 'a' }, () => cm('a')), 404, 'NotFound', 'configmaps "a" not found');
    const { rs } = configmaps({ strategy: { allowCreateOnUpdate: true } });
    // The body's resourceVersion is ignored when the update creates.
    const r = await rs.update('ns', { name: 'a' }, () => cm('a', { resourceVersion: '42' }));
    assert.equal(r.created, true);
    assert.equal(r.object.metadata!.resourceVersion, '1');
    // Never through a subresource.
    await rejectsWith(rs.update('ns', { name: 'b', subresource: 'status' }, () => cm('b')), 404, 'NotFound');
  });

  it('dry run answers with the result but writes nothing', async () => {
    const { rs, store } = configmaps();
    const c = await rs.create(cm('a'), 'ns');
    const r = await edit(rs, 'a', (o) => (o.data = { k: 'dry' }), { dryRun: true });
    assert.deepEqual(r.object.data, { k: 'dry' });
    assert.equal(r.object.metadata!.resourceVersion, c.metadata!.resourceVersion);
    assert.deepEqual((await rs.get('ns', 'a')).data, { k: 'v' });
    assert.equal(await store.currentRevision(), 1);
  });
});

describe('status split and generation', () => {
  it('main writes keep status, status writes keep spec; generation follows spec', async () => {
    const { rs } = deployments();
    await rs.create(deploy('web'), 'ns');
    const steps: Array<{ name: string; mode: '' | 'status'; fn: (o: KubeObject) => void; spec: unknown; status: unknown; generation: number }> = [
      { name: 'main: spec and status', mode: '', fn: (o) => ((o.spec = { replicas: 2 }), (o.status = { replicas: 9 })), spec: { replicas: 2 }, status: {}, generation: 2 },
      { name: 'main: labels only', mode: '', fn: (o) => (o.metadata!.labels = { a: 'b' }), spec: { replicas: 2 }, status: {}, generation: 2 },
      { name: 'status: status and spec', mode: 'status', fn: (o) => ((o.spec = { replicas: 7 }), (o.status = { replicas: 2 })), spec: { replicas: 2 }, status: { replicas: 2 }, generation: 2 },
      { name: 'main: spec again', mode: '', fn: (o) => (o.spec = { replicas: 3 }), spec: { replicas: 3 }, status: { replicas: 2 }, generation: 3 },
      // Clients cannot set generation.
      { name: 'main: generation from the client', mode: '', fn: (o) => (o.metadata!.generation = 99), spec: { replicas: 3 }, status: { replicas: 2 }, generation: 3 },
    ];
    for (const s of steps) {
      const r = await edit(rs, 'web', s.fn, { subresource: s.mode });
      assert.deepEqual(r.object.spec, s.spec, s.name);
      assert.deepEqual(r.object.status, s.status, s.name);
      assert.equal(r.object.metadata!.generation, s.generation, s.name);
    }
  });

  it('without a status subresource, status is written like any other field', async () => {
    const { rs } = configmaps();
    const c = await rs.create({ ...cm('a'), status: { phase: 'Kept' } }, 'ns');
    assert.deepEqual(c.status, { phase: 'Kept' });
    const r = await edit(rs, 'a', (o) => (o.status = { phase: 'Changed' }));
    assert.deepEqual(r.object.status, { phase: 'Changed' });
    assert.equal(r.object.metadata!.generation, undefined);
  });
});

describe('delete, finalizers and preconditions', () => {
  it('an object without finalizers is removed at once', async () => {
    const { rs, store } = configmaps();
    const c = await rs.create(cm('a'), 'ns');
    const r = await rs.delete('ns', 'a');
    assert.equal(r.deleted, true);
    assert.deepEqual(r.object, c);
    assert.equal(await store.currentRevision(), 2);
    await rejectsWith(rs.get('ns', 'a'), 404, 'NotFound');
    await rejectsWith(rs.delete('ns', 'a'), 404, 'NotFound', 'configmaps "a" not found');
  });

  it('finalizers keep an object Terminating until an update removes the last one', async () => {
    const { rs, store } = configmaps();
    await rs.create(cm('a', { finalizers: ['example.com/one', 'example.com/two'] }), 'ns');
    const d = await rs.delete('ns', 'a');
    assert.equal(d.deleted, false);
    assert.match(d.object.metadata!.deletionTimestamp!, /Z$/);
    assert.equal(d.object.metadata!.deletionGracePeriodSeconds, 0);
    assert.deepEqual(await rs.get('ns', 'a'), d.object);

    // Deleting again changes nothing.
    const revision = await store.currentRevision();
    const again = await rs.delete('ns', 'a');
    assert.equal(again.deleted, false);
    assert.deepEqual(again.object, d.object);
    assert.equal(await store.currentRevision(), revision);

    // No new finalizers on a Terminating object.
    await rejectsWith(
      edit(rs, 'a', (o) => o.metadata!.finalizers!.push('example.com/three')),
      422,
      'Invalid',
      'ConfigMap "a" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/three"}',
    );
    // The deletion timestamp cannot be cleared by an update.
    const one = await edit(rs, 'a', (o) => ((o.metadata!.finalizers = ['example.com/two']), delete o.metadata!.deletionTimestamp));
    assert.equal(one.object.metadata!.deletionTimestamp, d.object.metadata!.deletionTimestamp);
    const last = await edit(rs, 'a', (o) => (o.metadata!.finalizers = []));
    // The returned object is as stored: an emptied list is dropped, as Go's omitempty does.
    assert.equal(last.object.metadata!.finalizers, undefined);
    await rejectsWith(rs.get('ns', 'a'), 404, 'NotFound');
  });

  it('the first delete bumps a tracked generation', async () => {
    const { rs } = deployments();
    await rs.create({ ...deploy('web'), metadata: { name: 'web', finalizers: ['example.com/hold'] } }, 'ns');
    const d = await rs.delete('ns', 'web');
    assert.equal(d.object.metadata!.generation, 2);
    assert.equal((await rs.delete('ns', 'web')).object.metadata!.generation, 2);
  });

  it('dry run deletes nothing', async () => {
    const { rs, store } = configmaps();
    await rs.create(cm('a'), 'ns');
    await rs.create(cm('f', { finalizers: ['example.com/x'] }), 'ns');
    assert.equal((await rs.delete('ns', 'a', { dryRun: true })).deleted, true);
    const f = await rs.delete('ns', 'f', { dryRun: true });
    assert.equal(f.deleted, false);
    assert.ok(f.object.metadata!.deletionTimestamp);
    assert.equal(await store.currentRevision(), 2);
    assert.equal((await rs.get('ns', 'f')).metadata!.deletionTimestamp, undefined);
  });

  it('preconditions', async () => {
    const { rs } = configmaps();
    const c = await rs.create(cm('a'), 'ns');
    const { uid, resourceVersion } = c.metadata!;
    const cases: Array<{ pre: { uid?: string; resourceVersion?: string }; message: string }> = [
      { pre: { uid: 'not-it' }, message: `Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in precondition: not-it, UID in object meta: ${uid}` },
      { pre: { resourceVersion: '99' }, message: `Operation cannot be fulfilled on configmaps "a": Precondition failed: ResourceVersion in precondition: 99, ResourceVersion in meta: ${resourceVersion}` },
      { pre: { uid: uid!, resourceVersion: '99' }, message: `Operation cannot be fulfilled on configmaps "a": Precondition failed: ResourceVersion in precondition: 99, ResourceVersion in meta: ${resourceVersion}` },
    ];
    for (const c of cases) await rejectsWith(rs.delete('ns', 'a', { preconditions: c.pre }), 409, 'Conflict', c.message);
    assert.equal((await rs.delete('ns', 'a', { preconditions: { uid: uid!, resourceVersion: resourceVersion! } })).deleted, true);
  });
});

describe('graceful deletion of pods', () => {
  const NEAR = 3000;

  const cases: Array<{ name: string; spec: Record<string, unknown>; status?: Record<string, unknown>; grace?: number; want: number | 'gone' }> = [
    { name: 'bound, default period', spec: { nodeName: 'n1' }, want: 30 },
    { name: 'bound, the pod\'s own period', spec: { nodeName: 'n1', terminationGracePeriodSeconds: 10 }, want: 10 },
    { name: 'bound, a requested period', spec: { nodeName: 'n1' }, grace: 5, want: 5 },
    { name: 'bound, a negative period counts as 1s', spec: { nodeName: 'n1' }, grace: -3, want: 1 },
    { name: 'bound, period 0', spec: { nodeName: 'n1' }, grace: 0, want: 'gone' },
    { name: 'not scheduled', spec: {}, grace: 30, want: 'gone' },
    { name: 'succeeded', spec: { nodeName: 'n1' }, status: { phase: 'Succeeded' }, want: 'gone' },
    { name: 'failed', spec: { nodeName: 'n1' }, status: { phase: 'Failed' }, want: 'gone' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { rs } = pods();
      await rs.create(pod('p', c.spec), 'ns');
      if (c.status) await edit(rs, 'p', (o) => (o.status = c.status), { subresource: 'status' });
      const before = Date.now();
      const d = await rs.delete('ns', 'p', c.grace === undefined ? {} : { gracePeriodSeconds: c.grace });
      if (c.want === 'gone') {
        assert.equal(d.deleted, true);
        await rejectsWith(rs.get('ns', 'p'), 404, 'NotFound');
        return;
      }
      assert.equal(d.deleted, false);
      const meta = (await rs.get('ns', 'p')).metadata!;
      assert.equal(meta.deletionGracePeriodSeconds, c.want);
      assert.ok(Math.abs(Date.parse(meta.deletionTimestamp!) - (before + c.want * 1000)) < NEAR, meta.deletionTimestamp);
      assert.equal(meta.generation, 2);
    });
  }

  it('later deletes may only shorten the period; 0 removes the pod', async () => {
    const { rs, store } = pods();
    await rs.create(pod('p', { nodeName: 'n1' }), 'ns');
    const first = (await rs.delete('ns', 'p')).object.metadata!;
    const revision = await store.currentRevision();
    const longer = await rs.delete('ns', 'p', { gracePeriodSeconds: 60 });
    assert.equal(longer.deleted, false);
    assert.equal(longer.object.metadata!.deletionGracePeriodSeconds, 30);
    assert.equal(await store.currentRevision(), revision);
    const shorter = (await rs.delete('ns', 'p', { gracePeriodSeconds: 5 })).object.metadata!;
    assert.equal(shorter.deletionGracePeriodSeconds, 5);
    assert.equal(Date.parse(shorter.deletionTimestamp!), Date.parse(first.deletionTimestamp!) - 25_000);
    assert.equal(shorter.generation, 2);
    assert.equal((await rs.delete('ns', 'p', { gracePeriodSeconds: 0 })).deleted, true);
    await rejectsWith(rs.get('ns', 'p'), 404, 'NotFound');
  });
});

describe('list', () => {
  async function seed(): Promise<{ rs: ResourceStore; store: MemoryStore; names: string[] }> {
    const { rs, store } = configmaps();
    const names: string[] = [];
    for (let i = 0; i < 10; i++) {
      const name = `a-${String(i).padStart(2, '0')}`;
      names.push(name);
      await rs.create(cm(name, { labels: { n: i % 2 === 0 ? 'even' : 'odd' } }), 'a');
    }
    await rs.create(cm('b-00'), 'b');
    await rs.create(cm('b-01'), 'b');
    return { rs, store, names };
  }
  const names = (items: CachedObject[]): string[] => items.map((i) => i.object.metadata!.name!);

  it('lists a namespace or everything, in key order, at the current revision', async () => {
    const { rs, store, names: all } = await seed();
    const ns = await rs.list({ namespace: 'a', readAt: CONSISTENT });
    assert.deepEqual(names(ns.items), all);
    assert.equal(ns.resourceVersion, String(await store.currentRevision()));
    assert.equal(ns.continueToken, undefined);
    assert.equal(ns.remainingItemCount, undefined);
    assert.equal((await rs.list({ readAt: CONSISTENT })).items.length, 12);
    assert.deepEqual(ns.items[3]!.object.metadata!.resourceVersion, '4');
  });

  it('chunks with limit / continue / remainingItemCount over one snapshot', async () => {
    const { rs, names: all } = await seed();
    const first = await rs.list({ namespace: 'a', limit: 4, readAt: CONSISTENT });
    assert.deepEqual(names(first.items), all.slice(0, 4));
    assert.equal(first.remainingItemCount, 6);
    assert.ok(first.continueToken);
    // Writes after the first chunk are not in the later ones.
    await rs.create(cm('a-99'), 'a');
    await rs.delete('a', 'a-05');
    const second = await rs.list({ namespace: 'a', limit: 4, continueToken: first.continueToken!, readAt: CONSISTENT });
    assert.deepEqual(names(second.items), all.slice(4, 8));
    assert.equal(second.remainingItemCount, 2);
    assert.equal(second.resourceVersion, first.resourceVersion);
    const third = await rs.list({ namespace: 'a', limit: 4, continueToken: second.continueToken!, readAt: CONSISTENT });
    assert.deepEqual(names(third.items), all.slice(8));
    assert.equal(third.continueToken, undefined);
    assert.equal(third.remainingItemCount, undefined);
    assert.equal(third.resourceVersion, first.resourceVersion);
  });

  it('a limit that covers everything gives no continue token', async () => {
    const { rs } = await seed();
    const r = await rs.list({ namespace: 'a', limit: 10, readAt: CONSISTENT });
    assert.equal(r.items.length, 10);
    assert.equal(r.continueToken, undefined);
    assert.equal(r.remainingItemCount, undefined);
  });

  it('with a selector, chunks are filled with matches and carry no remainingItemCount', async () => {
    const { rs } = await seed();
    const labelSelector = parseLabelSelector('n=even');
    const pages: string[][] = [];
    let token: string | undefined;
    do {
      const r = await rs.list({ namespace: 'a', labelSelector, limit: 2, ...(token ? { continueToken: token } : {}), readAt: CONSISTENT });
      pages.push(names(r.items));
      assert.equal(r.remainingItemCount, undefined);
      token = r.continueToken;
    } while (token);
    assert.deepEqual(pages, [['a-00', 'a-02'], ['a-04', 'a-06'], ['a-08']]);
  });

  it('field selectors', async () => {
    const { rs } = await seed();
    assert.deepEqual(names((await rs.list({ fieldSelector: parseFieldSelector('metadata.name=a-03'), readAt: CONSISTENT })).items), ['a-03']);
    assert.deepEqual(names((await rs.list({ fieldSelector: parseFieldSelector('metadata.namespace=b'), readAt: CONSISTENT })).items), ['b-00', 'b-01']);
    const both = await rs.list({ namespace: 'a', fieldSelector: parseFieldSelector('metadata.name!=a-00'), labelSelector: parseLabelSelector('n=even'), readAt: CONSISTENT });
    assert.deepEqual(names(both.items), ['a-02', 'a-04', 'a-06', 'a-08']);
  });

  it('an exact revision reads the past; after compaction it is 410 Expired', async () => {
    const { rs, store } = await seed();
    const past = await rs.list({ namespace: 'a', readAt: { kind: 'exact', revision: 3 } });
    assert.deepEqual(names(past.items), ['a-00', 'a-01', 'a-02']);
    assert.equal(past.resourceVersion, '3');
    await store.compact(5);
    await rejectsWith(rs.list({ namespace: 'a', readAt: { kind: 'exact', revision: 3 } }), 410, 'Expired', 'The resourceVersion for the provided list is too old.');
    assert.equal((await rs.list({ namespace: 'a', readAt: { kind: 'exact', revision: 5 } })).items.length, 5);
  });

  it('a continue token older than the compaction is 410 Expired', async () => {
    const { rs, store } = await seed();
    const first = await rs.list({ namespace: 'a', limit: 2, readAt: CONSISTENT });
    await rs.create(cm('a-50'), 'a');
    await store.compact(await store.currentRevision());
    const expired = await rejectsWith(
      rs.list({ namespace: 'a', limit: 2, continueToken: first.continueToken!, readAt: CONSISTENT }),
      410,
      'Expired',
      /^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results\./,
    );
    // The hint continues from the same place at the latest state (an inconsistent list).
    const hint = expired.status.metadata.continue as string;
    const rest = await rs.list({ namespace: 'a', limit: 100, continueToken: hint, readAt: CONSISTENT });
    assert.deepEqual(names(rest.items).slice(0, 2), ['a-02', 'a-03']);
    assert.ok(names(rest.items).includes('a-50'));
  });

  it('a bad continue token is a 400', async () => {
    const { rs } = await seed();
    await rejectsWith(rs.list({ continueToken: 'not-a-token', readAt: CONSISTENT }), 400, 'BadRequest', /^invalid continue token: continue key is not valid/);
  });

  it('a minimum revision waits for the store', async () => {
    const { rs, store } = await seed();
    const pending = rs.list({ namespace: 'b', readAt: { kind: 'notOlderThan', revision: (await store.currentRevision()) + 1 } });
    await rs.create(cm('b-02'), 'b');
    assert.deepEqual(names((await pending).items), ['b-00', 'b-01', 'b-02']);
  });
});

describe('watch', () => {
  it('starts with the current state as ADDED, then follows changes', async () => {
    const { rs } = configmaps();
    await rs.create(cm('a'), 'ns');
    await rs.create(cm('other'), 'elsewhere');
    const w = collector();
    const handle = await rs.watch({ namespace: 'ns', start: INITIAL }, w.sink);
    assert.deepEqual(summary(w.events), ['ADDED a']);
    await rs.create(cm('b'), 'ns');
    await edit(rs, 'a', (o) => (o.data = { k: '2' }));
    await rs.create(cm('c'), 'elsewhere');
    await rs.delete('ns', 'b');
    await flush();
    assert.deepEqual(summary(w.events), ['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED b']);
    handle.stop();
    await rs.create(cm('d'), 'ns');
    await flush();
    assert.equal(w.events.length, 4);
    assert.equal(w.ended(), 'open');
  });

  it('from a revision, replays what came after it', async () => {
    const { rs } = configmaps();
    const a = await rs.create(cm('a'), 'ns');
    await rs.create(cm('b'), 'ns');
    await edit(rs, 'a', (o) => (o.data = { k: '2' }));
    const w = collector();
    await rs.watch({ start: { kind: 'after', revision: Number(a.metadata!.resourceVersion) } }, w.sink);
    await flush();
    assert.deepEqual(summary(w.events), ['ADDED b', 'MODIFIED a']);
    assert.deepEqual(
      w.events.map((e) => e.object.object.metadata!.resourceVersion),
      ['2', '3'],
    );
  });

  it('leaving the selection is DELETED (with the previous content), entering it is ADDED', async () => {
    const { rs } = configmaps();
    const w = collector();
    await rs.watch({ namespace: 'ns', labelSelector: parseLabelSelector('w=yes'), start: INITIAL }, w.sink);
    await rs.create(cm('w1', { labels: { w: 'yes' } }), 'ns');
    await rs.create(cm('w2', { labels: { w: 'no' } }), 'ns');
    const out = await edit(rs, 'w1', (o) => ((o.metadata!.labels = { w: 'no' }), (o.data = { k: 'left' })));
    const back = await edit(rs, 'w1', (o) => ((o.metadata!.labels = { w: 'yes' }), (o.data = { k: 'back' })));
    await edit(rs, 'w1', (o) => (o.data = { k: 'changed' }));
    await edit(rs, 'w2', (o) => (o.data = { k: 'unseen' }));
    await rs.delete('ns', 'w1');
    await rs.delete('ns', 'w2');
    await flush();
    assert.deepEqual(summary(w.events), ['ADDED w1', 'DELETED w1', 'ADDED w1', 'MODIFIED w1', 'DELETED w1']);
    const left = w.events[1]!.object.object;
    // The object as it was while it matched, at the revision of the change.
    assert.deepEqual(left.metadata!.labels, { w: 'yes' });
    assert.deepEqual(left.data, { k: 'v' });
    assert.equal(left.metadata!.resourceVersion, out.object.metadata!.resourceVersion);
    assert.deepEqual(w.events[2]!.object.object.data, { k: 'back' });
    assert.equal(w.events[2]!.object.object.metadata!.resourceVersion, back.object.metadata!.resourceVersion);
  });

  it('DELETED carries the revision of the delete and the last content', async () => {
    const { rs, store } = configmaps();
    const w = collector();
    await rs.watch({ start: INITIAL }, w.sink);
    await rs.create(cm('a'), 'ns');
    const u = await edit(rs, 'a', (o) => (o.data = { k: 'last' }));
    await rs.delete('ns', 'a');
    await flush();
    const del = w.events[2]!;
    assert.equal(del.type, 'DELETED');
    assert.equal(del.object.object.metadata!.resourceVersion, String(await store.currentRevision()));
    assert.ok(Number(del.object.object.metadata!.resourceVersion) > Number(u.object.metadata!.resourceVersion));
    assert.deepEqual(del.object.object.data, { k: 'last' });
  });

  it('field selectors (a single-object watch)', async () => {
    const { rs } = configmaps();
    await rs.create(cm('one'), 'ns');
    await rs.create(cm('two'), 'ns');
    const w = collector();
    await rs.watch({ namespace: 'ns', fieldSelector: parseFieldSelector('metadata.name=one'), start: INITIAL }, w.sink);
    await edit(rs, 'one', (o) => (o.data = { k: '1' }));
    await edit(rs, 'two', (o) => (o.data = { k: '2' }));
    await rs.delete('ns', 'one');
    await flush();
    assert.deepEqual(summary(w.events), ['ADDED one', 'MODIFIED one', 'DELETED one']);
  });

  it('a revision older than the compaction is 410 Expired', async () => {
    const { rs, store } = configmaps();
    for (const n of ['a', 'b', 'c']) await rs.create(cm(n), 'ns');
    await store.compact(2);
    await rejectsWith(rs.watch({ start: { kind: 'after', revision: 1 } }, collector().sink), 410, 'Expired', 'too old resource version: 1 (2)');
    const w = collector();
    await rs.watch({ start: { kind: 'after', revision: 2 } }, w.sink);
    await flush();
    assert.deepEqual(summary(w.events), ['ADDED c']);
  });

  it('ends cleanly when the store closes', async () => {
    const { rs, store } = configmaps();
    const w = collector();
    await rs.watch({ start: INITIAL }, w.sink);
    await store.close();
    await flush();
    assert.equal(w.ended(), undefined);
  });
});
