import { parseIncludeObject, partialObjectMetadataList, table, type ListMeta } from '../codec/views.js';
import { apiVersionOf, type KubeObject } from '../registry/object.js';
import type { ListOptions } from '../registry/resource-store.js';
import { checkFieldSelectorSupported, fieldExtractorFor, parseFieldSelector, parseLabelSelector } from '../registry/selectors.js';
import { tableConvertorFor } from '../registry/tables.js';
import { writeEncoded } from '../server/respond.js';
import { parseListParams, parseResourceVersion, type ListParams } from './options.js';
import type { ResourceScope } from './scope.js';

/** Turns list query parameters into registry list options (resourceVersion × match × paging). */
export function listOptionsFor(scope: ResourceScope, params: ListParams): ListOptions {
  const opts: ListOptions = {};
  if (scope.info.namespaced && scope.namespace) opts.namespace = scope.namespace;
  opts.labelSelector = parseLabelSelector(params.labelSelector);
  opts.fieldSelector = parseFieldSelector(params.fieldSelector);
  checkFieldSelectorSupported(opts.fieldSelector, fieldExtractorFor(scope.info.group, scope.info.name, scope.info.namespaced));
  if (params.limit > 0) opts.limit = params.limit;
  if (params.continueToken) opts.continueToken = params.continueToken;
  const rv = params.resourceVersion;
  if (rv !== undefined && rv !== '0') {
    const revision = parseResourceVersion(rv);
    const exact = params.resourceVersionMatch === 'Exact' || (params.resourceVersionMatch === '' && params.limit > 0);
    if (exact) opts.exactRevision = revision;
    else opts.minRevision = revision;
  }
  return opts;
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
  const result = await scope.store.list(listOptionsFor(scope, params));
  const items = result.items.map((o) => scope.toServed(o));
  const listMeta: ListMeta = { resourceVersion: result.resourceVersion };
  if (result.continueToken) listMeta.continue = result.continueToken;
  if (result.remainingItemCount !== undefined) listMeta.remainingItemCount = result.remainingItemCount;
  let body: unknown;
  if (neg.view.kind === 'table') {
    body = table(items, tableConvertorFor(info.group, info.name), {
      version: neg.view.version,
      includeObject: parseIncludeObject(ctx.query.get('includeObject')),
      listMeta,
    });
  } else if (neg.view.kind === 'metadata') {
    body = partialObjectMetadataList(items, listMeta, neg.view.version);
  } else {
    body = {
      kind: info.listKind ?? `${info.kind}List`,
      apiVersion: apiVersionOf(info.group, info.version),
      metadata: listMeta,
      items: items.map(stripTypeMeta),
    };
  }
  writeEncoded(ctx, 200, body, neg.encoding, neg.contentType);
}
