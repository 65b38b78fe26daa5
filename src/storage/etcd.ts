import { readFileSync } from 'node:fs';
import { Etcd3, type ICompare, type IKeyValue, type IOptions, type IRangeRequest, type IRangeResponse, type IResponseHeader } from 'etcd3';
import type { CallOptions } from '@grpc/grpc-js';
import type { DeleteResult, GetOptions, KeyValue, ListOptions, ListResult, Store, WatchCallbacks, WatchHandle } from './store.js';
import { StoreError } from './store.js';
import { compactedError } from './memory.js';
import { EtcdWatchStream } from './etcd-watch.js';

export interface EtcdStoreOptions {
  /** Client URLs (`--etcd-servers`), e.g. `http://127.0.0.1:2379` or `https://...`. */
  endpoints: string[];
  /** `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`: TLS to etcd. */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /**
   * Prepended to every key, on top of the key layout's root: lets tests (or
   * several independent clusters) share one etcd without seeing each other.
   */
  keyspace?: string;
  /** Deadline of one etcd call; past it the request fails Unavailable. Default 10 s. */
  requestTimeoutMs?: number;
  /** How long open() waits for etcd to answer. Default 20 s. */
  connectTimeoutMs?: number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 20_000;

/**
 * The etcd3 backend: the same keys kube-apiserver writes, resourceVersion is
 * etcd's mod revision, every write is one transaction comparing the key's mod
 * revision (or its absence, for create), and current reads are linearizable
 * (quorum) ranges, so every process on one etcd sees every acknowledged write.
 * Watches share one gRPC stream (etcd-watch.ts) that resumes from the last
 * delivered revision when etcd comes back.
 */
export class EtcdStore implements Store {
  readonly backend = 'etcd3';
  readonly progressAfterReplay = false;
  private readonly client: Etcd3;
  private readonly keyspace: string;
  private readonly timeoutMs: number;
  private readonly watchStream: EtcdWatchStream;
  private compacted = 0;
  private probing = false;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Highest revision this store's own writes produced: close() lets watches deliver up to it. */
  private lastWriteRevision = 0;

  private readonly endpoints: string[];

  private constructor(opts: EtcdStoreOptions) {
    this.endpoints = opts.endpoints;
    this.keyspace = opts.keyspace ?? '';
    this.timeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.client = new Etcd3(clientOptions(opts));
    this.watchStream = new EtcdWatchStream(
      () => this.client.watchClient.watch(),
      (revision) => this.noteCompacted(revision),
      (spec, after, through) => this.quietBetween(spec.key, spec.rangeEnd, after, through),
    );
  }

  /** Connects (retrying until connectTimeoutMs) and learns the compacted revision. */
  static async open(opts: EtcdStoreOptions): Promise<EtcdStore> {
    const store = new EtcdStore(opts);
    const deadline = Date.now() + (opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
    for (;;) {
      try {
        await store.currentRevision();
        break;
      } catch (err) {
        if (Date.now() > deadline) {
          await store.close();
          throw new StoreError('Unavailable', `cannot reach etcd at ${opts.endpoints.join(',')}: ${(err as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    await store.probeCompactedRevision();
    return store;
  }

  async currentRevision(): Promise<number> {
    const res = await this.call(() => this.client.kv.range({ key: this.encode('\u0000'), count_only: true }, this.callOptions()));
    return revisionOf(res.header);
  }

  compactedRevision(): number {
    return this.compacted;
  }

  async get(key: string, opts: GetOptions = {}): Promise<KeyValue | undefined> {
    const req: IRangeRequest = { key: this.encode(key) };
    if (opts.revision !== undefined && opts.revision > 0) req.revision = opts.revision;
    const res = await this.call(() => this.client.kv.range(req, this.callOptions()));
    const kv = res.kvs[0];
    return kv ? this.decode(kv) : undefined;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const full = this.keyspace + prefix;
    const req: IRangeRequest = { key: Buffer.from(this.keyspace + (opts.startKey ?? prefix)), range_end: rangeEnd(full) };
    if (opts.limit) req.limit = opts.limit;
    if (opts.revision !== undefined && opts.revision > 0) req.revision = opts.revision;
    const res = await this.call(() => this.client.kv.range(req, this.callOptions()));
    const items = res.kvs.map((kv) => this.decode(kv));
    return { items, revision: opts.revision || revisionOf(res.header), remaining: Number(res.count) - items.length };
  }

  async count(prefix: string): Promise<number> {
    const full = this.keyspace + prefix;
    const res = await this.call(() => this.client.kv.range({ key: Buffer.from(full), range_end: rangeEnd(full), count_only: true }, this.callOptions()));
    return Number(res.count);
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.write(async () => {
      const k = this.encode(key);
      const res = await this.client.kv.txn(
        { compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }], success: [{ request_put: { key: k, value: Buffer.from(value) } }] },
        this.callOptions(),
      );
      if (!res.succeeded) throw new StoreError('KeyExists', `key ${key} already exists`);
      const rev = revisionOf(res.header);
      this.noteWrite(rev);
      return { key, value, createRevision: rev, modRevision: rev };
    });
  }

  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.write(async () => {
      const k = this.encode(key);
      const res = await this.client.kv.txn(
        {
          compare: [existsCompare(k), { key: k, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }],
          success: [{ request_put: { key: k, value: Buffer.from(value), prev_kv: true } }],
          failure: [{ request_range: { key: k } }],
        },
        this.callOptions(),
      );
      if (!res.succeeded) throw this.mismatch(key, res.responses[0]?.response_range?.kvs[0], true);
      const rev = revisionOf(res.header);
      this.noteWrite(rev);
      const prev = res.responses[0]?.response_put?.prev_kv;
      return { key, value, createRevision: prev ? Number(prev.create_revision) : rev, modRevision: rev };
    });
  }

  delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    return this.write(async () => {
      const k = this.encode(key);
      const compare: ICompare[] = [existsCompare(k)];
      if (expectedModRevision !== undefined) compare.push({ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision });
      const res = await this.client.kv.txn(
        { compare, success: [{ request_delete_range: { key: k, prev_kv: true } }], failure: [{ request_range: { key: k } }] },
        this.callOptions(),
      );
      if (!res.succeeded) throw this.mismatch(key, res.responses[0]?.response_range?.kvs[0], expectedModRevision !== undefined);
      const rev = revisionOf(res.header);
      this.noteWrite(rev);
      const prev = res.responses[0]?.response_delete_range?.prev_kvs[0];
      if (!prev) throw new StoreError('NotFound', `key ${key} not found`);
      return { prev: this.decode(prev), revision: rev };
    });
  }

  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle {
    if (this.closed) return this.watchStream.rejected(callbacks, closedError());
    if (afterRevision < this.compacted) return this.watchStream.rejected(callbacks, compactedError(this.compacted));
    return this.watchStream.add({
      key: this.keyspace + prefix,
      rangeEnd: rangeEnd(this.keyspace + prefix),
      afterRevision,
      stripPrefix: this.keyspace.length,
      callbacks,
    });
  }

  async compact(revision: number): Promise<void> {
    if (this.closed) throw closedError();
    if (revision <= this.compacted) return;
    try {
      await this.call(() => this.client.kv.compact({ revision, physical: false }, this.callOptions()));
    } catch (err) {
      // Another process compacted further: nothing left to do.
      if (!(err instanceof StoreError && err.code === 'Compacted')) throw err;
    }
    this.noteCompacted(revision);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    await this.watchStream.close(this.lastWriteRevision, closedError());
    this.client.close();
  }

  /**
   * Whether no key in [key, end) changed in (after, through]: none was
   * written (mod revision above `after` at `through`) and as many keys exist
   * at both ends (so none was deleted). A key created and deleted inside the
   * window escapes this check; the window is the few revisions between a
   * watch's start and its creation.
   */
  private async quietBetween(key: string, end: Buffer, after: number, through: number): Promise<boolean> {
    const range = (extra: IRangeRequest): Promise<IRangeResponse> =>
      this.call(() => this.client.kv.range({ key: Buffer.from(key), range_end: end, ...extra }, this.callOptions()));
    const [written, before, now] = await Promise.all([
      // etcd's count ignores min_mod_revision: ask for the (few) keys themselves.
      range({ revision: through, min_mod_revision: after + 1, keys_only: true }),
      after > 0 ? range({ revision: after, count_only: true }) : undefined,
      range({ revision: through, count_only: true }),
    ]);
    return written.kvs.length === 0 && Number(before?.count ?? 0) === Number(now.count);
  }

  private noteWrite(revision: number): void {
    if (revision > this.lastWriteRevision) this.lastWriteRevision = revision;
  }

  private noteCompacted(revision: number): void {
    if (revision > this.compacted) this.compacted = revision;
  }

  /**
   * etcd has no call that tells the compacted revision, but a read below it
   * fails: a binary search over past revisions finds it in about log2(rev)
   * quorum reads, once at open.
   */
  private async probeCompactedRevision(): Promise<void> {
    this.probing = true;
    try {
      await this.searchCompactedRevision();
    } finally {
      this.probing = false;
    }
  }

  private async searchCompactedRevision(): Promise<void> {
    let lo = Math.max(1, this.compacted);
    let hi = await this.currentRevision();
    if (hi <= 1) return;
    const readable = async (rev: number): Promise<boolean> => {
      try {
        await this.call(() => this.client.kv.range({ key: this.encode('\u0000'), count_only: true, revision: rev }, this.callOptions()));
        return true;
      } catch (err) {
        if (err instanceof StoreError && err.code === 'Compacted') return false;
        throw err;
      }
    };
    if (await readable(lo)) return;
    // Invariant: lo is compacted away, hi is readable.
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await readable(mid)) hi = mid;
      else lo = mid;
    }
    this.noteCompacted(hi);
  }

  private encode(key: string): Buffer {
    return Buffer.from(this.keyspace + key);
  }

  private decode(kv: IKeyValue): KeyValue {
    return {
      key: kv.key.toString('utf8').slice(this.keyspace.length),
      value: kv.value.toString('utf8'),
      createRevision: Number(kv.create_revision),
      modRevision: Number(kv.mod_revision),
    };
  }

  /** The error for a failed compare: NotFound when the key is absent, else Conflict (or NotFound without a precondition). */
  private mismatch(key: string, current: IKeyValue | undefined, hadPrecondition: boolean): StoreError {
    if (!current || !hadPrecondition) return new StoreError('NotFound', `key ${key} not found`);
    return new StoreError('Conflict', `key ${key} was modified`, this.decode(current));
  }

  private callOptions(): CallOptions {
    return { deadline: Date.now() + this.timeoutMs };
  }

  private write<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    const registered = this.watchStream.registered();
    const p = registered ? registered.then(() => this.call(fn)) : this.call(fn);
    this.inFlight.add(p);
    const done = (): void => void this.inFlight.delete(p);
    p.then(done, done);
    return p;
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed && this.inFlight.size === 0) throw closedError();
    try {
      return await fn();
    } catch (err) {
      const storeErr = this.storeError(err);
      if (storeErr.code !== 'Compacted' || this.probing) throw storeErr;
      // Another process compacted: learn how far, so the error (and the watch caches) say so.
      await this.probeCompactedRevision().catch(() => undefined);
      throw compactedError(this.compacted);
    }
  }

  private storeError(err: unknown): StoreError {
    if (err instanceof StoreError) return err;
    const message = err instanceof Error ? err.message : String(err);
    if (message.includes('required revision has been compacted')) return compactedError(this.compacted);
    if (message.includes('required revision is a future revision')) return new StoreError('FutureRevision', 'required revision is a future revision');
    if (this.closed) return closedError();
    // The client's circuit breaker fails calls at once after repeated failures: say what that means.
    if (message.includes('circuit breaker')) return new StoreError('Unavailable', `etcd ${this.endpoints.join(',')} is unreachable (recent calls failed; retrying)`);
    return new StoreError('Unavailable', `etcd ${this.endpoints.join(',')}: ${message}`);
  }
}

function closedError(): StoreError {
  return new StoreError('Closed', 'store is closed');
}

function clientOptions(opts: EtcdStoreOptions): IOptions {
  const options: IOptions = {
    hosts: opts.endpoints,
    grpcOptions: {
      // Lists of big resources exceed gRPC's 4 MiB default (kube lifts it too).
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      // Notice a dead or partitioned etcd on idle watch streams.
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 5_000,
      'grpc.keepalive_permit_without_calls': 1,
    },
  };
  if (opts.caFile || opts.certFile || opts.keyFile) {
    options.credentials = {
      rootCertificate: opts.caFile ? readFileSync(opts.caFile) : Buffer.alloc(0),
      ...(opts.certFile ? { certChain: readFileSync(opts.certFile) } : {}),
      ...(opts.keyFile ? { privateKey: readFileSync(opts.keyFile) } : {}),
    };
  }
  return options;
}

function revisionOf(header: IResponseHeader): number {
  return Number(header.revision);
}

/** A compare that holds when the key exists (version > 0). */
function existsCompare(key: Buffer): { key: Buffer; target: 'Version'; result: 'Greater'; version: number } {
  return { key, target: 'Version', result: 'Greater', version: 0 };
}

/**
 * etcd's range end for "every key starting with `prefix`": the prefix with
 * its last byte below 0xff incremented (keys compare as bytes); `\0` (no
 * end) when every byte is 0xff or the prefix is empty.
 */
export function rangeEnd(prefix: string): Buffer {
  const bytes = Buffer.from(prefix);
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i]! < 0xff) {
      const end = Buffer.from(bytes.subarray(0, i + 1));
      end[i] = bytes[i]! + 1;
      return end;
    }
  }
  return Buffer.from([0]);
}
