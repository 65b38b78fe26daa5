/**
 * /livez, /readyz and /healthz as kube-apiserver serves them: named checks,
 * `verbose` listing, `exclude=<check>` (repeatable), individual checks at
 * `/<endpoint>/<check>`, 200 only when every included check passes.
 */

export type HealthEndpoint = 'livez' | 'readyz' | 'healthz';

export interface HealthCheck {
  name: string;
  /** Resolves when healthy; rejects (or throws) with the reason otherwise. */
  check(): Promise<void> | void;
  endpoints: HealthEndpoint[];
}

export interface HealthResponse {
  code: number;
  body: string;
  /** Warning header values (e.g. unknown excluded checks). */
  warnings: string[];
}

const CHECK_TIMEOUT_MS = 2000;

async function runCheck(c: HealthCheck): Promise<string | undefined> {
  try {
    await Promise.race([
      Promise.resolve().then(() => c.check()),
      new Promise<void>((_, reject) => setTimeout(() => reject(new Error('check timed out')), CHECK_TIMEOUT_MS).unref()),
    ]);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export class HealthChecks {
  private readonly checks: HealthCheck[] = [];

  add(check: HealthCheck): void {
    this.checks.push(check);
  }

  private for(endpoint: HealthEndpoint): HealthCheck[] {
    return this.checks.filter((c) => c.endpoints.includes(endpoint));
  }

  /** Serves `/<endpoint>` or `/<endpoint>/<check>`; undefined when the check does not exist. */
  async serve(endpoint: HealthEndpoint, checkName: string | undefined, query: URLSearchParams): Promise<HealthResponse | undefined> {
    const checks = this.for(endpoint);
    if (checkName !== undefined) {
      const c = checks.find((x) => x.name === checkName);
      if (!c) return undefined;
      const err = await runCheck(c);
      return err === undefined ? { code: 200, body: 'ok', warnings: [] } : { code: 500, body: `internal server error: ${err}\n`, warnings: [] };
    }
    // As healthz.go: each `exclude` value names one check (no comma lists), and
    // `verbose` counts when present at all, whatever its value.
    const excluded = new Set(query.getAll('exclude'));
    const verbose = query.has('verbose');
    const results = await Promise.all(checks.map(async (c) => ({ c, err: excluded.has(c.name) ? undefined : await runCheck(c) })));
    const failed = results.some((r) => r.err !== undefined);
    const lines: string[] = [];
    for (const { c, err } of results) {
      if (excluded.has(c.name)) lines.push(`[+]${c.name} excluded: ok`);
      else if (err === undefined) lines.push(`[+]${c.name} ok`);
      else lines.push(`[-]${c.name} failed: reason withheld`);
    }
    const unknown = [...excluded].filter((e) => !checks.some((c) => c.name === e)).sort();
    const warnings = unknown.length > 0 ? [`cannot exclude some health checks, no matches for "${unknown.join('", "')}"`] : [];
    if (unknown.length > 0) lines.push(`warn: some health checks cannot be excluded: no matches for ${unknown.map((u) => JSON.stringify(u)).join(',')}`);
    if (failed) return { code: 500, body: `${lines.join('\n')}\n${endpoint} check failed\n`, warnings };
    if (!verbose) return { code: 200, body: 'ok', warnings };
    return { code: 200, body: `${lines.join('\n')}\n${endpoint} check passed\n`, warnings };
  }
}
