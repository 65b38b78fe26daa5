import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apiLifecycle, deprecationWarning, isDeprecated, lifecycleGroupVersionKinds, removedRelease, type ApiLifecycle } from '../../src/api/api-lifecycle.js';
import { DeprecatedApiRequests } from '../../src/api/deprecated-api-requests.js';
import { builtinCatalog } from '../../src/api/catalog.js';

/** kube's endpoints/deprecation behaviour (cases of its deprecation_test.go) and the built-in lifecycle table. */

const release = (major: number, minor: number): { major: number; minor: number } => ({ major, minor });
const life = (deprecated: [number, number], removed?: [number, number], replacement?: ApiLifecycle['replacement']): ApiLifecycle => ({
  introduced: release(0, 0),
  deprecated: release(...deprecated),
  ...(removed ? { removed: release(...removed) } : {}),
  ...(replacement ? { replacement } : {}),
});
const MY_KIND = { group: 'mygroup', version: 'v1', kind: 'MyKind' };

describe('deprecation warning text', () => {
  it('says the deprecation release, the removal release and the replacement when known', () => {
    assert.equal(deprecationWarning(MY_KIND, undefined), '');
    assert.equal(deprecationWarning({ group: '', version: '', kind: '' }, life([0, 0])), '');
    assert.equal(deprecationWarning(MY_KIND, life([1, 2])), 'mygroup/v1 MyKind is deprecated in v1.2+');
    assert.equal(deprecationWarning(MY_KIND, life([1, 2], [0, 0])), 'mygroup/v1 MyKind is deprecated in v1.2+');
    assert.equal(deprecationWarning(MY_KIND, life([1, 2], [3, 4])), 'mygroup/v1 MyKind is deprecated in v1.2+, unavailable in v3.4+');
    assert.equal(deprecationWarning(MY_KIND, life([1, 2], [3, 4], { group: '', version: '', kind: '' })), 'mygroup/v1 MyKind is deprecated in v1.2+, unavailable in v3.4+');
    assert.equal(
      deprecationWarning(MY_KIND, life([1, 2], [3, 4], { group: 'anothergroup', version: 'v2', kind: 'AnotherKind' })),
      'mygroup/v1 MyKind is deprecated in v1.2+, unavailable in v3.4+; use anothergroup/v2 AnotherKind',
    );
  });

  it('IsDeprecated compares the deprecation release with the current one', () => {
    assert.equal(isDeprecated(undefined, release(0, 0)), false);
    assert.equal(isDeprecated(life([0, 0]), release(0, 0)), false);
    assert.equal(isDeprecated(life([10, 20]), release(0, 0)), true);
    assert.equal(isDeprecated(life([10, 20]), release(10, 20)), true);
    assert.equal(isDeprecated(life([10, 20]), release(9, 19)), false);
    assert.equal(isDeprecated(life([10, 20]), release(9, 21)), false);
    assert.equal(isDeprecated(life([10, 20]), release(11, 19)), true);
    assert.equal(isDeprecated(life([10, 20]), release(11, 21)), true);
  });

  it('RemovedRelease is major.minor, empty without one', () => {
    assert.equal(removedRelease(undefined), '');
    assert.equal(removedRelease(life([1, 0], [0, 0])), '');
    assert.equal(removedRelease(life([1, 0], [1, 0])), '1.0');
    assert.equal(removedRelease(life([1, 0], [0, 1])), '0.1');
    assert.equal(removedRelease(life([1, 0], [1, 2])), '1.2');
  });
});

describe('built-in lifecycle', () => {
  const at136 = new DeprecatedApiRequests(release(1, 36));

  it('beta types: deprecated three minors after introduction, removed three after that', () => {
    assert.deepEqual(at136.builtin('resource.k8s.io', 'v1beta2', 'ResourceClaim'), {
      warning: 'resource.k8s.io/v1beta2 ResourceClaim is deprecated in v1.36+, unavailable in v1.39+',
      removedRelease: '1.39',
    });
    assert.equal(at136.builtin('storagemigration.k8s.io', 'v1beta1', 'StorageVersionMigration'), undefined);
    assert.ok(new DeprecatedApiRequests(release(1, 38)).builtin('storagemigration.k8s.io', 'v1beta1', 'StorageVersionMigration'));
  });

  it('alpha types: deprecated three minors after introduction, no removal release', () => {
    assert.deepEqual(at136.builtin('coordination.k8s.io', 'v1alpha2', 'LeaseCandidate'), {
      warning: 'coordination.k8s.io/v1alpha2 LeaseCandidate is deprecated in v1.35+',
      removedRelease: '',
    });
  });

  it('an explicit deprecation release wins over the default', () => {
    assert.deepEqual(at136.builtin('certificates.k8s.io', 'v1alpha1', 'ClusterTrustBundle'), {
      warning: 'certificates.k8s.io/v1alpha1 ClusterTrustBundle is deprecated in v1.34+',
      removedRelease: '',
    });
    assert.equal(at136.builtin('certificates.k8s.io', 'v1beta1', 'PodCertificateRequest'), undefined);
  });

  it('names the replacement upstream tags', () => {
    assert.deepEqual(at136.builtin('storage.k8s.io', 'v1beta1', 'VolumeAttributesClass'), {
      warning: 'storage.k8s.io/v1beta1 VolumeAttributesClass is deprecated in v1.34+, unavailable in v1.37+; use storage.k8s.io/v1 VolumeAttributesClass',
      removedRelease: '1.37',
    });
    assert.equal(at136.builtin('networking.k8s.io', 'v1beta1', 'IPAddress')?.warning, 'networking.k8s.io/v1beta1 IPAddress is deprecated in v1.34+, unavailable in v1.37+');
  });

  it('GA types and types without an entry are never deprecated', () => {
    assert.equal(at136.builtin('apps', 'v1', 'Deployment'), undefined);
    assert.equal(apiLifecycle({ group: '', version: 'v1', kind: 'Pod' }), undefined);
  });

  it('names only types the catalog can serve', () => {
    const catalog = builtinCatalog();
    for (const gvk of lifecycleGroupVersionKinds()) {
      const group = catalog.groups.find((g) => g.name === gvk.group);
      const version = group?.versions.find((v) => v.version === gvk.version);
      assert.ok(version?.resources.some((r) => r.kind === gvk.kind), `${gvk.group}/${gvk.version} ${gvk.kind}`);
    }
  });

  it('counts each requested deprecated API once', () => {
    const apis = new DeprecatedApiRequests(release(1, 36));
    const req = { group: 'resource.k8s.io', version: 'v1beta2', resource: 'resourceclaims', subresource: '', removedRelease: '1.39' };
    apis.record(req);
    apis.record({ ...req });
    apis.record({ ...req, subresource: 'status' });
    assert.deepEqual(apis.all(), [req, { ...req, subresource: 'status' }]);
  });
});
