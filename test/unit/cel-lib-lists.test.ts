import { describe } from 'node:test';

import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';

import { celLibEnv, runTable } from '../helpers/cel-lib.js';

// Expectations from kube's library/lists.go tests and cel-go's ext/lists.go documentation.
describe('CEL library: kube lists', () => {
  runTable([
    { expr: '[1, 2, 3].isSorted()', value: true },
    { expr: '[3, 1].isSorted()', value: false },
    { expr: "['a', 'b', 'b'].isSorted()", value: true },
    { expr: '[].isSorted()', value: true },
    { expr: '[1, 2, 3].sum()', value: 6n },
    { expr: '[1u, 2u].sum()', value: new UnsignedInt(3n) },
    { expr: '[1.5, 2.0].sum()', value: 3.5 },
    { expr: '[9223372036854775807, 1].sum()', error: 'integer overflow' },
    { expr: '[3, 1, 2].min()', value: 1n },
    { expr: '[3, 1, 2].max()', value: 3n },
    { expr: "['b', 'a'].min()", value: 'a' },
    { expr: '[1.5, -2.0].min()', value: -2.0 },
    { expr: '[].min()', error: 'min called on empty list' },
    { expr: '[].max()', error: 'max called on empty list' },
    { expr: '[1, 2, 3, 2].indexOf(2)', value: 1n },
    { expr: '[1, 2, 3, 2].lastIndexOf(2)', value: 3n },
    { expr: '[1, 2, 3].indexOf(4)', value: -1n },
    { expr: "['a', 'b'].lastIndexOf('c')", value: -1n },
    { expr: "[1, 2].indexOf('a')", compileError: "found no matching overload for 'list<int>.indexOf(string)'" },
    { expr: 'x.indexOf(2)', vars: { x: [1n, 2n] }, value: 1n },
    { expr: '[dyn(1), dyn(2.0)].indexOf(2)', value: 1n },
  ]);
});

describe('CEL library: ext.Lists version 3 (from 1.34)', () => {
  runTable([
    { expr: '[1, 2, 3, 4].slice(1, 3)', value: [2n, 3n] },
    { expr: '[1, 2, 3, 4].slice(2, 4)', value: [3n, 4n] },
    { expr: '[1, 2, 3, 4].slice(-1, 3)', error: 'cannot slice(-1, 3), negative indexes not supported' },
    { expr: '[1, 2, 3, 4].slice(3, 1)', error: 'cannot slice(3, 1), start index must be less than or equal to end index' },
    { expr: '[1, 2, 3, 4].slice(0, 10)', error: 'cannot slice(0, 10), list is length 4' },
    { expr: '[[1], [2, 3], [4]].flatten()', value: [1n, 2n, 3n, 4n] },
    { expr: 'x.flatten()', vars: { x: [1n, [2n, [3n, 4n]]] }, value: [1n, 2n, [3n, 4n]] },
    { expr: 'x.flatten()', vars: { x: [1n, 2n, [], [], [3n, 4n]] }, value: [1n, 2n, 3n, 4n] },
    { expr: 'x.flatten(2)', vars: { x: [1n, [2n, [3n, [4n]]]] }, value: [1n, 2n, 3n, [4n]] },
    { expr: 'x.flatten(-1)', vars: { x: [1n, [2n, [3n, [4n]]]] }, error: 'level must be non-negative' },
    { expr: 'lists.range(5)', value: [0n, 1n, 2n, 3n, 4n] },
    { expr: 'lists.range(0)', value: [] },
    { expr: '[5, 3, 1, 2].reverse()', value: [2n, 1n, 3n, 5n] },
    { expr: '[1, 2, 2, 3, 3, 3].distinct()', value: [1n, 2n, 3n] },
    { expr: "['b', 'b', 'c', 'a', 'c'].distinct()", value: ['b', 'c', 'a'] },
    { expr: "[dyn(1), dyn('b'), dyn(2), dyn('b')].distinct()", value: [1n, 'b', 2n] },
    { expr: '[3, 2, 1].sort()', value: [1n, 2n, 3n] },
    { expr: "['b', 'c', 'a'].sort()", value: ['a', 'b', 'c'] },
    { expr: "[dyn(1), dyn('b')].sort()", error: 'list elements must have the same type' },
    {
      expr: 'players.sortBy(e, e.score).map(e, e.name)',
      vars: { players: [{ name: 'foo', score: 0n }, { name: 'bar', score: -10n }, { name: 'baz', score: 1000n }] },
      value: ['bar', 'foo', 'baz'],
    },
  ]);
});

describe('CEL library: lists before 1.34 have no ext.Lists', () => {
  runTable([{ expr: '[1, 2].slice(0, 1)', compileError: /no matching overload/ }, { expr: '[1].sum()', value: 1n }], celLibEnv({ version: '1.33' }));
});
