import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { watchTimeoutMs } from '../../src/handlers/watch.js';

/** Issue 10 item 7: kube's watch handler picks a watch's timeout from timeoutSeconds or --min-request-timeout. */
describe('watch timeouts (--min-request-timeout)', () => {
  it('timeoutSeconds wins when given', () => {
    assert.equal(watchTimeoutMs(5, 1800, () => 0.5), 5000);
    assert.equal(watchTimeoutMs(5, 0, () => 0.5), 5000);
  });

  it('without it (0 counts as without), a random time in [min, 2·min) of --min-request-timeout', () => {
    assert.equal(watchTimeoutMs(undefined, 1800, () => 0), 1_800_000);
    assert.equal(watchTimeoutMs(0, 1800, () => 0.5), 2_700_000);
    assert.equal(watchTimeoutMs(undefined, 60, () => 0.999_999), 119_999);
    for (let i = 0; i < 100; i++) {
      const ms = watchTimeoutMs(undefined, 10);
      assert.ok(ms >= 10_000 && ms < 20_000, String(ms));
    }
  });

  it('with --min-request-timeout=0 and no timeoutSeconds the watch times out at once, as kube\'s zero-timeout context does', () => {
    assert.equal(watchTimeoutMs(undefined, 0), 0);
  });
});
