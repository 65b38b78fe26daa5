import assert from 'node:assert/strict';
import type { KubeConfig } from '@kubernetes/client-node';
import { startTestServer, type TestServer } from 'capstan/testing';
import { WidgetReconciler, type Widget } from '../src/reconciler.js';

/**
 * The example operator's scenarios, written once: each runner's suite
 * (node:test, Vitest, Jest) starts the harness before its tests, runs every
 * scenario as a test and stops the harness after them. node:assert works
 * under all three.
 */

export interface Harness {
  kube: TestServer;
  operator: WidgetReconciler;
}

/** A real API server in the test process with the Widget CRD from `crdDir` installed, and the operator running against it. */
export async function startHarness(crdDir: string): Promise<Harness> {
  const kube = await startTestServer({ crds: [crdDir] });
  const operator = new WidgetReconciler((await kube.kubeConfig()) as KubeConfig);
  await operator.start();
  return { kube, operator };
}

export async function stopHarness(h: Harness | undefined): Promise<void> {
  await h?.operator.stop();
  await h?.kube.stop();
}

export const scenarios: ReadonlyArray<readonly [string, (h: Harness) => Promise<void>]> = [
  [
    'makes a ConfigMap owned by each Widget and records it in the status',
    async ({ kube }) => {
      const ns = await kube.freshNamespace('widgets');
      await kube.apply('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {color: blue}\n', { namespace: ns });
      const widget = (await kube.waitFor({ group: 'example.com', version: 'v1', resource: 'widgets', namespace: ns, name: 'w1' }, (w) => (w as Widget | undefined)?.status?.observedGeneration === 1)) as unknown as Widget;
      assert.equal(widget.status?.configMap, 'w1-color');
      const cm = await kube.client.get({ group: '', version: 'v1', resource: 'configmaps', namespace: ns, name: 'w1-color' });
      assert.deepEqual(cm.data, { color: 'blue' });
      assert.equal(cm.metadata?.ownerReferences?.[0]?.uid, widget.metadata?.uid);
    },
  ],
  [
    'follows a change of the Widget',
    async ({ kube }) => {
      const ns = await kube.freshNamespace('widgets');
      await kube.apply('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {color: red}\n', { namespace: ns });
      const ref = { group: 'example.com', version: 'v1', resource: 'widgets', namespace: ns, name: 'w2' };
      await kube.waitFor(ref, (w) => (w as Widget | undefined)?.status?.observedGeneration === 1);
      await kube.apply('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {color: green}\n', { namespace: ns });
      await kube.waitFor(ref, (w) => (w as Widget | undefined)?.status?.observedGeneration === 2);
      const cm = await kube.client.get({ group: '', version: 'v1', resource: 'configmaps', namespace: ns, name: 'w2-color' });
      assert.deepEqual(cm.data, { color: 'green' });
    },
  ],
  [
    "refuses a Widget without a color, as the CRD's schema says",
    async ({ kube }) => {
      const ns = await kube.freshNamespace('widgets');
      await assert.rejects(kube.apply('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: bad}\nspec: {}\n', { namespace: ns }), /spec.color: Required value/);
    },
  ],
];
