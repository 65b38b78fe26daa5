import { describe } from 'node:test';

import { celLibEnv, runTable } from '../helpers/cel-lib.js';

// Expectations from kube's library/semver_test.go (version 1, as 1.33+ enables it).
describe('CEL library: semver (from 1.33)', () => {
  runTable([
    { expr: 'semver("1.2.3") == semver("1.2.3")', value: true },
    { expr: 'semver("v1.0")', error: 'No Major.Minor.Patch elements found' },
    { expr: 'semver("01.0.0")', error: 'Major number must not contain leading zeroes "01"' },
    { expr: 'semver("1.x.0")', error: 'Invalid character(s) found in minor number "x"' },
    { expr: 'semver("1.0.0-")', error: 'Prerelease is empty' },
    { expr: 'semver("")', error: 'Version string empty' },
    { expr: 'semver("1.0", true).minor()', value: 0n },
    { expr: 'semver("1.0-alpha", true)', error: 'short version cannot contain PreRelease/Build meta data' },
    { expr: 'isSemver("1.2.3-beta.1+build.1")', value: true },
    { expr: 'isSemver("")', value: false },
    { expr: 'isSemver("v1.0.0")', value: false },
    { expr: 'isSemver(" 1.0.0")', value: false },
    { expr: 'isSemver("1. 0.0")', value: false },
    { expr: 'isSemver("1.0.0 ")', value: false },
    { expr: 'isSemver("01.01.01")', value: false },
    { expr: 'isSemver("1")', value: false },
    { expr: 'isSemver("1.1")', value: false },
    { expr: 'isSemver("", true)', value: false },
    { expr: 'isSemver(" 1.0.0", true)', value: false },
    { expr: 'isSemver("1. 0.0", true)', value: false },
    { expr: 'isSemver("1.0.0 ", true)', value: false },
    { expr: 'isSemver("v1.0.0", true)', value: true },
    { expr: 'isSemver("01.01.01", true)', value: true },
    { expr: 'isSemver("1", true)', value: true },
    { expr: 'isSemver("1.1", true)', value: true },
    { expr: 'isSemver([1, 2, 3])', compileError: /found no matching overload for 'isSemver/ },
    { expr: 'semver("v01.01", true) == semver("1.1.0")', value: true },
    { expr: 'semver("1.2.3") == semver("1.0.0")', value: false },
    { expr: 'semver("1.2.3+build") == semver("1.2.3")', value: true },
    { expr: 'semver("1.0.0").isLessThan(semver("1.2.3"))', value: true },
    { expr: 'semver("1.0.0").isLessThan(semver("1.0.0"))', value: false },
    { expr: 'semver("1.2.3").isGreaterThan(semver("1.0.0"))', value: true },
    { expr: 'semver("1.0.0").isGreaterThan(semver("1.0.0"))', value: false },
    { expr: 'semver("1.2.3").compareTo(semver("1.2.3"))', value: 0n },
    { expr: 'semver("1.0.0").compareTo(semver("1.2.3"))', value: -1n },
    { expr: 'semver("1.2.3").compareTo(semver("1.0.0"))', value: 1n },
    { expr: 'semver("1.0.0-alpha").compareTo(semver("1.0.0"))', value: -1n },
    { expr: 'semver("1.0.0-alpha.1").compareTo(semver("1.0.0-alpha.beta"))', value: -1n },
    { expr: 'semver("1.0.0-2").compareTo(semver("1.0.0-10"))', value: -1n },
    { expr: 'semver("1.2.3").major()', value: 1n },
    { expr: 'semver("1.2.3").minor()', value: 2n },
    { expr: 'semver("1.2.3").patch()', value: 3n },
  ]);
  runTable([{ expr: 'isSemver("1.0.0")', compileError: /isSemver/ }], celLibEnv({ version: '1.32' }));
});
