import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { startTestServer, type TestServer } from 'capstan/testing';
import { WidgetReconciler, type Widget } from '../src/reconciler.js';

/** The example operator's suite: a real API server in the test process, the operator against it. */

const CRDS = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..', '..', 'examples', 'widget-operator', 'config');

let kube: TestServer;
let operator: WidgetReconciler;

before(async () => {
  kube = await startTestServer({ crds: [CRDS] });
  operator = new WidgetReconciler((await kube.kubeConfig()) as KubeConfig);
  await operator.start();
});

after(async () => {
  await operator.stop();
  await kube.stop();
});

it('makes a ConfigMap owned by each Widget and records it in the status', async () => {
  const ns = await kube.freshNamespace('widgets');
  await kube.apply('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {color: blue}\n', { namespace: ns });
  const widget = (await kube.waitFor({ group: 'example.com', version: 'v1', resource: 'widgets', namespace: ns, name: 'w1' }, (w) => (w as Widget | undefined)?.status?.observedGeneration === 1)) as unknown as Widget;
  assert.equal(widget.status?.configMap, 'w1-color');
  const cm = await kube.client.get({ group: '', version: 'v1', resource: 'configmaps', namespace: ns, name: 'w1-color' });
  assert.deepEqual(cm.data, { color: 'blue' });
  assert.equal(cm.metadata?.ownerReferences?.[0]?.uid, widget.metadata?.uid);
});

it('follows a change of the Widget', async () => {
  const ns = await kube.freshNamespace('widgets');
  await kube.apply('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {color: red}\n', { namespace: ns });
  const ref = { group: 'example.com', version: 'v1', resource: 'widgets', namespace: ns, name: 'w2' };
  await kube.waitFor(ref, (w) => (w as Widget | undefined)?.status?.observedGeneration === 1);
  await kube.apply('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {color: green}\n', { namespace: ns });
  await kube.waitFor(ref, (w) => (w as Widget | undefined)?.status?.observedGeneration === 2);
  const cm = await kube.client.get({ group: '', version: 'v1', resource: 'configmaps', namespace: ns, name: 'w2-color' });
  assert.deepEqual(cm.data, { color: 'green' });
});

it('refuses a Widget without a color, as the CRD\'s schema says', async () => {
  const ns = await kube.freshNamespace('widgets');
  await assert.rejects(kube.apply('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: bad}\nspec: {}\n', { namespace: ns }), /spec.color: Required value/);
});
