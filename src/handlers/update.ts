import type { AdmissionChain } from '../admission/admission.js';
import { metaOf } from '../machinery/object.js';
import { badRequest } from '../machinery/errors.js';
import { writeEncoded } from '../http/respond.js';
import { checkBodyObject, createOptions, parseWriteOptions } from './create.js';
import { renderObject } from './get.js';
import { readValidatedBody } from './validated-body.js';
import { recordUpdate, updateManager } from './field-manager.js';
import type { ResourceScope } from './scope.js';

/** PUT of a whole object (or of its status): an update, or a create where the type allows it. */
export async function handleUpdate(scope: ResourceScope, admission: AdmissionChain): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate();
  const opts = parseWriteOptions(scope, 'UpdateOptions');
  const obj = checkBodyObject(scope, await readValidatedBody(scope, opts.fieldValidation));
  const meta = metaOf(obj);
  if (meta.name !== scope.name) {
    throw badRequest(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${scope.name})`);
  }
  if (info.namespaced) meta.namespace = scope.namespace;
  scope.applyDefaults(obj);
  const manager = updateManager(scope, opts.fieldManager);
  const subresource = scope.writeMode;
  const options = createOptions(opts, 'UpdateOptions');
  const result = await scope.landed(() => scope.store.update(
    info.namespaced ? scope.namespace : undefined,
    {
      name: scope.name, dryRun: opts.dryRun, subresource, ...scope.writeContext,
      validate: scope.validatingAdmission(admission, { subresource, options, dryRun: opts.dryRun }), warn: (t) => ctx.warnings.push(t),
    },
    async (current) => {
      const old = current ? await scope.servedOne(current) : undefined;
      const updated = recordUpdate(scope, old, obj, manager);
      await scope.admitMutating(admission, { operation: current ? 'UPDATE' : 'CREATE', subresource, object: updated, ...(old ? { oldObject: old } : {}), options, dryRun: opts.dryRun });
      return scope.storageOf(updated);
    },
  ));
  writeEncoded(ctx, result.created ? 201 : 200, renderObject(scope, await scope.servedOne(result.object), neg.view), neg.encoding, neg.contentType);
}
