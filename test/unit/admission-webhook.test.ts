import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { WebhookMetrics } from '../../src/admission/webhook/metrics.js';
import { deniedError, dryRunUnsupported, reviewVersion, verifyResponse } from '../../src/admission/webhook/review.js';
import { fieldErrorString } from '../../src/machinery/errors.js';
import { validateObject, validateObjectUpdate } from '../../src/registry/validation/index.js';

const G = 'admissionregistration.k8s.io';

function config(webhook: Record<string, unknown>, kind = 'ValidatingWebhookConfiguration'): Record<string, unknown> {
  return {
    apiVersion: `${G}/v1`, kind, metadata: { name: 'cfg' },
    webhooks: [{
      name: 'check.example.com', clientConfig: { url: 'https://hooks.example.com/check' },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
      sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10,
      namespaceSelector: {}, objectSelector: {},
      ...webhook,
    }],
  };
}

const errors = (webhook: Record<string, unknown>, kind?: string): string[] =>
  validateObject(G, kind ?? 'ValidatingWebhookConfiguration', config(webhook, kind) as never).map(fieldErrorString);

describe('webhook configuration validation (kube\'s messages)', () => {
  it('accepts a complete configuration', () => {
    assert.deepEqual(errors({}), []);
    assert.deepEqual(errors({ reinvocationPolicy: 'IfNeeded' }, 'MutatingWebhookConfiguration'), []);
    assert.deepEqual(errors({ clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/validate', port: 8443 } } }), []);
  });

  it('checks names, side effects, timeouts and review versions', () => {
    assert.deepEqual(errors({ name: 'short.name' }), ['webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments separated by dots']);
    assert.deepEqual(errors({ sideEffects: undefined }), ['webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun']);
    assert.deepEqual(errors({ sideEffects: 'Some' }), ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']);
    assert.deepEqual(errors({ timeoutSeconds: 31 }), ['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds']);
    assert.deepEqual(errors({ admissionReviewVersions: [] }), ['webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1']);
    assert.deepEqual(errors({ admissionReviewVersions: ['v2'] }), ['webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1']);
    assert.deepEqual(errors({ failurePolicy: 'Maybe' }), ['webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"']);
    assert.deepEqual(errors({ reinvocationPolicy: 'Always' }, 'MutatingWebhookConfiguration'), ['webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']);
  });

  it('checks the client configuration', () => {
    assert.deepEqual(errors({ clientConfig: {} }), ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
    assert.deepEqual(errors({ clientConfig: { url: 'http://hooks.example.com/x?a=b' } }), [
      'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
      'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL',
    ]);
    // kube 1.36 swaps name and namespace when it checks a service reference
    assert.deepEqual(errors({ clientConfig: { service: { namespace: 'ns', name: '', port: 443 } } }), ['webhooks[0].clientConfig.service.namespace: Required value']);
    assert.deepEqual(errors({ clientConfig: { service: { namespace: 'ns', name: 'svc', path: 'x//y', port: 0 } } }), [
      'webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
      'webhooks[0].clientConfig.service.path: Invalid value: "x//y": must start with a \'/\'',
      'webhooks[0].clientConfig.service.path: Invalid value: "x//y": segment[0] may not be empty',
      'webhooks[0].clientConfig.service.path: Invalid value: "x//y": segment[1] may not be empty',
    ]);
  });

  it('checks rules', () => {
    const rule = { operations: ['*', 'CREATE'], apiGroups: [], apiVersions: ['v1'], resources: ['pods/*', 'pods/status'], scope: 'Everywhere' };
    assert.deepEqual(errors({ rules: [rule] }), [
      'webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if \'*\' is present, must not specify other operations',
      'webhooks[0].rules[0].apiGroups: Required value',
      'webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if \'pods/*\' is present, must not specify pods/status',
      'webhooks[0].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
    ]);
    assert.deepEqual(errors({ rules: [{ ...rule, operations: ['CREATE'], apiGroups: [''], resources: ['*', 'pods'], scope: '*' }] }), [
      'webhooks[0].rules[0].resources: Invalid value: ["*","pods"]: if \'*\' is present, must not specify other resources without subresources',
    ]);
  });

  it('checks matchConditions and duplicate webhook names', () => {
    assert.deepEqual(errors({ matchConditions: [{ name: 'x', expression: 'object.metadata.name' }] }), ['webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.name": must evaluate to bool']);
    const two = config({});
    (two.webhooks as unknown[]).push((two.webhooks as unknown[])[0]);
    assert.deepEqual(validateObject(G, 'ValidatingWebhookConfiguration', two as never).map(fieldErrorString), ['webhooks[1].name: Duplicate value: "check.example.com"']);
  });

  it('an update keeps what the old object already had', () => {
    const old = config({ sideEffects: 'Some' });
    const updated = config({ sideEffects: 'Some', timeoutSeconds: 5 });
    assert.deepEqual(validateObjectUpdate(G, 'ValidatingWebhookConfiguration', updated as never, old as never), []);
    assert.deepEqual(validateObjectUpdate(G, 'ValidatingWebhookConfiguration', config({ sideEffects: 'Some' }) as never, config({}) as never).map(fieldErrorString), [
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    ]);
  });
});

describe('AdmissionReview answers', () => {
  const ok = (response: Record<string, unknown>, apiVersion = 'admission.k8s.io/v1') => ({ apiVersion, kind: 'AdmissionReview', response });

  it('picks the first review version Capstan speaks', () => {
    assert.equal(reviewVersion(['v2', 'v1beta1', 'v1']), 'v1beta1');
    assert.equal(reviewVersion(['v2']), undefined);
  });

  it('checks a v1 answer as kube does', () => {
    assert.throws(() => verifyResponse('v1', 'u1', false, {}), { message: 'webhook response was absent' });
    assert.throws(() => verifyResponse('v1', 'u1', false, ok({ uid: 'u2', allowed: true })), { message: 'expected response.uid="u1", got "u2"' });
    assert.throws(() => verifyResponse('v1', 'u1', false, ok({ uid: 'u1', allowed: true }, 'admission.k8s.io/v1beta1')), {
      message: 'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview',
    });
    assert.throws(() => verifyResponse('v1', 'u1', true, ok({ uid: 'u1', allowed: true, patch: 'W10=' })), { message: 'webhook returned response.patch but not response.patchType' });
    assert.throws(() => verifyResponse('v1', 'u1', true, ok({ uid: 'u1', allowed: true, patchType: 'JSONPatch' })), { message: 'webhook returned response.patchType but not response.patch' });
    assert.throws(() => verifyResponse('v1', 'u1', false, ok({ uid: 'u1', allowed: true, patch: 'W10=' })), { message: 'validating webhook may not return response.patch' });
    const r = verifyResponse('v1', 'u1', true, ok({ uid: 'u1', allowed: true, patch: 'W10=', patchType: 'JSONPatch', warnings: ['w'], auditAnnotations: { k: 'v' } }));
    assert.deepEqual([r.allowed, r.patch, r.patchType, r.warnings, r.auditAnnotations], [true, 'W10=', 'JSONPatch', ['w'], { k: 'v' }]);
  });

  it('takes a v1beta1 answer\'s patch as a JSONPatch without checking uid or type', () => {
    const r = verifyResponse('v1beta1', 'u1', true, { response: { uid: 'other', allowed: true, patch: 'W10=' } });
    assert.equal(r.patchType, 'JSONPatch');
  });

  it('turns a denial into kube\'s Status', () => {
    const e = deniedError('deny.example.com', { code: 403, reason: 'Forbidden', message: 'no thanks' });
    assert.deepEqual([e.code, e.status.reason, e.status.message, e.status.status], [403, 'Forbidden', 'admission webhook "deny.example.com" denied the request: no thanks', 'Failure']);
    const bare = deniedError('d.example.com', undefined);
    assert.deepEqual([bare.code, bare.status.message], [400, 'admission webhook "d.example.com" denied the request without explanation']);
    const low = deniedError('d.example.com', { code: 200, reason: 'Because', status: 'Success' });
    assert.deepEqual([low.code, low.status.message, low.status.status], [400, 'admission webhook "d.example.com" denied the request: Because', 'Failure']);
    const dry = dryRunUnsupported('d.example.com');
    assert.deepEqual([dry.code, dry.status.reason, dry.status.message], [400, 'BadRequest', 'admission webhook "d.example.com" does not support dry run']);
  });
});

describe('webhook metrics', () => {
  it('writes kube\'s series in Prometheus text', () => {
    const m = new WebhookMetrics();
    assert.equal(m.exposition(), '');
    m.observe('a.example.com', 'validating', 'CREATE', 0.003, false, 200);
    m.rejection('b.example.com', 'admit', 'UPDATE', 'calling_webhook_error', 700);
    m.failOpen('c.example.com', 'admit');
    const text = m.exposition();
    assert.match(text, /^# TYPE apiserver_admission_webhook_admission_duration_seconds histogram$/m);
    assert.match(text, /^apiserver_admission_webhook_admission_duration_seconds_bucket\{name="a\.example\.com",operation="CREATE",rejected="false",type="validating",le="0\.005"\} 1$/m);
    assert.match(text, /^apiserver_admission_webhook_request_total\{code="200",name="a\.example\.com",operation="CREATE",rejected="false",type="validating"\} 1$/m);
    assert.match(text, /^apiserver_admission_webhook_rejection_count\{error_type="calling_webhook_error",name="b\.example\.com",operation="UPDATE",rejection_code="600",type="admit"\} 1$/m);
    assert.match(text, /^apiserver_admission_webhook_fail_open_count\{name="c\.example\.com",type="admit"\} 1$/m);
  });
});
