import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  compile, crdRuleCost, crdRuleEnvironment, crdTotalCostError, evaluate, pathCardinality, ruleCostError, toCel, type OpenApiSchema,
} from '../../src/cel/index.js';

function staticCost(schema: OpenApiSchema, rule: string): number {
  const env = crdRuleEnvironment(schema);
  assert.ok(env);
  const r = compile(rule, env.environment);
  if (!r.ok) assert.fail(r.error.detail);
  return r.program.cost.max;
}

const arrayOf = (items: OpenApiSchema, maxItems?: number): OpenApiSchema => ({ type: 'array', items, ...(maxItems === undefined ? {} : { maxItems }) });
const mapOfSchema = (value: OpenApiSchema, maxProperties?: number): OpenApiSchema => ({
  type: 'object', additionalProperties: value, ...(maxProperties === undefined ? {} : { maxProperties }),
});
const str = (maxLength?: number): OpenApiSchema => ({ type: 'string', ...(maxLength === undefined ? {} : { maxLength }) });
const num: OpenApiSchema = { type: 'number' };
const objWithRequired: OpenApiSchema = { type: 'object', required: ['required'], properties: { required: str(), optional: str() } };

/** Cases and figures from kube's TestCostEstimation (apiextensions schema/cel compilation_test.go). */
describe('cel: static cost estimates match kube', () => {
  const cases: [string, OpenApiSchema, string, number][] = [
    ['number array with all, unbounded', arrayOf(num), 'self.all(x, true)', 4718591],
    ['number array with all, maxItems 10', arrayOf(num, 10), 'self.all(x, true)', 32],
    ['string array with all', arrayOf(str()), 'self.all(x, true)', 3145727],
    ['boolean array with all', arrayOf({ type: 'boolean' }, 5), 'self.all(x, true)', 17],
    ['array of objects with all', arrayOf(objWithRequired, 50), 'self.all(x, true)', 152],
    ['map of numbers with all', mapOfSchema(num), 'self.all(x, true)', 1348169],
    ['map of strings with all, maxProperties 3', mapOfSchema(str(), 3), 'self.all(x, true)', 11],
    ['string with contains', str(), "self.contains('test')", 314574],
    ['string with contains, maxLength 10', str(10), "self.contains('test')", 5],
    ['string with startsWith', str(), "self.startsWith('test')", 2],
    ['concat string', str(), 'size(self + "hello") > size("hello")', 314578],
    ['concat string, maxLength 4', str(4), 'size(self + "hello") > size("hello")', 7],
    ['index of array with numbers', arrayOf(num), 'self[1] == 0.0', 2],
    ['index of array with strings', arrayOf(str(), 8), 'self[1] == self[1]', 314577],
    ['O(n^2) loop, maxItems 10', arrayOf(num, 10), 'self.all(x, self.all(y, true))', 352],
    ['O(n^3) loop, maxItems 10', arrayOf(num, 10), 'self.all(x, self.all(y, self.all(z, true)))', 3552],
    ['regex matches simple', str(), 'self.matches("x")', 314574],
    ['regex matches simple, maxLength 50', str(50), 'self.matches("x")', 22],
    ['regex matches empty string', str(), '"".matches("(((((((((())))))))))[0-9]")', 7],
    ['regex matches empty regex', str(), 'self.matches("")', 1],
    ['map of strings with value length', mapOfSchema(str()), 'self.all(x, x.contains(self[x]))', 2752507],
    ['map of strings with value length, maxProperties 10', mapOfSchema(str(), 10), 'self.all(x, x.contains(self[x]))', 72],
    ['string maxLength 0', str(0), 'self == "x"', 1],
    ['string unbounded equality', str(), 'self == "x"', 2],
    ['all with equality, unbounded', arrayOf(num), 'self.all(x, x == 0.0)', 6291454],
    ['nested root rule', arrayOf(mapOfSchema(objWithRequired, 10), 10), 'self.all(x, x["y"].required == "z")', 72],
    ['int-or-string index', arrayOf({ 'x-kubernetes-int-or-string': true }), 'self[0] == 5', 3],
    ['array of number maps with all', arrayOf(mapOfSchema(num), 12), 'self.all(x, x.y == 25.2)', 74],
    ['date array with all', arrayOf({ type: 'string', format: 'date' }), 'self.all(x, true)', 725936],
    ['date-time array with all', arrayOf({ type: 'string', format: 'date-time' }, 25), 'self.all(x, true)', 77],
    // kube: PresenceTestHasCost(false), so has() costs its operand only
    ['has on a map', mapOfSchema(num), 'has(self.x)', 1],
    ['has under all()', arrayOf(objWithRequired, 10), 'self.all(x, has(x.optional))', 42],
  ];
  for (const [name, schema, rule, want] of cases) it(`${name}: ${rule} → ${want}`, () => assert.equal(staticCost(schema, rule), want));
});

describe('cel: too expensive rules are refused with kube\'s message', () => {
  const rule = 'self.all(x, self.all(y, x == y))';
  it('over an unbounded list: refused', () => {
    const msg = ruleCostError(staticCost(arrayOf(str()), rule));
    assert.equal(
      msg,
      'estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, ' +
        'maxProperties, and maxLength where arrays, maps, and strings are declared)',
    );
  });
  it('the same with maxItems and maxLength: accepted', () => {
    assert.equal(ruleCostError(staticCost(arrayOf(str(64), 100), rule)), undefined);
  });
  it('a factor under 1.5 is printed with six decimals, above with one', () => {
    assert.match(ruleCostError(11_000_000)!, /by factor of 1\.100000x /);
    assert.match(ruleCostError(25_000_000)!, /by factor of 2\.5x /);
    assert.match(ruleCostError(2_000_000, 10)!, /by factor of 2\.0x /);
  });
  it('a rule under a list runs once per item: its cost times the path cardinality', () => {
    const env = crdRuleEnvironment(str(64))!;
    const r = compile('self.startsWith("a")', env.environment);
    assert.ok(r.ok);
    assert.equal(pathCardinality([10, 5]), 50);
    assert.equal(pathCardinality([10, undefined]), undefined);
    assert.equal(crdRuleCost(r.program.cost.max, 50, env.selfType), r.program.cost.max * 50);
    // unbounded: kube's maxCardinality of a string (min size 2): 3 MiB / 3
    assert.equal(crdRuleCost(r.program.cost.max, undefined, env.selfType), r.program.cost.max * Math.floor((3 * 1024 * 1024) / 3));
  });
  it('the CRD total', () => {
    assert.equal(crdTotalCostError(100_000_000), undefined);
    assert.match(crdTotalCostError(300_000_000)!, /^x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 3\.0x/);
  });
});

describe('cel: runtime cost', () => {
  it('is charged per element of a list walked by all()', () => {
    const env = crdRuleEnvironment(arrayOf(num))!;
    const r = compile('self.all(x, true)', env.environment);
    assert.ok(r.ok);
    const run = (n: number): number => {
      const e = evaluate(r.program, { self: toCel(env.environment, Array.from({ length: n }, () => 1.5), env.selfType) });
      assert.ok(e.ok);
      return e.cost;
    };
    assert.equal(run(10), 32);
    assert.equal(run(100), 302);
  });
  it('stays within the static estimate', () => {
    const env = crdRuleEnvironment(arrayOf(str(8), 20))!;
    const r = compile('self.all(x, x.startsWith("a") && x.matches("^a.*$"))', env.environment);
    assert.ok(r.ok);
    const e = evaluate(r.program, { self: toCel(env.environment, Array.from({ length: 20 }, () => 'abcdefgh'), env.selfType) });
    assert.ok(e.ok);
    assert.ok(e.cost <= r.program.cost.max, `${e.cost} > ${r.program.cost.max}`);
  });
});

/*
 * ext.Strings and kube list functions, priced by kube's library cost
 * (apiserver/pkg/cel/library/cost.go): a string of maxLength 100 has a size
 * of 400 (kube counts 4 bytes per code point), a list of 10 strings of
 * maxLength 20 has elements of size 80. indexOf, lastIndexOf, substring and
 * split are cel-js macros here; they must be priced as the calls they are in
 * cel-go, not as comprehensions.
 */
describe('cel: string functions cost what kube charges', () => {
  const schema: OpenApiSchema = {
    type: 'object',
    properties: { name: str(100), tags: arrayOf(str(20), 10) },
  };
  const value = { name: 'a'.repeat(100), tags: Array.from({ length: 10 }, () => 'abcdefghijklmnopqrst') };
  // [rule, static max (EstimateCallCost), runtime cost on `value` (CallCost)]
  const cases: [string, number, number][] = [
    // self 1 + .name 1 + 400 × 0.1 + comparison 1; at runtime traversal floor(100 × 0.1)
    ["self.name.indexOf('a') >= 0", 43, 13],
    ["self.name.lastIndexOf('a') >= 0", 43, 13],
    ["self.name.indexOf('a', 2) >= 0", 43, 13],
    ["self.name.substring(1) == 'a'", 43, 13],
    ["self.name.substring(1, 2) == 'a'", 43, 13],
    ["self.name.lowerAscii() == 'a'", 43, 13],
    ["self.name.upperAscii() == 'a'", 43, 13],
    ["self.name.trim() == 'a'", 43, 13],
    // 400 × 0.2 (traversal and result) + size() + comparison
    ["self.name.split(',').size() > 0", 84, 24],
    ["self.name.replace('a', 'b') == 'a'", 83, 23],
    // list size 10 × (1 + 80 × 0.1); at runtime the strings' traversal, 10 × floor(20 × 0.1)
    ["self.tags.indexOf('a') >= 0", 93, 23],
    ["self.tags.lastIndexOf('a') >= 0", 93, 23],
    // (10 × 80 + 9 × 1) × 0.1; at runtime the result's size (209) × 0.2
    ["self.tags.join(',') == 'a'", 84, 45],
    ['self.tags.join() == "a"', 83, 43],
    // charAt has no library estimate: a plain call
    ["self.name.charAt(1) == 'a'", 4, 4],
  ];
  const env = crdRuleEnvironment(schema)!;
  for (const [rule, estimate, runtime] of cases) {
    it(rule, () => {
      const r = compile(rule, env.environment);
      if (!r.ok) assert.fail(r.error.detail);
      assert.equal(r.program.cost.max, estimate);
      const e = evaluate(r.program, { self: toCel(env.environment, value, env.selfType) });
      assert.ok(e.ok);
      assert.equal(e.cost, runtime);
    });
  }
});

describe('cel: conversions and format cost what cel-go charges', () => {
  const schema: OpenApiSchema = { type: 'object', properties: { name: str(100), n: { type: 'integer' } } };
  const env = crdRuleEnvironment(schema)!;
  const value = { name: 'a'.repeat(100), n: 5 };
  // [expression, static max, runtime cost on `value`]
  const cases: [string, number, number][] = [
    // ExtFormatString: the format string's traversal, ceil(26 × 0.1), plus its arguments (list 10, self.n 2)
    ["'x exceeded max limit of %d'.format([self.n])", 15, 15],
    // string(int) has no size estimate: the concatenation is unbounded (ceil(2^64 × 0.1) saturated in doubles)
    ["'x exceeded max limit of ' + string(self.n)", Math.ceil(18446744073709551615 * 0.1), 6],
    // bytes(string): traversal 400 × 0.1; the result may be 4 bytes per code point
    ['bytes(self.name).size() > 0', 44, 14],
  ];
  for (const [expr, estimate, runtime] of cases) {
    it(expr, () => {
      const r = compile(expr, env.environment);
      if (!r.ok) assert.fail(r.error.detail);
      assert.equal(r.program.cost.max, estimate);
      const e = evaluate(r.program, { self: toCel(env.environment, value, env.selfType) });
      assert.ok(e.ok);
      assert.equal(e.cost, runtime);
    });
  }
});
