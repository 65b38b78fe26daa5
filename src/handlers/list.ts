import { tableFor } from '../registry/descriptor.js';
import { jsonItemBytes, jsonListParts, protobufMessageBytes } from '../codec/cached-encoding.js';
import { CBOR_TYPE, JSON_TYPE, PROTOBUF_TYPE } from '../codec/media-type.js';
import { cborItemBytes, cborListParts } from '../codec/cbor/cached.js';
import { composeProtobufList } from '../codec/protobuf/index.js';
import { parseIncludeObject, partialObjectMetadataList, table, type ListMeta } from '../codec/views.js';
import type { ListRequest } from '../cache/resource-reader.js';
import { listReadAt } from '../cache/read-semantics.js';
import { apiVersionOf, type KubeObject } from '../machinery/object.js';
import { parseFieldSelector, parseLabelSelector } from '../machinery/selectors.js';
import { checkFieldSelectorSupported } from '../registry/field-selectors.js';
import { writeBody, writeEncoded, writeParts } from '../http/respond.js';
import { parseListParams, type ListParams } from './options.js';
import type { ResourceScope } from './scope.js';

/** The selection a list or watch makes: namespace and selectors, checked against what the type supports. */
export function selectionFor(scope: ResourceScope, params: Pick<ListParams, 'labelSelector' | 'fieldSelector'>): Pick<ListRequest, 'namespace' | 'labelSelector' | 'fieldSelector'> {
  const fieldSelector = parseFieldSelector(params.fieldSelector);
  checkFieldSelectorSupported(fieldSelector, scope.descriptor.fields);
  return {
    namespace: scope.info.namespaced && scope.namespace ? scope.namespace : undefined,
    labelSelector: parseLabelSelector(params.labelSelector),
    fieldSelector,
  };
}

/** List parameters → a cache read (resourceVersion × match × paging, SPEC's list table). */
export function listRequestFor(scope: ResourceScope, params: ListParams): ListRequest {
  return {
    ...selectionFor(scope, params),
    limit: params.limit > 0 ? params.limit : undefined,
    continueToken: params.continueToken,
    readAt: listReadAt(params),
  };
}

/** Items of a typed list carry no apiVersion/kind, as kube-apiserver encodes them. */
function stripTypeMeta(obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

export async function handleList(scope: ResourceScope): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate({ list: true });
  const params = parseListParams(ctx.query, false);
  const result = await scope.store.list(listRequestFor(scope, params));
  const listMeta: ListMeta = { resourceVersion: result.resourceVersion };
  if (result.continueToken) listMeta.continue = result.continueToken;
  if (result.remainingItemCount !== undefined) listMeta.remainingItemCount = result.remainingItemCount;
  const listKind = info.listKind ?? `${info.kind}List`;
  const apiVersion = apiVersionOf(info.group, info.version);
  const converted = scope.convertsAsync ? await scope.servedAll(result.items.map((c) => c.object), true) : undefined;
  if (!converted && neg.view.kind === 'object' && neg.encoding === JSON_TYPE && !ctx.pretty) {
    // The common case: concatenate each item's cached bytes.
    writeParts(ctx, 200, jsonListParts(listKind, apiVersion, listMeta, result.items.map((c) => jsonItemBytes(c, scope.served))), neg.contentType);
    return;
  }
  if (!converted && neg.view.kind === 'object' && neg.encoding === PROTOBUF_TYPE) {
    const items = result.items.map((c) => protobufMessageBytes(c, scope.served));
    writeBody(ctx, 200, composeProtobufList({ apiVersion, kind: listKind }, listMeta, items), neg.contentType);
    return;
  }
  if (!converted && neg.view.kind === 'object' && neg.encoding === CBOR_TYPE) {
    writeParts(ctx, 200, cborListParts(listKind, apiVersion, listMeta, result.items.map((c) => cborItemBytes(c, scope.served))), neg.contentType);
    return;
  }
  const items = converted ?? result.items.map((c) => scope.toServed(c.object));
  let body: unknown;
  if (neg.view.kind === 'table') {
    body = table(items, tableFor(scope.descriptor, scope.info.version), {
      version: neg.view.version,
      includeObject: parseIncludeObject(ctx.query.get('includeObject')),
      listMeta,
    });
  } else if (neg.view.kind === 'metadata') {
    body = partialObjectMetadataList(items, listMeta, neg.view.version);
  } else {
    body = { kind: listKind, apiVersion, metadata: listMeta, items: items.map(stripTypeMeta) };
  }
  writeEncoded(ctx, 200, body, neg.encoding, neg.contentType);
}
