import { parseIncludeObject, partialObjectMetadata, table } from '../codec/views.js';
import { notAcceptable, ApiError } from '../server/errors.js';
import { JSON_TYPE, PROTOBUF_TYPE } from '../codec/media-type.js';
import { encodeWatchEvent, PROTOBUF_WATCH_MEDIA_TYPE } from '../codec/protobuf/index.js';
import type { KubeObject } from '../registry/object.js';
import type { WatchEvent, WatchOptions } from '../registry/resource-store.js';
import { parseFieldSelector } from '../registry/selectors.js';
import { tableConvertorFor } from '../registry/tables.js';
import type { WatchHandle } from '../storage/store.js';
import { listOptionsFor } from './list.js';
import { parseListParams, parseResourceVersion } from './options.js';
import type { ResourceScope } from './scope.js';

/** A client this far behind (bytes buffered for it) is cut off rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

/** kube-apiserver's --min-request-timeout: watches without timeoutSeconds end after 30–60 minutes. */
const MIN_REQUEST_TIMEOUT_SECONDS = 1800;

/**
 * A watch: a chunked stream of `{"type","object"}` JSON documents, one per
 * change, ended by timeoutSeconds, the client, or server shutdown.
 */
export async function handleWatch(scope: ResourceScope, shutdown: AbortSignal): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate();
  // Watches stream JSON documents or length-prefixed protobuf events; YAML has no stream framing.
  if (neg.encoding !== JSON_TYPE && neg.encoding !== PROTOBUF_TYPE) throw notAcceptable([JSON_TYPE, PROTOBUF_TYPE]);
  const protobuf = neg.encoding === PROTOBUF_TYPE;
  const frame = (type: string, object: unknown): string | Buffer =>
    protobuf ? encodeWatchEvent(type, object as Record<string, unknown>) : JSON.stringify({ type, object }) + '\n';
  const params = parseListParams(ctx.query, true);
  const list = listOptionsFor(scope, { ...params, limit: 0, continueToken: undefined, resourceVersion: undefined });
  // A watch on one object's path is a watch of the collection with a name selector.
  const fieldSelector = scope.name
    ? parseFieldSelector([`metadata.name=${scope.name.replace(/([\\,=])/g, '\\$1')}`, params.fieldSelector].filter(Boolean).join(','))
    : list.fieldSelector;
  const opts: WatchOptions = {};
  if (list.namespace) opts.namespace = list.namespace;
  if (list.labelSelector) opts.labelSelector = list.labelSelector;
  if (fieldSelector) opts.fieldSelector = fieldSelector;
  const rv = params.resourceVersion;
  if (rv !== undefined && rv !== '0') opts.afterRevision = parseResourceVersion(rv);

  const includeObject = parseIncludeObject(ctx.query.get('includeObject'));
  const convertor = tableConvertorFor(info.group, info.name);
  let sentHeaders = false;
  const render = (obj: KubeObject): unknown => {
    const served = scope.toServed(obj);
    if (neg.view.kind === 'metadata') return partialObjectMetadata(served, neg.view.version);
    if (neg.view.kind === 'table') {
      const t = table([served], convertor, { version: neg.view.version, includeObject, omitHeaders: sentHeaders, listMeta: { resourceVersion: served.metadata?.resourceVersion ?? '' } });
      sentHeaders = true;
      return t;
    }
    return served;
  };

  const res = ctx.res;
  let handle: WatchHandle | undefined;
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    if (timer) clearTimeout(timer);
    handle?.stop();
    shutdown.removeEventListener('abort', finish);
    if (!res.writableEnded) res.end();
  };
  const writeEvents = (events: WatchEvent[]): void => {
    if (finished) return;
    const frames = events.map((e) => frame(e.type, render(e.object)));
    res.write(protobuf ? Buffer.concat(frames as Buffer[]) : (frames as string[]).join(''));
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      res.destroy();
      finish();
    }
  };

  res.writeHead(200, {
    'Content-Type': protobuf ? PROTOBUF_WATCH_MEDIA_TYPE : neg.contentType,
    'Cache-Control': 'no-cache, private',
    'Audit-Id': ctx.auditId,
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  ctx.req.socket.setNoDelay(true);
  ctx.req.on('close', finish);
  res.on('close', finish);
  shutdown.addEventListener('abort', finish);
  const seconds = params.timeoutSeconds ?? Math.floor(MIN_REQUEST_TIMEOUT_SECONDS * (1 + Math.random()));
  timer = setTimeout(finish, seconds * 1000);

  try {
    handle = await scope.store.watch(opts, {
      onEvents: writeEvents,
      onEnd: (err) => {
        if (err && !finished) res.write(frame('ERROR', err.status));
        finish();
      },
    });
    if (finished) handle.stop();
  } catch (err) {
    if (err instanceof ApiError && !finished) res.write(frame('ERROR', err.status));
    finish();
    if (!(err instanceof ApiError)) throw err;
  }
}
