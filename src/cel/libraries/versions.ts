/**
 * Which Kubernetes version adds each library to the CEL base environment
 * (staging/src/k8s.io/apiserver/pkg/cel/environment/base.go, 1.36). An
 * environment built for compatibility version v has every library whose
 * version is at most v; kube-apiserver's default is its own version minus one
 * (the version a rollback must still understand) for stored expressions and
 * its own version for new ones, a choice the caller makes.
 */
export interface KubeVersion {
  readonly major: number;
  readonly minor: number;
}

export type LibraryName =
  | 'urls'
  | 'regex'
  | 'lists'
  | 'authz'
  | 'quantity'
  | 'crossTypeNumericComparisons'
  | 'optionalTypes'
  | 'stringsV0'
  | 'stringsV2'
  | 'sets'
  | 'ip'
  | 'cidr'
  | 'format'
  | 'authzSelectors'
  | 'twoVarComprehensions'
  | 'semver'
  | 'extLists';

/** IntroducedVersion of each library (and RemovedVersion where kube has one). */
export const LIBRARY_VERSIONS: Readonly<Record<LibraryName, { introduced: string; removed?: string }>> = {
  urls: { introduced: '1.0' },
  regex: { introduced: '1.0' },
  lists: { introduced: '1.0' },
  authz: { introduced: '1.27' },
  crossTypeNumericComparisons: { introduced: '1.28' },
  optionalTypes: { introduced: '1.28' },
  quantity: { introduced: '1.28' },
  // ext.Strings version 0 until 1.29, version 2 (format, strings.quote) from then.
  stringsV0: { introduced: '1.0', removed: '1.29' },
  stringsV2: { introduced: '1.29' },
  sets: { introduced: '1.29' },
  ip: { introduced: '1.30' },
  cidr: { introduced: '1.30' },
  format: { introduced: '1.31' },
  // Also behind the AuthorizeWithSelectors feature gate (GA, locked on, in 1.34).
  authzSelectors: { introduced: '1.31' },
  twoVarComprehensions: { introduced: '1.32' },
  // library.SemverLib(library.SemverVersion(1)): with the normalize overloads.
  semver: { introduced: '1.33' },
  // ext.Lists(ext.ListsVersion(3)).
  extLists: { introduced: '1.34' },
};

/** The version this server implements. */
export const CURRENT_VERSION: KubeVersion = { major: 1, minor: 36 };

export function parseKubeVersion(text: string): KubeVersion {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(text);
  if (!m) throw new Error(`invalid version ${JSON.stringify(text)}: want major.minor`);
  return { major: Number(m[1]), minor: Number(m[2]) };
}

function atLeast(v: KubeVersion, text: string): boolean {
  const w = parseKubeVersion(text);
  return v.major !== w.major ? v.major > w.major : v.minor >= w.minor;
}

/** Whether the library is part of the base environment at compatibility version v. */
export function libraryEnabled(name: LibraryName, v: KubeVersion): boolean {
  const { introduced, removed } = LIBRARY_VERSIONS[name];
  return atLeast(v, introduced) && (removed === undefined || !atLeast(v, removed));
}
