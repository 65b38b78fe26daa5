/**
 * A sorted array of keys with binary-search insert, delete and prefix range:
 * the order lists and continue tokens need, without a tree.
 */
export class SortedKeys {
  private keys: string[] = [];

  clear(): void {
    this.keys = [];
  }

  get size(): number {
    return this.keys.length;
  }

  /** Index of the first key >= `key`. */
  lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(key: string): void {
    const i = this.lowerBound(key);
    if (this.keys[i] !== key) this.keys.splice(i, 0, key);
  }

  delete(key: string): void {
    const i = this.lowerBound(key);
    if (this.keys[i] === key) this.keys.splice(i, 1);
  }

  /** Keys starting with `prefix`, from `start` (inclusive) on, in order. */
  *range(prefix: string, start?: string): Generator<string> {
    let i = this.lowerBound(start !== undefined && start > prefix ? start : prefix);
    for (; i < this.keys.length; i++) {
      const k = this.keys[i]!;
      if (!k.startsWith(prefix)) return;
      yield k;
    }
  }

  /** A copy of the keys with `prefix`, for snapshots that outlive later changes. */
  slice(prefix: string): string[] {
    const from = this.lowerBound(prefix);
    let to = from;
    while (to < this.keys.length && this.keys[to]!.startsWith(prefix)) to++;
    return this.keys.slice(from, to);
  }
}
