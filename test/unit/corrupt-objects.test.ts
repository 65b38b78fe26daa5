/**
 * Objects that cannot be decoded from storage (KEP-3926), in process over a
 * MemoryStore: the decode errors and their Status (kube's StorageError
 * "corrupt object" naming the key), gets, lists and pages that reach them,
 * watches ending (and resuming with 410) when a corrupt value comes or goes,
 * writes to them failing, and the unsafe delete (ResourceStore.deleteCorrupt)
 * refusing readable or missing objects. DeleteOptions validation of
 * ignoreStoreReadErrorWithClusterBreakingPotential is at the end.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { WatchSink } from '../../src/cache/resource-reader.js';
import type { WatcherEvent } from '../../src/cache/watch-cache.js';
import { parseDeleteOptions } from '../../src/handlers/delete-options.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { ResourceStore } from '../../src/registry/resource-store.js';
import { parseLabelSelector } from '../../src/machinery/selectors.js';
import { fieldExtractorFor } from '../../src/registry/field-selectors.js';
import { strategyFor } from '../../src/registry/strategies.js';
import { CorruptObjectError, corruptListError, decodeStoredObject } from '../../src/storage/stored-object.js';
import { ApiError } from '../../src/machinery/errors.js';
import { FeatureGates } from '../../src/machinery/feature-gates.js';
import { KeyLayout } from '../../src/storage/keys.js';
import { MemoryStore } from '../../src/storage/memory.js';
import type { KeyValue } from '../../src/storage/store.js';

const GATE_ON = FeatureGates.parse(['AllowUnsafeMalformedObjectDeletion=true']);
const GATE_OFF = FeatureGates.defaults();
const keys = new KeyLayout();

function configmaps(gates = GATE_OFF, store = new MemoryStore()): { rs: ResourceStore; store: MemoryStore } {
  const rs = new ResourceStore(
    { group: '', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, prefix: keys.resourcePrefix('', 'configmaps'), fields: fieldExtractorFor('', 'configmaps', true).extract },
    strategyFor('', 'configmaps', 'ConfigMap'),
    store,
    undefined,
    gates,
  );
  return { rs, store };
}

function cm(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } };
}

const kv = (value: unknown, key = '/registry/configmaps/ns/a', modRevision = 3): KeyValue => ({ key, value: value as string, createRevision: 2, modRevision });

/** Writes `value` at the object's key behind the registry's back, as a broken writer or disk would. */
async function corrupt(store: MemoryStore, name: string, value = 'garbage'): Promise<number> {
  const key = `/registry/configmaps/ns/${name}`;
  const cur = await store.get(key);
  assert.ok(cur, `${name} should exist`);
  return (await store.update(key, value, cur.modRevision)).modRevision;
}

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}

function collector(): { events: WatcherEvent[]; sink: WatchSink; ended: () => boolean } {
  const events: WatcherEvent[] = [];
  let ended = false;
  return { events, sink: { onEvents: (e) => events.push(...e), onEnd: () => (ended = true) }, ended: () => ended };
}

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));
const CONSISTENT = { kind: 'consistent' } as const;

describe('decoding stored values', () => {
  it('a good value decodes with its revision as resourceVersion', () => {
    const obj = decodeStoredObject(kv(JSON.stringify(cm('a'))), '', 'ConfigMap');
    assert.equal(obj.metadata!.resourceVersion, '3');
    assert.equal(decodeStoredObject(kv(JSON.stringify(cm('a'))), '', 'ConfigMap', 9).metadata!.resourceVersion, '9');
  });

  it('a value without kind decodes (programmatic writes leave it out)', () => {
    assert.equal(decodeStoredObject(kv('{"metadata":{"name":"a"}}'), '', 'ConfigMap').metadata!.name, 'a');
  });

  const TYPE_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
  const cases: Array<[string, unknown, string]> = [
    ['not JSON', 'garbage', `couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value`],
    ['truncated JSON', '{"kind":"ConfigMap",', "couldn't get version/kind; json parse error: unexpected end of JSON input"],
    ['empty', '', "couldn't get version/kind; json parse error: unexpected end of JSON input"],
    ['bytes that are not text', Buffer.from([0xff, 0x00, 0x9c]), `couldn't get version/kind; json parse error: invalid character 'ÿ' looking for beginning of value`],
    ['a number', '42', `couldn't get version/kind; json parse error: json: cannot unmarshal number into Go value of type ${TYPE_STRUCT}`],
    ['an array', '[]', `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${TYPE_STRUCT}`],
    ['null', 'null', "Object 'Kind' is missing in 'null'"],
    ['another kind', '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"}}', 'converting (v1.Secret) to (core.ConfigMap): unknown conversion'],
    ['metadata that is not an object', '{"kind":"ConfigMap","metadata":"a"}', 'json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta'],
  ];
  for (const [what, value, detail] of cases) {
    it(`${what}: a 500 naming the key, as kube's StorageError for a corrupt object`, () => {
      assert.throws(
        () => decodeStoredObject(kv(value), '', 'ConfigMap'),
        (err: unknown) => {
          assert.ok(err instanceof CorruptObjectError);
          const storage = `StorageError: corrupt object, Code: 7, Key: /registry/configmaps/ns/a, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=3: ${detail}`;
          assert.deepEqual(err.status, {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: `Internal error occurred: ${storage}`,
            reason: 'InternalError',
            details: { causes: [{ message: storage }] },
            code: 500,
          });
          return true;
        },
      );
    });
  }
});

describe('the error of a list that reaches corrupt objects', () => {
  const errs = (n: number): CorruptObjectError[] => Array.from({ length: n }, (_, i) => new CorruptObjectError(`/registry/deployments/ns/d${String(i).padStart(3, '0')}`, 10 + i, 'bad'));

  it('without the gate: the first one, as a get of it', () => {
    const [first] = errs(2);
    assert.equal(corruptListError({ group: 'apps', resource: 'deployments' }, errs(2), false).message, first!.message);
  });

  it("with the gate: kube's StorageReadError naming every key", () => {
    const status = corruptListError({ group: 'apps', resource: 'deployments' }, errs(2), true).status;
    assert.equal(status.code, 500);
    assert.equal(status.reason, 'StorageReadError');
    assert.equal(status.message, 'failed to read one or more deployments.apps from the storage');
    assert.deepEqual(status.details, {
      group: 'apps',
      kind: 'deployments',
      name: 'list',
      causes: errs(2).map((e) => ({ reason: 'UnexpectedServerResponse', message: e.storageMessage, field: e.key })),
    });
  });

  it('with the gate: at most 100 keys, then a TooMany cause', () => {
    const causes = corruptListError({ group: '', resource: 'configmaps' }, errs(101), true).status.details!.causes!;
    assert.equal(causes.length, 101);
    assert.deepEqual(causes[100], { reason: 'FieldValueTooMany', message: 'too many errors, the list is truncated' });
    assert.equal(causes[99]!.field, '/registry/deployments/ns/d099');
  });
});

describe('reads of a corrupt object (watch cache)', () => {
  it('get: 500 naming the key; the other objects read as before', async () => {
    const { rs, store } = configmaps();
    await rs.create(cm('a'), 'ns');
    await rs.create(cm('b'), 'ns');
    const rev = await corrupt(store, 'b');
    const err = await rejection(rs.get('ns', 'b'));
    assert.equal(err.code, 500);
    assert.equal(err.reason, 'InternalError');
    assert.equal(
      err.message,
      `Internal error occurred: StorageError: corrupt object, Code: 7, Key: /registry/configmaps/ns/b, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${rev}: couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value`,
    );
    assert.equal((await rs.get('ns', 'a')).metadata!.name, 'a');
    rs.cache.stop();
  });

  it('list: fails when it reaches the corrupt key (first error without the gate, all keys with it); other namespaces list', async () => {
    for (const gates of [GATE_OFF, GATE_ON]) {
      const { rs, store } = configmaps(gates);
      for (const n of ['a', 'b', 'c']) await rs.create(cm(n), 'ns');
      await rs.create(cm('x'), 'other');
      await corrupt(store, 'b');
      await corrupt(store, 'c', '{"kind":"Secret"}');
      const err = await rejection(rs.list({ namespace: 'ns', readAt: CONSISTENT }));
      assert.equal(err.code, 500);
      if (gates === GATE_ON) {
        assert.equal(err.reason, 'StorageReadError');
        assert.deepEqual(err.status.details!.causes!.map((c) => c.field), ['/registry/configmaps/ns/b', '/registry/configmaps/ns/c']);
      } else {
        assert.equal(err.reason, 'InternalError');
        assert.match(err.message, /Key: \/registry\/configmaps\/ns\/b,/);
      }
      // All namespaces reach it too; a label selector does not help (kube decodes before it filters).
      await rejection(rs.list({ readAt: CONSISTENT }));
      await rejection(rs.list({ namespace: 'ns', labelSelector: parseLabelSelector('none=here'), readAt: CONSISTENT }));
      assert.deepEqual((await rs.list({ namespace: 'other', readAt: CONSISTENT })).items.map((o) => o.name), ['x']);
      rs.cache.stop();
    }
  });

  it('a paged list fails on the page that reaches the corrupt key only', async () => {
    const { rs, store } = configmaps();
    for (const n of ['a', 'b', 'c']) await rs.create(cm(n), 'ns');
    await corrupt(store, 'b');
    const first = await rs.list({ namespace: 'ns', limit: 1, readAt: CONSISTENT });
    assert.deepEqual(first.items.map((o) => o.name), ['a']);
    assert.ok(first.continueToken);
    const err = await rejection(rs.list({ namespace: 'ns', limit: 1, continueToken: first.continueToken, readAt: CONSISTENT }));
    assert.match(err.message, /Key: \/registry\/configmaps\/ns\/b,/);
    rs.cache.stop();
  });

  it('a value that is corrupt when the cache starts is held, not skipped', async () => {
    const store = new MemoryStore();
    const writer = configmaps(GATE_OFF, store).rs;
    await writer.create(cm('a'), 'ns');
    await corrupt(store, 'a');
    const { rs } = configmaps(GATE_OFF, store);
    assert.equal((await rejection(rs.get('ns', 'a'))).code, 500);
    assert.equal((await rejection(rs.list({ readAt: CONSISTENT }))).code, 500);
    rs.cache.stop();
    writer.cache.stop();
  });

  it('writes to a corrupt object fail with the same 500; creating it again is AlreadyExists', async () => {
    const { rs, store } = configmaps();
    await rs.create(cm('a'), 'ns');
    await corrupt(store, 'a');
    assert.match((await rejection(rs.delete('ns', 'a'))).message, /StorageError: corrupt object/);
    assert.match((await rejection(rs.update('ns', { name: 'a' }, (cur) => cur!))).message, /StorageError: corrupt object/);
    assert.equal((await rejection(rs.create(cm('a'), 'ns'))).reason, 'AlreadyExists');
    rs.cache.stop();
  });
});

describe('watches and a corrupt value', () => {
  it('a corrupt write ends every watch (after the events before it); resuming from before it is 410; a watch with initial state fails', async () => {
    const { rs, store } = configmaps(GATE_ON);
    await rs.create(cm('a'), 'ns');
    const all = collector();
    const other = collector();
    await rs.watch({ start: { kind: 'after', revision: await rs.currentRevision() } }, all.sink);
    await rs.watch({ namespace: 'other', start: { kind: 'after', revision: await rs.currentRevision() } }, other.sink);
    const before = await rs.currentRevision();
    await rs.create(cm('b'), 'ns');
    await corrupt(store, 'a');
    await flush();
    assert.deepEqual(all.events.map((e) => `${e.type} ${e.object.name}`), ['ADDED b']);
    assert.equal(all.ended(), true);
    // kube's cacher re-initialises: every watch of the resource ends, whatever its selection.
    assert.equal(other.ended(), true);
    const resumed = await rejection(rs.watch({ start: { kind: 'after', revision: before } }, collector().sink));
    assert.equal(resumed.code, 410);
    const initial = await rejection(rs.watch({ namespace: 'ns', start: { kind: 'initial', at: CONSISTENT, initialEventsEndBookmark: false } }, collector().sink));
    assert.equal(initial.reason, 'StorageReadError');
    // A watch from now on is served; a watch elsewhere with initial state too.
    const now = collector();
    await rs.watch({ start: { kind: 'after', revision: await rs.currentRevision() } }, now.sink);
    await rs.watch({ namespace: 'other', start: { kind: 'initial', at: CONSISTENT, initialEventsEndBookmark: false } }, collector().sink);
    await rs.create(cm('c'), 'ns');
    await flush();
    assert.deepEqual(now.events.map((e) => `${e.type} ${e.object.name}`), ['ADDED c']);
    rs.cache.stop();
  });

  it('the unsafe delete removes it from the cache: watches end once more, then lists and watches are whole again', async () => {
    const { rs, store } = configmaps(GATE_ON);
    await rs.create(cm('a'), 'ns');
    await rs.create(cm('b'), 'ns');
    await corrupt(store, 'b');
    await rs.list({ namespace: 'other', readAt: CONSISTENT });
    const w = collector();
    await rs.watch({ start: { kind: 'after', revision: await rs.currentRevision() } }, w.sink);
    await rs.deleteCorrupt('ns', 'b');
    await flush();
    // The delete's previous value does not decode: no DELETED event can carry it.
    assert.deepEqual(w.events, []);
    assert.equal(w.ended(), true);
    assert.equal((await rejection(rs.get('ns', 'b'))).reason, 'NotFound');
    assert.deepEqual((await rs.list({ namespace: 'ns', readAt: CONSISTENT })).items.map((o) => o.name), ['a']);
    const after = collector();
    await rs.watch({ namespace: 'ns', start: { kind: 'initial', at: CONSISTENT, initialEventsEndBookmark: false } }, after.sink);
    assert.deepEqual(after.events.map((e) => `${e.type} ${e.object.name}`), ['ADDED a']);
    rs.cache.stop();
  });

  it('a corrupt value overwritten with a good one reads again (and also breaks history)', async () => {
    const { rs, store } = configmaps();
    await rs.create(cm('a'), 'ns');
    await corrupt(store, 'a');
    await rs.list({ namespace: 'other', readAt: CONSISTENT });
    const w = collector();
    await rs.watch({ start: { kind: 'after', revision: await rs.currentRevision() } }, w.sink);
    const cur = (await store.get('/registry/configmaps/ns/a'))!;
    await store.update(cur.key, JSON.stringify(cm('a')), cur.modRevision);
    await flush();
    assert.equal(w.ended(), true);
    assert.equal((await rs.get('ns', 'a')).metadata!.name, 'a');
    rs.cache.stop();
  });
});

describe('unsafe delete (ResourceStore.deleteCorrupt)', () => {
  const NOT_CORRUPT =
    'configmaps "NAME" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option';

  it('removes a corrupt object whatever its finalizers; a readable or missing object is a 422', async () => {
    const { rs, store } = configmaps(GATE_ON);
    await rs.create({ ...cm('a'), metadata: { name: 'a', finalizers: ['example.com/keep'] } }, 'ns');
    await rs.create(cm('ok'), 'ns');
    await corrupt(store, 'a', '{"metadata":{"finalizers":["example.com/keep"]},"kind":');
    await rs.deleteCorrupt('ns', 'a');
    assert.equal(await store.get('/registry/configmaps/ns/a'), undefined);
    for (const name of ['ok', 'a', 'never']) {
      const err = await rejection(rs.deleteCorrupt('ns', name));
      assert.equal(err.code, 422);
      assert.equal(err.message, NOT_CORRUPT.replace('NAME', name));
      assert.deepEqual(err.status.details, {
        name,
        kind: 'configmaps',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option', field: 'ignoreStoreReadErrorWithClusterBreakingPotential' }],
      });
    }
    rs.cache.stop();
  });
});

describe('DeleteOptions: ignoreStoreReadErrorWithClusterBreakingPotential', () => {
  const body = (o: Record<string, unknown>): Buffer => Buffer.from(JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', ...o }));
  const none = Buffer.alloc(0);
  const q = (s: string): URLSearchParams => new URLSearchParams(s);
  const OPTION = 'ignoreStoreReadErrorWithClusterBreakingPotential';

  it('is read from the body or the query (a *bool: anything but 0/false is true)', () => {
    assert.equal(parseDeleteOptions(body({ [OPTION]: true }), 'application/json', q(''), GATE_ON)[OPTION], true);
    assert.equal(parseDeleteOptions(none, '', q(`${OPTION}=true`), GATE_ON)[OPTION], true);
    assert.equal(parseDeleteOptions(none, '', q(`${OPTION}`), GATE_ON)[OPTION], true);
    assert.equal(parseDeleteOptions(none, '', q(`${OPTION}=False`), GATE_ON)[OPTION], false);
    assert.equal(parseDeleteOptions(none, '', q(`${OPTION}=0&dryRun=All`), GATE_ON)[OPTION], false);
    assert.equal(parseDeleteOptions(none, '', q(''), GATE_ON)[OPTION], undefined);
  });

  it('without the gate it is dropped before validation: no error, no effect', () => {
    const opts = parseDeleteOptions(body({ [OPTION]: true, dryRun: ['All'], gracePeriodSeconds: 0 }), 'application/json', q(''), GATE_OFF);
    assert.equal(opts[OPTION], undefined);
    assert.equal(opts.dryRun, true);
  });

  it("with the gate it excludes dryRun, propagationPolicy, orphanDependents, gracePeriodSeconds and preconditions (kube's messages, in its order)", () => {
    const cases: Array<[Buffer, URLSearchParams, string[]]> = [
      [none, q(`${OPTION}=true&dryRun=All`), ['dryRun']],
      [none, q(`${OPTION}=true&gracePeriodSeconds=0`), ['gracePeriodSeconds']],
      [none, q(`${OPTION}=true&orphanDependents=false`), ['orphanDependents']],
      [none, q(`${OPTION}=true&propagationPolicy=Background`), ['propagationPolicy']],
      [body({ [OPTION]: true, preconditions: {} }), q(''), ['preconditions']],
      [body({ [OPTION]: true, dryRun: ['All'], propagationPolicy: 'Foreground', gracePeriodSeconds: 30, preconditions: { uid: 'u' } }), q(''), ['dryRun', 'propagationPolicy', 'gracePeriodSeconds', 'preconditions']],
    ];
    for (const [b, query, excluded] of cases) {
      assert.throws(
        () => parseDeleteOptions(b, 'application/json', query, GATE_ON),
        (err: unknown) => {
          assert.ok(err instanceof ApiError);
          assert.equal(err.code, 422);
          assert.equal(err.reason, 'Invalid');
          const parts = excluded.map((f) => `${OPTION}: Invalid value: true: cannot be set together with .${f}`);
          assert.equal(err.message, `DeleteOptions.meta.k8s.io "" is invalid: ${parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`}`);
          assert.deepEqual(err.status.details!.causes!.map((c) => c.field), excluded.map(() => OPTION));
          return true;
        },
      );
    }
  });

  it('with the gate, false excludes nothing', () => {
    assert.doesNotThrow(() => parseDeleteOptions(none, '', q(`${OPTION}=false&dryRun=All&gracePeriodSeconds=0`), GATE_ON));
  });
});
