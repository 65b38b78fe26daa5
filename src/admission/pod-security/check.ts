import type { Level } from './api.js';
import type { Version } from './api.js';
import type { PodMetadata, PodSpec } from './pod-spec.js';

/** One check's verdict on a pod (policy.CheckResult): when forbidden, a short reason and optional detail. */
export interface CheckResult {
  allowed: boolean;
  forbiddenReason?: string;
  forbiddenDetail?: string;
}

export type CheckPodFn = (meta: PodMetadata, spec: PodSpec) => CheckResult;

export interface VersionedCheck {
  /** The first policy version this revision applies to. */
  minimumVersion: Version;
  checkPod: CheckPodFn;
  /** Baseline checks this restricted revision replaces. */
  overrides?: readonly string[];
}

export interface Check {
  id: string;
  level: Exclude<Level, 'privileged'>;
  /** Revisions in strictly increasing minimum version. */
  versions: readonly VersionedCheck[];
}

export const ALLOWED: CheckResult = { allowed: true };

export function forbiddenResult(reason: string, detail: string): CheckResult {
  return { allowed: false, forbiddenReason: reason, forbiddenDetail: detail };
}
