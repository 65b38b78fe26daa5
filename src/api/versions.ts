import type { Stability } from './types.js';

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

interface ParsedVersion {
  major: number;
  /** 2 = GA, 1 = beta, 0 = alpha: higher ranks first. */
  rank: number;
  minor: number;
}

function parse(v: string): ParsedVersion | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const rank = m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2;
  return { major: Number(m[1]), rank, minor: m[3] === undefined ? 0 : Number(m[3]) };
}

/**
 * Kubernetes' version ordering (apimachinery CompareKubeAwareVersionStrings):
 * GA before beta before alpha, then higher major, then higher minor; versions
 * that are not kube-like sort after all kube-like ones, reverse-lexically.
 * Returns > 0 when `a` is preferred over `b`.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = parse(a);
  const pb = parse(b);
  if (!pa && !pb) return b < a ? -1 : 1;
  if (!pa) return -1;
  if (!pb) return 1;
  if (pa.rank !== pb.rank) return pa.rank - pb.rank;
  if (pa.major !== pb.major) return pa.major - pb.major;
  return pa.minor - pb.minor;
}

/** Sorts versions most preferred first. */
export function sortVersionsByPreference(versions: string[]): string[] {
  return [...versions].sort((a, b) => compareKubeAwareVersions(b, a));
}

export function stabilityOf(version: string): Stability {
  if (/alpha/.test(version)) return 'alpha';
  if (/beta/.test(version)) return 'beta';
  return 'stable';
}
