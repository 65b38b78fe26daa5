import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { AdmissionAttributes } from '../../src/admission/admission.js';
import { ApiCatalog } from '../../src/api/catalog.js';
import type { Authorizer } from '../../src/authz/authorizer.js';
import type { AuthorizerBinding } from '../../src/cel/index.js';
import { policyDenial } from '../../src/admission/policy/request-support.js';
import { ValidatingPolicyEvaluator } from '../../src/admission/policy/validator.js';
import type { ValidatingAdmissionPolicySpec } from '../../src/admission/policy/types.js';

/** ValidatingAdmissionPolicy evaluation (kube's validating.validator): decisions, messages, variables, failure policy, budgets. */

const catalog = ApiCatalog.load();
const deployments = catalog.resource('apps', 'v1', 'deployments')!;

function attrs(replicas: number, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE', resource: deployments, subresource: '', namespace: 'default', name: 'web', dryRun: false,
    object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } }, spec: { replicas } },
    user: { username: 'jane', groups: ['dev', 'system:authenticated'] },
    ...extra,
  };
}

const allowAll: AuthorizerBinding = { authorize: (a) => ({ decision: a.verb === 'delete' ? 'NoOpinion' : 'Allow', reason: '' }) };
const serverAuthorizer: Authorizer = { authorize: async (a) => ({ decision: a.verb === 'create' ? 'Allow' : 'NoOpinion', reason: '' }) };
const paramKind = { apiVersion: 'v1', kind: 'ConfigMap' };
const params = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits' }, data: { max: '3' } };

async function run(spec: ValidatingAdmissionPolicySpec, a: AdmissionAttributes, p?: Record<string, unknown>) {
  const matched = { resource: a.resource, kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, ...(a.object ? { object: a.object } : {}), ...(a.oldObject ? { oldObject: a.oldObject } : {}) };
  return new ValidatingPolicyEvaluator(spec, serverAuthorizer).validate({ attrs: a, matched, params: p, namespace: undefined, authorizer: allowAll });
}

describe('ValidatingAdmissionPolicy evaluation', () => {
  it('admits what passes and denies with message, messageExpression or the expression, with the reason', async () => {
    const spec: ValidatingAdmissionPolicySpec = {
      paramKind,
      variables: [{ name: 'max', expression: 'int(params.data.max)' }, { name: 'twice', expression: 'variables.max * 2' }],
      validations: [
        { expression: 'object.spec.replicas <= variables.max', messageExpression: "'at most ' + string(variables.max) + ' replicas'", reason: 'Forbidden' },
        { expression: 'object.spec.replicas <= variables.twice', message: '  too many  ' },
        { expression: ' object.spec.replicas < 0 ' },
        { expression: 'object.spec.replicas < 100', messageExpression: "'a\\nb'", message: 'fallback' },
      ],
    };
    const ok = await run(spec, attrs(2), params);
    assert.deepEqual(ok.decisions.map((d) => d.action), ['admit', 'admit', 'deny', 'admit']);
    assert.equal(ok.decisions[2]!.message, 'failed expression: object.spec.replicas < 0');
    assert.equal(ok.decisions[2]!.reason, 'Invalid');
    const bad = await run(spec, attrs(7), params);
    assert.deepEqual(bad.decisions.map((d) => [d.action, d.message, d.reason]), [
      ['deny', 'at most 3 replicas', 'Forbidden'],
      ['deny', 'too many', 'Invalid'],
      ['deny', 'failed expression: object.spec.replicas < 0', 'Invalid'],
      ['admit', '', ''],
    ]);
    // a multi-line messageExpression result falls back to message
    const multi = await run({ validations: [{ expression: 'false', messageExpression: "'a\\nb'", message: 'fallback' }] }, attrs(1));
    assert.equal(multi.decisions[0]!.message, 'fallback');
  });

  it('reports runtime errors and compile errors in kube\'s words; failurePolicy Ignore admits them', async () => {
    const spec: ValidatingAdmissionPolicySpec = { validations: [{ expression: 'object.spec.nope > 1' }, { expression: 'object.spec.replicas >' }] };
    const r = await run(spec, attrs(1));
    assert.deepEqual(r.decisions.map((d) => [d.action, d.evaluation]), [['deny', 'error'], ['deny', 'error']]);
    assert.equal(r.decisions[0]!.message, "expression 'object.spec.nope > 1' resulted in error: no such key: nope");
    assert.match(r.decisions[1]!.message, /^compilation error: compilation failed: ERROR: <input>:1:23: /);
    const ignored = await run({ ...spec, failurePolicy: 'Ignore' }, attrs(1));
    assert.deepEqual(ignored.decisions.map((d) => d.action), ['admit', 'admit']);
  });

  it('names the variable that fails', async () => {
    const r = await run({ variables: [{ name: 'x', expression: 'object.spec.nope' }], validations: [{ expression: 'variables.x == 1' }] }, attrs(1));
    assert.equal(r.decisions[0]!.message, "expression 'variables.x == 1' resulted in error: composited variable \"x\" fails to evaluate: no such key: nope");
  });

  it('evaluates variables once, on first use', async () => {
    const spec: ValidatingAdmissionPolicySpec = {
      variables: [{ name: 'unused', expression: 'object.spec.nope' }, { name: 'r', expression: 'object.spec.replicas' }],
      validations: [{ expression: 'variables.r == 1' }, { expression: 'variables.r + variables.r == 2' }],
    };
    assert.deepEqual((await run(spec, attrs(1))).decisions.map((d) => d.action), ['admit', 'admit']);
  });

  it('skips validations when a matchCondition is false and fails on a matchCondition error', async () => {
    const spec: ValidatingAdmissionPolicySpec = {
      matchConditions: [{ name: 'labelled', expression: "has(object.metadata.labels) && object.metadata.labels.app == 'db'" }],
      validations: [{ expression: 'false' }],
    };
    assert.deepEqual((await run(spec, attrs(1))).decisions, []);
    const failing = { matchConditions: [{ name: 'broken', expression: 'object.spec.nope' + ' == 1' }], validations: [{ expression: 'false' }] };
    const r = await run(failing, attrs(1));
    assert.equal(r.decisions[0]!.message, "expression 'object.spec.nope == 1' resulted in error: no such key: nope");
    assert.deepEqual((await run({ ...failing, failurePolicy: 'Ignore' }, attrs(1))).decisions, []);
    // matchConditions see params, variables and the authorizer
    const withVars: ValidatingAdmissionPolicySpec = {
      paramKind,
      variables: [{ name: 'max', expression: 'int(params.data.max)' }],
      matchConditions: [{ name: 'over', expression: "object.spec.replicas > variables.max && authorizer.requestResource.check('create').allowed()" }],
      validations: [{ expression: 'false', message: 'matched' }],
    };
    assert.deepEqual((await run(withVars, attrs(2), params)).decisions, []);
    assert.equal((await run(withVars, attrs(5), params)).decisions[0]!.message, 'matched');
  });

  it('has request, oldObject, params (null without one), namespaceObject and the authorizer', async () => {
    // without a paramKind, `params` is not declared at all (kube's "undeclared reference")
    const noParams = await run({ validations: [{ expression: 'params == null' }] }, attrs(1));
    assert.match(noParams.decisions[0]!.message, /^compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'/);
    const spec: ValidatingAdmissionPolicySpec = {
      paramKind,
      validations: [
        { expression: "request.operation == 'CREATE' && request.userInfo.username == 'jane' && request.kind.kind == 'Deployment' && request.resource.resource == 'deployments'" },
        { expression: 'oldObject == null && params == null' },
        { expression: "authorizer.group('apps').resource('deployments').namespace('default').check('create').allowed()" },
        { expression: "!authorizer.group('apps').resource('deployments').check('delete').allowed()" },
        { expression: "authorizer.requestResource.check('create').allowed()" },
      ],
    };
    assert.deepEqual((await run(spec, attrs(1))).decisions.map((d) => [d.action, d.message]), Array(5).fill(['admit', '']));
  });

  it('publishes audit annotations: strings trimmed, null and empty left out, other types an error', async () => {
    const r = await run({ auditAnnotations: [
      { key: 'replicas', valueExpression: "' ' + string(object.spec.replicas) + ' '" },
      { key: 'none', valueExpression: 'null' },
      { key: 'empty', valueExpression: "''" },
      { key: 'number', valueExpression: 'object.spec.replicas' },
    ] }, attrs(4));
    assert.deepEqual(r.auditAnnotations.slice(0, 3), [{ action: 'publish', key: 'replicas', value: '4' }, { action: 'exclude', key: 'none' }, { action: 'exclude', key: 'empty' }]);
    assert.equal(r.auditAnnotations[3]!.action, 'error');
  });

  it('stops at the per-call cost limit', async () => {
    const r = await run({ validations: [{ expression: '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a + b + c + d + e + f > 0))))))' }] }, attrs(1));
    assert.match(r.decisions[0]!.message, /resulted in error: operation cancelled: actual cost limit exceeded$/);
  });
});

describe('ValidatingAdmissionPolicy denial', () => {
  it('denies as admission.NewForbidden with the decision\'s reason and code', () => {
    const err = policyDenial(attrs(1), "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no", 'Invalid');
    assert.deepEqual(err.status, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 422, reason: 'Invalid',
      message: "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no",
      details: { name: 'web', group: 'apps', kind: 'deployments', causes: [{ message: "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no" }] },
    });
    assert.equal(policyDenial(attrs(1), 'x', 'Forbidden').code, 403);
    assert.equal(policyDenial(attrs(1), 'x', 'Unauthorized').code, 401);
    assert.equal(policyDenial(attrs(1), 'x', 'RequestEntityTooLarge').code, 413);
  });
});
