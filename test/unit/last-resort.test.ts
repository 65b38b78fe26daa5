import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { requestScopeIsCheap } from '../../src/server/last-resort.js';

/** Issue 10: per-request attribution of escaped exceptions is on by default only where AsyncLocalStorage is cheap. */
describe('requestScopeIsCheap', () => {
  it('is true where Node runs AsyncLocalStorage on AsyncContextFrame, and false where it needs promise hooks', () => {
    assert.equal(requestScopeIsCheap('20.20.2', []), false);
    assert.equal(requestScopeIsCheap('22.6.0', ['--experimental-async-context-frame']), false);
    assert.equal(requestScopeIsCheap('22.12.0', []), false);
    assert.equal(requestScopeIsCheap('22.12.0', ['--experimental-async-context-frame']), true);
    assert.equal(requestScopeIsCheap('24.0.0', []), true);
    assert.equal(requestScopeIsCheap('24.3.1', ['--no-async-context-frame']), false);
    assert.equal(requestScopeIsCheap('25.1.0', []), true);
  });
});
