import type { Environment } from '@marcbachmann/cel-js';

import { libraryError } from './errors.js';

/** A parsed version as github.com/blang/semver/v4 holds it. */
export interface Version {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  /** Pre-release identifiers: numbers (bigint) or alphanumeric strings. */
  readonly pre: ReadonlyArray<bigint | string>;
  readonly build: readonly string[];
}

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const UINT64_MAX = (1n << 64n) - 1n;

function hasLeadingZeroes(s: string): boolean {
  return s.length > 1 && s[0] === '0';
}

/** strconv.ParseUint(s, 10, 64) with its errors. */
function parseUint(s: string): bigint {
  if (s === '' || !NUMBERS.test(s)) throw new Error(`strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v > UINT64_MAX) throw new Error(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
  return v;
}

function number(s: string, what: string): bigint {
  if (!NUMBERS.test(s)) throw new Error(`Invalid character(s) found in ${what} number ${JSON.stringify(s)}`);
  if (hasLeadingZeroes(s)) {
    throw new Error(`${what[0]!.toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${JSON.stringify(s)}`);
  }
  return parseUint(s);
}

function prerelease(s: string): bigint | string {
  if (s === '') throw new Error('Prerelease is empty');
  if (NUMBERS.test(s)) {
    if (hasLeadingZeroes(s)) throw new Error(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(s)}`);
    return parseUint(s);
  }
  if (ALPHANUM.test(s)) return s;
  throw new Error(`Invalid character(s) found in prerelease ${JSON.stringify(s)}`);
}

/** semver.Parse. Throws Error with blang/semver's message. */
export function parseSemver(s: string): Version {
  if (s === '') throw new Error('Version string empty');
  const parts = splitN(s, '.', 3);
  if (parts.length !== 3) throw new Error('No Major.Minor.Patch elements found');
  const major = number(parts[0]!, 'major');
  const minor = number(parts[1]!, 'minor');
  let patchText = parts[2]!;
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patchText.indexOf('+');
  if (plus !== -1) {
    build = patchText.slice(plus + 1).split('.');
    patchText = patchText.slice(0, plus);
  }
  const dash = patchText.indexOf('-');
  if (dash !== -1) {
    pre = patchText.slice(dash + 1).split('.');
    patchText = patchText.slice(0, dash);
  }
  const patch = number(patchText, 'patch');
  const preParsed = pre.map(prerelease);
  for (const b of build) {
    if (b === '') throw new Error('Build meta data is empty');
    if (!ALPHANUM.test(b)) throw new Error(`Invalid character(s) found in build meta data ${JSON.stringify(b)}`);
  }
  return { major, minor, patch, pre: preParsed, build };
}

/** strings.SplitN. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

/** kube's normalizeAndParse: no "v" prefix, leading zeros dropped, missing minor and patch filled with 0. */
export function normalizeAndParse(text: string): Version {
  const s = text.startsWith('v') ? text.slice(1) : text;
  const parts = splitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t === '' || !/[0-9]/.test(t[0]!) ? `0${t}` : t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) throw new Error('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

function cmp(a: bigint | string, b: bigint | string): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'bigint') return -1;
  if (typeof b === 'bigint') return 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Version.Compare: precedence by major, minor, patch, then pre-release (build metadata ignored). */
export function compareSemver(a: Version, b: Version): number {
  for (const [x, y] of [
    [a.major, b.major],
    [a.minor, b.minor],
    [a.patch, b.patch],
  ] as const) {
    if (x !== y) return x < y ? -1 : 1;
  }
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const c = cmp(a.pre[i]!, b.pre[i]!);
    if (c !== 0) return c;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

/** A `kubernetes.Semver` value. */
export class CelSemver {
  readonly celTypeName = 'kubernetes.Semver';
  constructor(readonly version: Version) {}
  equals(other: CelSemver): boolean {
    return compareSemver(this.version, other.version) === 0;
  }
  compareTo(other: CelSemver): number {
    return compareSemver(this.version, other.version);
  }
}

function toSemver(s: string, normalize: boolean): CelSemver {
  try {
    return new CelSemver(normalize ? normalizeAndParse(s) : parseSemver(s));
  } catch (e) {
    throw libraryError((e as Error).message);
  }
}

function isSemver(s: string, normalize: boolean): boolean {
  try {
    if (normalize) normalizeAndParse(s);
    else parseSemver(s);
    return true;
  } catch {
    return false;
  }
}

/** kube's library.SemverLib at version 1 (from 1.33): with the normalizing `semver(s, true)` and `isSemver(s, true)`. */
export function registerSemver(env: Environment): void {
  const T = 'kubernetes.Semver';
  env.registerType(T, CelSemver);
  env.registerFunction(`semver(string): ${T}`, (s: string) => toSemver(s, false));
  env.registerFunction(`semver(string, bool): ${T}`, toSemver);
  env.registerFunction('isSemver(string): bool', (s: string) => isSemver(s, false));
  env.registerFunction('isSemver(string, bool): bool', isSemver);
  env.registerFunction(`${T}.major(): int`, (v: CelSemver) => BigInt.asIntN(64, v.version.major));
  env.registerFunction(`${T}.minor(): int`, (v: CelSemver) => BigInt.asIntN(64, v.version.minor));
  env.registerFunction(`${T}.patch(): int`, (v: CelSemver) => BigInt.asIntN(64, v.version.patch));
  env.registerFunction(`${T}.isGreaterThan(${T}): bool`, (a: CelSemver, b: CelSemver) => a.compareTo(b) === 1);
  env.registerFunction(`${T}.isLessThan(${T}): bool`, (a: CelSemver, b: CelSemver) => a.compareTo(b) === -1);
  env.registerFunction(`${T}.compareTo(${T}): int`, (a: CelSemver, b: CelSemver) => BigInt(a.compareTo(b)));
  env.registerOperator(`${T} == ${T}`, (a: CelSemver, b: CelSemver) => a.equals(b));
}
