import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Store } from '../../src/storage/store.js';
import { StoreError } from '../../src/storage/store.js';
import type { SqliteStoreOptions, SqliteSynchronous } from '../../src/storage/sqlite.js';
import { compareKeys, prefixEnd, SqliteStore } from '../../src/storage/sqlite.js';
import { describeStoreConformance, tick } from './storage-conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let seq = 0;
function freshPath(): string {
  return join(dir, `store-${++seq}.db`);
}

function openAt(path: string, synchronous: SqliteSynchronous, extra: Partial<SqliteStoreOptions> = {}): SqliteStore {
  return SqliteStore.open({ path, synchronous, ...extra });
}

// FULL also reads history through the key index (revScanMax 0), so both
// query plans for watch replay and past-revision lists run the suite.
for (const [synchronous, revScanMax] of [
  ['NORMAL', undefined],
  ['FULL', 0],
] as const) {
  const paths = new WeakMap<Store, string>();
  const extra = revScanMax === undefined ? {} : { revScanMax };
  describeStoreConformance(
    `sqlite ${synchronous}${revScanMax === undefined ? '' : ` revScanMax=${revScanMax}`}`,
    () => {
      const path = freshPath();
      const s = openAt(path, synchronous, extra);
      paths.set(s, path);
      return s;
    },
    {
      reopen: async (old) => {
        const path = paths.get(old);
        assert.ok(path, 'reopen of a store this suite opened');
        await old.close();
        const s = openAt(path, synchronous, extra);
        paths.set(s, path);
        return s;
      },
    },
  );
}

describe('sqlite store', () => {
  it('commits writes issued in the same tick in one transaction', async () => {
    const s = openAt(freshPath(), 'NORMAL');
    try {
      await s.create('/warm', 'x');
      const before = s.stats();
      const results = await Promise.allSettled([
        ...Array.from({ length: 50 }, (_, i) => s.create(`/k/${i}`, 'x')),
        s.create('/warm', 'dup'),
      ]);
      const after = s.stats();
      assert.equal(after.transactions - before.transactions, 1);
      assert.equal(after.writes - before.writes, 51);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 50);
      assert.equal(await s.currentRevision(), 51);
    } finally {
      await s.close();
    }
  });

  it('refuses a second open of the same database with Unavailable', async () => {
    const path = freshPath();
    const s = openAt(path, 'NORMAL');
    try {
      await s.create('/a', '1');
      const t0 = Date.now();
      assert.throws(
        () => openAt(path, 'NORMAL', { busyTimeoutMs: 50 }),
        (err: unknown) => err instanceof StoreError && err.code === 'Unavailable' && /locked/.test(err.message),
      );
      assert.ok(Date.now() - t0 < 2000);
    } finally {
      await s.close();
    }
    const again = openAt(path, 'NORMAL');
    assert.equal((await again.get('/a'))?.value, '1');
    await again.close();
  });

  it('a write the database refuses fails Unavailable alone, leaving no trace', async () => {
    const path = freshPath();
    const s = openAt(path, 'NORMAL', { maxDbBytes: 512 * 1024 });
    const events: number[] = [];
    const h = s.watch('', 0, { onEvents: (b) => events.push(...b.map((e) => e.revision)), onError: () => {} });
    try {
      await s.create('/a', 'small');
      const results = await Promise.allSettled([
        s.create('/b', 'small'),
        s.create('/big', 'x'.repeat(4 << 20)),
        s.update('/a', 'small2', 1),
      ]);
      const [b, big, a] = results;
      assert.equal(b.status, 'fulfilled');
      assert.equal(a.status, 'fulfilled');
      assert.equal(big.status, 'rejected');
      const err = (big as PromiseRejectedResult).reason as unknown;
      assert.ok(err instanceof StoreError && err.code === 'Unavailable', String(err));
      assert.match(err.message, /full/);
      assert.equal(await s.currentRevision(), 3);
      assert.deepEqual(
        (await s.list('/')).items.map((kv) => [kv.key, kv.modRevision]),
        [
          ['/a', 3],
          ['/b', 2],
        ],
      );
      await tick();
      assert.deepEqual(events, [1, 2, 3]);
      // Still writable, and the counter has no hole.
      assert.equal((await s.create('/c', 'small')).modRevision, 4);
    } finally {
      h.stop();
      await s.close();
    }
    const again = openAt(path, 'NORMAL');
    assert.equal(await again.currentRevision(), 4);
    assert.equal(await again.get('/big'), undefined);
    await again.close();
  });

  it('prefixEnd bounds exactly the keys with the prefix, in code-point order', () => {
    assert.equal(prefixEnd(''), undefined);
    assert.equal(prefixEnd('/registry/pods/'), '/registry/pods0');
    assert.equal(prefixEnd('a%'), 'a&');
    assert.equal(prefixEnd('a\ud7ff'), 'a\ue000');
    assert.equal(prefixEnd('a\uffff'), 'a\u{10000}');
    assert.equal(prefixEnd('a\u{10ffff}'), 'b');
    assert.equal(prefixEnd('\u{10ffff}'), undefined);
    assert.ok(compareKeys('a\uffff', 'a\u{10000}') < 0);
    assert.ok(compareKeys('a\u{10000}', 'a\u{10001}') < 0);
    assert.ok(compareKeys('ab', 'abc') < 0);
    assert.equal(compareKeys('x', 'x'), 0);
  });

  it('lists keys with characters beyond U+FFFF under their prefix', async () => {
    const s = openAt(freshPath(), 'NORMAL');
    try {
      for (const k of ['/p\uffff/a', '/p\uffff\u{1f600}', '/p\u{10000}', '/p\uffff']) await s.create(k, k);
      assert.deepEqual(
        (await s.list('/p\uffff')).items.map((kv) => kv.key),
        ['/p\uffff', '/p\uffff/a', '/p\uffff\u{1f600}'],
      );
      assert.equal(await s.count('/p\uffff'), 3);
    } finally {
      await s.close();
    }
  });

  for (const synchronous of ['NORMAL', 'FULL'] as const) {
    it(`every acknowledged write survives kill -9 (${synchronous})`, async () => {
      const path = freshPath();
      const fixture = fileURLToPath(new URL('./fixtures/sqlite-writer.js', import.meta.url));
      const child = spawn(process.execPath, [fixture, path, synchronous, '32'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      let acks = 0;
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('close', (code, signal) => resolve({ code, signal })),
      );
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        acks += chunk.split('\n').length - 1;
        if (acks >= 600 && !child.killed) child.kill('SIGKILL');
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const { signal } = await exited;
      clearTimeout(timer);
      assert.equal(signal, 'SIGKILL');

      const lines = out.split('\n').filter((l) => l.length > 0);
      assert.ok(lines.length >= 600, `only ${lines.length} acks before the kill`);
      const s = openAt(path, synchronous);
      try {
        const head = await s.currentRevision();
        const revisions = new Set<number>();
        for (const line of lines) {
          const [kind, rev, key, value] = line.split(' ');
          const revision = Number(rev);
          assert.ok(!revisions.has(revision), `revision ${revision} acknowledged twice`);
          revisions.add(revision);
          assert.ok(revision <= head, `acked revision ${revision} above the recovered head ${head}`);
          const kv = await s.get(key!, { revision });
          if (kind === 'put') {
            assert.deepEqual(kv && [kv.value, kv.modRevision], [value, revision], `acked ${line}`);
          } else {
            assert.equal(kv, undefined, `acked ${line}`);
          }
        }
        // The recovered store keeps counting after the crash.
        assert.equal((await s.create('/after-crash', 'x')).modRevision, head + 1);
      } finally {
        await s.close();
      }
    });
  }
});
