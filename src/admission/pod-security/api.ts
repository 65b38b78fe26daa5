import type { FieldError } from '../../machinery/errors.js';

/**
 * k8s.io/pod-security-admission/api: levels, policy versions, and a
 * namespace's policy from its pod-security.kubernetes.io labels.
 */

export type Level = 'privileged' | 'baseline' | 'restricted';

const VALID_LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export const AUDIT_ANNOTATION_PREFIX = LABEL_PREFIX;
export const ENFORCE_LEVEL_LABEL = `${LABEL_PREFIX}enforce`;
export const ENFORCE_VERSION_LABEL = `${LABEL_PREFIX}enforce-version`;
export const AUDIT_LEVEL_LABEL = `${LABEL_PREFIX}audit`;
export const AUDIT_VERSION_LABEL = `${LABEL_PREFIX}audit-version`;
export const WARN_LEVEL_LABEL = `${LABEL_PREFIX}warn`;
export const WARN_VERSION_LABEL = `${LABEL_PREFIX}warn-version`;

/** Audit annotation keys (after the pod-security.kubernetes.io/ prefix). */
export const EXEMPTION_REASON_ANNOTATION = 'exempt';
export const AUDIT_VIOLATIONS_ANNOTATION = 'audit-violations';
export const ENFORCED_POLICY_ANNOTATION = 'enforce-policy';

/** A policy version: v1.<minor>, or `latest`, which is newer than every version. */
export class Version {
  private constructor(
    readonly major: number,
    readonly minor: number,
    readonly latest: boolean,
  ) {}

  static of(major: number, minor: number): Version {
    return new Version(major, minor, false);
  }

  static readonly LATEST = new Version(0, 0, true);
  /** The zero version (Go's Version{}): older than every real version. */
  static readonly ZERO = new Version(0, 0, false);

  toString(): string {
    return this.latest ? 'latest' : `v${this.major}.${this.minor}`;
  }

  older(other: Version): boolean {
    if (this.latest) return false;
    if (other.latest) return true;
    if (this.major !== other.major) return this.major < other.major;
    return this.minor < other.minor;
  }

  equals(other: Version): boolean {
    return this.latest === other.latest && this.major === other.major && this.minor === other.minor;
  }

  next(): Version {
    return this.latest ? this : Version.of(this.major, this.minor + 1);
  }
}

export interface LevelVersion {
  level: Level;
  version: Version;
}

export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${lv.version.toString()}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version.equals(b.version);
}

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';
}

/** Same decisions: the levels match, and the versions too unless the level is privileged. */
function equivalentLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && (a.level === 'privileged' || a.version.equals(b.version));
}

export function equivalentPolicies(a: Policy, b: Policy): boolean {
  return equivalentLevelVersion(a.enforce, b.enforce) && equivalentLevelVersion(a.audit, b.audit) && equivalentLevelVersion(a.warn, b.warn);
}

/** An unknown level reads as restricted, with kube's error. */
export function parseLevel(level: string): { level: Level; error?: string } {
  if ((VALID_LEVELS as readonly string[]).includes(level)) return { level: level as Level };
  return { level: 'restricted', error: `must be one of ${VALID_LEVELS.join(', ')}` };
}

const VERSION_PATTERN = /^v1\.([0-9]|[1-9][0-9]*)$/;

/** `latest` or `v1.<minor>`; anything else reads as latest, with kube's error. */
export function parseVersion(version: string): { version: Version; error?: string } {
  if (version === 'latest') return { version: Version.LATEST };
  const m = VERSION_PATTERN.exec(version);
  const minor = m ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(minor)) return { version: Version.LATEST, error: 'must be "latest" or "v1.x"' };
  return { version: Version.of(1, minor) };
}

/** -1 when a is less strict than b, 0 when equal, +1 when stricter. */
export function compareLevels(a: Level, b: Level): number {
  if (a === b) return 0;
  if (a === 'privileged') return -1;
  if (a === 'restricted') return 1;
  return b === 'privileged' ? 1 : -1;
}

function labelError(label: string, value: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: `metadata.labels[${label}]`, value, detail };
}

/**
 * The namespace's policy: the defaults, overridden by each label present. A
 * valid policy always comes back; a bad enforce label means restricted:latest
 * (fail closed), a bad audit or warn level means privileged (fail open).
 */
export function policyToEvaluate(labels: Record<string, string> | undefined, defaults: Policy): { policy: Policy; errors: FieldError[] } {
  const p: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: FieldError[] = [];
  if (!labels || Object.keys(labels).length === 0) return { policy: p, errors };
  const modes: Array<[keyof Policy, string, string, boolean]> = [
    ['enforce', ENFORCE_LEVEL_LABEL, ENFORCE_VERSION_LABEL, false],
    ['audit', AUDIT_LEVEL_LABEL, AUDIT_VERSION_LABEL, true],
    ['warn', WARN_LEVEL_LABEL, WARN_VERSION_LABEL, true],
  ];
  for (const [mode, levelLabel, versionLabel, failOpen] of modes) {
    const level = labels[levelLabel];
    if (level !== undefined) {
      const parsed = parseLevel(level);
      p[mode].level = parsed.level;
      if (parsed.error) {
        errors.push(labelError(levelLabel, level, parsed.error));
        if (failOpen) p[mode].level = 'privileged';
      }
    }
    const version = labels[versionLabel];
    if (version !== undefined) {
      const parsed = parseVersion(version);
      p[mode].version = parsed.version;
      if (parsed.error) errors.push(labelError(versionLabel, version, parsed.error));
    }
  }
  return { policy: p, errors };
}
