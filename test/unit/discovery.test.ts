import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';

import { ApiCatalog } from '../../src/api/catalog.js';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  DiscoveryService,
  negotiateDiscovery,
} from '../../src/api/discovery.js';

// What kubectl 1.27+ sends for /api and /apis.
const KUBECTL_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

describe('legacy discovery', () => {
  const catalog = ApiCatalog.load();

  it('serves /api as APIVersions without apiVersion', () => {
    assert.equal(
      JSON.stringify(apiVersions('10.0.0.1:6443')),
      '{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"10.0.0.1:6443"}]}',
    );
  });

  it('serves /apis with groups in kube order and preferred versions', () => {
    const list = apiGroupList(catalog);
    assert.equal(list.kind, 'APIGroupList');
    assert.equal(list.apiVersion, 'v1');
    assert.deepEqual(list.groups.slice(0, 3).map((g) => g.name), ['apiregistration.k8s.io', 'apps', 'events.k8s.io']);
    const autoscaling = list.groups.find((g) => g.name === 'autoscaling');
    assert.deepEqual(autoscaling, {
      name: 'autoscaling',
      versions: [
        { groupVersion: 'autoscaling/v2', version: 'v2' },
        { groupVersion: 'autoscaling/v1', version: 'v1' },
      ],
      preferredVersion: { groupVersion: 'autoscaling/v2', version: 'v2' },
    });
    assert.ok(!list.groups.some((g) => g.name === '' || g.name === 'internal.apiserver.k8s.io'));
  });

  it('serves /apis/<group> byte-compatibly', () => {
    assert.equal(
      JSON.stringify(apiGroup(catalog, 'apps')),
      '{"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}',
    );
    assert.equal(apiGroup(catalog, 'nope.example.com'), undefined);
    assert.equal(apiGroup(catalog, ''), undefined);
  });

  it('serves /api/v1 with resources and subresources like kube-apiserver', () => {
    const list = apiResourceList(catalog, '', 'v1');
    assert.ok(list);
    assert.equal(JSON.stringify(list).slice(0, 60), '{"kind":"APIResourceList","groupVersion":"v1","resources":[{');
    const byName = new Map(list.resources.map((r) => [r.name, r]));
    assert.equal(
      JSON.stringify(byName.get('pods')),
      `{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":${JSON.stringify(ALL_VERBS)},"shortNames":["po"],"categories":["all"],"storageVersionHash":"xPOwRZ+Yhw8="}`,
    );
    assert.equal(
      JSON.stringify(byName.get('pods/eviction')),
      '{"name":"pods/eviction","singularName":"","namespaced":true,"group":"policy","version":"v1","kind":"Eviction","verbs":["create"]}',
    );
    assert.equal(JSON.stringify(byName.get('pods/exec')), '{"name":"pods/exec","singularName":"","namespaced":true,"kind":"PodExecOptions","verbs":["create","get"]}');
    assert.equal(JSON.stringify(byName.get('bindings')), '{"name":"bindings","singularName":"binding","namespaced":true,"kind":"Binding","verbs":["create"]}');
    assert.deepEqual(byName.get('namespaces/finalize')?.verbs, ['update']);
    assert.deepEqual(byName.get('serviceaccounts/token'), {
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
    // Sorted by name: a resource's subresources follow it, before the next resource.
    const names = list.resources.map((r) => r.name);
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.indexOf('pods/status') < names.indexOf('podtemplates'));
  });

  it('serves /apis/<group>/<version> with apiVersion', () => {
    const list = apiResourceList(catalog, 'apps', 'v1');
    assert.ok(list);
    assert.equal(JSON.stringify(list).slice(0, 76), '{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resour');
    assert.deepEqual(
      list.resources.filter((r) => r.name.startsWith('deployments')),
      [
        {
          name: 'deployments',
          singularName: 'deployment',
          namespaced: true,
          kind: 'Deployment',
          verbs: ALL_VERBS,
          shortNames: ['deploy'],
          categories: ['all'],
          storageVersionHash: '8aSe+NMegvE=',
        },
        { name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
        { name: 'deployments/status', singularName: '', namespaced: true, kind: 'Deployment', verbs: ['get', 'patch', 'update'] },
      ],
    );
    assert.equal(apiResourceList(catalog, 'networking.k8s.io', 'v1beta1'), undefined, 'beta is off by default');
    assert.equal(apiResourceList(catalog, 'apps', 'v2'), undefined);
  });

  it('reflects --runtime-config', () => {
    const c = ApiCatalog.load({ runtimeConfig: 'batch/v1=false,networking.k8s.io/v1beta1=true' });
    const names = apiGroupList(c).groups.map((g) => g.name);
    assert.ok(!names.includes('batch'));
    assert.deepEqual(apiGroup(c, 'networking.k8s.io')?.versions.map((v) => v.version), ['v1', 'v1beta1']);
    assert.ok(apiResourceList(c, 'networking.k8s.io', 'v1beta1'));
  });
});

describe('aggregated discovery', () => {
  const catalog = ApiCatalog.load();

  it('serves the core group for /api', () => {
    const doc = aggregatedDiscovery(catalog, 'api');
    assert.equal(JSON.stringify(doc).slice(0, 118), '{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{},"versions"');
    assert.equal(doc.items.length, 1);
    const v1 = doc.items[0]?.versions[0];
    assert.equal(v1?.version, 'v1');
    assert.equal(v1?.freshness, 'Current');
    const pods = v1?.resources?.find((r) => r.resource === 'pods');
    assert.deepEqual(pods?.subresources?.find((s) => s.subresource === 'eviction'), {
      subresource: 'eviction',
      responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      verbs: ['create'],
    });
    assert.deepEqual(pods?.subresources?.find((s) => s.subresource === 'proxy')?.verbs, ['create', 'delete', 'get', 'patch', 'update']);
  });

  it('serves named groups for /apis with kube field names and order', () => {
    const doc = aggregatedDiscovery(catalog, 'apis');
    assert.equal(doc.items[0]?.metadata.name, 'apiregistration.k8s.io');
    const apps = doc.items.find((g) => g.metadata.name === 'apps');
    const deployments = apps?.versions[0]?.resources?.find((r) => r.resource === 'deployments');
    assert.equal(
      JSON.stringify(deployments),
      '{"resource":"deployments","responseKind":{"group":"","version":"","kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment",' +
        `"verbs":${JSON.stringify(ALL_VERBS)},"shortNames":["deploy"],"categories":["all"],"subresources":[` +
        '{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]},' +
        '{"subresource":"status","responseKind":{"group":"","version":"","kind":"Deployment"},"verbs":["get","patch","update"]}]}',
    );
    const authz = doc.items.find((g) => g.metadata.name === 'authorization.k8s.io');
    assert.deepEqual(authz?.versions[0]?.resources?.find((r) => r.resource === 'localsubjectaccessreviews'), {
      resource: 'localsubjectaccessreviews',
      responseKind: { group: '', version: '', kind: 'LocalSubjectAccessReview' },
      scope: 'Namespaced',
      singularResource: 'localsubjectaccessreview',
      verbs: ['create'],
    });
    assert.deepEqual(doc.items.find((g) => g.metadata.name === 'autoscaling')?.versions.map((v) => v.version), ['v2', 'v1']);
    assert.equal(aggregatedDiscovery(catalog, 'apis', 'v2beta1').apiVersion, 'apidiscovery.k8s.io/v2beta1');
  });
});

describe('discovery negotiation and HTTP', () => {
  it('chooses aggregated discovery only when asked for it', () => {
    assert.deepEqual(negotiateDiscovery(KUBECTL_ACCEPT), {
      kind: 'aggregated',
      version: 'v2',
      contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    assert.equal(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json')?.kind, 'aggregated');
    assert.deepEqual(negotiateDiscovery('application/json'), { kind: 'legacy', mediaType: 'application/json' });
    assert.deepEqual(negotiateDiscovery(undefined), { kind: 'legacy', mediaType: 'application/json' });
    assert.deepEqual(negotiateDiscovery('application/yaml'), { kind: 'legacy', mediaType: 'application/yaml' });
    assert.deepEqual(negotiateDiscovery('application/json;as=Table;g=meta.k8s.io;v=v1,application/json')?.kind, 'legacy');
    assert.equal(negotiateDiscovery('text/html'), undefined);
    assert.deepEqual(negotiateDiscovery('application/json;q=0.5,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')?.kind, 'aggregated');
  });

  it('answers with content type, ETag and 304 like kube-apiserver', () => {
    const catalog = ApiCatalog.load();
    const svc = new DiscoveryService(catalog, '127.0.0.1:6443');
    const r = svc.respond('apis', KUBECTL_ACCEPT);
    assert.equal(r.status, 200);
    assert.equal(r.headers['Content-Type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    assert.equal(r.headers['Vary'], 'Accept');
    assert.equal(r.headers['Cache-Control'], 'public');
    const body = r.body?.toString('utf8') ?? '';
    assert.ok(body.endsWith('}\n'));
    const expectedEtag = createHash('sha512').update(body.slice(0, -1)).digest('hex').toUpperCase();
    assert.equal(r.headers['ETag'], `"${expectedEtag}"`);
    const again = svc.respond('apis', KUBECTL_ACCEPT, `"${expectedEtag}"`);
    assert.equal(again.status, 304);
    assert.equal(again.body, undefined);
    assert.equal(svc.respond('apis', KUBECTL_ACCEPT, '"stale"').status, 200);

    const legacy = svc.respond('api', 'application/json');
    assert.equal(legacy.status, 200);
    assert.equal(legacy.headers['Content-Type'], 'application/json');
    assert.equal(legacy.headers['ETag'], undefined);
    assert.equal(legacy.object?.kind, 'APIVersions');
    assert.equal(svc.respond('api', 'text/html').status, 406);

    const before = svc.etag('apis');
    catalog.applyRuntimeConfig([{ kind: 'groupVersion', key: 'batch/v1', group: 'batch', version: 'v1', enabled: false }]);
    assert.notEqual(svc.etag('apis'), before, 'the cache follows the catalog');
  });
});
