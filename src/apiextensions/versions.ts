import { compareKubeAwareVersions } from '../api/versions.js';
import type { CrdSpec } from './crd.js';

/**
 * The Warning header of a deprecated custom resource version: the version's
 * deprecationWarning, or kube's default (crdHandler's
 * defaultDeprecationWarning): "<group>/<version> <Kind> is deprecated", plus
 * "; use <group>/<version> <Kind>" naming the most preferred served,
 * undeprecated version that sorts above it.
 */
export function deprecationWarnings(spec: CrdSpec, kind: string): Map<string, string> {
  const out = new Map<string, string>();
  const group = spec.group ?? '';
  for (const v of spec.versions ?? []) {
    if (!v.deprecated || !v.name) continue;
    if (typeof v.deprecationWarning === 'string') {
      out.set(v.name, v.deprecationWarning);
      continue;
    }
    let msg = `${group}/${v.name} ${kind} is deprecated`;
    const newer = (spec.versions ?? [])
      .filter((o) => o.served && !o.deprecated && o.name && compareKubeAwareVersions(v.name!, o.name) < 0)
      .map((o) => o.name!)
      .sort((a, b) => compareKubeAwareVersions(b, a));
    if (newer.length > 0) msg += `; use ${group}/${newer[0]} ${kind}`;
    out.set(v.name, msg);
  }
  return out;
}

/** kube's IsProtectedCommunityGroup: groups under k8s.io and kubernetes.io need API approval. */
export function isProtectedGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

export const API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';

export type ApprovalState = 'Approved' | 'Bypassed' | 'Invalid' | 'Missing';

/** kube's GetAPIApprovalState: the state and its reason text. */
export function apiApprovalState(annotations: Readonly<Record<string, string>> | undefined): { state: ApprovalState; reason: string } {
  const value = annotations?.[API_APPROVED_ANNOTATION] ?? '';
  if (value === '') return { state: 'Missing', reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111` };
  if (value.startsWith('unapproved')) return { state: 'Bypassed', reason: `not approved: ${JSON.stringify(value)}` };
  if (isRequestUri(value)) return { state: 'Approved', reason: `approved in ${value}` };
  return {
    state: 'Invalid',
    reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
  };
}

/** url.ParseRequestURI succeeding with a scheme and a host. */
function isRequestUri(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol.length > 1 && u.host.length > 0;
  } catch {
    return false;
  }
}
