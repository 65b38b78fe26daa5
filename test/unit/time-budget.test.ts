import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TimeBudget } from '../../src/handlers/time-budget.js';

/** kube's cacher dispatch budget (time_budget.go): 50 ms more per second, at most 100 ms, taken whole, unused time given back. */
describe('TimeBudget', () => {
  it('grows by 50 ms a second up to 100 ms, is taken whole, and takes back what a wait did not use (up to the cap)', () => {
    let now = 0;
    const budget = new TimeBudget(50, 100, () => now);
    assert.equal(budget.takeAvailable(), 0);
    now = 1000;
    assert.equal(budget.takeAvailable(), 50);
    assert.equal(budget.takeAvailable(), 0, 'taking empties it');
    now = 10_000;
    assert.equal(budget.takeAvailable(), 100, 'never more than the cap');
    budget.returnUnused(30);
    budget.returnUnused(-5);
    assert.equal(budget.takeAvailable(), 30, 'unused time comes back; overspent time is not taken away');
    budget.returnUnused(80);
    budget.returnUnused(80);
    assert.equal(budget.takeAvailable(), 100);
  });
});
