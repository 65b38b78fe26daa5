import type { View } from '../codec/negotiate.js';
import { parseIncludeObject, partialObjectMetadata, table } from '../codec/views.js';
import type { KubeObject } from '../registry/object.js';
import { tableConvertorFor } from '../registry/tables.js';
import { writeEncoded } from '../server/respond.js';
import { parseResourceVersion } from './options.js';
import type { ResourceScope } from './scope.js';

/** GET of one object, in the requested view (object, Table, PartialObjectMetadata). */
export async function handleGet(scope: ResourceScope): Promise<void> {
  const { ctx } = scope;
  const neg = scope.negotiate();
  const rv = ctx.query.get('resourceVersion');
  // Unset = most recent; "0" = any; other = not older than.
  const minRevision = rv && rv !== '0' ? parseResourceVersion(rv) : undefined;
  const stored = await scope.store.get(scope.namespace || undefined, scope.name, minRevision);
  const obj = scope.toServed(stored);
  writeEncoded(ctx, 200, renderObject(scope, obj, neg.view), neg.encoding, neg.contentType);
}

export function renderObject(scope: ResourceScope, obj: KubeObject, view: View): unknown {
  if (view.kind === 'metadata') return partialObjectMetadata(obj, view.version);
  if (view.kind === 'table') {
    return table([obj], tableConvertorFor(scope.info.group, scope.info.name), {
      version: view.version,
      includeObject: parseIncludeObject(scope.ctx.query.get('includeObject')),
      listMeta: { resourceVersion: obj.metadata?.resourceVersion ?? '' },
    });
  }
  return obj;
}
