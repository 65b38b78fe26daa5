import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { packageRootDir } from '../../src/api/files.js';

import {
  admissionPolicyEnvironment, authorizationMatchConditionEnvironment, celToJson, claimsEnvironment, compile,
  compiledProgramCount, CostBudget, RULE_MUST_BE_BOOL, crdRuleEnvironment, escapeProperty, evaluate, schemaDeclType, toCel,
  typeName, unescapeProperty, userEnvironment, compositionType, dynToCel, lazyObject, CelEnvironment, mapOf, namedType, Types, webhookMatchConditionEnvironment, type OpenApiSchema, type Program,
} from '../../src/cel/index.js';

function ok(expression: string, env: Parameters<typeof compile>[1]): Program {
  const r = compile(expression, env);
  if (!r.ok) assert.fail(`${expression}: ${r.error.detail}`);
  return r.program;
}

const schema: OpenApiSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 10 },
    replicas: { type: 'integer' },
    ratio: { type: 'number' },
    enabled: { type: 'boolean' },
    created: { type: 'string', format: 'date-time' },
    day: { type: 'string', format: 'date' },
    timeout: { type: 'string', format: 'duration' },
    data: { type: 'string', format: 'byte' },
    port: { 'x-kubernetes-int-or-string': true },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    items: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' } } } },
    'dash-name': { type: 'string' },
    'dot.name': { type: 'string' },
    'slash/name': { type: 'string' },
    'a__b': { type: 'string' },
    namespace: { type: 'string' },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'string' } } },
  },
};

describe('cel: property-name escaping (kube escaping.go)', () => {
  const cases: [string, string | undefined][] = [
    ['foo', 'foo'], ['a__b', 'a__underscores__b'], ['a.b', 'a__dot__b'], ['a-b', 'a__dash__b'], ['a/b', 'a__slash__b'],
    ['namespace', '__namespace__'], ['in', '__in__'], ['_foo', '_foo'], ['1abc', undefined], ['a b', undefined],
    ['', undefined], ['a___b', 'a__underscores___b'], ['a.__b', 'a__dot____underscores__b'],
  ];
  for (const [name, want] of cases) {
    it(`${JSON.stringify(name)} → ${want}`, () => {
      assert.equal(escapeProperty(name), want);
      if (want !== undefined) assert.equal(unescapeProperty(want), name);
    });
  }
});

describe('cel: schema → types', () => {
  const t = schemaDeclType(schema, 'selfType');
  assert.ok(t && t.kind === 'object');
  const field = (n: string): string => typeName(t.fields.get(n)!.type);
  const cases: [string, string][] = [
    ['name', 'string'], ['replicas', 'int'], ['ratio', 'double'], ['enabled', 'bool'], ['created', 'timestamp'],
    ['day', 'timestamp'], ['timeout', 'duration'], ['data', 'bytes'], ['port', 'dyn'], ['labels', 'map(string, string)'],
    ['tags', 'list(string)'], ['dash__dash__name', 'string'], ['dot__dot__name', 'string'], ['slash__slash__name', 'string'],
    ['a__underscores__b', 'string'], ['__namespace__', 'string'], ['free', 'selfType.free'], ['embedded', 'selfType.embedded'],
  ];
  for (const [f, want] of cases) it(`${f}: ${want}`, () => assert.equal(field(f), want));
  it('an embedded resource has apiVersion, kind, metadata.name', () => {
    const e = t.fields.get('embedded')!.type;
    assert.ok(e.kind === 'object' && e.fields.has('apiVersion') && e.fields.has('kind') && e.fields.has('metadata'));
  });
  it('bounds: maxLength × 4, unset → request size', () => {
    assert.equal(t.fields.get('name')!.type.maxElements, 40);
    assert.equal(t.fields.get('dash__dash__name')!.type.maxElements, 3 * 1024 * 1024 - 2);
  });
  it('an array without items is not exposed', () => assert.equal(schemaDeclType({ type: 'array' }, 'x'), undefined));
});

describe('cel: CRD rules over typed values', () => {
  const rule = crdRuleEnvironment(schema)!;
  const env = rule.environment;
  const obj = {
    name: 'web', replicas: 3, ratio: 0.5, enabled: true, created: '2024-01-02T03:04:05Z', day: '2024-01-02', timeout: '1m30s',
    data: Buffer.from('hi').toString('base64'), port: 'http', labels: { app: 'x' }, tags: ['a', 'b'], items: [{ n: 1 }, { n: 2 }],
    'dash-name': 'd', namespace: 'ns', free: { anything: 1 },
  };
  const self = toCel(env, obj, rule.selfType);
  const cases: [string, unknown][] = [
    ['self.name == "web"', true],
    ['self.replicas + 1', 4],
    ['self.ratio * 2.0', 1],
    ['self.created < timestamp("2025-01-01T00:00:00Z")', true],
    ['self.day == timestamp("2024-01-02T00:00:00Z")', true],
    ['self.timeout == duration("90s")', true],
    ['self.data == b"hi"', true],
    ['type(self.port) == string', true],
    ['self.labels["app"]', 'x'],
    ['self.items.all(i, i.n > 0)', true],
    ['self.items.map(i, i.n * 2)', [2, 4]],
    ['self.dash__dash__name', 'd'],
    ['self.__namespace__', 'ns'],
    ['has(self.ratio) && !has(self.dot__dot__name)', true],
    ['self.tags == oldSelf.tags', true],
    ['self == oldSelf', true],
  ];
  const oldSelf = toCel(env, { ...obj, tags: ['b', 'a'] }, rule.selfType);
  for (const [expr, want] of cases) {
    it(expr, () => {
      const r = evaluate(ok(expr, env), { self, oldSelf });
      assert.ok(r.ok, r.ok ? '' : r.message);
      assert.deepEqual(celToJson(r.value), want);
    });
  }
  it('a missing field at runtime is kube\'s "no such key"', () => {
    const r = evaluate(ok('self.dot__dot__name == "x"', env), { self, oldSelf });
    assert.ok(!r.ok);
    assert.equal(r.message, 'no such key: dot__dot__name');
  });
  it('unknown fields of a preserve-unknown-fields object are not exposed (kube)', () => {
    const r = compile('self.free.anything == 1', env);
    assert.ok(!r.ok);
    assert.match(r.error.detail, /^compilation failed: ERROR: <input>:1:\d+: undefined field 'anything'/);
  });
});

describe('cel: compile errors in kube\'s form', () => {
  const env = crdRuleEnvironment(schema)!.environment;
  const cases: [string, RegExp][] = [
    ['self.nope', /^compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n \| self\.nope\n \| \.{4}\^$/],
    ['foo == 1', /^compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' \(in container ''\)/],
    ['self.name + 1', /^compilation failed: ERROR: <input>:1:11: found no matching overload for '_\+_' applied to '\(string, int\)'\n \| self\.name \+ 1\n \| \.{10}\^$/],
    ['self.replicas.x', /^compilation failed: ERROR: <input>:1:\d+: type 'int' does not support field selection/],
    ['size(1)', /^compilation failed: ERROR: <input>:1:1: found no matching overload for 'size' applied to '\(int\)'/],
    ['nosuchfn(1)', /undeclared reference to 'nosuchfn'/],
    ['1 +', /^compilation failed: ERROR: <input>:1:4: Syntax error: /],
    ['self.name ==\n  ', /^compilation failed: ERROR: <input>:2:3: Syntax error: /],
    // kube's AST validators (1.29+): literal arguments and homogeneous literals
    ['self.timeout == duration("1 hour")', /^compilation failed: ERROR: <input>:1:26: invalid duration argument/],
    ['self.created == timestamp("yesterday")', /^compilation failed: ERROR: <input>:1:27: invalid timestamp argument/],
    ['self.name.matches("[")', /^compilation failed: ERROR: <input>:1:19: invalid matches argument/],
    ['[1, "a"].size() > 0', /^compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'/],
    ['{"a": 1, "b": "c"}.size() > 0', /^compilation failed: ERROR: <input>:1:15: expected type 'int' but found 'string'/],
  ];
  for (const [expr, want] of cases) {
    it(JSON.stringify(expr), () => {
      const r = compile(expr, env);
      assert.ok(!r.ok);
      assert.equal(r.error.type, 'invalid');
      assert.match(r.error.detail, want);
    });
  }
  it('a CRD rule that is not a bool: kube\'s CRD wording', () => {
    const r = compile('self.name', env, { returnTypes: ['bool'], wrongTypeDetail: RULE_MUST_BE_BOOL });
    assert.ok(!r.ok);
    assert.equal(r.error.detail, 'cel expression must evaluate to a bool');
  });
  it('a messageExpression syntax error carries its own prefix', () => {
    const r = compile('"a" +', env, { returnTypes: ['string'], errorPrefix: 'messageExpression compilation failed: ' });
    assert.ok(!r.ok);
    assert.match(r.error.detail, /^messageExpression compilation failed: ERROR: <input>:1:6: /);
  });
  it('RE2 flag groups and named groups are valid regex literals', () => {
    assert.ok(compile('self.name.matches("(?i)^web-(?P<n>[0-9]+)$")', env).ok);
  });
  it('a result of the wrong type: "must evaluate to bool"', () => {
    const r = compile('self.name', env, { returnTypes: ['bool'] });
    assert.ok(!r.ok);
    assert.equal(r.error.detail, 'must evaluate to bool');
  });
});

describe('cel: environments declare kube\'s variables', () => {
  const cases: [string, ReturnType<typeof claimsEnvironment>, string, string][] = [
    ['policy', admissionPolicyEnvironment(), 'object.spec.x == params.y && request.userInfo.username != "" && namespaceObject.metadata.name == request.namespace', 'bool'],
    ['policy request fields', admissionPolicyEnvironment(), 'request.operation == "CREATE" && request.kind.kind == "Pod" && request.dryRun', 'bool'],
    ['webhook match', webhookMatchConditionEnvironment(), 'has(object.metadata) && oldObject == null && request.resource.resource == "pods"', 'bool'],
    ['authorization match', authorizationMatchConditionEnvironment(), 'request.resourceAttributes.verb == "get" && "g" in request.groups', 'bool'],
    ['claims', claimsEnvironment(), 'claims.sub + ":" + claims.email', 'string'],
    ['user', userEnvironment(), 'user.username.startsWith("system:") && user.groups.size() > 0', 'bool'],
  ];
  for (const [name, env, expr, type] of cases) {
    it(name, () => assert.equal(ok(expr, env).outputType, type));
  }
  it('a policy variable unknown to the environment is a compile error', () => {
    const r = compile('variables.foo', admissionPolicyEnvironment());
    assert.ok(!r.ok);
  });
});

describe('cel: program cache', () => {
  it('same text, same environment → same program; another environment → another', () => {
    const a = new CelEnvironment([{ name: 'claims', type: mapOf(Types.string, Types.dyn) }]);
    const b = new CelEnvironment([{ name: 'claims', type: mapOf(Types.string, Types.dyn) }]);
    const p1 = ok('claims.sub == "x"', a);
    const p2 = ok('claims.sub == "x"', a);
    const p3 = ok('claims.sub == "x"', b);
    assert.equal(p1, p2);
    assert.notEqual(p1, p3);
    assert.equal(compiledProgramCount(a), 1);
    assert.equal(compiledProgramCount(b), 1);
  });
  it('shared environments are built once', () => {
    assert.equal(claimsEnvironment(), claimsEnvironment());
    assert.equal(admissionPolicyEnvironment(), admissionPolicyEnvironment());
  });
  it('errors are cached too', () => {
    const env = claimsEnvironment();
    const r1 = compile('1 +', env);
    const r2 = compile('1 +', env);
    assert.equal(r1, r2);
  });
});

describe('cel: evaluation budget', () => {
  it('the shared budget runs out with kube\'s message', () => {
    const env = claimsEnvironment();
    const p = ok('claims.list.all(x, x > 0)', env);
    const claims = new Map([['list', Array.from({ length: 1000 }, () => 1n)]]);
    const budget = new CostBudget(8000);
    const first = evaluate(p, { claims }, { budget });
    assert.ok(first.ok);
    const second = evaluate(p, { claims }, { budget });
    assert.ok(!second.ok);
    assert.equal(second.kind, 'outOfBudget');
    assert.equal(second.message, 'validation failed due to running out of cost budget, no further validation rules will be run');
  });
  it('an expression over its per-call limit stops with cel-go\'s message', () => {
    const env = claimsEnvironment();
    const p = ok('claims.list.all(x, claims.list.all(y, x == y))', env);
    const claims = new Map([['list', Array.from({ length: 2000 }, () => 1n)]]);
    const r = evaluate(p, { claims });
    assert.ok(!r.ok);
    assert.equal(r.kind, 'costLimit');
    assert.equal(r.message, 'operation cancelled: actual cost limit exceeded');
  });
});

describe('cel: optionalOldSelf', () => {
  const schema2: OpenApiSchema = { type: 'object', properties: { n: { type: 'integer' } } };
  const rule = crdRuleEnvironment(schema2, { optionalOldSelf: true })!;
  const p = ok('oldSelf.hasValue() ? self.n >= oldSelf.value().n : self.n > 0', rule.environment);
  it('oldSelf is optional: absent on create', () => {
    const r = evaluate(p, { self: toCel(rule.environment, { n: 1 }, rule.selfType), oldSelf: toCel(rule.environment, undefined, rule.oldSelfType) });
    assert.ok(r.ok && r.value === true);
  });
  it('present on update', () => {
    const r = evaluate(p, { self: toCel(rule.environment, { n: 1 }, rule.selfType), oldSelf: toCel(rule.environment, { n: 2 }, rule.oldSelfType) });
    assert.ok(r.ok && r.value === false);
  });
});

describe('cel: policy variables (composition)', () => {
  it('variables are typed from their compiled output and computed once, on first use', () => {
    const first = ok('object.spec.replicas * 2', admissionPolicyEnvironment());
    const varsType = compositionType([{ name: 'double', type: first.outputDeclType }]);
    const env = admissionPolicyEnvironment({ variables: varsType });
    assert.equal(first.outputType, 'int');
    const rule = ok('variables.double > 4 && variables.double < 10', env);
    assert.equal(rule.outputType, 'bool');
    assert.ok(!compile('variables.nope', env).ok);
    let runs = 0;
    const object = dynToCel({ spec: { replicas: 3 } });
    const variables = lazyObject(env, varsType, new Map([['double', () => {
      runs++;
      const r = evaluate(first, { object });
      return r.ok ? r.value : null;
    }]]));
    const r = evaluate(rule, { object, variables });
    assert.ok(r.ok && r.value === true);
    assert.equal(runs, 1);
  });
});

describe('cel: src/cel/ is the only door to the CEL library', () => {
  it('no file outside src/cel/ imports @marcbachmann/cel-js or @bufbuild/cel', () => {
    const src = join(packageRootDir(), 'src');
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) {
          if (p !== join(src, 'cel')) walk(p);
        } else if (e.name.endsWith('.ts') && /from '@(marcbachmann\/cel-js|bufbuild\/cel)/.test(readFileSync(p, 'utf8'))) {
          offenders.push(p);
        }
      }
    };
    walk(src);
    assert.deepEqual(offenders, []);
  });
});

describe('cel: runtime errors in cel-go\'s words', () => {
  const env = claimsEnvironment();
  const claims = dynToCel({ l: [1], m: {} });
  const cases: [string, string][] = [
    ['claims.m.nope == 1', 'no such key: nope'],
    ['claims.l[5] == 1', "index '5' out of range in list size '1'"],
    ['1 / (size(claims.l) - 1) == 0', 'division by zero'],
    ['1 % (size(claims.l) - 1) == 0', 'modulus by zero'],
    ['9223372036854775807 + size(claims.l) > 0', 'integer overflow'],
  ];
  for (const [expr, want] of cases) {
    it(expr, () => {
      const r = evaluate(ok(expr, env), { claims });
      assert.ok(!r.ok);
      assert.equal(r.kind, 'evaluation');
      assert.equal(r.message, want);
    });
  }
});

describe('cel: dotted variable names (kube\'s authorizer.requestResource)', () => {
  const env = new CelEnvironment([{ name: 'a', type: Types.string }, { name: 'a.b', type: Types.string }]);
  it('resolve as one variable, outside string literals only', () => {
    const p = ok('a.b.size() == 5 && "a.b" == \'a.b\' && r"a.b".size() == 3 && a == "x"', env);
    const r = evaluate(p, { a: 'x', 'a.b': 'hello' });
    assert.ok(r.ok && r.value === true);
  });
  it('errors keep the positions the user wrote', () => {
    const r = compile('a.b + 1', env);
    assert.ok(!r.ok);
    assert.match(r.error.detail, /^compilation failed: ERROR: <input>:1:5: found no matching overload for '_\+_' applied to '\(string, int\)'\n \| a\.b \+ 1\n/);
  });
  it('only whole names are rewritten', () => {
    const r = compile('xa.b == "y"', env);
    assert.ok(!r.ok);
    assert.match(r.error.detail, /undeclared reference to 'xa'/);
  });
  it('an optional variable whose (library) type is unknown is left undeclared', () => {
    const e = new CelEnvironment([{ name: 'a', type: Types.string }], { optionalVariables: [{ name: 'z.q', type: namedType('no.such.Type') }] });
    assert.equal(e.variables.has('z.q'), false);
    assert.ok(compile('a == "x"', e).ok);
  });
});

describe('cel: no ext.Bindings in the base environment (apiserver/pkg/cel/environment/base.go)', () => {
  it("cel.bind is an undeclared reference to 'cel', as in kube", () => {
    const env = crdRuleEnvironment({ type: 'object', properties: { n: { type: 'integer' } } })!;
    const r = compile('cel.bind(x, 1, x == 1)', env.environment);
    assert.ok(!r.ok);
    assert.equal(r.error.detail, "compilation failed: ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')\n | cel.bind(x, 1, x == 1)\n | ^");
  });
});
