import { readFileSync, writeFileSync } from 'node:fs';
import { isStoreError, type Store } from '../storage/store.js';

/**
 * A test server's stored state below the API: what existed once the server
 * was ready (its system objects), a reset that deletes everything else, and
 * snapshots written to a file and read back. Deletes and writes go through
 * the store, so watches and the watch caches see them like any other change;
 * finalizers and garbage collection are not run (a reset is a wipe, not a
 * cascade of API deletes).
 */

interface SnapshotFile {
  kind: 'CapstanStoreSnapshot';
  version: 1;
  items: Array<{ key: string; value: string }>;
}

export class StoreState {
  private systemKeys = new Set<string>();

  constructor(
    private readonly store: Store,
    /** The key prefix everything the API stores is under (--etcd-prefix). */
    private readonly prefix: string,
  ) {}

  /** Remembers the keys there are now as the system's. */
  async markSystemState(): Promise<void> {
    this.systemKeys = new Set((await this.all()).map((kv) => kv.key));
  }

  /** Deletes every key that was not there when the system state was marked; resolves with how many. */
  async reset(): Promise<number> {
    let deleted = 0;
    for (const kv of await this.all()) {
      if (this.systemKeys.has(kv.key)) continue;
      try {
        await this.store.delete(kv.key);
        deleted++;
      } catch (err) {
        // Gone already (a controller was quicker): nothing to do.
        if (!isStoreError(err, 'NotFound')) throw err;
      }
    }
    return deleted;
  }

  /** Writes every stored key and value to `path` (JSON). */
  async snapshot(path: string): Promise<number> {
    const items = (await this.all()).map((kv) => ({ key: kv.key, value: kv.value }));
    const file: SnapshotFile = { kind: 'CapstanStoreSnapshot', version: 1, items };
    writeFileSync(path, JSON.stringify(file));
    return items.length;
  }

  /** Makes the store hold what the snapshot at `path` holds: other keys deleted, differing values replaced. */
  async restore(path: string): Promise<void> {
    const file = JSON.parse(readFileSync(path, 'utf8')) as Partial<SnapshotFile>;
    if (file.kind !== 'CapstanStoreSnapshot' || file.version !== 1 || !Array.isArray(file.items)) throw new Error(`${path} is not a Capstan store snapshot`);
    const wanted = new Map(file.items.map((i) => [i.key, i.value]));
    for (const kv of await this.all()) {
      if (!wanted.has(kv.key)) await this.deleteIfPresent(kv.key);
    }
    for (const [key, value] of wanted) {
      const current = await this.store.get(key);
      if (!current) await this.store.create(key, value);
      else if (current.value !== value) await this.store.update(key, value, current.modRevision);
    }
  }

  private async deleteIfPresent(key: string): Promise<void> {
    try {
      await this.store.delete(key);
    } catch (err) {
      if (!isStoreError(err, 'NotFound')) throw err;
    }
  }

  private async all(): Promise<Array<{ key: string; value: string }>> {
    return (await this.store.list(this.prefix.endsWith('/') ? this.prefix : `${this.prefix}/`)).items;
  }
}
