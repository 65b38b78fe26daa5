import { finalizeNamespace } from '../registry/namespaces.js';
import { badRequest, invalid } from '../machinery/errors.js';
import { readObjectBody } from '../http/body.js';
import { writeEncoded } from '../http/respond.js';
import { checkBodyObject, parseWriteOptions } from './create.js';
import { renderObject } from './get.js';
import type { ResourceScope } from './scope.js';

/** PUT /api/v1/namespaces/<name>/finalize: replaces spec.finalizers only. */
export async function handleFinalize(scope: ResourceScope): Promise<void> {
  const { ctx } = scope;
  const neg = scope.negotiate();
  const opts = parseWriteOptions(scope, 'UpdateOptions');
  const obj = checkBodyObject(scope, await readObjectBody(ctx, scope.typeInfo));
  if (obj.metadata?.name !== scope.name) {
    throw badRequest(`the name of the object (${obj.metadata?.name ?? ''}) does not match the name on the URL (${scope.name})`);
  }
  const raw = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers ?? [];
  if (!Array.isArray(raw) || raw.some((f) => typeof f !== 'string')) {
    throw invalid(scope.groupKind, scope.name, [{ type: 'FieldValueInvalid', field: 'spec.finalizers', value: raw, detail: 'must be a list of strings' }]);
  }
  const rv = obj.metadata?.resourceVersion;
  const result = await finalizeNamespace(scope.store, scope.name, raw as string[], { dryRun: opts.dryRun, ...(rv ? { resourceVersion: rv } : {}) });
  writeEncoded(ctx, 200, renderObject(scope, scope.toServed(result.object), neg.view), neg.encoding, neg.contentType);
}
