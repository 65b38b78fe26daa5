import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { AdmissionAttributes, AdmissionOperation } from '../../src/admission/admission.js';
import { defaultIngressClass } from '../../src/admission/default-ingress-class.js';
import { defaultStorageClass } from '../../src/admission/storage/default-storage-class.js';
import { PersistentVolumeClaimResize } from '../../src/admission/storage/pvc-resize.js';
import { StorageObjectInUseProtection } from '../../src/admission/storage/storage-object-in-use-protection.js';
import { ApiCatalog } from '../../src/api/catalog.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';

/**
 * The storage and networking admission plugins on kube's own test cases
 * (setdefault, resize, storageobjectinuseprotection, defaultingressclass
 * admission_test.go): which class a claim or an Ingress gets, which resize
 * is refused with which words, which finalizer a new claim or volume gets.
 */

const catalog = ApiCatalog.load();

function attrs(operation: AdmissionOperation, group: string, resource: string, object: KubeObject | undefined, oldObject?: KubeObject, subresource = ''): AdmissionAttributes {
  const info = catalog.resource(group, 'v1', resource)!;
  return {
    operation,
    resource: info,
    subresource,
    namespace: info.namespaced ? 'default' : '',
    name: String(object?.metadata?.name ?? oldObject?.metadata?.name ?? ''),
    ...(object ? { object } : {}),
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
    user: { username: 'jane', groups: ['system:authenticated'] },
  };
}

function storageClass(name: string, opts: { default?: 'ga' | 'beta' | 'false'; created?: string; expand?: boolean } = {}): KubeObject {
  const annotations: Record<string, string> = {};
  if (opts.default === 'ga') annotations['storageclass.kubernetes.io/is-default-class'] = 'true';
  if (opts.default === 'beta') annotations['storageclass.beta.kubernetes.io/is-default-class'] = 'true';
  if (opts.default === 'false') annotations['storageclass.kubernetes.io/is-default-class'] = 'false';
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name, annotations, creationTimestamp: opts.created ?? '2026-01-01T00:00:00Z' },
    provisioner: 'example.com/csi',
    ...(opts.expand !== undefined ? { allowVolumeExpansion: opts.expand } : {}),
  };
}

function claim(spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'claim', ...(annotations ? { annotations } : {}) }, spec: { accessModes: ['ReadWriteOnce'], ...spec } };
}

describe('DefaultStorageClass', () => {
  const cases: Array<{ name: string; classes: KubeObject[]; claim: KubeObject; expect: unknown }> = [
    { name: 'no default class: the claim keeps no class', classes: [storageClass('a'), storageClass('b', { default: 'false' })], claim: claim(), expect: undefined },
    { name: 'one default (GA annotation)', classes: [storageClass('a'), storageClass('std', { default: 'ga' })], claim: claim(), expect: 'std' },
    { name: 'one default (beta annotation)', classes: [storageClass('beta', { default: 'beta' })], claim: claim(), expect: 'beta' },
    { name: 'a claim asking for a class keeps it', classes: [storageClass('std', { default: 'ga' })], claim: claim({ storageClassName: 'gold' }), expect: 'gold' },
    { name: 'an empty class name is a choice (no class)', classes: [storageClass('std', { default: 'ga' })], claim: claim({ storageClassName: '' }), expect: '' },
    {
      name: 'the beta class annotation is a choice too',
      classes: [storageClass('std', { default: 'ga' })],
      claim: claim({}, { 'volume.beta.kubernetes.io/storage-class': 'silver' }),
      expect: undefined,
    },
    {
      name: 'several defaults: the newest',
      classes: [storageClass('old', { default: 'ga', created: '2026-01-01T00:00:00Z' }), storageClass('new', { default: 'beta', created: '2026-02-01T00:00:00Z' }), storageClass('mid', { default: 'ga', created: '2026-01-15T00:00:00Z' })],
      claim: claim(),
      expect: 'new',
    },
    {
      name: 'several defaults created at once: the first by name',
      classes: [storageClass('zeta', { default: 'ga' }), storageClass('alpha', { default: 'ga' }), storageClass('mu', { default: 'ga' })],
      claim: claim(),
      expect: 'alpha',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const plugin = defaultStorageClass(() => c.classes);
      const a = attrs('CREATE', '', 'persistentvolumeclaims', c.claim);
      await plugin.admit(a);
      assert.equal((a.object?.spec as { storageClassName?: string }).storageClassName, c.expect);
    });
  }

  it('acts on creates of claims only', async () => {
    const plugin = defaultStorageClass(() => [storageClass('std', { default: 'ga' })]);
    assert.equal(plugin.handles('CREATE'), true);
    assert.equal(plugin.handles('UPDATE'), false);
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} };
    await plugin.admit(attrs('CREATE', '', 'pods', pod));
    assert.deepEqual(pod.spec, {});
    const status = claim();
    await plugin.admit(attrs('CREATE', '', 'persistentvolumeclaims', status, undefined, 'status'));
    assert.equal((status.spec as { storageClassName?: string }).storageClassName, undefined);
  });
});

describe('PersistentVolumeClaimResize', () => {
  const classes = new Map([
    ['gold', storageClass('gold', { expand: true })],
    ['silver', storageClass('silver', { expand: false })],
    ['bronze', storageClass('bronze')],
  ]);
  const plugin = new PersistentVolumeClaimResize(async (name) => classes.get(name));
  const NOT_EXPANDABLE = 'persistentvolumeclaims "claim" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';
  const pvc = (storage: string | undefined, cls: string | undefined, phase = 'Bound', annotations?: Record<string, string>): KubeObject => ({
    ...claim({ ...(cls !== undefined ? { storageClassName: cls } : {}), resources: storage ? { requests: { storage } } : {} }, annotations),
    status: { phase },
  });
  const cases: Array<{ name: string; old: KubeObject; new: KubeObject; error?: string }> = [
    { name: 'growing with a class that allows expansion', old: pvc('1Gi', 'gold'), new: pvc('2Gi', 'gold') },
    { name: 'growing with a class that refuses expansion', old: pvc('1Gi', 'silver'), new: pvc('2Gi', 'silver'), error: NOT_EXPANDABLE },
    { name: 'growing with a class that says nothing (false)', old: pvc('1Gi', 'bronze'), new: pvc('2Gi', 'bronze'), error: NOT_EXPANDABLE },
    { name: 'growing with a class that does not exist', old: pvc('1Gi', 'iron'), new: pvc('2Gi', 'iron'), error: NOT_EXPANDABLE },
    { name: 'growing without a class', old: pvc('1Gi', undefined), new: pvc('2Gi', undefined), error: NOT_EXPANDABLE },
    { name: 'growing while changing the class', old: pvc('1Gi', 'silver'), new: pvc('2Gi', 'gold'), error: NOT_EXPANDABLE },
    { name: 'growing with the class in the beta annotation', old: pvc('1Gi', undefined, 'Bound', { 'volume.beta.kubernetes.io/storage-class': 'gold' }), new: pvc('2Gi', undefined, 'Bound', { 'volume.beta.kubernetes.io/storage-class': 'gold' }) },
    { name: 'growing an unbound claim', old: pvc('1Gi', 'gold', 'Pending'), new: pvc('2Gi', 'gold', 'Pending'), error: 'persistentvolumeclaims "claim" is forbidden: Only bound persistent volume claims can be expanded' },
    { name: 'the same size in other words', old: pvc('1Gi', 'silver'), new: pvc('1024Mi', 'silver') },
    { name: 'shrinking is left to validation', old: pvc('2Gi', 'silver'), new: pvc('1Gi', 'silver') },
    { name: 'a first request counts as growth from zero', old: pvc(undefined, 'silver'), new: pvc('1Gi', 'silver'), error: NOT_EXPANDABLE },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const run = plugin.validate(attrs('UPDATE', '', 'persistentvolumeclaims', c.new, c.old));
      if (!c.error) return assert.doesNotReject(run);
      await assert.rejects(run, (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.code, 403);
        assert.equal(err.reason, 'Forbidden');
        assert.equal(err.message, c.error);
        assert.deepEqual(err.status.details, { name: 'claim', kind: 'persistentvolumeclaims' });
        return true;
      });
    });
  }

  it('leaves subresources and other resources alone', async () => {
    await plugin.validate(attrs('UPDATE', '', 'persistentvolumeclaims', pvc('2Gi', 'silver'), pvc('1Gi', 'silver'), 'status'));
    assert.equal(plugin.handles('CREATE'), false);
  });
});

describe('StorageObjectInUseProtection', () => {
  const plugin = new StorageObjectInUseProtection();
  const cases: Array<{ name: string; resource: string; finalizers?: string[]; subresource?: string; expect: string[] | undefined }> = [
    { name: 'a new claim gets kubernetes.io/pvc-protection', resource: 'persistentvolumeclaims', expect: ['kubernetes.io/pvc-protection'] },
    { name: 'a new volume gets kubernetes.io/pv-protection', resource: 'persistentvolumes', expect: ['kubernetes.io/pv-protection'] },
    { name: 'other finalizers stay, ours goes last', resource: 'persistentvolumeclaims', finalizers: ['example.com/keep'], expect: ['example.com/keep', 'kubernetes.io/pvc-protection'] },
    { name: 'present already: not twice', resource: 'persistentvolumes', finalizers: ['kubernetes.io/pv-protection', 'x/y'], expect: ['kubernetes.io/pv-protection', 'x/y'] },
    { name: 'other resources get nothing', resource: 'configmaps', expect: undefined },
    { name: 'subresources get nothing', resource: 'persistentvolumeclaims', subresource: 'status', expect: undefined },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const obj: KubeObject = { metadata: { name: 'x', ...(c.finalizers ? { finalizers: [...c.finalizers] } : {}) } };
      await plugin.admit(attrs('CREATE', '', c.resource, obj, undefined, c.subresource));
      assert.deepEqual(obj.metadata?.finalizers, c.expect ?? c.finalizers);
    });
  }
  it('acts on create only', () => {
    assert.equal(plugin.handles('CREATE'), true);
    assert.equal(plugin.handles('UPDATE'), false);
  });
});

describe('DefaultIngressClass', () => {
  const ingressClass = (name: string, isDefault: string | undefined, created = '2026-01-01T00:00:00Z'): KubeObject => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name, creationTimestamp: created, ...(isDefault !== undefined ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': isDefault } } : {}) },
    spec: { controller: 'example.com/ingress' },
  });
  const ingress = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'web', ...(annotations ? { annotations } : {}) },
    spec,
  });
  const cases: Array<{ name: string; classes: KubeObject[]; ingress: KubeObject; expect: unknown }> = [
    { name: 'no default: nothing set', classes: [ingressClass('a', undefined), ingressClass('b', 'false')], ingress: ingress(), expect: undefined },
    { name: 'one default', classes: [ingressClass('a', undefined), ingressClass('nginx', 'true')], ingress: ingress(), expect: 'nginx' },
    { name: 'a class set already stays', classes: [ingressClass('nginx', 'true')], ingress: ingress({ ingressClassName: 'traefik' }), expect: 'traefik' },
    { name: 'the class annotation stays', classes: [ingressClass('nginx', 'true')], ingress: ingress({}, { 'kubernetes.io/ingress.class': 'haproxy' }), expect: undefined },
    {
      name: 'several defaults: the newest',
      classes: [ingressClass('one', 'true', '2026-01-01T00:00:00Z'), ingressClass('two', 'true', '2026-03-01T00:00:00Z')],
      ingress: ingress(),
      expect: 'two',
    },
    { name: 'several defaults at the same time: the first by name', classes: [ingressClass('b', 'true'), ingressClass('a', 'true')], ingress: ingress(), expect: 'a' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const plugin = defaultIngressClass(() => c.classes);
      const a = attrs('CREATE', 'networking.k8s.io', 'ingresses', c.ingress);
      await plugin.admit(a);
      assert.equal((a.object?.spec as { ingressClassName?: string }).ingressClassName, c.expect);
    });
  }
});
