import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { AdmissionAttributes } from '../../src/admission/admission.js';
import { AdmissionChain } from '../../src/admission/admission.js';
import { AdmissionMatcher } from '../../src/admission/matching/matcher.js';
import { CallFailure, type WebhookClients } from '../../src/admission/webhook/client.js';
import { WebhookMetrics } from '../../src/admission/webhook/metrics.js';
import { webhooksOf, type Webhook } from '../../src/admission/webhook/configuration.js';
import { MutatingWebhookPlugin } from '../../src/admission/webhook/mutating.js';
import type { WebhookSource } from '../../src/admission/webhook/source.js';
import { ValidatingWebhookPlugin } from '../../src/admission/webhook/validating.js';
import { ApiCatalog } from '../../src/api/catalog.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { applyDefaults } from '../../src/registry/defaults/index.js';

/**
 * The webhook plugins' decisions without a network: a fake client answers
 * (or fails) per webhook, so dry runs, failure policies, patches on deletes
 * and matchCondition errors can be checked against kube's texts.
 */

const catalog = ApiCatalog.load();
const configmaps = catalog.resource('', 'v1', 'configmaps')!;
const matcher = new AdmissionMatcher(catalog, async (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));

type Answer = (hook: Webhook, review: { request: { uid: string } }) => unknown;

function fakes(configs: KubeObject[], answer: Answer): { source: WebhookSource; clients: WebhookClients; calls: string[] } {
  const hooks = configs.flatMap((c) => webhooksOf(c, undefined));
  const calls: string[] = [];
  const source = { webhooks: () => hooks, start: async () => {}, hasSynced: true } as unknown as WebhookSource;
  const clients = {
    post: async (hook: Webhook, review: { request: { uid: string } }) => {
      calls.push(hook.name);
      const a = answer(hook, review);
      if (a instanceof Error) throw a;
      return { status: 200, body: a };
    },
    close: () => {},
    metrics: new WebhookMetrics(),
  } as unknown as WebhookClients;
  return { source, clients, calls };
}

function config(kind: 'Mutating' | 'Validating', webhooks: Record<string, unknown>[]): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name: `${kind.toLowerCase()}-cfg` },
    webhooks: webhooks.map((w) => ({
      clientConfig: { url: 'https://127.0.0.1:1/hook' }, sideEffects: 'None', admissionReviewVersions: ['v1'],
      rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], ...w,
    })),
  };
}

const allow = (_: Webhook, review: { request: { uid: string } }) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } });
const patching = (ops: unknown[]) => (_: Webhook, review: { request: { uid: string } }) => ({
  apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
  response: { uid: review.request.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') },
});

function attrs(over: Partial<AdmissionAttributes> = {}): AdmissionAttributes & { annotations: Map<string, string>; warnings: string[] } {
  const annotations = new Map<string, string>();
  const warnings: string[] = [];
  return {
    operation: 'CREATE', resource: configmaps, subresource: '', namespace: 'ns', name: 'cm', dryRun: false,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' }, data: { a: 'b' } },
    user: { username: 'alice', groups: [] },
    addAuditAnnotation: (k, v) => void (annotations.has(k) || annotations.set(k, v)),
    addWarning: (w) => void warnings.push(w),
    annotations, warnings,
    ...over,
  };
}

const abort = new AbortController().signal;

describe('webhook dispatch', () => {
  it('a dry run refuses a webhook with side effects (kube\'s 400) and calls one without', async () => {
    const f = fakes([config('Validating', [{ name: 'effects.example.com', sideEffects: 'Some' }, { name: 'clean.example.com', sideEffects: 'NoneOnDryRun' }])], allow);
    const plugin = new ValidatingWebhookPlugin(f.source, matcher, f.clients, abort);
    await assert.rejects(plugin.validate(attrs({ dryRun: true })), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.deepEqual([e.code, e.status.reason, e.status.message], [400, 'BadRequest', 'admission webhook "effects.example.com" does not support dry run']);
      return true;
    });
    assert.deepEqual(f.calls, ['clean.example.com']);
    f.calls.splice(0);
    await plugin.validate(attrs());
    assert.deepEqual(f.calls.sort(), ['clean.example.com', 'effects.example.com'], 'without dry run both are called');
  });

  it('a failed call fails closed with kube\'s 500, or open under Ignore with the failed-open annotation', async () => {
    const fail = () => new CallFailure('Post "https://127.0.0.1:1/hook?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused');
    const closed = fakes([config('Mutating', [{ name: 'down.example.com' }])], fail);
    await assert.rejects(new MutatingWebhookPlugin(closed.source, matcher, closed.clients, abort).admit(attrs()), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 500);
      assert.equal(e.status.message, 'Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:1/hook?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused');
      return true;
    });
    const open = fakes([config('Mutating', [{ name: 'down.example.com', failurePolicy: 'Ignore' }])], fail);
    const a = attrs();
    await new MutatingWebhookPlugin(open.source, matcher, open.clients, abort).admit(a);
    assert.equal(a.annotations.get('failed-open.mutation.webhook.admission.k8s.io/round_0_index_0'), 'down.example.com');
    assert.equal(a.annotations.get('mutation.webhook.admission.k8s.io/round_0_index_0'), '{"configuration":"mutating-cfg","webhook":"down.example.com","mutated":false}');
  });

  it('an invalid answer is a failed call', async () => {
    const f = fakes([config('Validating', [{ name: 'odd.example.com' }])], () => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'not-the-one', allowed: true } }));
    await assert.rejects(new ValidatingWebhookPlugin(f.source, matcher, f.clients, abort).validate(attrs()), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.match(e.status.message ?? '', /^Internal error occurred: failed calling webhook "odd\.example\.com": received invalid webhook response: expected response\.uid="[0-9a-f-]+", got "not-the-one"$/);
      return true;
    });
  });

  it('applies a patch into the request\'s own object, with the audit annotations', async () => {
    const f = fakes([config('Mutating', [{ name: 'label.example.com' }])], patching([{ op: 'add', path: '/metadata/labels', value: { x: 'y' } }]));
    const a = attrs();
    const object = a.object!;
    await new MutatingWebhookPlugin(f.source, matcher, f.clients, abort).admit(a);
    assert.deepEqual(object.metadata?.labels, { x: 'y' }, 'the object the handler holds changed');
    assert.equal(a.annotations.get('mutation.webhook.admission.k8s.io/round_0_index_0'), '{"configuration":"mutating-cfg","webhook":"label.example.com","mutated":true}');
    assert.match(a.annotations.get('patch.webhook.admission.k8s.io/round_0_index_0') ?? '', /"patchType":"JSONPatch"/);
  });

  it('a patch on a delete, or one that changes the kind, is an internal error', async () => {
    const del = fakes([config('Mutating', [{ name: 'label.example.com' }])], patching([{ op: 'add', path: '/metadata/labels', value: { x: 'y' } }]));
    const deleting = attrs({ operation: 'DELETE', object: undefined, oldObject: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } } });
    await assert.rejects(new MutatingWebhookPlugin(del.source, matcher, del.clients, abort).admit(deleting), {
      message: 'Internal error occurred: admission webhook "label.example.com" attempted to modify the object, which is not supported for this operation',
    });
    const kind = fakes([config('Mutating', [{ name: 'kind.example.com' }])], patching([{ op: 'replace', path: '/kind', value: 'Secret' }]));
    await assert.rejects(new MutatingWebhookPlugin(kind.source, matcher, kind.clients, abort).admit(attrs()), (e: unknown) => e instanceof ApiError && e.code === 500);
  });

  it('decodes the patched object as its type: unknown fields dropped, wrongly typed values an internal error', async () => {
    const extra = fakes([config('Mutating', [{ name: 'extra.example.com' }])], patching([{ op: 'add', path: '/bogus', value: 1 }, { op: 'add', path: '/data/c', value: 'd' }]));
    const a = attrs();
    await new MutatingWebhookPlugin(extra.source, matcher, extra.clients, abort).admit(a);
    assert.deepEqual(a.object, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' }, data: { a: 'b', c: 'd' } });
    const typed = fakes([config('Mutating', [{ name: 'typed.example.com' }])], patching([{ op: 'replace', path: '/data', value: 7 }]));
    await assert.rejects(new MutatingWebhookPlugin(typed.source, matcher, typed.clients, abort).admit(attrs()), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 500);
      assert.match(e.status.message ?? '', /^Internal error occurred: json: cannot unmarshal number into Go struct field ConfigMap\.data of type map\[string\]string$/);
      return true;
    });
  });

  it('defaults the patched object, after deciding whether it changed', async () => {
    const services = catalog.resource('', 'v1', 'services')!;
    const cfg = config('Mutating', [{ name: 'port.example.com', rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['services'] }] }]);
    const f = fakes([cfg], patching([{ op: 'add', path: '/spec/ports/-', value: { name: 'web', port: 80 } }]));
    const a = attrs({ resource: services, name: 'svc', object: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'ns' }, spec: { ports: [{ name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 }] } } });
    await new MutatingWebhookPlugin(f.source, matcher, f.clients, abort, (info, obj) => applyDefaults(info.group, info.version, info.kind, obj)).admit(a);
    const ports = (a.object!.spec as { ports: { name: string; protocol?: string; targetPort?: number }[] }).ports;
    assert.deepEqual(ports[1], { name: 'web', port: 80, protocol: 'TCP', targetPort: 80 });
  });

  it('a second pass calls again only IfNeeded webhooks that ran before a change', async () => {
    const f = fakes([config('Mutating', [
      { name: 'again.example.com', reinvocationPolicy: 'IfNeeded' },
      { name: 'once.example.com' },
      { name: 'labeler.example.com' },
    ])], (hook, review) => (hook.name === 'labeler.example.com' ? patching([{ op: 'add', path: '/metadata/labels', value: { x: 'y' } }])(hook, review) : allow(hook, review)));
    const a = attrs();
    await new AdmissionChain([new MutatingWebhookPlugin(f.source, matcher, f.clients, abort)]).admit(a);
    assert.deepEqual(f.calls, ['again.example.com', 'once.example.com', 'labeler.example.com', 'again.example.com']);
  });

  it('a matchCondition that fails to evaluate under Fail is kube\'s 403', async () => {
    const f = fakes([config('Validating', [{ name: 'guard.example.com', matchConditions: [{ name: 'c', expression: "object.data['missing'] == 'x'" }] }])], allow);
    await assert.rejects(new ValidatingWebhookPlugin(f.source, matcher, f.clients, abort).validate(attrs()), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 403);
      assert.match(e.status.message ?? '', /^configmaps "cm" is forbidden: expression 'object\.data\['missing'\] == 'x'' resulted in error: /);
      return true;
    });
    assert.deepEqual(f.calls, []);
  });

  it('webhooks never see the admission configuration objects', async () => {
    const f = fakes([config('Validating', [{ name: 'all.example.com', rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }])], allow);
    const vwc = catalog.resource('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations')!;
    await new ValidatingWebhookPlugin(f.source, matcher, f.clients, abort).validate(attrs({ resource: vwc, namespace: '', object: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'x' } } }));
    assert.deepEqual(f.calls, []);
  });
});
