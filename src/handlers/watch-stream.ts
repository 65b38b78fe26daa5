import type { ServerResponse } from 'node:http';
import type { WatcherEvent } from '../cache/watch-cache.js';
import type { Logger } from '../machinery/logger.js';
import { resetConnection } from '../http/reset-connection.js';

/**
 * The writing side of one watch: events go to the socket while its unsent
 * bytes stay under a small bound; beyond it they wait in a bounded queue as
 * references to already-encoded bytes (the watch cache's shared encodings),
 * never as copies. A queue over its bounds marks the watcher blocked; the
 * coordinator (watch-streams.ts) then gives it kube's short time budget
 * before cutting it, and cuts the watchers furthest behind when all of them
 * together hold too much.
 */

export interface WatchStreamLimits {
  /** Unsent bytes a socket may hold before events wait in the queue instead (tens of KiB). */
  socketBytes: number;
  /** Events a watcher may have queued past its socket (kube: its input and result channels, 100 each). */
  queueEvents: number;
  /** Bytes a watcher may have queued past its socket (kube bounds by count only; objects here reach MiBs). */
  queueBytes: number;
  /** How long an ended or cut watch may take to flush its last bytes before its socket is destroyed (ms). */
  endGraceMs: number;
  /** A cut watch whose socket still holds more unsent bytes than this is reset rather than ended. */
  cleanEndBytes: number;
  /**
   * A blocked watcher whose socket finished a write since it was last looked
   * at reads, only slowly (all sockets slow down together when the kernel is
   * short of TCP buffer memory): it is looked at again after this long (ms),
   * and cut once it took nothing in between, or fell SLOW_READER_FACTOR
   * times past its queue bounds.
   */
  slowReaderRecheckMs: number;
}

/** How far past its queue bounds a watcher that still reads may fall before it is cut anyway. */
export const SLOW_READER_FACTOR = 4;

/** What a stream needs from the coordinator of all streams. */
export interface WatchStreamCoordinator {
  readonly limits: WatchStreamLimits;
  /** The bytes held for `stream` changed by `delta`. */
  held(stream: WatchStream, delta: number): void;
  blocked(stream: WatchStream): void;
  unblocked(stream: WatchStream): void;
  /** Closes a cut stream's response soon, a few per loop turn. */
  scheduleClose(stream: WatchStream): void;
  removed(stream: WatchStream): void;
}

/**
 * A frame as it will be written: a shared frame made once for every watcher
 * (codec/cached-encoding.ts sharedEventFrame: a Buffer, or a one-byte string
 * of its bytes) or the parts of one made for this watch.
 */
export type FrameBytes = string | Buffer | Buffer[];

/** A frame queued with its size in bytes. */
interface EncodedFrame {
  bytes: FrameBytes;
  size: number;
}

/**
 * An event encoded only when written: initial state and replayed history
 * (outside the bounds), and live events of views encoded per watch (Table,
 * PartialObjectMetadata), which must be encoded in stream order (a Table's
 * first row carries the column headers) and then hold no per-watch bytes while queued.
 */
interface LazyFrame {
  event: WatcherEvent;
  live: boolean;
}

type Frame = EncodedFrame | LazyFrame;

const isEncoded = (f: Frame): f is EncodedFrame => 'bytes' in f;

const sizeOf = (bytes: FrameBytes): number => (Array.isArray(bytes) ? bytes.reduce((n, p) => n + p.length, 0) : bytes.length);

/** A one-byte string's characters are its bytes. */
const BYTES = 'latin1';

/**
 * Frames under this size that are written in the same turn are joined into
 * one chunk; bigger ones are written as they are, a chunk each. Each
 * res.write costs node:http and the socket four buffered writes, which for
 * small frames is more than copying them (a watcher behind by many small
 * events fell further behind, one write per event, in the fan-out bench);
 * for big ones the copy is the cost: shared frames written as they are make
 * no per-watcher copy (joining a turn's 4 KiB frames made ~200 MB/s of
 * garbage at 1,000 watchers × 50 events/s). node:http corks the socket for
 * the tick, so a turn's chunks still reach the socket (and TLS) as one write.
 */
const JOIN_BELOW_BYTES = 2048;

function joinSmall(chunks: Array<string | Buffer>): Array<string | Buffer> {
  if (chunks.length === 1) return chunks;
  const out: Array<string | Buffer> = [];
  let small: Buffer[] = [];
  const flush = (): void => {
    if (small.length > 0) out.push(small.length === 1 ? small[0]! : Buffer.concat(small));
    small = [];
  };
  for (const c of chunks) {
    if (c.length < JOIN_BELOW_BYTES) small.push(typeof c === 'string' ? Buffer.from(c, BYTES) : c);
    else {
      flush();
      out.push(c);
    }
  }
  flush();
  return out;
}

/** A frame as one chunk: a frame made for this watch in several parts (initial state, replayed history) is joined. */
const oneChunk = (bytes: FrameBytes): string | Buffer => (!Array.isArray(bytes) ? bytes : bytes.length === 1 ? bytes[0]! : Buffer.concat(bytes));

type State = 'waiting' | 'open' | 'ending' | 'cut' | 'closed';

/** The resource a watch is on (kube's group and plural resource name). */
export interface WatchedResource {
  group: string;
  resource: string;
}

export interface WatchStreamHooks {
  /** Frames of an initial or replayed event, made when the event is written. */
  encode(event: WatcherEvent): Buffer[];
  /** The watch ends (gracefully, cut, or its connection closed): stop the cache watch and timers. Called once. */
  stop(): void;
}

export class WatchStream {
  private queue: Array<Frame | undefined> = [];
  private head = 0;
  /** Live frames in the queue (the bounds apply to these; initial events are references into the cache). */
  private queuedEvents = 0;
  private queuedBytes = 0;
  /** The socket's unsent bytes when last looked at. */
  private inflight = 0;
  private state: State = 'waiting';
  private stopped = false;
  isBlocked = false;
  /** Writes the socket finished (took the bytes of); and how many it had when its queue last ran empty or it was last looked at. */
  private writesDone = 0;
  private writesSeen = 0;
  /**
   * Each write's completion writes more: the server raises sockets' write
   * high-water mark to MiBs (apiserver.ts), so 'drain' would come far beyond
   * this stream's bound, or never.
   */
  private readonly onWritten = (): void => {
    this.writesDone++;
    this.pump();
  };

  constructor(
    private readonly res: ServerResponse,
    private readonly coord: WatchStreamCoordinator,
    readonly watched: WatchedResource,
    /** What the logs call this watch. */
    readonly identifier: string,
    readonly logger: Logger,
    private readonly hooks: WatchStreamHooks,
  ) {
    res.on('close', () => this.dispose());
    this.resource = watched.group ? `${watched.resource}.${watched.group}` : watched.resource;
  }

  /** resource.group, for the dispatch budget and logs. */
  readonly resource: string;

  /** Bytes held for this watcher: queued frames and the socket's unsent bytes. */
  get heldBytes(): number {
    return this.queuedBytes + this.inflight;
  }

  get queuedEventCount(): number {
    return this.queuedEvents;
  }

  /** Streaming and neither ending nor cut: a candidate for the global bound. */
  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** Ended, cut or closed before streaming began. */
  get isDone(): boolean {
    return this.state !== 'waiting' && this.state !== 'open';
  }

  /** Initial state or replayed history: references, unbounded (the cache holds them anyway). */
  pushInitial(events: WatcherEvent[]): void {
    if (this.state !== 'waiting' && this.state !== 'open') return;
    for (const event of events) this.queue.push({ event, live: false });
    this.pump();
  }

  /** Live events encoded when written (views encoded per watch): bounded by count. */
  pushEvents(events: WatcherEvent[]): void {
    if (this.state !== 'waiting' && this.state !== 'open') return;
    for (const event of events) this.queue.push({ event, live: true });
    this.queuedEvents += events.length;
    this.pump();
    this.checkBlocked();
  }

  /** Live frames. */
  push(frames: readonly FrameBytes[]): void {
    if (this.state !== 'waiting' && this.state !== 'open') return;
    let total = 0;
    for (const bytes of frames) {
      const size = sizeOf(bytes);
      this.queue.push({ bytes, size });
      total += size;
    }
    this.queuedEvents += frames.length;
    this.queuedBytes += total;
    this.coord.held(this, total);
    this.pump();
    this.checkBlocked();
  }

  private checkBlocked(): void {
    if (this.state === 'open' && !this.isBlocked && this.overBounds()) {
      this.isBlocked = true;
      this.coord.blocked(this);
    }
  }

  /** Headers are written: start writing what is queued. */
  open(): void {
    if (this.state !== 'waiting') return;
    this.state = 'open';
    this.pump();
  }

  /** Ends the watch after what is queued is written (timeout, end of the cache's watch, shutdown). */
  end(): void {
    if (this.state === 'waiting') {
      this.state = 'closed';
      this.stop();
      return;
    }
    if (this.state !== 'open') return;
    this.state = 'ending';
    this.stop();
    this.unblock();
    this.pump();
    if (this.state === 'ending') {
      // A client that does not read what is queued within the grace does not get it.
      const timer = setTimeout(() => resetConnection(this.res), this.coord.limits.endGraceMs);
      timer.unref();
      this.res.once('close', () => clearTimeout(timer));
    }
  }

  /**
   * Forced end: what is queued is dropped at once (the client resumes from the
   * last event it read, so nothing is lost), the response is closed soon.
   */
  cut(): void {
    if (this.state === 'waiting') return this.end();
    if (this.state === 'cut' || this.state === 'closed') return;
    this.state = 'cut';
    this.stop();
    this.dropQueue();
    this.unblock();
    this.coord.scheduleClose(this);
  }

  /**
   * Closes a cut response: with the chunked terminator when its socket holds
   * little (the client sees a clean end of stream), reset when it holds
   * more than a clean end is worth flushing.
   */
  close(): void {
    const res = this.res;
    if (res.destroyed) return;
    if (res.writableLength > this.coord.limits.cleanEndBytes) resetConnection(res);
    else this.endResponse();
  }

  private overBounds(factor = 1): boolean {
    const l = this.coord.limits;
    return this.queuedEvents > l.queueEvents * factor || this.queuedBytes > l.queueBytes * factor;
  }

  /**
   * Blocked, but its socket took bytes while its queue grew (since it last ran
   * empty) or since it was last looked at, and it is not far behind: slow,
   * not stalled. A stalled socket takes nothing once its queue starts to
   * grow. Counted in finished writes, not time: a loop turn that ran long
   * delays every socket's completions alike.
   */
  lookIsReadingSlowly(): boolean {
    const took = this.writesDone > this.writesSeen;
    this.writesSeen = this.writesDone;
    return took && !this.overBounds(SLOW_READER_FACTOR);
  }

  private pump(): void {
    if (this.state !== 'open' && this.state !== 'ending') return;
    const res = this.res;
    if (res.destroyed) return;
    // Until the socket holds its bound: a write it takes at once leaves room (and no 'drain' follows).
    for (let room = this.coord.limits.socketBytes - res.writableLength; room > 0 && this.head < this.queue.length; room = this.coord.limits.socketBytes - res.writableLength) {
      const chunks: Array<string | Buffer> = [];
      let bytes = 0;
      let written = 0;
      while (this.head < this.queue.length && bytes < room) {
        const frame = this.queue[this.head]!;
        this.queue[this.head++] = undefined;
        if (isEncoded(frame)) {
          chunks.push(oneChunk(frame.bytes));
          bytes += frame.size;
          written += frame.size;
          this.queuedEvents--;
        } else {
          if (frame.live) this.queuedEvents--;
          const parts = this.hooks.encode(frame.event);
          chunks.push(oneChunk(parts));
          for (const p of parts) bytes += p.length;
        }
      }
      this.queuedBytes -= written;
      this.coord.held(this, -written);
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
        this.writesSeen = this.writesDone;
      } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      const writes = joinSmall(chunks);
      const last = writes.length - 1;
      writes.forEach((chunk, i) => {
        const done = i === last ? this.onWritten : undefined;
        if (typeof chunk === 'string') res.write(chunk, BYTES, done);
        else res.write(chunk, done);
      });
    }
    this.sampleInflight();
    if (this.isBlocked && !this.overBounds()) this.unblock();
    if (this.state === 'ending' && this.head === this.queue.length) {
      this.state = 'closed';
      this.endResponse();
    }
  }

  private sampleInflight(): void {
    const now = this.state === 'open' || this.state === 'ending' ? this.res.writableLength : 0;
    if (now !== this.inflight) {
      this.coord.held(this, now - this.inflight);
      this.inflight = now;
    }
  }

  private unblock(): void {
    if (!this.isBlocked) return;
    this.isBlocked = false;
    this.coord.unblocked(this);
  }

  private dropQueue(): void {
    this.coord.held(this, -(this.queuedBytes + this.inflight));
    this.queue = [];
    this.head = 0;
    this.queuedEvents = 0;
    this.queuedBytes = 0;
    this.inflight = 0;
  }

  /** res.end(), and the connection reset if the client does not take the last bytes in time. */
  private endResponse(): void {
    const res = this.res;
    if (!res.writableEnded) res.end();
    if (res.writableFinished || res.destroyed) return;
    const timer = setTimeout(() => resetConnection(res), this.coord.limits.endGraceMs);
    timer.unref();
    const clear = (): void => clearTimeout(timer);
    res.once('finish', clear);
    res.once('close', clear);
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.hooks.stop();
  }

  /** The connection closed: nothing more can be written. */
  private dispose(): void {
    if (this.state !== 'cut') this.state = 'closed';
    this.stop();
    this.unblock();
    this.dropQueue();
    this.coord.removed(this);
  }
}
