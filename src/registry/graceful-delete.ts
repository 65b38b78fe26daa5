import { notFound } from '../machinery/errors.js';
import { cloneObject, metaOf, nowTimestamp, type KubeObject } from '../machinery/object.js';
import type { DeleteOptions, DeleteResult, ResourceStore } from './resource-store.js';

/**
 * The first DELETE of a type whose REST deletes in two steps (namespaces,
 * CustomResourceDefinitions): the object only gets its deletionTimestamp
 * (grace period 0) and the type's own change (a phase, a finalizer, a
 * condition), and the answer is the object, still stored; a controller
 * finishes the deletion.
 */
export async function markForDeletion(
  store: ResourceStore,
  current: KubeObject,
  name: string,
  opts: DeleteOptions,
  change: (obj: KubeObject) => void,
): Promise<DeleteResult> {
  await opts.validate?.(current);
  const result = await store.update(
    undefined,
    {
      name,
      dryRun: !!opts.dryRun,
      subresource: 'internal',
      mutateSystemFields: (obj) => {
        const m = metaOf(obj);
        if (!m.deletionTimestamp) m.deletionTimestamp = nowTimestamp();
        if (m.deletionGracePeriodSeconds === undefined) m.deletionGracePeriodSeconds = 0;
      },
    },
    (cur) => {
      if (!cur) throw notFound(store.groupResource, name);
      const obj = cloneObject(cur);
      change(obj);
      return obj;
    },
  );
  return { object: result.object, deleted: false };
}
