/**
 * Round trips every upstream fixture kind (../shared/k8s-api/testdata/HEAD,
 * kubernetes/api v0.36.3): the .pb decodes to exactly the .json (same keys in
 * the same order, compared as text), and the .json encodes to exactly the .pb
 * bytes. Also checks the committed descriptors are what the generator makes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { generate } from '../../scripts/generate-proto.js';
import { packageRootDir } from '../../src/api/files.js';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/codec/protobuf/index.js';
import { FIXTURE_DIR, firstDifference, SHARED_DIR, sharedOrSkip, upstreamFixtures } from '../helpers/shared.js';

describe('protobuf fixtures (testdata/HEAD)', () => {
  it('has fixtures', (t) => {
    if (!sharedOrSkip(t, FIXTURE_DIR)) return;
    assert.ok(upstreamFixtures('.pb').length >= 180, `only ${upstreamFixtures('.pb').length} .pb fixtures`);
  });

  for (const fx of upstreamFixtures('.pb')) {
    it(`${fx.base}: .pb decodes to the .json`, () => {
      const pb = readFileSync(join(FIXTURE_DIR, `${fx.base}.pb`));
      const want = JSON.stringify(JSON.parse(readFileSync(join(FIXTURE_DIR, `${fx.base}.json`), 'utf8')));
      const got = decodeProtobufObject(pb, { apiVersion: fx.apiVersion, kind: fx.kind });
      assert.equal(got.kind, fx.kind);
      assert.equal(got.apiVersion, fx.apiVersion);
      const text = JSON.stringify(got.object);
      if (text !== want) assert.fail(`decoded JSON differs ${firstDifference(text, want, 60)}`);
    });

    it(`${fx.base}: .json encodes to the .pb bytes`, () => {
      const pb = readFileSync(join(FIXTURE_DIR, `${fx.base}.pb`));
      const json = JSON.parse(readFileSync(join(FIXTURE_DIR, `${fx.base}.json`), 'utf8')) as Record<string, unknown>;
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
    if (!sharedOrSkip(t, SHARED_DIR)) return;
    const committed = readFileSync(join(packageRootDir(), 'src', 'codec', 'protobuf', 'generated', 'k8s-proto.json'), 'utf8');
    const result = generate(SHARED_DIR);
    assert.deepEqual(result.warnings, []);
    assert.ok(result.json === committed, 'descriptor is stale: run `node dist/scripts/generate-proto.js`');
  });
});
