import { isApiError } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/object.js';
import type { ResourceStore } from './resource-store.js';

/** One object by namespace and name, undefined when it does not exist. Shared: do not mutate. */
export type ObjectLookup = (namespace: string | undefined, name: string) => Promise<KubeObject | undefined>;

/**
 * A lookup through the resource's watch cache (kube's informer listers):
 * whatever the cache holds now; only an object the cache does not hold is
 * read again once the cache has caught up with the store, as kube falls back
 * to a live GET, so a token for an object created a moment ago works.
 */
export function cachedLookup(store: () => ResourceStore): ObjectLookup {
  return async (namespace, name) => {
    const s = store();
    try {
      return await s.get(namespace, name, { kind: 'any' });
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
    }
    try {
      return await s.get(namespace, name, { kind: 'consistent' });
    } catch (err) {
      if (isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
  };
}
