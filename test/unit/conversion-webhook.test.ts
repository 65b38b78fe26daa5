import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ConversionWebhook, ConversionWebhookMetrics } from '../../src/registry/conversion-webhook.js';
import { CallFailure } from '../../src/registry/webhook-client.js';
import type { KubeObject } from '../../src/machinery/object.js';

/**
 * The conversion webhook's review and kube's checks of the answer
 * (apiextensions-apiserver webhook_converter.go): review version
 * negotiation, uid, object count, apiVersion and kind, name/namespace/uid,
 * restoreObjectMeta (only labels and annotations may change, validated).
 */

type Reviewed = { apiVersion: string; request: { uid: string; desiredAPIVersion: string; objects: KubeObject[] } };
type Answer = (review: Reviewed) => unknown;

function hook(answer: Answer, versions: string[] = ['v1']): { webhook: ConversionWebhook; sent: Reviewed[]; metrics: ConversionWebhookMetrics } {
  const sent: Reviewed[] = [];
  const metrics = new ConversionWebhookMetrics();
  const clients = {
    async post(_endpoint: unknown, review: unknown) {
      sent.push(review as Reviewed);
      const body = answer(review as Reviewed);
      if (body instanceof Error) throw body;
      return { status: 200, body };
    },
  };
  const webhook = new ConversionWebhook({ crdName: 'widgets.example.com', clientConfig: { url: 'https://hook/convert' }, conversionReviewVersions: versions }, clients, metrics);
  return { webhook, sent, metrics };
}

const widget = (name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'example.com/v1', kind: 'Widget',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '7', labels: { a: 'b' }, ...extra },
  spec: { x: 1 },
});

/** A converting webhook: apiVersion rewritten, `mutate` applied to each converted object. */
const converting = (mutate: (o: Record<string, any>) => void = () => undefined, reviewApiVersion?: string): Answer => (review) => ({
  apiVersion: reviewApiVersion ?? review.apiVersion, kind: 'ConversionReview',
  response: {
    uid: review.request.uid,
    result: { status: 'Success' },
    convertedObjects: review.request.objects.map((o) => {
      const out = JSON.parse(JSON.stringify({ ...o, apiVersion: review.request.desiredAPIVersion })) as Record<string, any>;
      mutate(out);
      return out;
    }),
  },
});

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('expected a failure');
}

describe('conversion webhook review', () => {
  it('sends one v1 ConversionReview with every object and its desired version; the original metadata comes back with the webhook\'s labels', async () => {
    const { webhook, sent, metrics } = hook(converting((o) => {
      o.metadata.labels = { a: 'changed', added: 'yes' };
      o.metadata.resourceVersion = '999';
      o.metadata.generation = 42;
      o.spec = { y: 2 };
    }));
    const out = await webhook.convert([widget('a'), widget('b')], 'example.com/v2', { listKind: 'WidgetList' });
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(sent[0]!.request.desiredAPIVersion, 'example.com/v2');
    assert.equal(sent[0]!.request.objects.length, 2);
    assert.match(sent[0]!.request.uid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(out[0], {
      apiVersion: 'example.com/v2', kind: 'Widget',
      metadata: { name: 'a', namespace: 'ns', uid: 'uid-a', resourceVersion: '7', labels: { a: 'changed', added: 'yes' } },
      spec: { y: 2 },
    });
    assert.equal(metrics.duration.all()[0]!.labels.succeeded, 'true');
    assert.deepEqual(metrics.duration.all()[0]!.labels, { crd_name: 'widgets.example.com', from_version: 'v1', to_version: 'v2', succeeded: 'true' });
  });

  it('negotiates v1beta1 when the CRD lists it first, and then checks neither the answer\'s kind nor its uid', async () => {
    const { webhook, sent } = hook((review) => ({ response: { uid: 'whatever', result: { status: 'Success' }, convertedObjects: review.request.objects.map((o) => ({ ...o, apiVersion: 'example.com/v2' })) } }), ['v1beta2', 'v1beta1', 'v1']);
    const out = await webhook.convert([widget('a')], 'example.com/v2');
    assert.equal(sent[0]!.apiVersion, 'apiextensions.k8s.io/v1beta1');
    assert.equal(out[0]!.apiVersion, 'example.com/v2');
  });

  it('no supported review version, nothing to convert', async () => {
    assert.equal(await failure(hook(converting(), ['v2']).webhook.convert([widget('a')], 'example.com/v2')), 'no supported conversion review versions');
    const { webhook, sent } = hook(converting());
    const same = await webhook.convert([{ ...widget('a'), apiVersion: 'example.com/v2' }], 'example.com/v2');
    assert.equal(sent.length, 0, 'objects already in the desired version are not sent');
    assert.equal(same[0]!.apiVersion, 'example.com/v2');
  });

  it('answers kube rejects, in kube\'s words', async () => {
    const gvk = 'example.com/v1, Kind=Widget';
    const cases: Array<[string, Answer, string]> = [
      ['call failure', () => new CallFailure('Post "https://hook/convert": dial tcp 10.0.0.1:443: connect: connection refused'), `conversion webhook for ${gvk} failed: Post "https://hook/convert": dial tcp 10.0.0.1:443: connect: connection refused`],
      ['wrong kind of answer', (r) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'AdmissionReview', response: { uid: r.request.uid } }), `conversion webhook for ${gvk} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1, Kind=AdmissionReview`],
      ['no response', () => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' }), `conversion webhook for ${gvk} failed: no response provided`],
      ['another uid', () => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: 'x', result: { status: 'Success' } } }), `expected response.uid=`],
      ['Failure with a message', (r) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: r.request.uid, result: { status: 'Failure', message: 'nope' } } }), `conversion webhook for ${gvk} failed: nope`],
      ['Failure without one', (r) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: r.request.uid, result: { status: 'Failure' } } }), `conversion webhook for ${gvk} failed: response.result.status was 'Failure', not 'Success'`],
      ['too few objects', (r) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: r.request.uid, result: { status: 'Success' }, convertedObjects: [] } }), `conversion webhook for ${gvk} returned 0 objects, expected 1`],
      ['wrong version', converting((o) => (o.apiVersion = 'example.com/v3')), `conversion webhook for ${gvk} returned invalid object at index 0: invalid groupVersion (expected example.com/v2, received example.com/v3)`],
      ['wrong kind', converting((o) => (o.kind = 'Gadget')), `conversion webhook for ${gvk} returned invalid object at index 0: invalid kind (expected Widget, received Gadget)`],
      ['renamed', converting((o) => (o.metadata.name = 'b')), `conversion webhook for ${gvk} returned invalid object: must have the same name: a != b`],
      ['moved', converting((o) => (o.metadata.namespace = 'other')), `conversion webhook for ${gvk} returned invalid object: must have the same namespace: ns != other`],
      ['new uid', converting((o) => (o.metadata.uid = 'u2')), `conversion webhook for ${gvk} returned invalid object: must have the same UID: uid-a != u2`],
      ['no metadata', converting((o) => delete o.metadata), `conversion webhook for ${gvk} returned invalid object: must have the same name: a != `],
      ['a label that is not a string', converting((o) => (o.metadata.labels = { a: 1 })), `conversion webhook for ${gvk} returned invalid metadata: metadata.labels[a] must be a string, but is int64 in converted object`],
      ['an invalid label', converting((o) => (o.metadata.labels = { 'bad key!': 'v' })), `conversion webhook for ${gvk} returned invalid metadata: metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`],
      ['annotations not a map', converting((o) => (o.metadata.annotations = ['x'])), `conversion webhook for ${gvk} returned invalid metadata: invalid metadata.annotations of type []interface {} in converted object`],
    ];
    for (const [name, answer, message] of cases) {
      const got = await failure(hook(answer).webhook.convert([widget('a')], 'example.com/v2'));
      if (name === 'another uid') assert.match(got, /^conversion webhook for example\.com\/v1, Kind=Widget failed: expected response\.uid="[0-9a-f-]{36}", got "x"$/, name);
      else assert.equal(got, message, name);
    }
  });

  it('a list\'s failures name the list kind and the index as kube counts it', async () => {
    const list = { listKind: 'WidgetList' };
    const gvk = 'example.com/v1, Kind=WidgetList';
    const renamedSecond = converting((o) => o.metadata.name === 'b' && (o.metadata.name = 'c'));
    assert.equal(await failure(hook(renamedSecond).webhook.convert([widget('a'), widget('b')], 'example.com/v2', list)), `conversion webhook for ${gvk} returned invalid converted object at index 2: must have the same name: b != c`);
    const badVersion = converting((o) => (o.apiVersion = 'example.com/v9'));
    assert.equal(await failure(hook(badVersion).webhook.convert([widget('a')], 'example.com/v2', list)), `conversion webhook for ${gvk} returned invalid converted object at index 1: invalid groupVersion (expected example.com/v2, received example.com/v9)`);
    const badLabels = converting((o) => (o.metadata.labels = 'x'));
    assert.equal(await failure(hook(badLabels).webhook.convert([widget('a')], 'example.com/v2', list)), `conversion webhook for ${gvk} returned invalid metadata in object at index 1: invalid metadata.labels of type string in converted object`);
    const { webhook, metrics } = hook(renamedSecond);
    await failure(webhook.convert([widget('a'), widget('b')], 'example.com/v2', list));
    assert.equal(metrics.duration.all()[0]!.labels.succeeded, 'false');
  });

  it('labels and annotations the webhook drops are dropped; unchanged ones are not validated again', async () => {
    const { webhook } = hook(converting((o) => {
      delete o.metadata.labels;
      o.metadata.annotations = { note: 'kept' };
    }));
    const [out] = await webhook.convert([widget('a', { annotations: { note: 'kept' } })], 'example.com/v2');
    assert.equal(out!.metadata!.labels, undefined);
    assert.deepEqual(out!.metadata!.annotations, { note: 'kept' });
  });
});
