import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { fieldErrorString } from '../../src/machinery/errors.js';
import { validateObject } from '../../src/registry/validation/index.js';

/** kube's validation of ValidatingAdmissionPolicy and its binding (pkg/apis/admissionregistration/validation), messages word for word. */

const errors = (kind: string, obj: Record<string, unknown>): string[] =>
  validateObject('admissionregistration.k8s.io', kind, obj as never).map(fieldErrorString);

const matchConstraints = {
  matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {},
  resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }],
};

describe('ValidatingAdmissionPolicy validation', () => {
  it('accepts a complete policy', () => {
    assert.deepEqual(errors('ValidatingAdmissionPolicy', {
      metadata: { name: 'p' },
      spec: {
        failurePolicy: 'Fail', paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConstraints,
        variables: [{ name: 'max', expression: 'int(params.data.max)' }],
        matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
        validations: [{ expression: 'object.spec.replicas <= variables.max', messageExpression: "'too many: ' + string(object.spec.replicas)", reason: 'Forbidden' }],
        auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }],
      },
    }), []);
  });

  it('refuses missing parts, bad rules and expressions that do not compile, in kube\'s words', () => {
    const errs = errors('ValidatingAdmissionPolicy', {
      metadata: { name: 'p' },
      spec: {
        failurePolicy: 'Sometimes',
        matchConstraints: { ...matchConstraints, resourceRules: [{ apiGroups: ['*', 'apps'], apiVersions: ['v1'], operations: ['CREATE', 'PATCH'], resources: ['*', 'pods'] }] },
        variables: [{ name: 'in', expression: 'object.' }],
        validations: [{ expression: 'object.spec.replicas', reason: 'Conflict' }, { expression: 'true', message: 'a\nb' }],
      },
    });
    assert.deepEqual(errs.filter((e) => !e.startsWith('spec.variables[0].expression') && !e.startsWith('spec.validations[0].expression')), [
      'spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
      'spec.matchConstraints.resourceRules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      'spec.matchConstraints.resourceRules[0].apiGroups: Invalid value: ["*","apps"]: if \'*\' is present, must not specify other API groups',
      'spec.matchConstraints.resourceRules[0].resources: Invalid value: ["*","pods"]: if \'*\' is present, must not specify other resources without subresources',
      'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier',
      'spec.validations[0].reason: Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"',
      'spec.validations[1].message: Invalid value: "a\\nb": message must not contain line breaks',
    ]);
    assert.ok(errs.includes('spec.validations[0].expression: Invalid value: "object.spec.replicas": must evaluate to bool'), errs.join('\n'));
    assert.ok(errs.some((e) => e.startsWith('spec.variables[0].expression: Invalid value: "object.": compilation failed: ERROR: <input>:1:8: ')), errs.join('\n'));
    assert.deepEqual(errors('ValidatingAdmissionPolicy', { metadata: { name: 'p' }, spec: { failurePolicy: 'Fail' } }), [
      'spec.matchConstraints: Required value',
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
      'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
    ]);
  });

  it('declares params only for a policy with a paramKind', () => {
    const spec = { failurePolicy: 'Fail', matchConstraints, validations: [{ expression: 'params.x == 1' }] };
    assert.deepEqual(errors('ValidatingAdmissionPolicy', { metadata: { name: 'p' }, spec }), [
      "spec.validations[0].expression: Invalid value: \"params.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^",
    ]);
    assert.deepEqual(errors('ValidatingAdmissionPolicy', { metadata: { name: 'p' }, spec: { ...spec, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } }), []);
  });

  it('validates bindings: paramRef, actions', () => {
    assert.deepEqual(errors('ValidatingAdmissionPolicyBinding', { metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'x', parameterNotFoundAction: 'Deny' } } }), []);
    assert.deepEqual(errors('ValidatingAdmissionPolicyBinding', {
      metadata: { name: 'b' },
      spec: { policyName: 'p', validationActions: ['Deny', 'Warn', 'Deny', 'Log'], paramRef: { name: 'x', selector: {} } },
    }), [
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.parameterNotFoundAction: Required value',
      'spec.validationActions[2]: Duplicate value: "Deny"',
      'spec.validationActions[3]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"',
      'spec.validationActions: Invalid value: ["Deny","Warn","Deny","Log"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]);
    assert.deepEqual(errors('ValidatingAdmissionPolicyBinding', { metadata: { name: 'b' }, spec: {} }), [
      'spec.policyName: Required value',
      'spec.validationActions: Required value: at least one validation action is required',
    ]);
  });
});
