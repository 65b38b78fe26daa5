import { Version } from './api.js';
import { procMountStrict, validSeccompType } from './baseline-checks.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn, type CheckResult } from './check.js';
import { allContainers, inUserNamespace, isWindowsPod, joinQuote, pluralize, sortedSet, type PodMetadata, type PodSpec } from './pod-spec.js';

/**
 * The Restricted level of the Pod Security Standards (policy/check_*.go with
 * Level Restricted): the checks added to Baseline, and the Baseline checks
 * each one replaces.
 */

const v = (minor: number): Version => Version.of(1, minor);

function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** From v1.25 a Windows pod passes the Linux-only checks (pod validation refuses those fields for it). */
function exceptWindows(check: CheckPodFn): CheckPodFn {
  return (meta, spec) => (isWindowsPod(spec) ? ALLOWED : check(meta, spec));
}

/** From v1.35 a pod in a user namespace may run as root inside it. */
function exceptUserNamespace(check: CheckPodFn): CheckPodFn {
  return (meta, spec) => (inUserNamespace(spec) ? ALLOWED : check(meta, spec));
}

function allowPrivilegeEscalation(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad = allContainers(spec).filter((c) => c.securityContext?.allowPrivilegeEscalation !== false).map((c) => c.name);
  if (bad.length === 0) return ALLOWED;
  return forbiddenResult('allowPrivilegeEscalation != false', `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`);
}

function capabilitiesRestricted(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbiddenCaps: string[] = [];
  for (const c of allContainers(spec)) {
    const caps = c.securityContext?.capabilities;
    if (!caps) {
      missingDropAll.push(c.name);
      continue;
    }
    if (!(caps.drop ?? []).includes('ALL')) missingDropAll.push(c.name);
    const added = (caps.add ?? []).filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (added.length > 0) {
      addingForbidden.push(c.name);
      forbiddenCaps.push(...added);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length > 0) {
    details.push(`${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedSet(forbiddenCaps))} in securityContext.capabilities.add`);
  }
  if (details.length === 0) return ALLOWED;
  return forbiddenResult('unrestricted capabilities', details.join('; '));
}

const ALLOWED_VOLUME_SOURCES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret']);

/** The volume source kube names a volume by, in the order of its switch. */
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume',
  'cinder', 'cephfs', 'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk',
  'portworxVolume', 'scaleIO', 'storageos',
];

function restrictedVolumes(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const vol of spec.volumes ?? []) {
    const set = (key: string): boolean => vol[key] !== undefined && vol[key] !== null;
    if ([...ALLOWED_VOLUME_SOURCES].some(set)) continue;
    bad.push(vol.name);
    types.push(RESTRICTED_VOLUME_SOURCES.find(set) ?? 'unknown');
  }
  if (bad.length === 0) return ALLOWED;
  const distinct = sortedSet(types);
  return forbiddenResult(
    'restricted volume types',
    `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', distinct.length)} ${joinQuote(distinct)}`,
  );
}

function runAsNonRoot(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const badSetters: string[] = [];
  let podRunAsNonRoot = false;
  const podValue = spec.securityContext?.runAsNonRoot;
  if (podValue === false) badSetters.push('pod');
  else if (podValue === true) podRunAsNonRoot = true;
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const c of allContainers(spec)) {
    const value = c.securityContext?.runAsNonRoot;
    if (value === false) explicitlyBad.push(c.name);
    else if (value === undefined || value === null) {
      if (!podRunAsNonRoot) implicitlyBad.push(c.name);
    }
  }
  if (explicitlyBad.length > 0) badSetters.push(containersPhrase(explicitlyBad));
  if (badSetters.length > 0) return forbiddenResult('runAsNonRoot != true', `${badSetters.join(' and ')} must not set securityContext.runAsNonRoot=false`);
  if (implicitlyBad.length > 0) return forbiddenResult('runAsNonRoot != true', `pod or ${containersPhrase(implicitlyBad)} must set securityContext.runAsNonRoot=true`);
  return ALLOWED;
}

function runAsUser(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const badSetters: string[] = [];
  if (spec.securityContext?.runAsUser === 0) badSetters.push('pod');
  const bad = allContainers(spec).filter((c) => c.securityContext?.runAsUser === 0).map((c) => c.name);
  if (bad.length > 0) badSetters.push(containersPhrase(bad));
  if (badSetters.length === 0) return ALLOWED;
  return forbiddenResult('runAsUser=0', `${badSetters.join(' and ')} must not set runAsUser=0`);
}

function seccompRestricted(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const badSetters: string[] = [];
  const values: string[] = [];
  let podSet = false;
  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile) {
    if (validSeccompType(podProfile.type)) podSet = true;
    else {
      badSetters.push('pod');
      values.push(podProfile.type ?? '');
    }
  }
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const c of allContainers(spec)) {
    const profile = c.securityContext?.seccompProfile;
    if (profile) {
      if (!validSeccompType(profile.type)) {
        explicitlyBad.push(c.name);
        values.push(profile.type ?? '');
      }
    } else if (!podSet) implicitlyBad.push(c.name);
  }
  if (explicitlyBad.length > 0) badSetters.push(containersPhrase(explicitlyBad));
  if (badSetters.length > 0) {
    return forbiddenResult('seccompProfile', `${badSetters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`);
  }
  if (implicitlyBad.length > 0) {
    return forbiddenResult('seccompProfile', `pod or ${containersPhrase(implicitlyBad)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
  }
  return ALLOWED;
}

export const RESTRICTED_CHECKS: readonly Check[] = [
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [
      { minimumVersion: v(8), checkPod: allowPrivilegeEscalation },
      { minimumVersion: v(25), checkPod: exceptWindows(allowPrivilegeEscalation) },
    ],
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: v(22), checkPod: capabilitiesRestricted, overrides: ['capabilities_baseline'] },
      { minimumVersion: v(25), checkPod: exceptWindows(capabilitiesRestricted), overrides: ['capabilities_baseline'] },
    ],
  },
  { id: 'procMount_restricted', level: 'restricted', versions: [{ minimumVersion: v(35), checkPod: procMountStrict, overrides: ['procMount'] }] },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimumVersion: v(0), checkPod: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  {
    id: 'runAsNonRoot',
    level: 'restricted',
    versions: [
      { minimumVersion: v(0), checkPod: runAsNonRoot },
      { minimumVersion: v(35), checkPod: exceptUserNamespace(runAsNonRoot) },
    ],
  },
  {
    id: 'runAsUser',
    level: 'restricted',
    versions: [
      { minimumVersion: v(23), checkPod: runAsUser },
      { minimumVersion: v(35), checkPod: exceptUserNamespace(runAsUser) },
    ],
  },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: v(19), checkPod: seccompRestricted, overrides: ['seccompProfile_baseline'] },
      { minimumVersion: v(25), checkPod: exceptWindows(seccompRestricted), overrides: ['seccompProfile_baseline'] },
    ],
  },
];
