import type { KubeObject } from '../../machinery/object.js';

/**
 * The writes the mirroring controller made and its informer may not have
 * seen yet (kube's EndpointSliceTracker, by resourceVersion rather than
 * generation): a sync that would plan from a view missing one of them is
 * stale and waits; an informer event that is only the echo of one of them
 * needs no sync. Entries go once the informer has caught up.
 */
export class SliceTracker {
  /** Endpoints key → slice name → the resourceVersion written, or 'deleted'. */
  private readonly expected = new Map<string, Map<string, number | 'deleted'>>();

  wrote(key: string, slice: KubeObject): void {
    this.entries(key).set(slice.metadata?.name ?? '', Number(slice.metadata?.resourceVersion ?? 0));
  }

  deleted(key: string, slice: KubeObject): void {
    this.entries(key).set(slice.metadata?.name ?? '', 'deleted');
  }

  forget(key: string): void {
    this.expected.delete(key);
  }

  /** StaleSlices: a slice written is missing or older in `seen`, or one deleted is still there. */
  stale(key: string, seen: readonly KubeObject[]): boolean {
    const want = this.expected.get(key);
    if (!want) return false;
    const byName = new Map(seen.map((s) => [s.metadata?.name ?? '', s]));
    for (const [name, rv] of [...want]) {
      const slice = byName.get(name);
      const caughtUp = rv === 'deleted' ? slice === undefined : slice !== undefined && resourceVersion(slice) >= rv;
      if (!caughtUp) return true;
      want.delete(name);
    }
    this.expected.delete(key);
    return false;
  }

  /** ShouldSync / HandleDeletion: whether an informer event for a slice of `key` is news (not the echo of a write of ours). */
  shouldSync(key: string, slice: KubeObject, deleted: boolean): boolean {
    const want = this.expected.get(key);
    const name = slice.metadata?.name ?? '';
    const rv = want?.get(name);
    if (rv === undefined) return true;
    if (deleted) {
      want!.delete(name);
      return rv !== 'deleted';
    }
    if (rv === 'deleted') return true;
    if (resourceVersion(slice) >= rv) want!.delete(name);
    return resourceVersion(slice) > rv;
  }

  private entries(key: string): Map<string, number | 'deleted'> {
    let m = this.expected.get(key);
    if (!m) {
      m = new Map();
      this.expected.set(key, m);
    }
    return m;
  }
}

function resourceVersion(slice: KubeObject): number {
  return Number(slice.metadata?.resourceVersion ?? 0);
}
