import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { CachedObject } from '../../src/codec/cached-object.js';

/**
 * Issue 19: after a burst the watch cache's encodings are copied into new
 * allocations (WatchCache.relocateEncodings, run by the server once cutting
 * watchers has stopped), so that the C allocator can give back the pages
 * freed around the old ones.
 */
describe('relocating cached encodings', () => {
  it('replaces every encoding with an equal copy in new memory, and counts its bytes', () => {
    const o = new CachedObject('/registry/configmaps/ns/a', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }, 1);
    const json = o.encoded('json', (obj) => Buffer.from(JSON.stringify(obj)));
    const big = o.encoded('big', () => Buffer.alloc(8192, 1));
    assert.equal(o.relocateEncodings(), json.length + big.length);
    const json2 = o.encoded('json', () => assert.fail('not made again'));
    const big2 = o.encoded('big', () => assert.fail('not made again'));
    assert.notEqual(json2, json);
    assert.notEqual(big2.buffer, big.buffer);
    assert.deepEqual(json2, json);
    assert.deepEqual(big2, big);
    assert.equal(new CachedObject('k', {}, 2).relocateEncodings(), 0);
  });
});
