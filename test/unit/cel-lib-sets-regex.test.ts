import { describe } from 'node:test';

import { celLibEnv, runTable } from '../helpers/cel-lib.js';

// Expectations from cel-go's ext/sets_test.go and kube's library/regex tests.
describe('CEL library: sets (from 1.29)', () => {
  runTable([
    { expr: 'sets.contains([], [])', value: true },
    { expr: 'sets.contains([1, 2, 3, 4], [2, 3])', value: true },
    { expr: 'sets.contains([1, 2, 3], [3, 2, 1])', value: true },
    { expr: 'sets.contains([1], [1, 1])', value: true },
    { expr: 'sets.contains([1, 2], [2, 3])', value: false },
    { expr: 'sets.contains([[1], [2, 3]], [[2, 3]])', value: true },
    { expr: 'sets.equivalent([], [])', value: true },
    { expr: 'sets.equivalent([1], [1, 1])', value: true },
    { expr: 'sets.equivalent([1, 2, 3], [3u, 2.0, 1])', compileError: /must have the same type/ },
    { expr: 'sets.equivalent([1, 2], [2, 2, 2])', value: false },
    { expr: 'sets.intersects([1], [1])', value: true },
    { expr: 'sets.intersects([1, 2], [2, 3])', value: true },
    { expr: 'sets.intersects([], [])', value: false },
    { expr: 'sets.intersects([1], [])', value: false },
    { expr: 'sets.intersects([1, 2], [3])', value: false },
  ]);
  runTable([{ expr: 'sets.contains([1], [1])', compileError: /no matching overload/ }], celLibEnv({ version: '1.28' }));
});

describe('CEL library: regex', () => {
  runTable([
    { expr: "'abc 123'.find('[0-9]+')", value: '123' },
    { expr: "'abc 123'.find('xyz')", value: '' },
    { expr: "'123 abc 456'.findAll('[0-9]+')", value: ['123', '456'] },
    { expr: "'123 abc 456'.findAll('[0-9]+', 1)", value: ['123'] },
    { expr: "'123 abc 456'.findAll('[0-9]+', 0)", value: [] },
    { expr: "'123 abc 456'.findAll('xyz')", value: [] },
    { expr: "'abc'.findAll('')", value: ['', '', '', ''] },
    { expr: "'abc'.matches('^a')", value: true },
    { expr: "'abc'.find('(')", error: 'error parsing regexp: missing closing ): `(`' },
    { expr: "'abc'.find(')')", error: 'error parsing regexp: unexpected ): `)`' },
    { expr: "'abc'.find('[a-')", error: 'error parsing regexp: missing closing ]: `[a-`' },
    { expr: "'abc'.find('*a')", error: 'error parsing regexp: missing argument to repetition operator: `*`' },
    // RE2 spellings.
    { expr: "'ABC abc'.findAll('(?i)abc')", value: ['ABC', 'abc'] },
    { expr: "'ab'.find('(?P<x>b)')", value: 'b' },
    { expr: "'abc abc'.findAll('c\\\\z')", value: ['c'] },
  ]);
});

describe('CEL library: two-variable comprehensions (from 1.32)', () => {
  runTable([
    { expr: '[1, 2, 3].all(i, v, i < v)', value: true },
    { expr: '[1, 2, 3].all(i, v, i > 0)', value: false },
    { expr: "{'a': 1, 'b': 2}.all(k, v, v > 0 && k != '')", value: true },
    { expr: '[1, 2, 3].exists(i, v, i == 2 && v == 3)', value: true },
    { expr: "{'a': 1}.exists(k, v, k == 'b')", value: false },
    { expr: '[1, 2, 3].existsOne(i, v, v > 2)', value: true },
    { expr: '[1, 2, 3].exists_one(i, v, v > 1)', value: false },
    { expr: '[1, 2, 3].transformList(i, v, i * v)', value: [0n, 2n, 6n] },
    { expr: '[1, 2, 3].transformList(i, v, i > 0, v)', value: [2n, 3n] },
    { expr: "{'a': 1, 'b': 2}.transformMap(k, v, v * 10)", value: new Map([['a', 10n], ['b', 20n]]) },
    { expr: "{'a': 1, 'b': 2}.transformMap(k, v, k == 'a', v)", value: new Map([['a', 1n]]) },
    { expr: "{'a': 'x'}.transformMapEntry(k, v, {v: k})", value: new Map([['x', 'a']]) },
    { expr: "{'a': 'x', 'b': 'x'}.transformMapEntry(k, v, {v: k})", error: 'insert failed: key x already exists' },
    { expr: '[0, 1].all(i, v, 1 / v > 1)', value: false },
    { expr: '[1, 0].exists(i, v, 1 / v > 5)', error: /division by zero/ },
  ]);
  runTable([{ expr: '[1].all(i, v, v > 0)', compileError: /./ }], celLibEnv({ version: '1.31' }));
});
