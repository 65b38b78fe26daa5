import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { LIBRARY_VERSIONS, libraryEnabled } from '../../src/cel/libraries/index.js';
import { parseKubeVersion } from '../../src/cel/libraries/versions.js';
import { celLibEnv } from '../helpers/cel-lib.js';

// IntroducedVersion of each library in kube's environment/base.go.
describe('CEL libraries: version gating as kube-apiserver 1.36 base environment', () => {
  it('records when kube added each library', () => {
    assert.deepEqual(
      Object.fromEntries(Object.entries(LIBRARY_VERSIONS).map(([k, v]) => [k, v.introduced])),
      {
        urls: '1.0',
        regex: '1.0',
        lists: '1.0',
        authz: '1.27',
        crossTypeNumericComparisons: '1.28',
        optionalTypes: '1.28',
        quantity: '1.28',
        stringsV0: '1.0',
        stringsV2: '1.29',
        sets: '1.29',
        ip: '1.30',
        cidr: '1.30',
        format: '1.31',
        authzSelectors: '1.31',
        twoVarComprehensions: '1.32',
        semver: '1.33',
        extLists: '1.34',
      },
    );
  });

  it('ext.Strings version 0 gives way to version 2 at 1.29', () => {
    assert.equal(libraryEnabled('stringsV0', parseKubeVersion('1.28')), true);
    assert.equal(libraryEnabled('stringsV0', parseKubeVersion('1.29')), false);
    assert.equal(libraryEnabled('stringsV2', parseKubeVersion('1.29')), true);
  });

  it('each compatibility version compiles exactly the libraries it has', () => {
    const probes: Array<[string, string]> = [
      ['quantity', 'isQuantity("1")'],
      ['sets', 'sets.contains([1], [1])'],
      ['ip', 'isIP("1.2.3.4")'],
      ['format', 'format.named("uuid").hasValue()'],
      ['twoVarComprehensions', '[1].all(i, v, v > 0)'],
      ['semver', 'isSemver("1.0.0")'],
      ['extLists', '[1].slice(0, 1) == [1]'],
    ];
    for (const version of ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33', '1.34', '1.36']) {
      const env = celLibEnv({ version });
      for (const [lib, expr] of probes) {
        const enabled = libraryEnabled(lib as keyof typeof LIBRARY_VERSIONS, parseKubeVersion(version));
        assert.equal(env.check(expr).valid, enabled, `${expr} at ${version}`);
      }
    }
  });

  // base.go enables neither ext.Bindings, ext.Math nor ext.Encoders at any version (only DRA's environment adds ext.Bindings)
  it('has no cel.bind, math.* or base64.* at any version', () => {
    for (const version of ['1.27', '1.30', '1.34', '1.36']) {
      const env = celLibEnv({ version });
      for (const expr of ['cel.bind(x, 1, x == 1)', 'y.bind(x, 1, x == 1)', 'math.greatest(1, 2) == 2', "base64.encode(b'a') == 'YQ=='"]) {
        assert.equal(env.check(expr).valid, false, `${expr} at ${version}`);
      }
    }
  });

  it('rejects a version that is not major.minor', () => {
    assert.throws(() => celLibEnv({ version: 'latest' }), /invalid version/);
  });
});
