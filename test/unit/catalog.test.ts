import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it, type TestContext } from 'node:test';

import { generate, serializeCatalog, serializeDefinitions, storageVersionHash } from '../../scripts/generate-catalog.js';
import { ApiCatalog, builtinCatalog, parseRuntimeConfig, RuntimeConfigError } from '../../src/api/catalog.js';
import { generatedFile } from '../../src/api/files.js';
import type { ResourceInfo, VersionInfo } from '../../src/api/types.js';
import { compareKubeAwareVersions } from '../../src/api/versions.js';
import { sharedText } from '../helpers/shared.js';

/** The upstream OpenAPI document, or undefined after skipping the test (unless CI requires it). */
function upstreamOpenApi(t: TestContext): string | undefined {
  return sharedText(t, 'k8s-api', 'openapi-v2.json');
}

function must<T>(v: T | undefined, what: string): T {
  assert.ok(v !== undefined, `${what} not found`);
  return v;
}

describe('generator', () => {
  it('reproduces the committed catalog.json and definitions.json', (t) => {
    const text = upstreamOpenApi(t);
    if (text === undefined) return;
    const { catalog, definitions } = generate(text);
    assert.equal(serializeCatalog(catalog), readFileSync(generatedFile('catalog.json'), 'utf8'), 'catalog.json is stale: run npm run generate');
    assert.equal(serializeDefinitions(definitions), readFileSync(generatedFile('definitions.json'), 'utf8'), 'definitions.json is stale: run npm run generate');
  });

  it('computes storageVersionHash like kube-apiserver', () => {
    assert.equal(storageVersionHash('', 'v1', 'Pod'), 'xPOwRZ+Yhw8=');
    assert.equal(storageVersionHash('apps', 'v1', 'Deployment'), '8aSe+NMegvE=');
  });
});

describe('catalog.json', () => {
  const data = builtinCatalog();

  it('says where it came from', () => {
    assert.match(data.source, /openapi-v2\.json/);
    assert.equal(data.kubernetesMinor, '1.36');
  });

  it('keeps versions in preference order and only stable versions enabled by default', () => {
    for (const g of data.groups) {
      const names = g.versions.map((v: VersionInfo) => v.version);
      const sorted = [...names].sort((a, b) => compareKubeAwareVersions(b, a));
      assert.deepEqual(names, sorted, `version order of ${g.name}`);
      for (const v of g.versions) assert.equal(v.enabledByDefault, v.stability === 'stable', `${g.name}/${v.version}`);
    }
  });

  it('fills singularName with the lower-case kind and marks virtual resources', () => {
    for (const g of data.groups) {
      for (const v of g.versions) {
        for (const r of v.resources) {
          assert.equal(r.singularName, r.kind.toLowerCase());
          assert.equal(r.virtual === true, r.storageVersionHash === undefined, `${g.name}/${r.name}`);
          if (r.virtual) assert.equal(r.isObject, false);
        }
      }
    }
  });
});

describe('ApiCatalog lookups', () => {
  const catalog = ApiCatalog.load();
  const core = (name: string): ResourceInfo => must(catalog.resource('', 'v1', name), name);

  it('loads quickly', (t) => {
    const started = performance.now();
    const c = new ApiCatalog(JSON.parse(readFileSync(generatedFile('catalog.json'), 'utf8')));
    c.groups();
    t.diagnostic(`catalog parse + index: ${(performance.now() - started).toFixed(1)} ms`);
  });

  it('resolves short names, singular names, kinds and qualified names', () => {
    const expect: Record<string, [string, string, string]> = {
      po: ['', 'v1', 'pods'],
      pod: ['', 'v1', 'pods'],
      Pod: ['', 'v1', 'pods'],
      deploy: ['apps', 'v1', 'deployments'],
      svc: ['', 'v1', 'services'],
      cm: ['', 'v1', 'configmaps'],
      ns: ['', 'v1', 'namespaces'],
      sa: ['', 'v1', 'serviceaccounts'],
      crd: ['apiextensions.k8s.io', 'v1', 'customresourcedefinitions'],
      crds: ['apiextensions.k8s.io', 'v1', 'customresourcedefinitions'],
      'deployments.apps': ['apps', 'v1', 'deployments'],
      'deploy.apps': ['apps', 'v1', 'deployments'],
      'deployment.v1.apps': ['apps', 'v1', 'deployments'],
      hpa: ['autoscaling', 'v2', 'horizontalpodautoscalers'],
      'hpa.v1.autoscaling': ['autoscaling', 'v1', 'horizontalpodautoscalers'],
      ev: ['', 'v1', 'events'],
      'events.events.k8s.io': ['events.k8s.io', 'v1', 'events'],
      netpol: ['networking.k8s.io', 'v1', 'networkpolicies'],
      pvc: ['', 'v1', 'persistentvolumeclaims'],
      quota: ['', 'v1', 'resourcequotas'],
      sts: ['apps', 'v1', 'statefulsets'],
      cj: ['batch', 'v1', 'cronjobs'],
      csr: ['certificates.k8s.io', 'v1', 'certificatesigningrequests'],
      vac: ['storage.k8s.io', 'v1', 'volumeattributesclasses'],
      limits: ['', 'v1', 'limitranges'],
    };
    for (const [arg, [group, version, name]] of Object.entries(expect)) {
      const r = must(catalog.resolveOne(arg), arg);
      assert.deepEqual([r.group, r.version, r.name], [group, version, name], arg);
    }
    assert.deepEqual(
      catalog.resolve('ev').map((r) => `${r.group}/${r.version}/${r.name}`),
      ['/v1/events', 'events.k8s.io/v1/events'],
    );
    assert.equal(catalog.resolveOne('nosuchthing'), undefined);
  });

  it('knows scopes', () => {
    assert.equal(core('pods').namespaced, true);
    assert.equal(core('nodes').namespaced, false);
    assert.equal(core('namespaces').namespaced, false);
    assert.equal(core('persistentvolumes').namespaced, false);
    assert.equal(must(catalog.resource('events.k8s.io', 'v1', 'events'), 'events').namespaced, true);
    assert.equal(must(catalog.resource('authentication.k8s.io', 'v1', 'tokenreviews'), 'tokenreviews').namespaced, false);
    assert.equal(must(catalog.resource('authorization.k8s.io', 'v1', 'localsubjectaccessreviews'), 'lsar').namespaced, true);
    assert.equal(must(catalog.resource('rbac.authorization.k8s.io', 'v1', 'clusterroles'), 'clusterroles').namespaced, false);
  });

  it('knows verbs of resources and subresources', () => {
    const all = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    assert.deepEqual(core('pods').verbs, all);
    assert.deepEqual(core('namespaces').verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    assert.deepEqual(core('componentstatuses').verbs, ['get', 'list']);
    assert.deepEqual(core('bindings').verbs, ['create']);
    const sub = (r: string, s: string): [string, string, string, string[]] => {
      const x = must(catalog.subresource('', 'v1', r, s), `${r}/${s}`);
      return [x.group, x.version, x.kind, x.verbs];
    };
    assert.deepEqual(sub('pods', 'exec'), ['', 'v1', 'PodExecOptions', ['create', 'get']]);
    assert.deepEqual(sub('pods', 'attach'), ['', 'v1', 'PodAttachOptions', ['create', 'get']]);
    assert.deepEqual(sub('pods', 'portforward'), ['', 'v1', 'PodPortForwardOptions', ['create', 'get']]);
    assert.deepEqual(sub('pods', 'proxy'), ['', 'v1', 'PodProxyOptions', ['create', 'delete', 'get', 'patch', 'update']]);
    assert.deepEqual(sub('nodes', 'proxy'), ['', 'v1', 'NodeProxyOptions', ['create', 'delete', 'get', 'patch', 'update']]);
    assert.deepEqual(sub('pods', 'log'), ['', 'v1', 'Pod', ['get']]);
    assert.deepEqual(sub('pods', 'status'), ['', 'v1', 'Pod', ['get', 'patch', 'update']]);
    assert.deepEqual(sub('pods', 'eviction'), ['policy', 'v1', 'Eviction', ['create']]);
    assert.deepEqual(sub('pods', 'binding'), ['', 'v1', 'Binding', ['create']]);
    assert.deepEqual(sub('pods', 'ephemeralcontainers'), ['', 'v1', 'Pod', ['get', 'patch', 'update']]);
    assert.deepEqual(sub('pods', 'resize'), ['', 'v1', 'Pod', ['get', 'patch', 'update']]);
    assert.deepEqual(sub('serviceaccounts', 'token'), ['authentication.k8s.io', 'v1', 'TokenRequest', ['create']]);
    assert.deepEqual(sub('namespaces', 'finalize'), ['', 'v1', 'Namespace', ['update']]);
    assert.deepEqual(sub('replicationcontrollers', 'scale'), ['autoscaling', 'v1', 'Scale', ['get', 'patch', 'update']]);
    const scale = must(catalog.subresource('apps', 'v1', 'deployments', 'scale'), 'deployments/scale');
    assert.deepEqual([scale.group, scale.version, scale.kind, scale.definition], ['autoscaling', 'v1', 'Scale', 'io.k8s.api.autoscaling.v1.Scale']);
    const approval = must(catalog.subresource('certificates.k8s.io', 'v1', 'certificatesigningrequests', 'approval'), 'approval');
    assert.deepEqual(approval.verbs, ['get', 'patch', 'update']);
  });

  it('has the storage versions and storageVersionHash values kube-apiserver reports', () => {
    const hash = (g: string, v: string, r: string): string | undefined => catalog.knownResource(g, v, r)?.storageVersionHash;
    assert.equal(hash('', 'v1', 'pods'), 'xPOwRZ+Yhw8=');
    assert.equal(hash('apps', 'v1', 'deployments'), '8aSe+NMegvE=');
    assert.equal(hash('', 'v1', 'configmaps'), 'qFsyl6wFWjQ=');
    assert.equal(hash('', 'v1', 'services'), '0/CO1lhkEBI=');
    assert.equal(hash('', 'v1', 'namespaces'), 'Q3oi5N2YM8M=');
    // events.k8s.io events are stored as core v1 Events.
    assert.equal(hash('', 'v1', 'events'), 'r2yiGXH7wu8=');
    assert.equal(hash('events.k8s.io', 'v1', 'events'), 'r2yiGXH7wu8=');
    assert.deepEqual(catalog.knownResource('events.k8s.io', 'v1', 'events')?.storage, { group: '', version: 'v1', kind: 'Event' });
    // Both HPA versions are stored as autoscaling/v2.
    assert.equal(hash('autoscaling', 'v1', 'horizontalpodautoscalers'), 'qwQve8ut294=');
    assert.equal(hash('autoscaling', 'v2', 'horizontalpodautoscalers'), 'qwQve8ut294=');
    // Storage-version overrides of 1.36.
    assert.equal(hash('resource.k8s.io', 'v1beta2', 'devicetaintrules'), 'DJ3UJ0fj8MI=');
    assert.equal(hash('certificates.k8s.io', 'v1beta1', 'podcertificaterequests'), 'wYA9yXQH8fg=');
    assert.equal(hash('scheduling.k8s.io', 'v1alpha2', 'workloads'), 'vSX7gJe5Mx8=');
    assert.deepEqual(catalog.knownResource('admissionregistration.k8s.io', 'v1', 'mutatingadmissionpolicies')?.storage.version, 'v1beta1');
    assert.equal(hash('', 'v1', 'bindings'), undefined);
    assert.equal(hash('', 'v1', 'componentstatuses'), undefined);
    assert.equal(hash('authorization.k8s.io', 'v1', 'subjectaccessreviews'), undefined);
  });

  it('marks virtual kinds as non-objects', () => {
    for (const [g, r] of [
      ['authentication.k8s.io', 'tokenreviews'],
      ['authentication.k8s.io', 'selfsubjectreviews'],
      ['authorization.k8s.io', 'subjectaccessreviews'],
      ['authorization.k8s.io', 'selfsubjectaccessreviews'],
      ['authorization.k8s.io', 'localsubjectaccessreviews'],
      ['authorization.k8s.io', 'selfsubjectrulesreviews'],
      ['', 'bindings'],
      ['', 'componentstatuses'],
    ] as const) {
      const res = must(catalog.resource(g, 'v1', r), r);
      assert.equal(res.isObject, false, r);
      assert.equal(res.virtual, true, r);
    }
    assert.equal(core('pods').isObject, true);
    assert.equal(core('pods').deleteReturnsObject, true);
    assert.equal(must(catalog.resource('apps', 'v1', 'deployments'), 'deployments').deleteReturnsObject, undefined);
  });

  it('serves only stable versions by default, in kube-aggregator group order', () => {
    assert.deepEqual(
      catalog.apiGroups().map((g) => g.name),
      [
        'apiregistration.k8s.io',
        'apps',
        'events.k8s.io',
        'authentication.k8s.io',
        'authorization.k8s.io',
        'autoscaling',
        'batch',
        'certificates.k8s.io',
        'networking.k8s.io',
        'policy',
        'rbac.authorization.k8s.io',
        'storage.k8s.io',
        'admissionregistration.k8s.io',
        'apiextensions.k8s.io',
        'scheduling.k8s.io',
        'coordination.k8s.io',
        'node.k8s.io',
        'discovery.k8s.io',
        'resource.k8s.io',
        'flowcontrol.apiserver.k8s.io',
      ],
    );
    assert.deepEqual(must(catalog.group('autoscaling'), 'autoscaling').versions.map((v) => v.version), ['v2', 'v1']);
    assert.equal(catalog.isGroupVersionEnabled('networking.k8s.io', 'v1beta1'), false);
    assert.equal(catalog.isGroupVersionEnabled('', 'v1'), true);
    assert.equal(catalog.group('internal.apiserver.k8s.io'), undefined);
    assert.equal(catalog.groups()[0]?.name, '');
  });
});

describe('runtime-config', () => {
  it('parses keys and values', () => {
    assert.deepEqual(parseRuntimeConfig('api/all=true, batch/v1=false,storage.k8s.io/v1beta1/volumeattributesclasses,api/v1'), [
      { kind: 'matcher', key: 'api/all', enabled: true },
      { kind: 'groupVersion', key: 'batch/v1', group: 'batch', version: 'v1', enabled: false },
      {
        kind: 'resource',
        key: 'storage.k8s.io/v1beta1/volumeattributesclasses',
        group: 'storage.k8s.io',
        version: 'v1beta1',
        resource: 'volumeattributesclasses',
        enabled: true,
      },
      { kind: 'groupVersion', key: 'api/v1', group: '', version: 'v1', enabled: true },
    ]);
    assert.deepEqual(parseRuntimeConfig({ 'api/beta': 'false' }), [{ kind: 'matcher', key: 'api/beta', enabled: false }]);
    assert.deepEqual(parseRuntimeConfig(['apps/v1=0', 'api/alpha=t']).map((e) => e.enabled), [false, true]);
  });

  it('rejects malformed keys and values', () => {
    assert.throws(() => parseRuntimeConfig('apps'), /runtime-config invalid key apps/);
    assert.throws(() => parseRuntimeConfig('a/b/c/d'), /invalid key/);
    assert.throws(() => parseRuntimeConfig('apps/v1=maybe'), /invalid value of apps\/v1: maybe/);
    assert.throws(() => parseRuntimeConfig('apps/v1/Deployments'), /always lowercase plural/);
  });

  it('applies matchers, then group-versions, then resources', () => {
    const all = ApiCatalog.load({ runtimeConfig: 'api/all=true' });
    assert.equal(all.isGroupVersionEnabled('resource.k8s.io', 'v1alpha3'), true);
    assert.deepEqual(must(all.group('internal.apiserver.k8s.io'), 'internal').preferred.version, 'v1alpha1');

    const noBatch = ApiCatalog.load({ runtimeConfig: 'batch/v1=false' });
    assert.equal(noBatch.group('batch'), undefined);
    assert.equal(noBatch.resource('batch', 'v1', 'jobs'), undefined);
    assert.ok(noBatch.knownResource('batch', 'v1', 'jobs'));

    const beta = ApiCatalog.load({ runtimeConfig: 'api/beta=true,storage.k8s.io/v1beta1=false' });
    assert.equal(beta.isGroupVersionEnabled('networking.k8s.io', 'v1beta1'), true);
    assert.equal(beta.isGroupVersionEnabled('storage.k8s.io', 'v1beta1'), false);
    assert.equal(beta.isGroupVersionEnabled('admissionregistration.k8s.io', 'v1alpha1'), false);

    const one = ApiCatalog.load({ runtimeConfig: 'resource.k8s.io/v1alpha3/devicetaintrules=true' });
    assert.deepEqual(must(one.groupVersion('resource.k8s.io', 'v1alpha3'), 'v1alpha3').resources.map((r) => r.name), ['devicetaintrules']);
    assert.equal(must(one.group('resource.k8s.io'), 'resource').preferred.version, 'v1');

    const minusPods = ApiCatalog.load({ runtimeConfig: 'api/v1/pods=false' });
    assert.equal(minusPods.resource('', 'v1', 'pods'), undefined);
    assert.ok(minusPods.resource('', 'v1', 'services'));
  });

  it('rejects unknown groups, versions and resources with clear errors', () => {
    assert.throws(() => ApiCatalog.load({ runtimeConfig: 'foo.example.com/v1' }), (e: unknown) => e instanceof RuntimeConfigError && /unknown api groups foo\.example\.com/.test(e.message));
    assert.throws(() => ApiCatalog.load({ runtimeConfig: 'apps/v2' }), /group version apps\/v2 that has not been registered/);
    assert.throws(() => ApiCatalog.load({ runtimeConfig: 'apps/v1/widgets' }), /resource widgets is not served by apps\/v1/);
    assert.throws(() => ApiCatalog.load({ runtimeConfig: 'api/all=false' }), /invalid key with only api\/all=false/);
  });
});

describe('custom group-versions', () => {
  it('adds and removes served versions and bumps the generation', () => {
    const catalog = ApiCatalog.load();
    const before = catalog.generation;
    const widget: ResourceInfo = {
      group: 'example.com',
      version: 'v1',
      name: 'widgets',
      singularName: 'widget',
      kind: 'Widget',
      listKind: 'WidgetList',
      namespaced: true,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['wd'],
      categories: ['all'],
      subresources: [],
      definition: '',
      storage: { group: 'example.com', version: 'v1', kind: 'Widget' },
      isObject: true,
    };
    catalog.setCustomGroupVersion('example.com', { version: 'v1', stability: 'stable', enabledByDefault: true, resources: [widget] });
    assert.ok(catalog.generation > before);
    assert.equal(catalog.resolveOne('wd')?.name, 'widgets');
    assert.equal(catalog.apiGroups().at(-1)?.name, 'example.com');
    catalog.removeCustomGroupVersion('example.com', 'v1');
    assert.equal(catalog.group('example.com'), undefined);
    assert.equal(catalog.resolveOne('wd'), undefined);
    // The shared built-in data is untouched.
    assert.equal(ApiCatalog.load().group('example.com'), undefined);
  });
});
