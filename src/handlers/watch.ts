import { tableFor } from '../registry/descriptor.js';
import { jsonObjectBytes, jsonWatchEventFrame, jsonWatchEventParts, protobufWatchEventFrame, protobufWatchEventParts } from '../codec/cached-encoding.js';
import { CBOR_SEQ_TYPE, CBOR_TYPE, JSON_TYPE, PROTOBUF_TYPE } from '../codec/media-type.js';
import { cborObjectBytes, cborWatchEvent, cborWatchEventFrame, cborWatchEventParts } from '../codec/cbor/cached.js';
import { encodeWatchEvent, PROTOBUF_WATCH_MEDIA_TYPE } from '../codec/protobuf/index.js';
import { parseIncludeObject, partialObjectMetadata, table } from '../codec/views.js';
import type { CachedObject } from '../codec/cached-object.js';
import type { ReaderWatch } from '../cache/resource-reader.js';
import { watchStart } from '../cache/read-semantics.js';
import type { WatcherEvent } from '../cache/watch-cache.js';
import { apiVersionOf } from '../machinery/object.js';
import { parseFieldSelector } from '../machinery/selectors.js';
import { ApiError, internalError, notAcceptable } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/object.js';
import { selectionFor } from './list.js';
import { MAX_WATCH_TIMEOUT_SECONDS, parseListParams } from './options.js';
import type { ResourceScope } from './scope.js';
import type { WatchStreams } from './watch-streams.js';
import { stringifyJson } from '../machinery/deep-json.js';

/**
 * How long a watch runs, by kube's watch handler: timeoutSeconds when given
 * (0 counts as not given), else a random time in [min, 2·min) of
 * --min-request-timeout (seconds) so that watches started together do not
 * all end together; with neither, 0 (kube's context times out at once).
 */
export function watchTimeoutMs(timeoutSeconds: number | undefined, minRequestTimeout: number, random: () => number = Math.random): number {
  if (timeoutSeconds !== undefined && timeoutSeconds !== 0) return timeoutSeconds * 1000;
  if (minRequestTimeout <= 0) return 0;
  return Math.floor(minRequestTimeout * 1000 * (random() + 1));
}

/** The cacher's bookmark rhythm: about every minute, and once more 2 s before the watch's deadline. */
const BOOKMARK_FREQUENCY_MS = 60_000;
const BOOKMARK_BEFORE_DEADLINE_MS = 2000;

/** Events a watcher may hold while its conversion webhook answers (kube's watcher channels hold 100 + 100). */
const MAX_EVENTS_AWAITING_CONVERSION = 200;

/** A watch's initial state goes to the conversion webhook in reviews of at most this many objects. */
const MAX_OBJECTS_PER_REVIEW = 500;

/** The annotation on the bookmark that ends sendInitialEvents' initial state. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/**
 * A watch, served from the watch cache: a chunked stream of `{"type","object"}`
 * JSON documents (or length-prefixed protobuf events), one per change, with
 * bookmarks when asked for, ended by timeoutSeconds, the client, or shutdown.
 * Writing, its bounds and the cut of a watcher that does not keep up are the
 * WatchStream's (watch-stream.ts).
 */
export async function handleWatch(scope: ResourceScope, streams: WatchStreams, watchList = true): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate();
  // Watches stream JSON documents or length-prefixed protobuf events; YAML has no stream framing.
  if (neg.encoding !== JSON_TYPE && neg.encoding !== PROTOBUF_TYPE && neg.encoding !== CBOR_TYPE) throw notAcceptable([JSON_TYPE, PROTOBUF_TYPE]);
  const protobuf = neg.encoding === PROTOBUF_TYPE;
  const cbor = neg.encoding === CBOR_TYPE;
  const params = parseListParams(ctx.query, true, watchList);
  const selection = selectionFor(scope, params);
  if (scope.name) {
    // A watch on one object's path is a watch of the collection with a name selector.
    const byName = `metadata.name=${scope.name.replace(/([\\,=])/g, '\\$1')}`;
    selection.fieldSelector = parseFieldSelector([byName, params.fieldSelector].filter(Boolean).join(','));
  }
  const start = watchStart(params);

  const includeObject = parseIncludeObject(ctx.query.get('includeObject'));
  const convertor = tableFor(scope.descriptor, scope.info.version);
  let sentTableHeaders = false;
  const cachedBytes = neg.view.kind === 'object';
  const render = (obj: CachedObject): Record<string, unknown> => renderServed(scope.toServed(obj.object));
  const renderServed = (served: KubeObject): Record<string, unknown> => {
    if (neg.view.kind === 'metadata') return partialObjectMetadata(served, neg.view.version);
    if (neg.view.kind === 'table') {
      const t = table([served], convertor, { version: neg.view.version, includeObject, omitHeaders: sentTableHeaders, listMeta: { resourceVersion: served.metadata?.resourceVersion ?? '' } });
      sentTableHeaders = true;
      return t;
    }
    return served;
  };
  const frame = (type: string, object: Record<string, unknown>): Buffer =>
    protobuf ? encodeWatchEvent(type, object) : cbor ? cborWatchEvent(type, object) : Buffer.from(stringifyJson({ type, object }) + '\n');
  /** The event's frame as parts; in the object view, the cache's shared encoding of the object. */
  const eventParts = (e: WatcherEvent): Buffer[] => {
    if (!cachedBytes) return [frame(e.type, render(e.object))];
    if (cbor) return cborWatchEventParts(e.type, cborObjectBytes(e.object, scope.served));
    return protobuf ? protobufWatchEventParts(e.type, e.object, scope.served) : jsonWatchEventParts(e.type, jsonObjectBytes(e.object, scope.served));
  };
  /** A live event in the object view: one frame made once for every watcher. */
  const liveFrame = (e: WatcherEvent): string | Buffer =>
    cbor ? cborWatchEventFrame(e.type, e.object, scope.served) : protobuf ? protobufWatchEventFrame(e.type, e.object, scope.served) : jsonWatchEventFrame(e.type, e.object, scope.served);
  /** A bookmark: an object of the requested kind (or view) carrying only its resourceVersion. */
  const bookmark = (revision: number, annotations?: Record<string, string>): Buffer => {
    const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
    if (annotations) metadata.annotations = annotations;
    const object =
      neg.view.kind === 'object'
        ? { kind: info.kind, apiVersion: apiVersionOf(info.group, info.version), metadata }
        : neg.view.kind === 'table'
          ? { kind: 'Table', apiVersion: `meta.k8s.io/${neg.view.version}`, metadata, columnDefinitions: null, rows: null }
          : { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${neg.view.version}`, metadata };
    return frame('BOOKMARK', object);
  };

  const res = ctx.res;
  // Bookmarks never go back behind what this watch has already been told.
  let lastRevision = start.kind === 'after' ? start.revision : 0;
  let handle: ReaderWatch | undefined;
  let stopped = false;
  const timers: NodeJS.Timeout[] = [];
  const stop = (): void => {
    stopped = true;
    for (const t of timers) clearTimeout(t);
    handle?.stop();
  };
  const stream = streams.open(res, { group: info.group, resource: info.name }, ctx.req.url ?? '', ctx.logger, { encode: eventParts, stop });
  if (!stream) return;
  const beginStream = (): void => {
    res.writeHead(200, {
      // kube answers a CBOR watch as the conformant sequence type, whichever of the two was asked for.
      'Content-Type': protobuf ? PROTOBUF_WATCH_MEDIA_TYPE : cbor ? CBOR_SEQ_TYPE : neg.contentType,
      'Cache-Control': 'no-cache, private',
      'Audit-Id': ctx.auditId,
      'Transfer-Encoding': 'chunked',
    });
    ctx.req.socket.setNoDelay(true);
    res.flushHeaders();
    stream.open();
  };

  ctx.req.on('close', () => stream.end());
  // A version that converts through a webhook: each batch of events is converted in one call, in order, before
  // its frames are queued; bookmarks and the end wait their turn. A failed conversion ends the watch with an
  // ERROR event, as kube's storage watch does when it cannot decode an event. Other versions push at once.
  const converting = scope.convertsAsync;
  let pipeline: Promise<void> = Promise.resolve();
  let pending = 0;
  let failed = false;
  const inOrder = (step: () => void | Promise<void>): void => {
    if (!converting) return void step();
    pipeline = pipeline.then(() => (failed ? undefined : step()));
  };
  const pushConverted = (events: WatcherEvent[], live: boolean): void => {
    if (events.length > MAX_OBJECTS_PER_REVIEW) {
      for (let i = 0; i < events.length; i += MAX_OBJECTS_PER_REVIEW) pushConverted(events.slice(i, i + MAX_OBJECTS_PER_REVIEW), live);
      return;
    }
    // Initial state and replayed history are held by the cache anyway (as pushInitial's references); live events are bounded.
    const counted = live ? events.length : 0;
    pending += counted;
    if (pending > MAX_EVENTS_AWAITING_CONVERSION) {
      if (ctx.logger.v(1)) ctx.logger.info(`Forcing ${info.name}.${info.group} watcher close: ${pending} events wait for their conversion webhook`);
      failed = true;
      stream.end();
      return;
    }
    inOrder(async () => {
      try {
        const served = await scope.servedAll(events.map((e) => e.object.object));
        stream.push(events.map((e, i) => [frame(e.type, renderServed(served[i]!))]));
      } catch (err) {
        failed = true;
        stream.push([[frame('ERROR', (err instanceof ApiError ? err : internalError(err)).status as unknown as Record<string, unknown>)]]);
        stream.end();
      } finally {
        pending -= counted;
      }
    });
  };
  // Capped where Node's timers end (options.ts caps timeoutSeconds the same way).
  const timeoutMs = Math.min(watchTimeoutMs(params.timeoutSeconds, streams.minRequestTimeout), MAX_WATCH_TIMEOUT_SECONDS * 1000);
  const deadline = Date.now() + timeoutMs;
  timers.push(setTimeout(() => stream.end(), timeoutMs));

  // Until the stream begins, events are the initial state and replayed history:
  // references into the cache, encoded as they are written.
  let initial = true;
  try {
    handle = await scope.store.watch(
      { ...selection, start },
      {
        onEvents: (events) => {
          lastRevision = Math.max(lastRevision, events[events.length - 1]!.object.revision);
          if (converting) pushConverted(events, !initial);
          else if (initial) stream.pushInitial(events);
          else if (cachedBytes) stream.push(events.map(liveFrame));
          else stream.pushEvents(events);
        },
        onInitialEventsEnd: (revision) => {
          lastRevision = Math.max(lastRevision, revision);
          if (params.allowWatchBookmarks) inOrder(() => stream.push([[bookmark(revision, { [INITIAL_EVENTS_END_ANNOTATION]: 'true' })]]));
        },
        onEnd: (err) => {
          inOrder(() => {
            if (err) stream.push([[frame('ERROR', err.status as unknown as Record<string, unknown>)]]);
            stream.end();
          });
        },
      },
    );
  } catch (err) {
    // A start revision older than history is reported in the stream, as the cacher does.
    if (!(err instanceof ApiError) || err.code !== 410) {
      stream.end();
      throw err;
    }
    beginStream();
    stream.push([[frame('ERROR', err.status as unknown as Record<string, unknown>)]]);
    stream.end();
    return;
  }
  initial = false;
  if (stopped) {
    handle.stop();
    return;
  }
  const scheduleBookmarks = (): void => {
    const now = Date.now();
    const next = Math.min(now + BOOKMARK_FREQUENCY_MS, deadline - BOOKMARK_BEFORE_DEADLINE_MS);
    if (next <= now) return;
    timers.push(
      setTimeout(() => {
        void scope.store.freshRevision().then((revision) => {
          lastRevision = Math.max(lastRevision, revision);
          const at = lastRevision;
          inOrder(() => stream.push([[bookmark(at)]]));
          if (!stopped) scheduleBookmarks();
        });
      }, next - now),
    );
  };
  beginStream();
  if (params.allowWatchBookmarks) scheduleBookmarks();
}
