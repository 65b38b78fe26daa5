import type Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type {
  DeleteResult,
  GetOptions,
  KeyValue,
  ListOptions,
  ListResult,
  Store,
  StoreEvent,
  WatchCallbacks,
  WatchHandle,
} from './store.js';
import { StoreError } from './store.js';
import { compactedError } from './memory.js';
import { WatcherSet } from './watchers.js';

export type SqliteSynchronous = 'NORMAL' | 'FULL';

type BetterSqlite3 = typeof Database;
let betterSqlite3: BetterSqlite3 | undefined;

/**
 * better-sqlite3, loaded on the first open: it is an optional dependency
 * (a native addon that may not have built), so a server on the memory or
 * etcd3 store never needs it, and one on SQLite is told what is missing.
 */
function sqliteModule(): BetterSqlite3 {
  if (betterSqlite3) return betterSqlite3;
  try {
    betterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as BetterSqlite3;
  } catch (err) {
    throw new StoreError('Unavailable', sqliteMissingMessage(err));
  }
  return betterSqlite3;
}

function sqliteMissingMessage(err: unknown): string {
  return (
    `the sqlite storage backend needs the optional dependency better-sqlite3, which is not installed or whose native addon did not build ` +
    `(${(err as Error).message.split('\n')[0]}); install it with its build step allowed (npm install better-sqlite3), ` +
    `or use --storage-backend memory or etcd3`
  );
}

export interface SqliteStoreOptions {
  /** Database file; the server uses `<data-dir>/capstan.db`. */
  path: string;
  /**
   * NORMAL (default): an acknowledged write survives a process crash (kill -9).
   * FULL: it also survives power loss, at one fsync per group commit.
   */
  synchronous?: SqliteSynchronous;
  /** How long to wait for a lock held by another connection; default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * Hold the database lock for the store's lifetime (default true), so a
   * second server on the same data directory fails at open instead of
   * writing behind this one's watchers and revision counter.
   */
  exclusive?: boolean;
  /** Cap on the database size; writes beyond it fail Unavailable (a quota, and a way to test disk-full). */
  maxDbBytes?: number;
  /**
   * Tuning: up to this many revisions behind the head, history reads (watch
   * replay, lists at a past revision) walk the revision range instead of the
   * prefix's key range. Default 10000; tests set 0 to cover the other path.
   */
  revScanMax?: number;
}

export interface SqliteStoreStats {
  /** Write transactions committed (or attempted) by group commit. */
  transactions: number;
  /** Write operations executed in them. */
  writes: number;
}

const SCHEMA_VERSION = 1;

/*
 * Schema. kv_log is the single copy of every value: one row per write, keyed
 * by its revision, tombstones for deletes (value NULL). kv_current maps each
 * live key to its newest log row, so current reads, lists and counts walk a
 * small clustered index instead of the history, and a value is written once
 * per write. meta holds the revision counter and the compacted revision:
 * compaction may delete the newest log rows (a trailing delete), so the
 * counter cannot be derived from kv_log alone.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  revision INTEGER NOT NULL,
  compacted INTEGER NOT NULL
);
INSERT OR IGNORE INTO meta (id, revision, compacted) VALUES (1, 0, 0);
CREATE TABLE IF NOT EXISTS kv_log (
  rev INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  deleted INTEGER NOT NULL CHECK (deleted IN (0, 1)),
  value TEXT,
  create_rev INTEGER,
  prev_rev INTEGER
);
CREATE INDEX IF NOT EXISTS kv_log_key_rev ON kv_log (key, rev);
CREATE TABLE IF NOT EXISTS kv_current (
  key TEXT PRIMARY KEY,
  rev INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Default of SqliteStoreOptions.revScanMax. */
const REV_SCAN_MAX = 10_000;

/** Revisions compacted per transaction, so a large compaction doesn't stall the event loop. */
const COMPACT_CHUNK = 5000;

type WriteOp =
  | { kind: 'create'; key: string; value: string }
  | { kind: 'update'; key: string; value: string; expected: number }
  | { kind: 'delete'; key: string; expected: number | undefined };

interface Pending {
  op: WriteOp;
  resolve: (event: StoreEvent) => void;
  reject: (err: StoreError) => void;
}

type Outcome = { ok: true; event: StoreEvent } | { ok: false; error: StoreError };

interface KvRow {
  key: string;
  value: string;
  create_rev: number;
  rev: number;
}

interface LogRow {
  rev: number;
  key: string;
  deleted: number;
  value: string | null;
  create_rev: number | null;
}

interface EventRow extends LogRow {
  prev_rev: number | null;
  prev_value: string | null;
  prev_create_rev: number | null;
}

interface ChangedRow {
  key: string;
  rev: number;
  deleted: number;
}

/**
 * The durable store: one SQLite file in WAL mode. Writes issued in the same
 * event-loop turn are committed in one transaction (group commit), each op
 * keeping its own precondition; promises resolve and watchers hear of the
 * events only after COMMIT. Reads are synchronous queries on the same
 * connection, so they always see exactly the committed state.
 */
export class SqliteStore implements Store {
  readonly backend = 'sqlite';
  readonly progressAfterReplay = true;
  private revision: number;
  private compacted: number;
  private closed = false;
  private queue: Pending[] = [];
  private flushTimer: NodeJS.Immediate | undefined;
  private compaction: Promise<void> = Promise.resolve();
  private readonly watchers = new WatcherSet(() => this.revision);
  private readonly statements = new Map<string, Database.Statement>();
  private readonly counters: SqliteStoreStats = { transactions: 0, writes: 0 };
  private readonly writeBatch: Database.Transaction<(ops: WriteOp[]) => Outcome[]>;

  static open(opts: SqliteStoreOptions): SqliteStore {
    const synchronous = opts.synchronous ?? 'NORMAL';
    if (synchronous !== 'NORMAL' && synchronous !== 'FULL') {
      throw new StoreError('Unavailable', `sqlite synchronous must be NORMAL or FULL, not ${String(synchronous)}`);
    }
    let db: Database.Database | undefined;
    try {
      const Sqlite = sqliteModule();
      try {
        db = new Sqlite(opts.path, { timeout: opts.busyTimeoutMs ?? 5000 });
      } catch (err) {
        // The package is there but its addon is not (its install script did not run or failed).
        if (/bindings file|\.node\b|NODE_MODULE_VERSION/.test((err as Error).message)) throw new StoreError('Unavailable', sqliteMissingMessage(err));
        throw err;
      }
      // Before the first access: in WAL mode this also keeps the wal-index in
      // heap memory instead of a -shm file.
      if (opts.exclusive ?? true) db.pragma('locking_mode = EXCLUSIVE');
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new StoreError('Unavailable', `sqlite ${opts.path}: cannot enable WAL (journal_mode is ${String(mode)})`);
      db.pragma(`synchronous = ${synchronous}`);
      db.pragma('cache_size = -65536');
      if (opts.maxDbBytes !== undefined) {
        const pageSize = Number(db.pragma('page_size', { simple: true }));
        db.pragma(`max_page_count = ${Math.max(1, Math.floor(opts.maxDbBytes / pageSize))}`);
      }
      const version = Number(db.pragma('user_version', { simple: true }));
      if (version > SCHEMA_VERSION) {
        throw new StoreError('Unavailable', `sqlite ${opts.path}: schema version ${version} is newer than this server's (${SCHEMA_VERSION})`);
      }
      db.transaction(() => {
        db!.exec(SCHEMA);
        db!.pragma(`user_version = ${SCHEMA_VERSION}`);
      }).immediate();
      const meta = db.prepare<[], { revision: number; compacted: number; max_rev: number | null }>(
        'SELECT revision, compacted, (SELECT MAX(rev) FROM kv_log) AS max_rev FROM meta',
      ).get();
      if (!meta) throw new StoreError('Unavailable', `sqlite ${opts.path}: meta row missing`);
      return new SqliteStore(db, opts.path, Math.max(meta.revision, meta.max_rev ?? 0), meta.compacted, opts.revScanMax ?? REV_SCAN_MAX);
    } catch (err) {
      db?.close();
      throw unavailable(err, `open ${opts.path}`);
    }
  }

  private constructor(
    private readonly db: Database.Database,
    readonly path: string,
    revision: number,
    compacted: number,
    private readonly revScanMax: number,
  ) {
    this.revision = revision;
    this.compacted = compacted;
    this.writeBatch = db.transaction((ops: WriteOp[]) => this.applyBatch(ops));
  }

  /** Group-commit counters, for tests and metrics. */
  stats(): SqliteStoreStats {
    return { ...this.counters };
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  async get(key: string, opts: GetOptions = {}): Promise<KeyValue | undefined> {
    this.checkOpen();
    return this.read('get', () => {
      if (opts.revision === undefined || opts.revision === this.revision) {
        if (opts.revision !== undefined) this.checkReadable(opts.revision);
        return this.currentKv(key);
      }
      this.checkReadable(opts.revision);
      return this.kvAt(key, opts.revision);
    });
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    return this.read('list', () => {
      const revision = opts.revision ?? this.revision;
      this.checkReadable(revision);
      const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
      const from = opts.startKey !== undefined && compareKeys(opts.startKey, prefix) > 0 ? opts.startKey : prefix;
      const to = prefixEnd(prefix);
      return this.listRange(from, to, revision, limit);
    });
  }

  async count(prefix: string): Promise<number> {
    this.checkOpen();
    return this.read('count', () => this.countCurrent(prefix, prefixEnd(prefix), true));
  }

  async create(key: string, value: string): Promise<KeyValue> {
    const event = await this.enqueue({ kind: 'create', key, value });
    return event.kv!;
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    const event = await this.enqueue({ kind: 'update', key, value, expected: expectedModRevision });
    return event.kv!;
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const event = await this.enqueue({ kind: 'delete', key, expected: expectedModRevision });
    return { prev: event.prevKv!, revision: event.revision };
  }

  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle {
    if (this.closed) return this.watchers.rejected(callbacks, closedError());
    if (afterRevision < this.compacted) return this.watchers.rejected(callbacks, compactedError(this.compacted));
    let backlog: StoreEvent[] = [];
    if (afterRevision < this.revision) {
      try {
        backlog = this.eventsAfter(prefix, afterRevision);
      } catch (err) {
        return this.watchers.rejected(callbacks, unavailable(err, 'watch replay'));
      }
    }
    // Replay and registration happen in this same synchronous turn, and
    // commits publish in theirs, so there is no gap or overlap between them.
    return this.watchers.add(prefix, callbacks, backlog, afterRevision);
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision > this.revision) {
      throw new StoreError('FutureRevision', `compact revision ${revision} is newer than ${this.revision}`);
    }
    const run = this.compaction.then(() => this.compactTo(revision));
    this.compaction = run.catch(() => {});
    return run;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Writes accepted before close are committed, not dropped.
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flush();
    this.watchers.failAll(closedError());
    this.db.close();
  }

  // ---- writes -------------------------------------------------------------

  private enqueue(op: WriteOp): Promise<StoreEvent> {
    if (this.closed) return Promise.reject(closedError());
    return new Promise<StoreEvent>((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      // setImmediate rather than a microtask: it gathers every write issued
      // before the event loop turns, including those of other requests
      // handled in the same I/O phase.
      this.flushTimer ??= setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.flushTimer = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = this.commit(batch.map((p) => p.op));
    } catch (err) {
      // The whole transaction rolled back. Retry each op alone so that one
      // op the database refuses (e.g. a value over the size cap) fails
      // alone; a broken disk fails them all.
      outcomes = batch.length === 1 ? [failure(err)] : batch.map((p) => this.commitOne(p.op));
    }
    const events: StoreEvent[] = [];
    for (const o of outcomes) if (o.ok) events.push(o.event);
    this.watchers.publish(events);
    outcomes.forEach((o, i) => {
      if (o.ok) batch[i]!.resolve(o.event);
      else batch[i]!.reject(o.error);
    });
  }

  private commitOne(op: WriteOp): Outcome {
    try {
      return this.commit([op])[0]!;
    } catch (err) {
      return failure(err);
    }
  }

  /** One transaction; advances the revision counter only once it committed. */
  private commit(ops: WriteOp[]): Outcome[] {
    const before = this.revision;
    this.counters.transactions++;
    this.counters.writes += ops.length;
    try {
      return this.writeBatch.immediate(ops);
    } catch (err) {
      this.revision = before;
      throw err;
    }
  }

  /**
   * Runs inside the transaction. Each op checks its precondition against the
   * state left by the ops before it, and a failed precondition writes
   * nothing, so ops fail independently without savepoints.
   */
  private applyBatch(ops: WriteOp[]): Outcome[] {
    const out: Outcome[] = [];
    const start = this.revision;
    for (const op of ops) {
      const prev = this.currentKv(op.key);
      const error = preconditionError(op, prev);
      if (error) {
        out.push({ ok: false, error });
        continue;
      }
      const revision = ++this.revision;
      if (op.kind === 'delete') {
        this.stmt('INSERT INTO kv_log (rev, key, deleted, value, create_rev, prev_rev) VALUES (?, ?, 1, NULL, NULL, ?)').run(
          revision,
          op.key,
          prev!.modRevision,
        );
        this.stmt('DELETE FROM kv_current WHERE key = ?').run(op.key);
        out.push({ ok: true, event: withPrev({ type: 'delete', key: op.key, revision }, prev) });
        continue;
      }
      const kv: KeyValue = {
        key: op.key,
        value: op.value,
        createRevision: prev ? prev.createRevision : revision,
        modRevision: revision,
      };
      this.stmt('INSERT INTO kv_log (rev, key, deleted, value, create_rev, prev_rev) VALUES (?, ?, 0, ?, ?, ?)').run(
        revision,
        op.key,
        op.value,
        kv.createRevision,
        prev ? prev.modRevision : null,
      );
      this.stmt('INSERT INTO kv_current (key, rev) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET rev = excluded.rev').run(
        op.key,
        revision,
      );
      out.push({ ok: true, event: withPrev({ type: 'put', key: op.key, revision, kv }, prev) });
    }
    if (this.revision !== start) this.stmt('UPDATE meta SET revision = ?').run(this.revision);
    return out;
  }

  // ---- compaction ---------------------------------------------------------

  private async compactTo(target: number): Promise<void> {
    while (this.compacted < target) {
      this.checkOpen();
      const to = Math.min(target, this.compacted + COMPACT_CHUNK);
      try {
        this.db.transaction(() => this.compactRange(this.compacted, to)).immediate();
      } catch (err) {
        throw unavailable(err, 'compact');
      }
      this.compacted = to;
      if (to < target) await nextMacrotask();
    }
  }

  /**
   * Drops the log rows no read at a revision >= `to` can see: for each key
   * written in (from, to], every row at or below `to` except the newest one,
   * and that one too if it is a tombstone. Keys not written in (from, to]
   * already have at most that one row at or below `from`. The kept row also
   * serves as prevKv of the key's first event after `to`.
   */
  private compactRange(from: number, to: number): void {
    this.stmt(
      `DELETE FROM kv_log WHERE rev IN (
         SELECT o.rev FROM (SELECT DISTINCT key FROM kv_log WHERE rev > @from AND rev <= @to) AS k
         JOIN kv_log AS o ON o.key = k.key AND o.rev <= @to
         WHERE o.deleted = 1
            OR o.rev < (SELECT MAX(m.rev) FROM kv_log AS m WHERE m.key = k.key AND m.rev <= @to))`,
    ).run({ from, to });
    this.stmt('UPDATE meta SET compacted = ?').run(to);
  }

  // ---- reads --------------------------------------------------------------

  private currentKv(key: string): KeyValue | undefined {
    const row = this.stmt<[string], KvRow>(
      'SELECT c.key, l.value, l.create_rev, c.rev FROM kv_current AS c JOIN kv_log AS l ON l.rev = c.rev WHERE c.key = ?',
    ).get(key);
    return row ? toKv(row) : undefined;
  }

  /** The key's value as of `revision` (a retained revision). */
  private kvAt(key: string, revision: number): KeyValue | undefined {
    const row = this.stmt<[string, number], LogRow>(
      'SELECT rev, key, deleted, value, create_rev FROM kv_log WHERE key = ? AND rev <= ? ORDER BY rev DESC LIMIT 1',
    ).get(key, revision);
    return row && !row.deleted ? logKv(row) : undefined;
  }

  /**
   * Keys in [from, to) as of `revision`. The current index answers for every
   * key not written after `revision`; only those written since (usually a
   * few, as continue tokens read just behind the head) are looked up in the
   * log. This keeps a paginated list at a past revision O(page + changes).
   */
  private listRange(from: string, to: string | undefined, revision: number, limit: number): ListResult {
    const changed = revision < this.revision ? this.changedSince(from, to, revision) : [];
    const changedKeys = new Set(changed.map((c) => c.key));
    const past: KeyValue[] = [];
    let changedLive = 0;
    for (const c of changed) {
      if (!c.deleted) changedLive++;
      const kv = this.kvAt(c.key, revision);
      if (kv) past.push(kv);
    }
    past.sort((a, b) => compareKeys(a.key, b.key));

    const rows = this.currentRows(from, to, limit > 0 ? limit + changedLive : -1);
    const items: KeyValue[] = [];
    let i = 0;
    let j = 0;
    while (limit === 0 || items.length < limit) {
      while (i < rows.length && changedKeys.has(rows[i]!.key)) i++;
      const a = i < rows.length ? rows[i]! : undefined;
      const b = j < past.length ? past[j]! : undefined;
      if (!a && !b) break;
      if (a && (!b || compareKeys(a.key, b.key) < 0)) {
        items.push(toKv(a));
        i++;
      } else {
        items.push(b!);
        j++;
      }
    }
    let remaining = 0;
    if (limit > 0 && items.length === limit) {
      const total = this.countCurrent(from, to, true) - changedLive + past.length;
      remaining = total - items.length;
    }
    return { items, revision, remaining };
  }

  /** Keys in [from, to) written after `revision`, and whether their newest write is a delete. */
  private changedSince(from: string, to: string | undefined, revision: number): ChangedRow[] {
    const k = this.keyColumn('key', revision);
    // Grouped here rather than by GROUP BY, which makes SQLite walk the key
    // index over the whole range whatever the rev bound.
    const sql = `SELECT key, rev, deleted FROM kv_log WHERE rev > ? AND ${k} >= ?` + (to === undefined ? '' : ` AND ${k} < ?`);
    const stmt = this.stmt<unknown[], ChangedRow>(sql);
    const rows = to === undefined ? stmt.all(revision, from) : stmt.all(revision, from, to);
    const newest = new Map<string, ChangedRow>();
    for (const row of rows) {
      const seen = newest.get(row.key);
      if (!seen || seen.rev < row.rev) newest.set(row.key, row);
    }
    return [...newest.values()];
  }

  private currentRows(from: string, to: string | undefined, limit: number): KvRow[] {
    const sql =
      'SELECT c.key, l.value, l.create_rev, c.rev FROM kv_current AS c JOIN kv_log AS l ON l.rev = c.rev WHERE c.key >= ?' +
      (to === undefined ? '' : ' AND c.key < ?') +
      ' ORDER BY c.key LIMIT ?';
    const stmt = this.stmt<unknown[], KvRow>(sql);
    return to === undefined ? stmt.all(from, limit) : stmt.all(from, to, limit);
  }

  private countCurrent(from: string, to: string | undefined, inclusive: boolean): number {
    const sql =
      `SELECT count(*) AS n FROM kv_current WHERE key ${inclusive ? '>=' : '>'} ?` + (to === undefined ? '' : ' AND key < ?');
    const stmt = this.stmt<unknown[], { n: number }>(sql);
    return (to === undefined ? stmt.get(from) : stmt.get(from, to))!.n;
  }

  private eventsAfter(prefix: string, afterRevision: number): StoreEvent[] {
    const to = prefixEnd(prefix);
    const k = this.keyColumn('l.key', afterRevision);
    const sql =
      `SELECT l.rev, l.key, l.deleted, l.value, l.create_rev, l.prev_rev,
              p.value AS prev_value, p.create_rev AS prev_create_rev
         FROM kv_log AS l LEFT JOIN kv_log AS p ON p.rev = l.prev_rev
        WHERE l.rev > ? AND ${k} >= ?` +
      (to === undefined ? '' : ` AND ${k} < ?`) +
      ' ORDER BY l.rev';
    const stmt = this.stmt<unknown[], EventRow>(sql);
    const rows = to === undefined ? stmt.all(afterRevision, prefix) : stmt.all(afterRevision, prefix, to);
    return rows.map(toEvent);
  }

  /**
   * The key column for a query over log rows after `revision` within a key
   * range. Without statistics SQLite prefers the (key, rev) index, which
   * reads the prefix's whole history; when few revisions follow, the unary
   * `+` steers it to the rev range instead, bounding the work by the
   * revisions read rather than by the size of the prefix.
   */
  private keyColumn(column: string, revision: number): string {
    return this.revision - revision <= this.revScanMax ? `+${column}` : column;
  }

  // ---- plumbing -----------------------------------------------------------

  private stmt<P extends unknown[] = unknown[], R = unknown>(sql: string): Database.Statement<P, R> {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s as unknown as Database.Statement<P, R>;
  }

  private read<T>(what: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw unavailable(err, what);
    }
  }

  private checkReadable(revision: number): void {
    if (revision > this.revision) {
      throw new StoreError('FutureRevision', `revision ${revision} is newer than the current revision ${this.revision}`);
    }
    if (revision < this.compacted) throw compactedError(this.compacted);
  }

  private checkOpen(): void {
    if (this.closed) throw closedError();
  }
}

function preconditionError(op: WriteOp, prev: KeyValue | undefined): StoreError | undefined {
  if (op.kind === 'create') {
    return prev ? new StoreError('KeyExists', `key ${op.key} already exists`, prev) : undefined;
  }
  if (!prev) return new StoreError('NotFound', `key ${op.key} not found`);
  if (op.expected !== undefined && prev.modRevision !== op.expected) {
    return new StoreError('Conflict', `key ${op.key} was modified at revision ${prev.modRevision}`, prev);
  }
  return undefined;
}

function withPrev(event: StoreEvent, prev: KeyValue | undefined): StoreEvent {
  if (prev) event.prevKv = prev;
  return event;
}

function toKv(row: KvRow): KeyValue {
  return { key: row.key, value: row.value, createRevision: row.create_rev, modRevision: row.rev };
}

function logKv(row: LogRow): KeyValue {
  return { key: row.key, value: row.value ?? '', createRevision: row.create_rev ?? row.rev, modRevision: row.rev };
}

function toEvent(row: EventRow): StoreEvent {
  const event: StoreEvent = row.deleted
    ? { type: 'delete', key: row.key, revision: row.rev }
    : { type: 'put', key: row.key, revision: row.rev, kv: logKv(row) };
  if (row.prev_rev !== null && row.prev_value !== null) {
    event.prevKv = { key: row.key, value: row.prev_value, createRevision: row.prev_create_rev ?? row.prev_rev, modRevision: row.prev_rev };
  }
  return event;
}

/**
 * The least string greater than every string starting with `prefix`, in
 * SQLite's BINARY order (UTF-8 bytes, i.e. code points): the prefix with its
 * last code point incremented. A LIKE or a `prefix || '\uffff'` bound would
 * mishandle `%`/`_` or keys with code points above U+FFFF. Undefined when
 * there is no upper bound (empty prefix).
 */
export function prefixEnd(prefix: string): string | undefined {
  const cps = Array.from(prefix, (c) => c.codePointAt(0)!);
  while (cps.length > 0) {
    let last = cps.pop()! + 1;
    if (last === 0xd800) last = 0xe000; // surrogates are not code points
    if (last <= 0x10ffff) return String.fromCodePoint(...cps, last);
  }
  return undefined;
}

/** Code-point order, as SQLite compares TEXT (JS `<` compares UTF-16 units). */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codeUnitRank(x) - codeUnitRank(y);
  }
  return a.length - b.length;
}

function codeUnitRank(u: number): number {
  if (u >= 0xd800 && u <= 0xdfff) return u + 0x2000; // astral: after all of the BMP
  if (u >= 0xe000) return u - 0x800;
  return u;
}

function closedError(): StoreError {
  return new StoreError('Closed', 'store is closed');
}

function failure(err: unknown): Outcome {
  return { ok: false, error: unavailable(err, 'write') };
}

function unavailable(err: unknown, what: string): StoreError {
  if (err instanceof StoreError) return err;
  const code = betterSqlite3 && err instanceof betterSqlite3.SqliteError ? err.code : undefined;
  const detail = err instanceof Error ? err.message : String(err);
  let message: string;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    message = `sqlite ${what}: database is locked (${detail}); is another server using the same data directory?`;
  } else if (code === 'SQLITE_FULL') {
    message = `sqlite ${what}: database or disk is full (${detail})`;
  } else {
    message = `sqlite ${what} failed: ${code ? `${code}: ` : ''}${detail}`;
  }
  const out = new StoreError('Unavailable', message);
  out.cause = err;
  return out;
}
