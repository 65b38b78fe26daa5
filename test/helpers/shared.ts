import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { packageRootDir } from '../../src/api/files.js';

/**
 * ../shared (upstream Kubernetes API data beside the repository, or
 * CAPSTAN_SHARED_DIR): its files for the tests that compare with upstream.
 * Where it is missing such a test skips, unless CI requires it
 * (CAPSTAN_REQUIRE_SHARED=1), where it fails.
 */

export const SHARED_DIR = process.env['CAPSTAN_SHARED_DIR'] ?? resolve(packageRootDir(), '..', 'shared');
/** Upstream's JSON/YAML/protobuf fixture of every kind, written by Go's encoders. */
export const FIXTURE_DIR = join(SHARED_DIR, 'k8s-api', 'testdata', 'HEAD');

interface Skippable {
  skip(message: string): void;
}

/** True when `path` (under ../shared) exists; else fails under CAPSTAN_REQUIRE_SHARED=1 or skips `t`. */
export function sharedOrSkip(t: Skippable, path: string): boolean {
  if (existsSync(path)) return true;
  if (process.env['CAPSTAN_REQUIRE_SHARED'] === '1') assert.fail(`CAPSTAN_REQUIRE_SHARED=1 but ${path} is missing`);
  t.skip('skipped: ../shared not found');
  return false;
}

/** The text of a file of ../shared, or undefined after sharedOrSkip. */
export function sharedText(t: Skippable, ...parts: string[]): string | undefined {
  const path = join(SHARED_DIR, ...parts);
  return sharedOrSkip(t, path) ? readFileSync(path, 'utf8') : undefined;
}

export interface UpstreamFixture {
  /** The file name without its extension: `<group>.<version>.<Kind>` (group `core` for the legacy group). */
  base: string;
  apiVersion: string;
  kind: string;
}

/** The fixtures with files ending in `ext` (`.json`, `.pb`, `.yaml`), sorted; none when ../shared is missing. */
export function upstreamFixtures(ext: string): UpstreamFixture[] {
  if (!existsSync(FIXTURE_DIR)) return [];
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => {
      const base = f.slice(0, -ext.length);
      const parts = base.split('.');
      const kind = parts.pop()!;
      const version = parts.pop()!;
      const group = parts.join('.');
      return { base, kind, apiVersion: group === 'core' ? version : `${group}/${version}` };
    });
}

/** Where two texts first differ, with some context of each. */
export function firstDifference(got: string, want: string, context = 80): string {
  let i = 0;
  while (i < got.length && got[i] === want[i]) i++;
  return `at ${i}:\n  got  ${got.slice(Math.max(0, i - context), i + context)}\n  want ${want.slice(Math.max(0, i - context), i + context)}`;
}
