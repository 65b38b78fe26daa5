import { readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { packageRootDir } from '../api/files.js';
import { join } from 'node:path';

/** The Kubernetes release whose API this server implements. */
export const KUBERNETES_MAJOR = '1';
export const KUBERNETES_MINOR = '36';
const KUBERNETES_PATCH = '0';

let capstanVersion: string | undefined;

export function capstanPackageVersion(): string {
  if (!capstanVersion) {
    try {
      capstanVersion = (JSON.parse(readFileSync(join(packageRootDir(), 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      capstanVersion = '0.0.0';
    }
  }
  return capstanVersion;
}

/**
 * The /version document (version.Info). gitVersion is a v1.36.x semver whose
 * build metadata names Capstan, as k3s does (`v1.30.2+k3s1`), so version-skew
 * checks in clients see the Kubernetes release.
 */
export function versionInfo(): Record<string, string> {
  const goArch = arch() === 'x64' ? 'amd64' : arch() === 'ia32' ? '386' : arch();
  return {
    major: KUBERNETES_MAJOR,
    minor: KUBERNETES_MINOR,
    emulationMajor: KUBERNETES_MAJOR,
    emulationMinor: KUBERNETES_MINOR,
    minCompatibilityMajor: KUBERNETES_MAJOR,
    minCompatibilityMinor: String(Number(KUBERNETES_MINOR) - 1),
    gitVersion: `v${KUBERNETES_MAJOR}.${KUBERNETES_MINOR}.${KUBERNETES_PATCH}+capstan.${capstanPackageVersion()}`,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-11-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'capstan',
    platform: `${platform()}/${goArch}`,
  };
}
