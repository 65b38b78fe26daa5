import { randomUUID } from 'node:crypto';
import { nowTimestamp } from '../machinery/object.js';
import type { Store } from '../storage/store.js';

/**
 * What a test server's store holds once it is ready (system namespaces and
 * their defaults, priority classes, the local APIServices and their status,
 * the kubernetes Service, the default RBAC policy with RBAC), kept once per
 * process for each set of options that shapes it. A later server's store
 * starts with a copy, so its controllers find their objects in place and
 * only reconcile (the kubernetes Endpoints get the new port) instead of
 * writing everything again through the API: that was most of a later start.
 *
 * Each copy gets new uids and creation times: servers stay distinct clusters.
 */

interface StoredItem {
  key: string;
  value: string;
}

export class SystemTemplates {
  private readonly templates = new Map<string, readonly StoredItem[]>();

  /** Keeps what `store` holds under `prefix` as the template for `shape` (the first capture wins). */
  async capture(shape: string, store: Store, prefix: string): Promise<void> {
    if (this.templates.has(shape)) return;
    const { items } = await store.list(prefix.endsWith('/') ? prefix : `${prefix}/`);
    this.templates.set(shape, items.map((kv) => ({ key: kv.key, value: String(kv.value) })));
  }

  /** Writes a fresh copy of the template for `shape` into an empty store; false when there is none yet. */
  async seed(shape: string, store: Store): Promise<boolean> {
    const template = this.templates.get(shape);
    if (!template) return false;
    const now = nowTimestamp();
    for (const item of template) await store.create(item.key, renewed(item.value, now));
    return true;
  }
}

/** The stored object with a new uid and creation time. */
function renewed(value: string, now: string): string {
  const obj = JSON.parse(value) as { metadata?: { uid?: string; creationTimestamp?: string } };
  if (obj.metadata) {
    obj.metadata.uid = randomUUID();
    obj.metadata.creationTimestamp = now;
  }
  return JSON.stringify(obj);
}
