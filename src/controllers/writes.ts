import type { ApiClient, CollectionRef, ObjectRef, WriteOptions } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/object.js';

/** Write helpers controllers share, over the ApiClient (client-go's retry and create-if-absent idioms). */

/** How often a read-modify-write starts over after losing a race (client-go's DefaultRetry has 5 steps; writers here may be busier). */
const CONFLICT_RETRIES = 16;

/** Creates `obj`; one that exists already is fine (someone else made it). */
export async function createIfMissing(client: ApiClient, ref: CollectionRef, obj: KubeObject, opts?: WriteOptions): Promise<void> {
  try {
    await client.create(ref, obj, opts);
  } catch (err) {
    if (!isApiError(err, 'AlreadyExists')) throw err;
  }
}

/**
 * Reads the object, asks `change` for what it should be (undefined: leave it
 * as it is), and creates or replaces it; starts over when another writer got
 * there first (client-go's retry.RetryOnConflict). The PUT carries the
 * resourceVersion read, so it never overwrites a change it did not see.
 * Resolves with what was written, or undefined when nothing was.
 */
export async function readModifyWrite(
  client: ApiClient,
  ref: ObjectRef,
  change: (current: KubeObject | undefined) => KubeObject | undefined,
  opts?: WriteOptions,
): Promise<KubeObject | undefined> {
  for (let attempt = 0; ; attempt++) {
    let current: KubeObject | undefined;
    try {
      current = await client.get({ ...ref, subresource: undefined });
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
    }
    const next = change(current);
    if (!next) return undefined;
    try {
      if (!current) {
        const { name: _n, subresource: _s, ...collection } = ref;
        return await client.create(collection, next, opts);
      }
      return await client.update(ref, next, opts);
    } catch (err) {
      const lostRace = isApiError(err, 'Conflict') || (!current && isApiError(err, 'AlreadyExists'));
      if (!lostRace || attempt + 1 >= CONFLICT_RETRIES) throw err;
    }
  }
}
