import { Version, type LevelVersion } from './api.js';
import { BASELINE_CHECKS } from './baseline-checks.js';
import type { Check, CheckPodFn, CheckResult, VersionedCheck } from './check.js';
import { compareBytes, type PodMetadata, type PodSpec } from './pod-spec.js';
import { RESTRICTED_CHECKS } from './restricted-checks.js';

/**
 * kube's check registry (policy/registry.go): for every policy version up to
 * the newest one any check names, the checks of each level, Baseline ones
 * first then Restricted ones, each group by check id (so messages list
 * reasons in a stable order); Restricted drops the Baseline checks its own
 * revisions override. `latest` and any newer version evaluate as the newest.
 */
export class PodSecurityEvaluator {
  private readonly baseline = new Map<number, CheckPodFn[]>();
  private readonly restricted = new Map<number, CheckPodFn[]>();
  /** The newest policy version any check revision starts at: what `latest` means. */
  readonly maxVersion: Version;

  constructor(checks: readonly Check[] = DEFAULT_CHECKS) {
    validateChecks(checks);
    let max = Version.ZERO;
    for (const c of checks) {
      const last = c.versions[c.versions.length - 1]!.minimumVersion;
      if (max.older(last)) max = last;
    }
    this.maxVersion = max;
    const byLevel = { baseline: new Map<number, Map<string, VersionedCheck>>(), restricted: new Map<number, Map<string, VersionedCheck>>() };
    for (const c of checks) inflate(c, byLevel[c.level], max);
    const idOrder = (level: 'baseline' | 'restricted'): string[] => checks.filter((c) => c.level === level).map((c) => c.id).sort(compareBytes);
    const ordered = [...idOrder('baseline'), ...idOrder('restricted')];
    for (let minor = 0; minor <= max.minor; minor++) {
      const baseline = byLevel.baseline.get(minor) ?? new Map<string, VersionedCheck>();
      const restricted = new Map(byLevel.restricted.get(minor) ?? []);
      const overridden = new Set([...restricted.values()].flatMap((c) => c.overrides ?? []));
      for (const [id, c] of baseline) if (!overridden.has(id)) restricted.set(id, c);
      this.baseline.set(minor, pick(baseline, ordered));
      this.restricted.set(minor, pick(restricted, ordered));
    }
  }

  /** Every applicable check's result for the level and version (none for privileged). */
  evaluatePod(lv: LevelVersion, meta: PodMetadata, spec: PodSpec): CheckResult[] {
    if (lv.level === 'privileged') return [];
    const version = this.maxVersion.older(lv.version) ? this.maxVersion : lv.version;
    const checks = (lv.level === 'baseline' ? this.baseline : this.restricted).get(version.minor) ?? [];
    return checks.map((check) => check(meta, spec));
  }
}

function pick(checks: Map<string, VersionedCheck>, ordered: readonly string[]): CheckPodFn[] {
  return ordered.flatMap((id) => {
    const c = checks.get(id);
    return c ? [c.checkPod] : [];
  });
}

/** Each revision covers the versions from its minimum up to the next revision's (or the newest version). */
function inflate(check: Check, into: Map<number, Map<string, VersionedCheck>>, max: Version): void {
  check.versions.forEach((revision, i) => {
    const until = check.versions[i + 1]?.minimumVersion.minor ?? max.minor + 1;
    for (let minor = revision.minimumVersion.minor; minor < until; minor++) {
      const at = into.get(minor) ?? new Map<string, VersionedCheck>();
      into.set(minor, at);
      at.set(check.id, revision);
    }
  });
}

/** kube's validateChecks: unique ids, increasing concrete versions, overrides only from Restricted of Baseline. */
function validateChecks(checks: readonly Check[]): void {
  const levels = new Map<string, string>();
  for (const check of checks) {
    if (levels.has(check.id)) throw new Error(`multiple checks registered for ID ${check.id}`);
    levels.set(check.id, check.level);
    if (check.versions.length === 0) throw new Error(`check ${check.id}: empty`);
    let previous = Version.ZERO;
    for (const revision of check.versions) {
      const min = revision.minimumVersion;
      if (min.equals(Version.ZERO)) throw new Error(`check ${check.id}: undefined version found`);
      if (min.latest) throw new Error(`check ${check.id}: version cannot be 'latest'`);
      if (previous.equals(min)) throw new Error(`check ${check.id}: duplicate version ${min.toString()}`);
      if (!previous.older(min)) throw new Error(`check ${check.id}: versions must be strictly increasing`);
      previous = min;
    }
  }
  for (const check of checks) {
    for (const revision of check.versions) {
      if (!revision.overrides?.length) continue;
      if (check.level !== 'restricted') throw new Error(`check ${check.id}: only restricted checks may set overrides`);
      for (const id of revision.overrides) {
        const level = levels.get(id);
        if (level !== undefined && level !== 'baseline') throw new Error(`check ${check.id}: overrides ${level} check ${id}`);
      }
    }
  }
}

export const DEFAULT_CHECKS: readonly Check[] = [...BASELINE_CHECKS, ...RESTRICTED_CHECKS];

/** All forbidden results together (policy.AggregateCheckResult). */
export interface AggregateResult {
  allowed: boolean;
  reasons: string[];
  details: string[];
}

export function aggregateResults(results: readonly CheckResult[]): AggregateResult {
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.forbiddenReason || 'unknown forbidden reason');
    details.push(r.forbiddenDetail ?? '');
  }
  return { allowed: reasons.length === 0, reasons, details };
}

/** `host ports, privileged`: the reasons only (used for a namespace's existing pods). */
export function forbiddenReason(r: AggregateResult): string {
  return r.reasons.join(', ');
}

/** `host ports (8080), privileged (container "x" must ...)`: each reason with its detail. */
export function forbiddenDetail(r: AggregateResult): string {
  return r.reasons.map((reason, i) => (r.details[i] ? `${reason} (${r.details[i]})` : reason)).join(', ');
}
