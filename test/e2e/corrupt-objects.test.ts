/**
 * Objects corrupted behind the server's back (KEP-3926), end to end: the real
 * server on SQLite writes ConfigMaps and stops; the test overwrites stored
 * values in the database (text that is not JSON, bytes that are not text);
 * the restarted server answers a GET of each with a 500 naming its key, fails
 * lists that reach them (kube's StorageReadError naming every key with
 * AllowUnsafeMalformedObjectDeletion), refuses a normal delete, and with the
 * gate removes them on DELETE with ignoreStoreReadErrorWithClusterBreakingPotential
 * (finalizers and all), refusing the option with dryRun, gracePeriodSeconds,
 * orphanDependents, preconditions, propagationPolicy, on readable objects and
 * on collections. Watches end at the unsafe delete and resume with 410, so
 * clients list again. Without the gate the option is ignored.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';

import { ROOT, http, removeDir, startServer, tempDir, type HttpResponse, type TestServer } from '../helpers/server.js';
import { openWatch } from '../helpers/watch.js';

const NS = 'corrupt';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const OPTION = 'ignoreStoreReadErrorWithClusterBreakingPotential';
const GATE = '--feature-gates=AllowUnsafeMalformedObjectDeletion=true';
const keyOf = (name: string): string => `/registry/configmaps/${NS}/${name}`;

const cm = (name: string, finalizers?: string[]): unknown => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(finalizers ? { finalizers } : {}) }, data: { k: name } });

/** Overwrites the stored value of `key` (its newest log row) while no server runs. */
function corruptStored(dataDir: string, key: string, value: string | Buffer): void {
  const db = new Database(join(dataDir, 'capstan.db'));
  try {
    const changed = db.prepare('UPDATE kv_log SET value = ? WHERE rev = (SELECT rev FROM kv_current WHERE key = ?)').run(value, key).changes;
    assert.equal(changed, 1, `no stored value at ${key}`);
  } finally {
    db.close();
  }
}

function expectStatus(r: HttpResponse, code: number, reason: string): void {
  assert.equal(r.status, code, r.text);
  assert.equal(r.json?.kind, 'Status', r.text);
  assert.equal(r.json.code, code);
  assert.equal(r.json.reason, reason, r.text);
}

describe('corrupt objects in storage', () => {
  const dataDir = tempDir('capstan-corrupt-');
  let server: TestServer | undefined;
  /** Revision at which each corrupted value was written. */
  const revisions = new Map<string, string>();

  const restart = async (args: string[] = []): Promise<TestServer> => {
    await server?.stop();
    server = await startServer({ backend: 'sqlite', dataDir, args });
    return server;
  };

  before(async () => {
    const s = await restart();
    assert.equal((await http(s, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })).status, 201);
    for (const [name, finalizers] of [['a'], ['b', ['example.com/keep']], ['c'], ['plain']] as Array<[string, string[]?]>) {
      const r = await http(s, 'POST', CM, { body: cm(name, finalizers) });
      assert.equal(r.status, 201, r.text);
      revisions.set(name, r.json.metadata.resourceVersion);
    }
    assert.equal((await http(s, 'POST', '/api/v1/namespaces/default/configmaps', { body: cm('elsewhere') })).status, 201);
    await s.stop();
    corruptStored(dataDir, keyOf('b'), 'garbage');
    corruptStored(dataDir, keyOf('c'), Buffer.from([0xff, 0x00, 0x9c]));
  });

  after(async () => {
    await server?.stop();
    removeDir(dataDir);
  });

  describe('without AllowUnsafeMalformedObjectDeletion', () => {
    before(() => restart());

    it('GET of a corrupt object is a 500 InternalError naming its key; the others read', async () => {
      const b = await http(server!, 'GET', `${CM}/b`);
      expectStatus(b, 500, 'InternalError');
      assert.equal(
        b.json.message,
        `Internal error occurred: StorageError: corrupt object, Code: 7, Key: ${keyOf('b')}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${revisions.get('b')}: couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value`,
      );
      const c = await http(server!, 'GET', `${CM}/c`);
      expectStatus(c, 500, 'InternalError');
      assert.match(c.json.message, new RegExp(`Key: ${keyOf('c')}, .*invalid character 'ÿ' looking for beginning of value`));
      assert.equal((await http(server!, 'GET', `${CM}/a`)).status, 200);
    });

    it('a LIST that reaches a corrupt object fails on the first one; lists elsewhere are whole', async () => {
      const list = await http(server!, 'GET', CM);
      expectStatus(list, 500, 'InternalError');
      assert.match(list.json.message, new RegExp(`Key: ${keyOf('b')},`));
      expectStatus(await http(server!, 'GET', '/api/v1/configmaps'), 500, 'InternalError');
      const other = await http(server!, 'GET', '/api/v1/namespaces/default/configmaps');
      assert.equal(other.status, 200, other.text);
      assert.ok(other.json.items.some((i: any) => i.metadata.name === 'elsewhere'));
    });

    it('a normal DELETE fails with the same 500; the unsafe option is ignored (kube drops it without the gate)', async () => {
      expectStatus(await http(server!, 'DELETE', `${CM}/b`), 500, 'InternalError');
      const ignored = await http(server!, 'DELETE', `${CM}/b?${OPTION}=true`);
      expectStatus(ignored, 500, 'InternalError');
      assert.match(ignored.json.message, /StorageError: corrupt object/);
      // Not validated either: with dryRun it is an ordinary (failing) dry run.
      expectStatus(await http(server!, 'DELETE', `${CM}/b?${OPTION}=true&dryRun=All`), 500, 'InternalError');
      // On a readable object it is an ordinary delete.
      assert.equal((await http(server!, 'DELETE', `${CM}/plain?${OPTION}=true`)).status, 200);
      assert.equal((await http(server!, 'GET', `${CM}/plain`)).status, 404);
    });
  });

  describe('with AllowUnsafeMalformedObjectDeletion', () => {
    before(() => restart([GATE]));

    it("a LIST that reaches corrupt objects is kube's StorageReadError naming every key", async () => {
      const list = await http(server!, 'GET', CM);
      expectStatus(list, 500, 'StorageReadError');
      assert.equal(list.json.message, 'failed to read one or more configmaps from the storage');
      assert.equal(list.json.details.kind, 'configmaps');
      assert.equal(list.json.details.name, 'list');
      assert.deepEqual(
        list.json.details.causes.map((c: any) => [c.reason, c.field]),
        [
          ['UnexpectedServerResponse', keyOf('b')],
          ['UnexpectedServerResponse', keyOf('c')],
        ],
      );
      assert.match(list.json.details.causes[0].message, /^StorageError: corrupt object, Code: 7, Key: \/registry\/configmaps\/corrupt\/b, /);
    });

    it('the unsafe option is refused with dryRun, gracePeriodSeconds, orphanDependents, propagationPolicy or preconditions (422)', async () => {
      const cases: Array<[string, unknown, string]> = [
        [`?${OPTION}=true&dryRun=All`, undefined, 'dryRun'],
        [`?${OPTION}=true&gracePeriodSeconds=0`, undefined, 'gracePeriodSeconds'],
        [`?${OPTION}=true&orphanDependents=true`, undefined, 'orphanDependents'],
        [`?${OPTION}=true&propagationPolicy=Background`, undefined, 'propagationPolicy'],
        ['', { kind: 'DeleteOptions', apiVersion: 'v1', [OPTION]: true, preconditions: { uid: 'x' } }, 'preconditions'],
      ];
      for (const [query, body, field] of cases) {
        const r = await http(server!, 'DELETE', `${CM}/b${query}`, body === undefined ? {} : { body });
        expectStatus(r, 422, 'Invalid');
        assert.equal(r.json.message, `DeleteOptions.meta.k8s.io "" is invalid: ${OPTION}: Invalid value: true: cannot be set together with .${field}`);
      }
      expectStatus(await http(server!, 'GET', `${CM}/b`), 500, 'InternalError');
    });

    it('the unsafe option is refused on a readable or missing object, and on a collection', async () => {
      for (const name of ['a', 'missing']) {
        const r = await http(server!, 'DELETE', `${CM}/${name}?${OPTION}=true`);
        expectStatus(r, 422, 'Invalid');
        assert.equal(r.json.message, `configmaps "${name}" is invalid: ${OPTION}: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option`);
      }
      assert.equal((await http(server!, 'GET', `${CM}/a`)).status, 200);
      const all = await http(server!, 'DELETE', `${CM}?${OPTION}=true`);
      expectStatus(all, 422, 'Invalid');
      assert.equal(all.json.message, `DeleteOptions.meta.k8s.io "" is invalid: ${OPTION}: Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option`);
    });

    it('the unsafe DELETE removes a corrupt object despite its finalizer; watches end and resume with 410; lists are whole again', async () => {
      const rv = (await http(server!, 'GET', '/api/v1/namespaces/default/configmaps')).json.metadata.resourceVersion as string;
      const watch = openWatch(server!, `${CM}?watch=1&resourceVersion=${rv}`);
      assert.equal(await watch.status, 200);

      const b = await http(server!, 'DELETE', `${CM}/b`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', [OPTION]: true } });
      assert.equal(b.status, 200, b.text);
      assert.deepEqual(b.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200, details: { name: 'b', kind: 'ConfigMap' } });
      expectStatus(await http(server!, 'GET', `${CM}/b`), 404, 'NotFound');

      // No DELETED event can carry an object that does not decode: the watch ends, as kube's cacher ends its watches.
      await watch.ended;
      assert.deepEqual(watch.events, []);
      const resumed = openWatch(server!, `${CM}?watch=1&resourceVersion=${rv}`);
      await resumed.ended;
      assert.equal(resumed.events.length, 1);
      assert.equal(resumed.events[0]!.type, 'ERROR');
      assert.equal(resumed.events[0]!.object.code, 410);

      // c is still corrupt: the list fails on it alone until it goes too (option in the query this time).
      const list = await http(server!, 'GET', CM);
      expectStatus(list, 500, 'StorageReadError');
      assert.deepEqual(list.json.details.causes.map((c: any) => c.field), [keyOf('c')]);
      assert.equal((await http(server!, 'DELETE', `${CM}/c?${OPTION}=true`)).status, 200);

      const whole = await http(server!, 'GET', CM);
      assert.equal(whole.status, 200, whole.text);
      assert.deepEqual(whole.json.items.map((i: any) => i.metadata.name).filter((n: string) => n !== 'kube-root-ca.crt'), ['a']);
      const initial = openWatch(server!, `${CM}?watch=1&timeoutSeconds=1`);
      await initial.ended;
      assert.deepEqual(initial.events.map((e) => `${e.type} ${e.object.metadata.name}`).filter((e) => !e.includes('kube-root-ca.crt')), ['ADDED a']);
    });

    it('the keys stay gone after a restart', async () => {
      await restart([GATE]);
      const list = await http(server!, 'GET', CM);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.json.items.map((i: any) => i.metadata.name).filter((n: string) => n !== 'kube-root-ca.crt'), ['a']);
    });
  });

  it('an unknown feature gate exits 2 with kube\'s message', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'serve', '--feature-gates=Nope=true'], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^Error: invalid argument "Nope=true" for "--feature-gates" flag: unrecognized feature gate: Nope\n/);
  });
});
