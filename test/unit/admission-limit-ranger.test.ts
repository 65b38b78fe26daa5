import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { LIMIT_RANGER_ANNOTATION, LimitRanger, podTotal } from '../../src/admission/limit-ranger.js';
import { formatQuantity } from '../../src/api/quantity.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { attrs, fixedLister, pod, rejection } from '../helpers/admission.js';

/** plugin/pkg/admission/limitranger/admission_test.go's cases, on Capstan's plugin. */

const limitRange = (limits: Array<Record<string, unknown>>, namespace = 'ns'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'LimitRange',
  metadata: { name: 'lr', namespace },
  spec: { limits },
});

const container = (name: string, requests?: Record<string, string>, limits?: Record<string, string>): Record<string, unknown> => ({
  name,
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
});

async function admitAndValidate(plugin: LimitRanger, p: KubeObject): Promise<void> {
  await plugin.admit(attrs('', 'pods', 'CREATE', p));
  await plugin.validate(attrs('', 'pods', 'CREATE', p));
}

describe('LimitRanger admission', () => {
  it('fills Container defaults into containers and init containers and says so in kubernetes.io/limit-ranger', async () => {
    const plugin = new LimitRanger(fixedLister([limitRange([{ type: 'Container', default: { cpu: '500m', memory: '1Gi' }, defaultRequest: { cpu: '100m', memory: '512Mi' } }])]));
    const p = pod({ containers: [container('a'), container('b', { cpu: '200m' }, { cpu: '300m' })], initContainers: [container('i', undefined, { memory: '2Gi' })] });
    await admitAndValidate(plugin, p);
    const spec = p.spec as { containers: any[]; initContainers: any[] };
    assert.deepEqual(spec.containers[0].resources, { requests: { cpu: '100m', memory: '512Mi' }, limits: { cpu: '500m', memory: '1Gi' } });
    assert.deepEqual(spec.containers[1].resources, { requests: { cpu: '200m', memory: '512Mi' }, limits: { cpu: '300m', memory: '1Gi' } });
    assert.deepEqual(spec.initContainers[0].resources, { requests: { cpu: '100m', memory: '512Mi' }, limits: { memory: '2Gi', cpu: '500m' } });
    assert.equal(
      p.metadata?.annotations?.[LIMIT_RANGER_ANNOTATION],
      'LimitRanger plugin set: cpu, memory request for container a; cpu, memory limit for container a; memory request for container b; memory limit for container b; cpu, memory request for init container i; cpu limit for init container i',
    );
  });

  it('sets no annotation when nothing was defaulted, and ignores other namespaces\' ranges', async () => {
    const plugin = new LimitRanger(fixedLister([limitRange([{ type: 'Container', default: { cpu: '1' } }], 'other')]));
    const p = pod({ containers: [container('a')] });
    await admitAndValidate(plugin, p);
    assert.equal(p.metadata?.annotations, undefined);
    assert.deepEqual((p.spec as any).containers[0].resources, {});
  });

  it('refuses pods outside min, max and maxLimitRequestRatio with kube\'s messages', async () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>[], string | undefined]> = [
      ['within bounds', { type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' } }, [container('c', { cpu: '200m' }, { cpu: '500m' })], undefined],
      ['min without request', { type: 'Container', min: { cpu: '100m' } }, [container('c')], 'minimum cpu usage per Container is 100m.  No request is specified'],
      ['below min', { type: 'Container', min: { cpu: '100m' } }, [container('c', { cpu: '50m' })], 'minimum cpu usage per Container is 100m, but request is 50m'],
      ['limit below min', { type: 'Container', min: { memory: '1Gi' } }, [container('c', { memory: '1Gi' }, { memory: '512Mi' })], 'minimum memory usage per Container is 1Gi, but limit is 512Mi'],
      ['max without limit', { type: 'Container', max: { memory: '1Gi' } }, [container('c', { memory: '1Gi' })], 'maximum memory usage per Container is 1Gi.  No limit is specified'],
      ['above max', { type: 'Container', max: { cpu: '1' } }, [container('c', undefined, { cpu: '2' })], 'maximum cpu usage per Container is 1, but limit is 2'],
      ['ratio without request', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } }, [container('c', undefined, { cpu: '1' })], 'cpu max limit to request ratio per Container is 2, but no request is specified or request is 0'],
      ['ratio without limit', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } }, [container('c', { cpu: '1' })], 'cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0'],
      ['ratio too high', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } }, [container('c', { cpu: '100m' }, { cpu: '250m' })], 'cpu max limit to request ratio per Container is 2, but provided ratio is 2.500000'],
      ['ratio at the bound', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } }, [container('c', { cpu: '100m' }, { cpu: '200m' })], undefined],
      ['pod max over the sum', { type: 'Pod', max: { cpu: '1' } }, [container('a', { cpu: '600m' }, { cpu: '600m' }), container('b', { cpu: '600m' }, { cpu: '600m' })], 'maximum cpu usage per Pod is 1, but limit is 1200m'],
      ['pod min under the sum', { type: 'Pod', min: { memory: '1Gi' } }, [container('a', { memory: '256Mi' })], 'minimum memory usage per Pod is 1Gi, but request is 256Mi'],
    ];
    for (const [name, item, containers, why] of cases) {
      const plugin = new LimitRanger(fixedLister([limitRange([item])]));
      const result = plugin.validate(attrs('', 'pods', 'CREATE', pod({ containers })));
      if (!why) {
        await result;
        continue;
      }
      const err = await rejection(result);
      assert.equal(err.code, 403, name);
      assert.equal(err.message, `pods "p" is forbidden: ${why}`, name);
    }
  });

  it('reports every broken constraint of a range at once (an aggregate)', async () => {
    const plugin = new LimitRanger(fixedLister([limitRange([{ type: 'Container', max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '10' } }])]));
    const err = await rejection(plugin.validate(attrs('', 'pods', 'CREATE', pod({ containers: [container('c', { cpu: '100m' }, { cpu: '2' })] }))));
    assert.equal(err.message, 'pods "p" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, cpu max limit to request ratio per Container is 10, but provided ratio is 20.000000]');
  });

  it('PersistentVolumeClaims: min and max of the storage request, on create and update', async () => {
    const plugin = new LimitRanger(fixedLister([limitRange([{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }])]));
    const pvc = (storage?: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'claim', namespace: 'ns' },
      spec: { resources: storage ? { requests: { storage } } : {} },
    });
    await plugin.validate(attrs('', 'persistentvolumeclaims', 'CREATE', pvc('5Gi')));
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified'],
      ['500Mi', 'minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi'],
      ['20Gi', 'maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi'],
    ];
    for (const [storage, why] of cases) {
      const err = await rejection(plugin.validate(attrs('', 'persistentvolumeclaims', 'CREATE', pvc(storage))));
      const message = storage === undefined ? `[${why}, maximum storage usage per PersistentVolumeClaim is 10Gi.  No request is specified]` : why;
      assert.equal(err.message, `persistentvolumeclaims "claim" is forbidden: ${message}`);
    }
    const resized = await rejection(plugin.validate(attrs('', 'persistentvolumeclaims', 'UPDATE', pvc('20Gi'), { name: 'claim', oldObject: pvc('5Gi') })));
    assert.equal(resized.code, 403);
  });

  it('does not look at pod updates (but resizes), other subresources, or objects being deleted', async () => {
    const plugin = new LimitRanger(fixedLister([limitRange([{ type: 'Container', min: { cpu: '1' }, default: { cpu: '1' }, defaultRequest: { cpu: '1' } }])]));
    const p = pod({ containers: [container('c')] });
    await plugin.admit(attrs('', 'pods', 'UPDATE', p, { name: 'p', oldObject: pod({}) }));
    await plugin.validate(attrs('', 'pods', 'UPDATE', p, { name: 'p', oldObject: pod({}) }));
    assert.deepEqual((p.spec as any).containers[0].resources, {});
    await plugin.validate(attrs('', 'pods', 'CREATE', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' } }, { subresource: 'binding' }));
    const resized = pod({ containers: [container('c', { cpu: '500m' }, { cpu: '500m' })] });
    const err = await rejection(plugin.validate(attrs('', 'pods', 'UPDATE', resized, { subresource: 'resize', name: 'p', oldObject: pod({}) })));
    assert.equal(err.message, 'pods "p" is forbidden: minimum cpu usage per Container is 1, but request is 500m', 'a resize is checked');
  });

  it('pod totals: sidecars add up, init containers take the maximum, overhead adds to requests', () => {
    const spec = {
      containers: [container('a', { cpu: '100m' }, { cpu: '200m' }), container('b', { cpu: '100m' })],
      initContainers: [{ ...container('side', { cpu: '50m' }), restartPolicy: 'Always' }, container('big', { cpu: '1' }, { cpu: '1' })],
      overhead: { cpu: '10m' },
    };
    assert.equal(formatQuantity(podTotal(spec as never, 'requests').get('cpu')!), '1060m');
    assert.equal(formatQuantity(podTotal(spec as never, 'limits').get('cpu')!), '1010m');
  });
});

describe('LimitRanger live lookups', () => {
  it('reads the store when the informer has no range for the namespace yet, at most once per namespace and 30 s', async () => {
    let now = 0;
    const lister = fixedLister([], [limitRange([{ type: 'Container', default: { cpu: '1' }, defaultRequest: { cpu: '1' } }])]);
    const plugin = new LimitRanger(lister, () => now);
    const first = pod({ containers: [container('c')] });
    await plugin.admit(attrs('', 'pods', 'CREATE', first));
    assert.deepEqual((first.spec as any).containers[0].resources, { requests: { cpu: '1' }, limits: { cpu: '1' } }, 'a range created a moment ago applies');
    await plugin.admit(attrs('', 'pods', 'CREATE', pod({ containers: [container('c')] })));
    assert.equal(lister.liveLists, 1);
    now += 30_001;
    await plugin.admit(attrs('', 'pods', 'CREATE', pod({ containers: [container('c')] })));
    assert.equal(lister.liveLists, 2);
  });
});
