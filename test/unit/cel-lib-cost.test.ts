import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  type CallDetail,
  estimateLibraryCallCost,
  libraryCallCost,
  type SizeEstimate,
  UINT64_MAX,
} from '../../src/cel/libraries/cost.js';
import { NAMED_FORMATS } from '../../src/cel/libraries/format.js';
import { celLibEnv } from '../helpers/cel-lib.js';

const n = (x: number): SizeEstimate => ({ min: x, max: x });
const env = celLibEnv();

/**
 * Each row: a call from kube's library/cost_test.go with the sizes its
 * operands have there, and the call's own estimated and runtime cost (kube's
 * expected totals minus what the operands cost: 10 per list literal, 1 per
 * nested call).
 */
interface Row {
  name: string;
  fn: string;
  target?: SizeEstimate;
  args: SizeEstimate[];
  detail?: CallDetail;
  estimate: [number, number];
  runtime?: { target?: string; args: string[]; result?: string; cost: number };
}

const rows: Row[] = [
  { name: "'ABCDEFGHIJ abcdefghij'.lowerAscii()", fn: 'lowerAscii', target: n(21), args: [], estimate: [3, 3], runtime: { target: "'ABCDEFGHIJ abcdefghij'", args: [], cost: 3 } },
  { name: "'abc 123 def 123'.replace('123', '456')", fn: 'replace', target: n(15), args: [n(3), n(3)], estimate: [3, 3], runtime: { target: "'abc 123 def 123'", args: ["'123'", "'456'"], cost: 3 } },
  { name: "'abc 123 def 123'.split(' ')", fn: 'split', target: n(15), args: [n(1)], estimate: [3, 3], runtime: { target: "'abc 123 def 123'", args: ["' '"], cost: 3 } },
  { name: "'abc 123 def 123'.substring(5)", fn: 'substring', target: n(15), args: [n(1)], estimate: [2, 2], runtime: { target: "'abc 123 def 123'", args: ['5'], cost: 2 } },
  { name: "'  abc 123 def 123  '.trim()", fn: 'trim', target: n(19), args: [], estimate: [2, 2], runtime: { target: "'  abc 123 def 123  '", args: [], cost: 2 } },
  {
    name: "[... 10 strings].join(' ')",
    fn: 'join',
    target: n(10),
    args: [n(1)],
    detail: { elementSize: { min: 0, max: 12 } },
    estimate: [1, 13],
    runtime: { target: "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j']", args: ["' '"], result: "'aa bb cc d e f g h i j'", cost: 5 },
  },
  { name: "'abc 123 def 123'.find('123')", fn: 'find', target: n(15), args: [n(3)], estimate: [2, 2], runtime: { target: "'abc 123 def 123'", args: ["'123'"], cost: 2 } },
  { name: '[1, 2, 3, 4, 5].sum()', fn: 'sum', target: n(5), args: [], detail: { targetIsList: true }, estimate: [5, 5], runtime: { target: '[1, 2, 3, 4, 5]', args: [], cost: 5 } },
  {
    name: "['012345678901' x5].isSorted()",
    fn: 'isSorted',
    target: n(5),
    args: [],
    detail: { targetIsList: true, elementIsStringOrBytes: true, elementSize: { min: 0, max: 12 } },
    estimate: [5, 15],
    runtime: { target: "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']", args: [], cost: 5 },
  },
  { name: "'<50 chars>'.indexOf('123')", fn: 'indexOf', target: n(50), args: [n(3)], estimate: [5, 5], runtime: { target: "'01234567890123456789012345678901234567890123456789'", args: ["'123'"], cost: 5 } },
  { name: "ip('192.168.0.1')", fn: 'ip', args: [n(11)], estimate: [2, 2], runtime: { args: ["'192.168.0.1'"], cost: 2 } },
  { name: "ip('2001:db8:3333:4444:5555:6666:7777:8888')", fn: 'ip', args: [n(39)], estimate: [4, 4], runtime: { args: ["'2001:db8:3333:4444:5555:6666:7777:8888'"], cost: 4 } },
  { name: "ip.isCanonical('192.168.0.1')", fn: 'ip.isCanonical', args: [n(11)], estimate: [3, 3], runtime: { args: ["'192.168.0.1'"], cost: 3 } },
  { name: "cidr('192.168.0.0/16')", fn: 'cidr', args: [n(14)], estimate: [2, 2], runtime: { args: ["'192.168.0.0/16'"], cost: 2 } },
  { name: "cidr(...).ip()", fn: 'ip', target: n(1), args: [], detail: { overload: 'cidr_ip' }, estimate: [1, 1], runtime: { target: "cidr('192.168.0.0/16')", args: [], cost: 1 } },
  { name: "cidr(...).containsCIDR(cidr('192.0.0.0/30'))", fn: 'containsCIDR', target: n(1), args: [n(1)], estimate: [3, 7], runtime: { target: "cidr('192.168.0.0/16')", args: ["cidr('192.0.0.0/30')"], cost: 3 } },
  {
    name: "cidr(...).containsCIDR('192.0.0.0/30')",
    fn: 'containsCIDR',
    target: n(1),
    args: [n(12)],
    detail: { overload: 'cidr_contains_cidr_string' },
    estimate: [5, 9],
    runtime: { target: "cidr('192.168.0.0/16')", args: ["'192.0.0.0/30'"], cost: 5 },
  },
  { name: "cidr(...).containsIP(ip('192.0.0.1'))", fn: 'containsIP', target: n(1), args: [n(1)], estimate: [1, 4], runtime: { target: "cidr('192.168.0.0/16')", args: ["ip('192.0.0.1')"], cost: 1 } },
  {
    name: "cidr(...).containsIP('192.169.0.1')",
    fn: 'containsIP',
    target: n(1),
    args: [n(11)],
    detail: { overload: 'cidr_contains_ip_string' },
    estimate: [3, 6],
    runtime: { target: "cidr('192.168.0.0/16')", args: ["'192.169.0.1'"], cost: 3 },
  },
  { name: "ip(...).family()", fn: 'family', target: n(1), args: [], estimate: [1, 1] },
  { name: "quantity('12Mi')", fn: 'quantity', args: [n(4)], estimate: [1, 1], runtime: { args: ["'12Mi'"], cost: 1 } },
  { name: "quantity(...).isLessThan(...)", fn: 'isLessThan', target: n(1), args: [n(1)], estimate: [1, 1] },
  { name: "authorizer.path('/healthz')", fn: 'path', target: n(1), args: [n(8)], estimate: [1, 1] },
  { name: "...check('get')", fn: 'check', target: n(1), args: [n(3)], estimate: [350000, 350000] },
  {
    name: "...fieldSelector('<71 chars>')",
    fn: 'fieldSelector',
    target: n(1),
    args: [n(71)],
    estimate: [1818, 1818],
  },
  { name: "format.named(...).value().validate('my-name')", fn: 'validate', target: n(1), args: [n(7)], estimate: [32, 32] },
  { name: "strings.quote('ABCDEFGHIJ abcdefghij')", fn: 'strings.quote', args: [n(21)], estimate: [3, 3], runtime: { args: ["'ABCDEFGHIJ abcdefghij'"], cost: 3 } },
  { name: "jsonpatch.escapeKey('abc/def~ abc/def~')", fn: 'jsonpatch.escapeKey', args: [n(17)], estimate: [2, 2], runtime: { args: ["'abc/def~ abc/def~'"], cost: 2 } },
  { name: 'sets.contains([1, 2, 3, 4], [2, 3])', fn: 'sets.contains', args: [n(4), n(2)], estimate: [9, 9], runtime: { args: ['[1, 2, 3, 4]', '[2, 3]'], cost: 9 } },
  { name: 'sets.contains([], [])', fn: 'sets.contains', args: [n(0), n(0)], estimate: [1, 1], runtime: { args: ['[]', '[]'], cost: 1 } },
  { name: 'lists.range(5)', fn: 'lists.range', args: [n(1)], detail: { literalArgs: [5n] }, estimate: [16, 16], runtime: { args: ['5'], result: 'lists.range(5)', cost: 16 } },
];

describe('CEL library costs: kube cost_test.go expectations', () => {
  for (const row of rows) {
    it(row.name, () => {
      const est = estimateLibraryCallCost(row.fn, row.target, row.args, row.detail);
      assert.deepEqual(est?.cost, { min: row.estimate[0], max: row.estimate[1] });
      if (row.runtime) {
        const target = row.runtime.target === undefined ? undefined : env.evaluate(row.runtime.target);
        const args = row.runtime.args.map((a) => env.evaluate(a));
        const result = row.runtime.result === undefined ? undefined : env.evaluate(row.runtime.result);
        assert.equal(libraryCallCost(row.fn, target, args, result), row.runtime.cost);
      }
    });
  }

  it('validate at runtime charges the format’s own regex size', () => {
    assert.equal(libraryCallCost('validate', NAMED_FORMATS.get('dns1123Subdomain'), ['my-name'], undefined), 15);
    assert.equal(libraryCallCost('validate', NAMED_FORMATS.get('dns1123Label'), ['my-name'], undefined), 8);
  });

  it('result sizes', () => {
    assert.deepEqual(estimateLibraryCallCost('strings.quote', undefined, [n(21)])?.resultSize, { min: 23, max: 44 });
    assert.deepEqual(estimateLibraryCallCost('lowerAscii', n(21), [])?.resultSize, n(21));
    assert.deepEqual(estimateLibraryCallCost('find', n(15), [n(3)])?.resultSize, { min: 0, max: 15 });
    assert.deepEqual(estimateLibraryCallCost('split', n(15), [n(1), n(1)], { literalArgs: [' ', 2n] })?.resultSize, { min: 0, max: 2 });
    // Replacing the empty string surrounds every character.
    assert.deepEqual(estimateLibraryCallCost('replace', n(15), [n(0), n(1)])?.resultSize, n(31));
  });

  it('an unbounded receiver saturates at 2^64-1 instead of overflowing', () => {
    const unbounded = { min: 0, max: UINT64_MAX };
    assert.equal(estimateLibraryCallCost('lowerAscii', unbounded, [])?.cost.max, Math.ceil(UINT64_MAX * 0.1));
    assert.equal(estimateLibraryCallCost('sum', unbounded, [], { targetIsList: true })?.cost.max, UINT64_MAX);
  });

  it('functions outside the libraries are left to the core estimator', () => {
    assert.equal(estimateLibraryCallCost('size', n(3), []), undefined);
    assert.equal(libraryCallCost('size', 'abc', [], 3n), undefined);
    assert.equal(estimateLibraryCallCost('getScheme', n(1), []), undefined);
  });
});
