import { tableFor } from '../registry/descriptor.js';
import { JSON_NEWLINE, jsonObjectBytes, protobufObjectBytes } from '../codec/cached-encoding.js';
import { CBOR_TYPE, JSON_TYPE, PROTOBUF_TYPE } from '../codec/media-type.js';
import { cborObjectBytes } from '../codec/cbor/cached.js';
import type { View } from '../codec/negotiate.js';
import { parseIncludeObject, partialObjectMetadata, table } from '../codec/views.js';
import { getReadAt } from '../cache/read-semantics.js';
import type { KubeObject } from '../machinery/object.js';
import { writeBody, writeEncoded, writeParts } from '../http/respond.js';
import type { ResourceScope } from './scope.js';

/** GET of one object from the watch cache, in the requested view (object, Table, PartialObjectMetadata). */
export async function handleGet(scope: ResourceScope): Promise<void> {
  const { ctx } = scope;
  const neg = scope.negotiate();
  const at = getReadAt(ctx.query.get('resourceVersion') ?? undefined);
  const cached = await scope.store.getCached(scope.namespace || undefined, scope.name, at);
  if (scope.convertsAsync) {
    writeEncoded(ctx, 200, renderObject(scope, await scope.servedOne(cached.object), neg.view), neg.encoding, neg.contentType);
    return;
  }
  if (neg.view.kind === 'object' && neg.encoding === JSON_TYPE && !ctx.pretty) {
    writeParts(ctx, 200, [jsonObjectBytes(cached, scope.served), JSON_NEWLINE], neg.contentType);
    return;
  }
  if (neg.view.kind === 'object' && neg.encoding === PROTOBUF_TYPE) {
    writeBody(ctx, 200, protobufObjectBytes(cached, scope.served), neg.contentType);
    return;
  }
  if (neg.view.kind === 'object' && neg.encoding === CBOR_TYPE) {
    writeBody(ctx, 200, cborObjectBytes(cached, scope.served), neg.contentType);
    return;
  }
  writeEncoded(ctx, 200, renderObject(scope, scope.toServed(cached.object), neg.view), neg.encoding, neg.contentType);
}

export function renderObject(scope: ResourceScope, obj: KubeObject, view: View): unknown {
  if (view.kind === 'metadata') return partialObjectMetadata(obj, view.version);
  if (view.kind === 'table') {
    return table([obj], tableFor(scope.descriptor, scope.info.version), {
      version: view.version,
      includeObject: parseIncludeObject(scope.ctx.query.get('includeObject')),
      listMeta: { resourceVersion: obj.metadata?.resourceVersion ?? '' },
    });
  }
  return obj;
}
