/**
 * The prerelease lifecycle of built-in alpha and beta types, and kube's
 * deprecation warning text (k8s.io/apiserver/pkg/endpoints/deprecation:
 * IsDeprecated, RemovedRelease, WarningMessage).
 *
 * The table holds the `+k8s:prerelease-lifecycle-gen:*` facts of each type as
 * upstream's generated zz_generated.prerelease-lifecycle.go files state them
 * (kubernetes/kubernetes staging/src/k8s.io/api/<group>/<version>/, named
 * per entry with the commit read), or the types.go tags they are made from. What those files derive is derived here the
 * same way (their generated comments say so): deprecated defaults to
 * introduced plus three minors; for beta types removed defaults to deprecated
 * plus three minors; alpha types have no removal release. A type without an
 * entry has no lifecycle: it is never reported deprecated (as for GA types).
 *
 * scheduling.k8s.io/v1alpha2 (Workload, PodGroup) and
 * internal.apiserver.k8s.io/v1alpha1 (StorageVersion) have no lifecycle tags
 * upstream. Not yet in the table (its tag was not found upstream when it was
 * written, so it never warns): resource.k8s.io/v1beta2 DeviceTaintRule.
 */

export interface Release {
  major: number;
  minor: number;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface ApiLifecycle {
  introduced: Release;
  deprecated: Release;
  /** Absent for alpha types. */
  removed?: Release;
  replacement?: GroupVersionKind;
}

interface LifecycleTag {
  group: string;
  version: string;
  kinds: readonly string[];
  introduced: string;
  deprecated?: string;
  removed?: string;
  replacement?: GroupVersionKind;
  /** The upstream file (and commit) the facts are read from. */
  source: string;
}

const LIFECYCLE_TAGS: readonly LifecycleTag[] = [
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1alpha1',
    kinds: ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'],
    introduced: '1.32',
    source: 'admissionregistration/v1alpha1/types.go (+k8s:prerelease-lifecycle-gen:introduced=1.32)',
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1beta1',
    kinds: ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'],
    introduced: '1.34',
    source: 'admissionregistration/v1beta1/types.go@030880a5dc5449403c6d1f0aa146a7dc21d6c6dc (+k8s:prerelease-lifecycle-gen:introduced=1.34)',
  },
  {
    group: 'certificates.k8s.io',
    version: 'v1alpha1',
    kinds: ['ClusterTrustBundle'],
    introduced: '1.26',
    deprecated: '1.34',
    source: 'certificates/v1alpha1/types.go (+k8s:prerelease-lifecycle-gen:introduced=1.26, deprecated=1.34)',
  },
  {
    group: 'certificates.k8s.io',
    version: 'v1beta1',
    kinds: ['ClusterTrustBundle'],
    introduced: '1.33',
    source: 'certificates/v1beta1/zz_generated.prerelease-lifecycle.go@216a68cc74e0d42a97f8c3b18b07c6364c77c11d',
  },
  {
    group: 'certificates.k8s.io',
    version: 'v1beta1',
    kinds: ['PodCertificateRequest'],
    introduced: '1.35',
    source: 'certificates/v1beta1/zz_generated.prerelease-lifecycle.go@216a68cc74e0d42a97f8c3b18b07c6364c77c11d',
  },
  {
    group: 'coordination.k8s.io',
    version: 'v1alpha2',
    kinds: ['LeaseCandidate'],
    introduced: '1.32',
    source: 'coordination/v1alpha2/zz_generated.prerelease-lifecycle.go@2ef9150886602aadc4c5a753ed05ab4ee60a6d0b',
  },
  {
    group: 'coordination.k8s.io',
    version: 'v1beta1',
    kinds: ['LeaseCandidate'],
    introduced: '1.33',
    source: 'coordination/v1beta1/types.go (+k8s:prerelease-lifecycle-gen:introduced=1.33)',
  },
  {
    group: 'networking.k8s.io',
    version: 'v1beta1',
    kinds: ['IPAddress', 'ServiceCIDR'],
    introduced: '1.31',
    source: 'networking/v1beta1/types.go@019c5dc51786ef4d3a3c670a852267d2b087016c (+k8s:prerelease-lifecycle-gen:introduced=1.31)',
  },
  {
    group: 'resource.k8s.io',
    version: 'v1alpha3',
    kinds: ['DeviceTaintRule'],
    introduced: '1.33',
    source: 'resource/v1alpha3/zz_generated.prerelease-lifecycle.go@4966917a139d6a29f8ef316ceb405b171bb362c2',
  },
  // resource.k8s.io/v1alpha3 ResourcePoolStatusRequest (introduced 1.36): that
  // same generated file gives it no APILifecycleDeprecated, so it has no entry.
  {
    group: 'resource.k8s.io',
    version: 'v1beta1',
    kinds: ['DeviceClass', 'ResourceClaim', 'ResourceClaimTemplate', 'ResourceSlice'],
    introduced: '1.32',
    source: 'resource/v1beta1/types.go (+k8s:prerelease-lifecycle-gen:introduced=1.32 on each type and its list)',
  },
  {
    group: 'resource.k8s.io',
    version: 'v1beta2',
    kinds: ['DeviceClass', 'ResourceClaim', 'ResourceClaimTemplate', 'ResourceSlice'],
    introduced: '1.33',
    source: 'resource/v1beta2/zz_generated.prerelease-lifecycle.go@898b9f800267a757615ecfb71fc377d04d996c6b',
  },
  {
    group: 'storage.k8s.io',
    version: 'v1beta1',
    kinds: ['VolumeAttributesClass'],
    introduced: '1.31',
    deprecated: '1.34',
    replacement: { group: 'storage.k8s.io', version: 'v1', kind: 'VolumeAttributesClass' },
    source: 'storage/v1beta1/types.go@008b3652959ca58af8be3fb5b6ecfe9ae7638282 (introduced=1.31, deprecated=1.34, replacement=storage.k8s.io,v1,VolumeAttributesClass)',
  },
  {
    group: 'storagemigration.k8s.io',
    version: 'v1beta1',
    kinds: ['StorageVersionMigration'],
    introduced: '1.35',
    source: 'storagemigration/v1beta1/types.go (+k8s:prerelease-lifecycle-gen:introduced=1.35)',
  },
];

function parseRelease(text: string): Release {
  const [major, minor] = text.split('.').map(Number) as [number, number];
  return { major, minor };
}

function plusThree(r: Release): Release {
  return { major: r.major, minor: r.minor + 3 };
}

function lifecycleOf(tag: LifecycleTag): ApiLifecycle {
  const introduced = parseRelease(tag.introduced);
  const deprecated = tag.deprecated ? parseRelease(tag.deprecated) : plusThree(introduced);
  const beta = /^v\d+beta\d+$/.test(tag.version);
  const removed = tag.removed ? parseRelease(tag.removed) : beta ? plusThree(deprecated) : undefined;
  return { introduced, deprecated, ...(removed ? { removed } : {}), ...(tag.replacement ? { replacement: tag.replacement } : {}) };
}

const BY_GVK = new Map<string, ApiLifecycle>(
  LIFECYCLE_TAGS.flatMap((tag) => tag.kinds.map((kind) => [`${tag.group}/${tag.version}/${kind}`, lifecycleOf(tag)] as const)),
);

/** The lifecycle of a built-in type; undefined for types without one (GA types). */
export function apiLifecycle(gvk: GroupVersionKind): ApiLifecycle | undefined {
  return BY_GVK.get(`${gvk.group}/${gvk.version}/${gvk.kind}`);
}

/** The group/versions with a lifecycle entry (for tests that check the table against the catalog). */
export function lifecycleGroupVersionKinds(): GroupVersionKind[] {
  return LIFECYCLE_TAGS.flatMap((t) => t.kinds.map((kind) => ({ group: t.group, version: t.version, kind })));
}

/** IsDeprecated: deprecated in a release at or before `current` (a zero current release means unknown: deprecated). */
export function isDeprecated(lifecycle: ApiLifecycle | undefined, current: Release): boolean {
  if (!lifecycle) return false;
  const d = lifecycle.deprecated;
  if (d.major === 0 && d.minor === 0) return false;
  if (current.major === 0 && current.minor === 0) return true;
  if (d.major !== current.major) return d.major < current.major;
  return d.minor <= current.minor;
}

/** RemovedRelease: `<major>.<minor>`, or empty when the type has no removal release. */
export function removedRelease(lifecycle: ApiLifecycle | undefined): string {
  const r = lifecycle?.removed;
  return r && (r.major !== 0 || r.minor !== 0) ? `${r.major}.${r.minor}` : '';
}

function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** WarningMessage: `<group/version> <Kind> is deprecated in vX.Y+[, unavailable in vX.Y+][; use <group/version> <Kind>]`. */
export function deprecationWarning(gvk: GroupVersionKind, lifecycle: ApiLifecycle | undefined): string {
  if (!lifecycle) return '';
  const d = lifecycle.deprecated;
  if (d.major === 0 && d.minor === 0) return '';
  if (gvk.group === '' && gvk.version === '' && gvk.kind === '') return '';
  let text = `${groupVersion(gvk.group, gvk.version)} ${gvk.kind} is deprecated in v${d.major}.${d.minor}+`;
  const r = lifecycle.removed;
  if (r && (r.major !== 0 || r.minor !== 0)) text += `, unavailable in v${r.major}.${r.minor}+`;
  const use = lifecycle.replacement;
  if (use && (use.version !== '' || use.kind !== '' || use.group !== '')) text += `; use ${groupVersion(use.group, use.version)} ${use.kind}`;
  return text;
}
