/**
 * Reads served from the watch cache, end to end against the real server:
 * an @kubernetes/client-node informer mirrors 2,000 ConfigMaps under
 * concurrent writers across forced watch disconnects; raw watch streams
 * (bookmarks before the deadline, sendInitialEvents with its end bookmark,
 * a too-old start version as an in-stream 410); kubectl's watch, chunked
 * list and selectors; gzip for big lists.
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Agent, request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap, type Watch } from '@kubernetes/client-node';
import { eventually, findKubectl, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';
import { openWatch } from '../helpers/watch.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json: any;
}

/** HTTPS over keep-alive connections (thousands of writes without a TLS handshake each). */
class Client {
  private readonly agent: Agent;

  constructor(private readonly server: TestServer) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 16, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key });
  }

  request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const u = new URL(path, this.server.url);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const h: Record<string, string> = { ...headers };
    if (payload) {
      h['Content-Type'] ??= 'application/json';
      h['Content-Length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = httpsRequest({ method, hostname: u.hostname, port: u.port, path: u.pathname + u.search, headers: h, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const buf = Buffer.concat(chunks);
          let json: unknown;
          try {
            json = JSON.parse(buf.toString('utf8'));
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: buf, json });
        });
      });
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  async ok(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<any> {
    const r = await this.request(method, path, body, headers);
    assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: ${r.status} ${r.body.toString('utf8').slice(0, 300)}`);
    return r.json;
  }

  close(): void {
    this.agent.destroy();
  }
}

const cmBody = (name: string, data: Record<string, string>, labels?: Record<string, string>): unknown => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

async function createNamespace(c: Client, name: string): Promise<void> {
  await c.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  // The root CA ConfigMap appears shortly after; wait so that it does not show up mid-test.
  await eventually(async () => (await c.request('GET', `/api/v1/namespaces/${name}/configmaps/kube-root-ca.crt`)).status === 200, 15_000);
}

/** Runs `fn` over 0..n-1 with `concurrency` workers. */
async function pool(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/**
 * An informer that mirrors a namespace's ConfigMaps while `WRITERS` writers
 * create 2,000 of them, update and delete some; its watch is cut twice
 * (the request aborted under it, and the informer stopped and started), and
 * it resumes from the last resourceVersion it saw, without a re-list.
 */
async function informerMirror(server: TestServer): Promise<void> {
  const TOTAL = 2000;
  const WRITERS = 4;
  const ns = 'mirror';
  const c = new Client(server);
  try {
    await createNamespace(c, ns);
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    let lists = 0;
    const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${ns}/configmaps`, () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: ns });
    });

    // Every raw event the informer receives, and the resourceVersion each of its watches starts from.
    const raw: Array<{ type: string; name: string; rv: number }> = [];
    const watchStarts: string[] = [];
    const inner = (informer as unknown as { watch: Watch }).watch;
    const watchFn = inner.watch.bind(inner);
    inner.watch = (path, params: { resourceVersion?: string }, cb, done) => {
      watchStarts.push(String(params.resourceVersion));
      return watchFn(path, params, (type: string, obj: any, whole: any) => {
        raw.push({ type, name: obj?.metadata?.name, rv: Number(obj?.metadata?.resourceVersion) });
        cb(type, obj, whole);
      }, done);
    };

    // Through the informer's callbacks, each object's versions only move forward.
    const lastRv = new Map<string, number>();
    const backwards: string[] = [];
    const onChange = (what: string) => (obj: V1ConfigMap): void => {
      const name = obj.metadata!.name!;
      const rv = Number(obj.metadata!.resourceVersion);
      if (rv <= (lastRv.get(name) ?? 0)) backwards.push(`${what} ${name}@${rv} after @${lastRv.get(name)}`);
      lastRv.set(name, rv);
    };
    informer.on('add', onChange('add'));
    informer.on('update', onChange('update'));
    informer.on('delete', onChange('delete'));
    let connects = 0;
    informer.on('connect', () => connects++);
    const errors: unknown[] = [];
    let onError: (() => void) | undefined;
    informer.on('error', (err) => {
      errors.push(err);
      const f = onError;
      onError = undefined;
      f?.();
    });

    await informer.start();
    assert.equal(lists, 1);

    const cut = async (how: 'abort' | 'restart'): Promise<void> => {
      const errored = new Promise<void>((r) => (onError = r));
      if (how === 'abort') {
        // The connection dies under the informer; it reports the error and is started again.
        const request = (informer as unknown as { request?: AbortController }).request;
        assert.ok(request, 'the informer has a watch open');
        request.abort();
        await errored;
        await informer.start();
      } else {
        await informer.stop();
        await errored;
        await informer.start();
      }
    };

    let writes = 0;
    const write = async (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<void> => {
      await c.ok(method, path, body, headers);
      writes++;
    };
    let done = 0;
    const cuts: Array<Promise<void>> = [];
    const progress = (): void => {
      done++;
      if (done === Math.floor(TOTAL / 3)) cuts.push(cut('abort'));
      if (done === Math.floor((2 * TOTAL) / 3)) cuts.push(cut('restart'));
    };
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const per = TOTAL / WRITERS;
        for (let i = 0; i < per; i++) {
          const name = `cm-${w}-${String(i).padStart(4, '0')}`;
          await write('POST', base, cmBody(name, { v: '0', writer: String(w) }));
          if (i % 3 === 0) {
            await write('PATCH', `${base}/${name}`, { data: { v: '1' } }, { 'Content-Type': 'application/merge-patch+json' });
          }
          if (i % 10 === 5) {
            const victim = `cm-${w}-${String(i - 5).padStart(4, '0')}`;
            await write('DELETE', `${base}/${victim}`);
            if (i % 20 === 5) await write('POST', base, cmBody(victim, { v: 'reborn' }));
          }
          if (i % 7 === 0 && i > 0) {
            const older = `cm-${w}-${String(i - 1).padStart(4, '0')}`;
            const cur = await c.request('GET', `${base}/${older}`);
            if (cur.status === 200) {
              cur.json.data = { ...cur.json.data, v: `put-${i}` };
              await write('PUT', `${base}/${older}`, cur.json);
            }
          }
          progress();
        }
      }),
    );
    await Promise.all(cuts);
    assert.equal(cuts.length, 2);

    const final = await c.ok('GET', base);
    const want = new Map<string, string>(
      (final.items as any[]).map((o) => [o.metadata.name as string, `${o.metadata.resourceVersion} ${JSON.stringify(o.data ?? {})}`]),
    );
    assert.ok(want.size > TOTAL * 0.9, `${want.size} objects`);
    const mirror = (): Map<string, string> =>
      new Map(informer.list(ns).map((o) => [o.metadata!.name!, `${o.metadata!.resourceVersion} ${JSON.stringify(o.data ?? {})}`]));
    try {
      const same = (): boolean => {
        const m = mirror();
        return m.size === want.size && [...want].every(([k, v]) => m.get(k) === v);
      };
      await eventually(async () => same(), 30_000).catch(() => undefined);
      assert.deepEqual(mirror(), want);
    } finally {
      await informer.stop();
    }

    // Resumed twice from where it was, never re-listed, nothing lost or repeated.
    assert.equal(lists, 1, 'no re-list');
    assert.equal(connects, 3);
    assert.equal(watchStarts.length, 3);
    assert.deepEqual(backwards, []);
    const events = raw.filter((e) => e.type !== 'BOOKMARK');
    assert.ok(!events.some((e) => e.type === 'ERROR'), 'no ERROR events');
    for (let i = 1; i < events.length; i++) {
      assert.ok(events[i]!.rv > events[i - 1]!.rv, `event ${i} (${events[i]!.type} ${events[i]!.name}@${events[i]!.rv}) after @${events[i - 1]!.rv}`);
    }
    // Each restart asked for the version of the last event before it.
    for (const start of watchStarts.slice(1)) {
      assert.ok(events.some((e) => String(e.rv) === start), `restart from ${start} is a version the informer saw`);
    }
    // Every write (all made after the initial list) reached the informer exactly once.
    assert.ok(events.every((e) => e.rv > Number(watchStarts[0])));
    assert.equal(events.length, writes);
    assert.ok(writes >= TOTAL + TOTAL / 3, `${writes} writes`);
  } finally {
    c.close();
  }
}

for (const backend of ['memory', 'sqlite'] as const) {
  describe(`watch cache end to end (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ backend });
    });
    after(async () => {
      await server?.stop();
      if (server) removeDir(server.dataDir);
    });

    it('a client-node informer keeps an exact mirror of 2,000 ConfigMaps under concurrent writes and watch restarts', async () => {
      await informerMirror(server);
    });

    it('a watch with allowWatchBookmarks and timeoutSeconds=4 gets a BOOKMARK about 2 s before its end', async () => {
      const c = new Client(server);
      try {
        await createNamespace(c, 'bookmarks');
        const list = await c.ok('GET', '/api/v1/namespaces/bookmarks/configmaps');
        const w = openWatch(server, `/api/v1/namespaces/bookmarks/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=4&resourceVersion=${list.metadata.resourceVersion}`);
        assert.equal(await w.status, 200);
        const made = await c.ok('POST', '/api/v1/namespaces/bookmarks/configmaps', cmBody('during', { v: '1' }));
        await w.ended;
        const types = w.events.map((e) => e.type);
        assert.deepEqual(types, ['ADDED', 'BOOKMARK']);
        const bookmark = w.events[1]!;
        assert.deepEqual(Object.keys(bookmark.object).sort(), ['apiVersion', 'kind', 'metadata']);
        assert.equal(bookmark.object.kind, 'ConfigMap');
        assert.equal(bookmark.object.apiVersion, 'v1');
        assert.deepEqual(Object.keys(bookmark.object.metadata), ['resourceVersion']);
        assert.ok(Number(bookmark.object.metadata.resourceVersion) >= Number(made.metadata.resourceVersion));
        // Sent at the deadline minus 2 s (generous bounds for a busy machine).
        assert.ok(bookmark.at >= 1000 && bookmark.at < 4000, `bookmark after ${bookmark.at} ms`);
      } finally {
        c.close();
      }
    });

    it('sendInitialEvents: ADDED for the state, a BOOKMARK marked initial-events-end, then live events', async () => {
      const c = new Client(server);
      try {
        await createNamespace(c, 'initial');
        for (const n of ['a', 'b', 'c']) await c.ok('POST', '/api/v1/namespaces/initial/configmaps', cmBody(n, { v: n }));
        const before = await c.ok('GET', '/api/v1/namespaces/initial/configmaps');
        const w = openWatch(server, '/api/v1/namespaces/initial/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=20');
        try {
          assert.equal(await w.status, 200);
          await w.waitFor((ev) => ev.some((e) => e.type === 'BOOKMARK'));
          const initial = w.events.slice(0, -1);
          assert.deepEqual(
            initial.map((e) => `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`),
            (before.items as any[]).map((o) => `ADDED ${o.metadata.name}@${o.metadata.resourceVersion}`),
          );
          const end = w.events[w.events.length - 1]!;
          assert.equal(end.type, 'BOOKMARK');
          assert.equal(end.object.kind, 'ConfigMap');
          assert.deepEqual(end.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
          // Unset resourceVersion: the state is at least a consistent read's.
          assert.ok(Number(end.object.metadata.resourceVersion) >= Number(before.metadata.resourceVersion));
          const d = await c.ok('POST', '/api/v1/namespaces/initial/configmaps', cmBody('d', { v: 'd' }));
          await w.waitFor((ev) => ev.length > initial.length + 1);
          const live = w.events[initial.length + 1]!;
          assert.equal(live.type, 'ADDED');
          assert.equal(live.object.metadata.name, 'd');
          assert.equal(live.object.metadata.resourceVersion, d.metadata.resourceVersion);
          assert.ok(Number(d.metadata.resourceVersion) > Number(end.object.metadata.resourceVersion));
        } finally {
          w.close();
        }
      } finally {
        c.close();
      }
    });
  });
}

describe('watch cache end to end: history limits', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ backend: 'memory', args: ['--watch-cache-capacity', '5'] });
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('a watch from a version older than the history is a 200 stream with one ERROR event (410 Expired)', async () => {
    const c = new Client(server);
    try {
      await createNamespace(c, 'old');
      const first = await c.ok('POST', '/api/v1/namespaces/old/configmaps', cmBody('first', { v: '0' }));
      for (let i = 0; i < 8; i++) await c.ok('POST', '/api/v1/namespaces/old/configmaps', cmBody(`n${i}`, { v: '0' }));
      const rv = first.metadata.resourceVersion as string;
      const w = openWatch(server, `/api/v1/namespaces/old/configmaps?watch=1&resourceVersion=${rv}`);
      assert.equal(await w.status, 200);
      await w.ended;
      assert.equal(w.events.length, 1);
      const e = w.events[0]!;
      assert.equal(e.type, 'ERROR');
      assert.equal(e.object.kind, 'Status');
      assert.equal(e.object.apiVersion, 'v1');
      assert.equal(e.object.status, 'Failure');
      assert.equal(e.object.code, 410);
      assert.equal(e.object.reason, 'Expired');
      assert.match(e.object.message, new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));
      // A list then a watch from its version works.
      const list = await c.ok('GET', '/api/v1/namespaces/old/configmaps');
      const again = openWatch(server, `/api/v1/namespaces/old/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=1`);
      assert.equal(await again.status, 200);
      await again.ended;
      assert.deepEqual(again.events, []);
      // An Exact list of that version is still served: from the store, which has not compacted it.
      const exact = await c.request('GET', `/api/v1/namespaces/old/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      assert.equal(exact.status, 200);
      assert.equal(exact.json.metadata.resourceVersion, rv);
      const names = exact.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
      assert.ok(names.includes('first') && !names.includes('n0'), names.join(','));
    } finally {
      c.close();
    }
  });
});

describe('watch cache end to end: kubectl and gzip (memory)', () => {
  let server: TestServer;
  let c: Client;
  const ns = 'chunks';
  const N = 1000;
  before(async () => {
    server = await startServer({ backend: 'memory' });
    c = new Client(server);
    await createNamespace(c, ns);
    await pool(N, 8, async (i) => {
      const name = `chunk-${String(i).padStart(4, '0')}`;
      const labels = { tier: i % 10 === 0 ? 'gold' : 'plain' };
      await c.ok('POST', `/api/v1/namespaces/${ns}/configmaps`, cmBody(name, { v: String(i), pad: 'x'.repeat(200) }, labels));
    });
  });
  after(async () => {
    c?.close();
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('kubectl get --chunk-size=50 lists all 1,000 over several limit/continue requests', { skip: kubectlMissing() }, async () => {
    const r = await kubectl(server, ['get', 'cm', '-n', ns, '--chunk-size=50', '-o', 'name', '-v=6']);
    assert.equal(r.code, 0, r.stderr);
    const names = r.stdout.split('\n').filter((l) => l.startsWith('configmap/chunk-'));
    assert.equal(names.length, N);
    assert.equal(new Set(names).size, N);
    const gets = r.stderr.split('\n').filter((l) => /GET https:\/\/\S+\/api\/v1\/namespaces\/chunks\/configmaps\?\S*limit=50\S* 200 OK/.test(l));
    const continued = gets.filter((l) => /[?&]continue=/.test(l));
    // 1,001 objects (with the root CA ConfigMap): 21 pages, 20 of them continued.
    assert.equal(gets.length, 21, r.stderr.slice(0, 2000));
    assert.equal(continued.length, 20);
  });

  it('kubectl get -l and --field-selector', { skip: kubectlMissing() }, async () => {
    const gold = await kubectl(server, ['get', 'cm', '-n', ns, '-l', 'tier=gold', '-o', 'name']);
    assert.equal(gold.code, 0, gold.stderr);
    const want = Array.from({ length: N / 10 }, (_, i) => `configmap/chunk-${String(i * 10).padStart(4, '0')}`);
    assert.deepEqual(gold.stdout.trim().split('\n'), want);
    const one = await kubectl(server, ['get', 'cm', '-n', ns, '--field-selector', 'metadata.name=chunk-0421', '-o', 'jsonpath={.items[*].data.v}']);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout, '421');
    const none = await kubectl(server, ['get', 'cm', '-n', ns, '--field-selector', 'metadata.name=nope', '-o', 'name']);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, '');
  });

  it('kubectl get cm -w sees creates, updates and deletes', { skip: kubectlMissing() }, async () => {
    await createNamespace(c, 'kw');
    await c.ok('POST', '/api/v1/namespaces/kw/configmaps', cmBody('before', { v: '0' }));
    const proc = spawn(
      findKubectl()!,
      ['--kubeconfig', server.kubeconfig, 'get', 'cm', '-n', 'kw', '-w', '--output-watch-events', '-o', 'jsonpath={.type} {.object.metadata.name} {.object.data.v}{"\\n"}'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise((r) => proc.once('exit', r));
    const lines = (): string[] => out.split('\n').filter(Boolean).filter((l) => !l.includes('kube-root-ca.crt'));
    try {
      await eventually(async () => lines().length >= 1, 15_000);
      await c.ok('POST', '/api/v1/namespaces/kw/configmaps', cmBody('w', { v: '1' }));
      await c.ok('PATCH', '/api/v1/namespaces/kw/configmaps/w', { data: { v: '2' } }, { 'Content-Type': 'application/merge-patch+json' });
      await c.ok('DELETE', '/api/v1/namespaces/kw/configmaps/w');
      await eventually(async () => lines().length >= 4, 15_000).catch(() => undefined);
      assert.deepEqual(lines(), ['ADDED before 0', 'ADDED w 1', 'MODIFIED w 2', 'DELETED w 2'], err);
    } finally {
      proc.kill('SIGTERM');
      await exited;
    }
  });

  it('Accept-Encoding: gzip compresses a list over 128 KiB, not a small one', async () => {
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const big = await c.request('GET', path, undefined, { 'Accept-Encoding': 'gzip' });
    assert.equal(big.status, 200);
    assert.equal(big.headers['content-encoding'], 'gzip');
    const list = JSON.parse(gunzipSync(big.body).toString('utf8'));
    assert.equal(list.kind, 'ConfigMapList');
    assert.equal(list.items.length, N + 1);
    assert.ok(gunzipSync(big.body).length > 128 * 1024);
    assert.ok(big.body.length < 128 * 1024);

    const plain = await c.request('GET', path);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.json.items.length, N + 1);

    const small = await c.request('GET', `${path}?limit=5`, undefined, { 'Accept-Encoding': 'gzip' });
    assert.equal(small.status, 200);
    assert.equal(small.headers['content-encoding'], undefined);
    assert.equal(small.json.items.length, 5);
    const one = await c.request('GET', `${path}/chunk-0001`, undefined, { 'Accept-Encoding': 'gzip' });
    assert.equal(one.headers['content-encoding'], undefined);
    assert.equal(one.json.data.v, '1');
  });
});
