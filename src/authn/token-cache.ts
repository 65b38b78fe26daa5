/**
 * Results of expensive token checks (a JWT's signature), kept per token
 * until a given time, with a bound on how many are kept: kube's token cache
 * keeps successes for 10 s; ours keeps only what cannot change while the
 * server runs (a signature over fixed keys) for as long as the token lives,
 * so that a hot client pays one signature check, while everything that can
 * change (expiry, the ServiceAccount and bound objects) is checked on every
 * request.
 */
export class TokenCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(token: string): T | undefined {
    const e = this.entries.get(token);
    if (!e) return undefined;
    if (this.now() >= e.until) {
      this.entries.delete(token);
      return undefined;
    }
    return e.value;
  }

  set(token: string, value: T, until: number): void {
    if (until <= this.now()) return;
    if (this.entries.size >= this.maxEntries) {
      // The oldest entry goes first (a Map iterates in insertion order).
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(token, { value, until });
  }

  get size(): number {
    return this.entries.size;
  }
}
