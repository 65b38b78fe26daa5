import type { KubeObject } from '../../machinery/object.js';
import type { FieldError } from '../../machinery/errors.js';
import { ensureObject, isNil, type JsonObject } from './util.js';

/**
 * The Service IP family fields kube-apiserver fills around cluster IP
 * allocation (registry/core/service/storage alloc.go, initIPFamilyFields and
 * allocClusterIPs). The caller owns the allocators: it calls
 * initServiceIPFamilies first, allocates one IP per entry of
 * spec.ipFamilies that has no IP yet (see familiesToAllocate), then hands
 * the addresses to setAllocatedClusterIPs.
 */

export type IPFamily = 'IPv4' | 'IPv6';

function familyOf(ip: string): IPFamily {
  return ip.includes(':') ? 'IPv6' : 'IPv4';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * Fills spec.ipFamilyPolicy and spec.ipFamilies. `clusterFamilies` lists the
 * families the cluster serves, primary first (["IPv4"] for a single-stack
 * cluster). Returns the errors kube reports as 422 before allocating.
 */
export function initServiceIPFamilies(svc: KubeObject, old: KubeObject | undefined, clusterFamilies: readonly IPFamily[]): FieldError[] {
  const spec = ensureObject(svc, 'spec');
  if (spec.type === 'ExternalName') return [];
  const oldSpec = (old?.spec ?? undefined) as JsonObject | undefined;
  const selectorless = isNil(spec.selector) || Object.keys(spec.selector as object).length === 0;
  const headless = spec.clusterIP === 'None';

  if (isNil(spec.ipFamilyPolicy)) {
    if (oldSpec && !isNil(oldSpec.ipFamilyPolicy)) spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
    // Headless services without a selector default to dual-stack: their
    // endpoints are managed by hand and may carry both families.
    else if (headless && selectorless) spec.ipFamilyPolicy = 'RequireDualStack';
    else spec.ipFamilyPolicy = 'SingleStack';
  }
  const errs: FieldError[] = [];
  const policy = spec.ipFamilyPolicy;
  const clusterIPs = strings(spec.clusterIPs);
  let families = strings(spec.ipFamilies) as IPFamily[];

  if (policy === 'SingleStack') {
    if (clusterIPs.length === 2) {
      errs.push({ type: 'FieldValueInvalid', field: 'spec.ipFamilyPolicy', value: policy, detail: "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified" });
    }
    if (families.length === 2) {
      errs.push({ type: 'FieldValueInvalid', field: 'spec.ipFamilyPolicy', value: policy, detail: "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified" });
    }
  }
  // Families follow from given cluster IPs.
  clusterIPs.forEach((ip, i) => {
    if (ip === 'None' || i < families.length) return;
    const fam = familyOf(ip);
    if (!clusterFamilies.includes(fam)) {
      errs.push({ type: 'FieldValueInvalid', field: `spec.clusterIPs[${i}]`, value: clusterIPs, detail: `${fam} is not configured on this cluster` });
    } else {
      families = [...families, fam];
    }
  });
  if (errs.length > 0) return errs;

  if (headless && selectorless) {
    if (families.length === 0) families = [clusterFamilies[0] ?? 'IPv4'];
    if (families.length < 2 && policy !== 'SingleStack') families = [...families, families[0] === 'IPv4' ? 'IPv6' : 'IPv4'];
    spec.ipFamilies = families;
    return [];
  }
  if (policy === 'RequireDualStack' && clusterFamilies.length < 2) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.ipFamilyPolicy', value: policy, detail: 'this cluster is not configured for dual-stack services' });
  }
  families.forEach((fam, i) => {
    if (!clusterFamilies.includes(fam)) errs.push({ type: 'FieldValueInvalid', field: `spec.ipFamilies[${i}]`, value: fam, detail: 'not configured on this cluster' });
  });
  if (errs.length > 0) return errs;
  if (families.length === 0) families = [clusterFamilies[0] ?? 'IPv4'];
  if (policy !== 'SingleStack' && families.length === 1 && clusterFamilies.length === 2) {
    families = [...families, families[0] === 'IPv4' ? 'IPv6' : 'IPv4'];
  }
  spec.ipFamilies = families;
  return [];
}

/** The families that still need an address (none for headless and ExternalName services). */
export function familiesToAllocate(svc: KubeObject): IPFamily[] {
  const spec = ensureObject(svc, 'spec');
  if (spec.type === 'ExternalName') return [];
  const clusterIPs = strings(spec.clusterIPs);
  if (clusterIPs[0] === 'None' || spec.clusterIP === 'None') return [];
  return (strings(spec.ipFamilies) as IPFamily[]).filter((_, i) => !clusterIPs[i]);
}

/** Writes allocated addresses into spec.clusterIPs (in ipFamilies order) and spec.clusterIP (the first). */
export function setAllocatedClusterIPs(svc: KubeObject, allocated: Partial<Record<IPFamily, string>>): void {
  const spec = ensureObject(svc, 'spec');
  const families = strings(spec.ipFamilies) as IPFamily[];
  const clusterIPs = strings(spec.clusterIPs);
  families.forEach((fam, i) => {
    const ip = allocated[fam];
    if (ip) clusterIPs[i] = ip;
    else if (clusterIPs[i] === undefined) clusterIPs[i] = '';
  });
  spec.clusterIPs = clusterIPs;
  if (clusterIPs[0]) spec.clusterIP = clusterIPs[0];
}

/**
 * Create-time normalisation kube does before validation (normalizeClusterIPs):
 * a lone clusterIP becomes clusterIPs: [clusterIP], and a lone clusterIPs[0]
 * fills clusterIP.
 */
export function normalizeClusterIPs(svc: KubeObject): void {
  const spec = ensureObject(svc, 'spec');
  const clusterIP = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
  const clusterIPs = strings(spec.clusterIPs);
  if (clusterIP !== '' && clusterIPs.length === 0) spec.clusterIPs = [clusterIP];
  else if (clusterIP === '' && clusterIPs.length > 0) spec.clusterIP = clusterIPs[0];
}
