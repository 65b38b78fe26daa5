/**
 * Round trips every upstream fixture kind (../shared/k8s-api/testdata/HEAD,
 * kubernetes/api v0.36.3): the .pb decodes to exactly the .json (same keys in
 * the same order, compared as text), and the .json encodes to exactly the .pb
 * bytes. Also checks the committed descriptors are what the generator makes.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

import { generate } from '../../scripts/generate-proto.js';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/codec/protobuf/index.js';

/** dist/test/unit → repository root. */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const sharedRoot = process.env['CAPSTAN_SHARED_DIR'] ?? resolve(repoRoot, '..', 'shared');
const fixtureDir = join(sharedRoot, 'k8s-api', 'testdata', 'HEAD');
const haveShared = existsSync(fixtureDir);

function needShared(t: TestContext): boolean {
  if (haveShared) return true;
  if (process.env['CAPSTAN_REQUIRE_SHARED'] === '1') assert.fail(`CAPSTAN_REQUIRE_SHARED=1 but ${fixtureDir} is missing`);
  t.skip('skipped: ../shared not found');
  return false;
}

interface Fixture {
  base: string;
  apiVersion: string;
  kind: string;
}

/** <group>.<version>.<Kind>: group "core" is the legacy group (apiVersion "v1"). */
function fixtures(): Fixture[] {
  if (!haveShared) return [];
  return readdirSync(fixtureDir)
    .filter((f) => f.endsWith('.pb'))
    .sort()
    .map((f) => {
      const base = f.slice(0, -'.pb'.length);
      const parts = base.split('.');
      const kind = parts.pop()!;
      const version = parts.pop()!;
      const group = parts.join('.');
      return { base, kind, apiVersion: group === 'core' ? version : `${group}/${version}` };
    });
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}:\n  got  ${a.slice(Math.max(0, i - 60), i + 60)}\n  want ${b.slice(Math.max(0, i - 60), i + 60)}`;
}

describe('protobuf fixtures (testdata/HEAD)', () => {
  it('has fixtures', (t) => {
    if (!needShared(t)) return;
    assert.ok(fixtures().length >= 180, `only ${fixtures().length} .pb fixtures`);
  });

  for (const fx of fixtures()) {
    it(`${fx.base}: .pb decodes to the .json`, () => {
      const pb = readFileSync(join(fixtureDir, `${fx.base}.pb`));
      const want = JSON.stringify(JSON.parse(readFileSync(join(fixtureDir, `${fx.base}.json`), 'utf8')));
      const got = decodeProtobufObject(pb, { apiVersion: fx.apiVersion, kind: fx.kind });
      assert.equal(got.kind, fx.kind);
      assert.equal(got.apiVersion, fx.apiVersion);
      const text = JSON.stringify(got.object);
      if (text !== want) assert.fail(`decoded JSON differs ${firstDifference(text, want)}`);
    });

    it(`${fx.base}: .json encodes to the .pb bytes`, () => {
      const pb = readFileSync(join(fixtureDir, `${fx.base}.pb`));
      const json = JSON.parse(readFileSync(join(fixtureDir, `${fx.base}.json`), 'utf8')) as Record<string, unknown>;
      const got = encodeProtobufObject(json, { apiVersion: fx.apiVersion, kind: fx.kind });
      if (Buffer.compare(got, pb) !== 0) {
        let i = 0;
        while (got[i] === pb[i]) i++;
        assert.fail(`bytes differ at ${i} of ${pb.length} (got ${got.length}): got ${got.subarray(i, i + 16).toString('hex')} want ${pb.subarray(i, i + 16).toString('hex')}`);
      }
    });
  }
});

describe('protobuf descriptor generation', () => {
  it('reproduces the committed src/codec/protobuf/generated/k8s-proto.json', (t) => {
    if (!needShared(t)) return;
    const committed = readFileSync(join(repoRoot, 'src', 'codec', 'protobuf', 'generated', 'k8s-proto.json'), 'utf8');
    const result = generate(sharedRoot);
    assert.deepEqual(result.warnings, []);
    assert.ok(result.json === committed, 'descriptor is stale: run `node dist/scripts/generate-proto.js`');
  });
});
