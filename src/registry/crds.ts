import { metaOf } from '../machinery/object.js';
import { CLEANUP_FINALIZER, setCondition } from '../apiextensions/crd.js';
import type { StoreHooks } from './descriptor.js';
import { markForDeletion } from './graceful-delete.js';

/**
 * The CustomResourceDefinition REST's delete (apiextensions-apiserver
 * pkg/registry/customresourcedefinition/etcd.go): the first DELETE only marks
 * the CRD Terminating, with the customresourcecleanup finalizer and the
 * condition Terminating=True InstanceDeletionPending, and answers with the
 * CRD; the finalizer controller removes its instances and then the finalizer,
 * which lets the CRD go.
 */
export const CRD_HOOKS: StoreHooks = {
  async delete(store, _namespace, name, opts, next) {
    const current = await store.get(undefined, name);
    store.checkDeletePreconditions(current, opts);
    if (current.metadata?.deletionTimestamp) return next();
    return markForDeletion(store, current, name, opts, (obj) => {
      const m = metaOf(obj);
      if (!(m.finalizers ?? []).includes(CLEANUP_FINALIZER)) m.finalizers = [...(m.finalizers ?? []), CLEANUP_FINALIZER];
      setCondition(obj, {
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      });
    });
  },
};
