import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { celToJson, compileConstruction, dynToCel, evaluate, mutatingAdmissionPolicyEnvironment, PolicyExpressions, rewriteMessageLiterals } from '../../src/cel/index.js';

/** MutatingAdmissionPolicy's message construction (Object{...}, JSONPatch{...}) over cel-js, which has no message literals. */

describe('cel: message construction for mutating policies', () => {
  it('rewrites messages to map literals and leaves maps, strings and `in` alone', () => {
    assert.equal(rewriteMessageLiterals('Object{spec: Object.spec{replicas: 3}}'), '{"spec": dyn( {"replicas": dyn( 3)})}');
    assert.equal(rewriteMessageLiterals("'x' in {'x': 1}"), "'x' in {'x': 1}");
    assert.equal(rewriteMessageLiterals('[JSONPatch{op: "test", path: "/a", value: "b}, c: {"}]'), '[{"op": dyn( "test"), "path": dyn( "/a"), "value": dyn( "b}, c: {")}]');
  });

  it('evaluates constructions to JSON the mutation applies', () => {
    const expressions = new PolicyExpressions([], (v) => mutatingAdmissionPolicyEnvironment(v ? { variables: v } : {}));
    const run = (expression: string, object: unknown): unknown => {
      const c = compileConstruction(expressions, expression);
      assert.ok('program' in c, 'error' in c ? c.error : '');
      const r = evaluate(c.program, { object: dynToCel(object), oldObject: null, params: null });
      assert.ok(r.ok, r.ok ? '' : r.message);
      return celToJson(r.value);
    };
    assert.deepEqual(run('Object{metadata: Object.metadata{labels: {"a": "b"}}, spec: Object.spec{replicas: object.spec.replicas + 1}}', { spec: { replicas: 1 } }),
      { metadata: { labels: { a: 'b' } }, spec: { replicas: 2 } });
    assert.deepEqual(run('[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("x/y~z"), value: "v"}]', {}),
      [{ op: 'add', path: '/metadata/labels/x~1y~0z', value: 'v' }]);
    const bad = compileConstruction(expressions, 'Object{spec: object.nope(}');
    assert.ok('error' in bad);
  });
});

describe('cel: message construction rewrite on hostile input', () => {
  it('stays linear on many braces and long names', () => {
    const many = 'Object{a: '.repeat(20_000) + '1' + '}'.repeat(20_000);
    const out = rewriteMessageLiterals(many);
    assert.ok(out.startsWith('{"a": dyn( {"a": dyn('));
    // a type name is looked for in the last 512 characters only
    const long = `${'x'.repeat(200_000)}{`;
    assert.equal(rewriteMessageLiterals(long).length, 200_000 - 512 + 1);
  });
});
