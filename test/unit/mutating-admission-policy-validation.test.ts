import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { fieldErrorString } from '../../src/machinery/errors.js';
import { validateObject } from '../../src/registry/validation/index.js';

/** kube's validation of MutatingAdmissionPolicy and its binding (pkg/apis/admissionregistration/validation), field paths and messages word for word. */

const errors = (kind: string, obj: Record<string, unknown>): string[] =>
  validateObject('admissionregistration.k8s.io', kind, obj as never).map(fieldErrorString);

const matchConstraints = {
  matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {},
  resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }],
};
const applyConfiguration = { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{spec: Object.spec{replicas: 1}}' } };
const jsonPatch = { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("a/b"), value: "x"}]' } };
const policy = (spec: Record<string, unknown>): Record<string, unknown> => ({
  metadata: { name: 'p' },
  spec: { failurePolicy: 'Fail', reinvocationPolicy: 'Never', matchConstraints, mutations: [applyConfiguration], ...spec },
});

describe('MutatingAdmissionPolicy validation', () => {
  it('accepts a complete policy with both patch types, params, variables and matchConditions', () => {
    assert.deepEqual(errors('MutatingAdmissionPolicy', policy({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, reinvocationPolicy: 'IfNeeded',
      variables: [{ name: 'n', expression: 'int(params.data.n)' }],
      matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
      mutations: [applyConfiguration, jsonPatch],
    })), []);
  });

  const cases: [string, Record<string, unknown>, string[]][] = [
    ['mutations missing', { mutations: [] }, ['spec.mutations: Required value: mutations must contain at least one item']],
    ['patchType missing', { mutations: [{ applyConfiguration: { expression: 'Object{}' } }] }, ['spec.mutations[0].patchType: Required value']],
    ['patchType unknown', { mutations: [{ patchType: 'Merge' }] }, ['spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"']],
    ['JSONPatch with applyConfiguration', { mutations: [{ patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' } }] }, [
      'spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch',
      'spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch',
    ]],
    ['ApplyConfiguration with jsonPatch', { mutations: [{ patchType: 'ApplyConfiguration', jsonPatch: { expression: '[]' } }] }, [
      'spec.mutations[0].applyConfiguration: Required value: must be specified when patchType is ApplyConfiguration',
      'spec.mutations[0].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is ApplyConfiguration',
    ]],
    ['blank expression', { mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '  ' } }] }, ['spec.mutations[0].jsonPatch.expression: Required value']],
    ['reinvocationPolicy missing', { reinvocationPolicy: undefined }, ['spec.reinvocationPolicy: Required value']],
    ['reinvocationPolicy unknown', { reinvocationPolicy: 'Always' }, ['spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']],
    ['failurePolicy unknown', { failurePolicy: 'Sometimes' }, ['spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"']],
    ['matchConstraints missing', { matchConstraints: undefined }, ['spec.matchConstraints: Required value']],
    ['DELETE is not mutable', { matchConstraints: { ...matchConstraints, resourceRules: [{ ...matchConstraints.resourceRules[0], operations: ['CREATE', 'DELETE'] }] } }, [
      'spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"',
    ]],
  ];
  for (const [name, spec, expected] of cases) {
    it(`refuses: ${name}`, () => assert.deepEqual(errors('MutatingAdmissionPolicy', policy(spec)), expected));
  }

  it('compiles the selected patch expression in the mutating environment, reporting it trimmed', () => {
    const errs = errors('MutatingAdmissionPolicy', policy({ mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: ' Object{spec: ' } }] }));
    assert.equal(errs.length, 1, errs.join('\n'));
    assert.ok(errs[0]!.startsWith('spec.mutations[0].applyConfiguration.expression: Invalid value: "Object{spec:": compilation failed: ERROR: '), errs[0]);
    const noParams = errors('MutatingAdmissionPolicy', policy({ mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/x", value: params.x}]' } }] }));
    assert.equal(noParams.length, 1, noParams.join('\n'));
    assert.ok(noParams[0]!.startsWith('spec.mutations[0].jsonPatch.expression: Invalid value: '), noParams[0]);
  });
});

describe('MutatingAdmissionPolicyBinding validation', () => {
  it('accepts a binding with a paramRef and matchResources', () => {
    assert.deepEqual(errors('MutatingAdmissionPolicyBinding', {
      metadata: { name: 'b' },
      spec: { policyName: 'p', paramRef: { name: 'cm', parameterNotFoundAction: 'Deny' }, matchResources: matchConstraints },
    }), []);
  });

  it('refuses a missing policyName, a bad paramRef and a DELETE rule, in kube\'s words', () => {
    assert.deepEqual(errors('MutatingAdmissionPolicyBinding', {
      metadata: { name: 'b' },
      spec: {
        paramRef: { name: 'cm', selector: {} },
        matchResources: { ...matchConstraints, resourceRules: [{ ...matchConstraints.resourceRules[0], operations: ['DELETE'] }] },
      },
    }), [
      'spec.policyName: Required value',
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.parameterNotFoundAction: Required value',
      'spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"',
    ]);
  });
});
