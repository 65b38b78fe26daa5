import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { DEFAULT_API_TOKEN_MOUNT_PATH, ServiceAccountAdmission, tokenVolumeSource } from '../../src/admission/service-account.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { attrs, fixedLookup, pod, rejection } from '../helpers/admission.js';

/** plugin/pkg/admission/serviceaccount/admission_test.go's cases, on Capstan's plugin. */

const sa = (name: string, extra: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace: 'ns', ...(annotations ? { annotations } : {}) },
  ...extra,
});

function plugin(accounts: KubeObject[] = [sa('default')]): { plugin: ServiceAccountAdmission; sleeps: number[] } {
  const sleeps: number[] = [];
  return { plugin: new ServiceAccountAdmission(fixedLookup(accounts), async (ms) => void sleeps.push(ms)), sleeps };
}

type Spec = Record<string, any>;
const specOf = (p: KubeObject): Spec => p.spec as Spec;

describe('ServiceAccount admission', () => {
  it('defaults serviceAccountName, mounts the projected token into containers and init containers (not ephemeral ones)', async () => {
    const p = pod({ initContainers: [{ name: 'i' }], containers: [{ name: 'a' }, { name: 'b' }], ephemeralContainers: [{ name: 'e' }] });
    const a = attrs('', 'pods', 'CREATE', p);
    await plugin().plugin.admit(a);
    const spec = specOf(p);
    assert.equal(spec.serviceAccountName, 'default');
    assert.equal(spec.serviceAccount, 'default', 'the deprecated alias, as v1 objects carry it');
    assert.equal(spec.volumes.length, 1);
    const volume = spec.volumes[0];
    assert.match(volume.name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(volume.projected, tokenVolumeSource());
    assert.deepEqual(volume.projected.sources[0], { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } });
    assert.equal(volume.projected.defaultMode, 420);
    const mount = { name: volume.name, readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH };
    assert.deepEqual(spec.initContainers[0].volumeMounts, [mount]);
    assert.deepEqual(spec.containers[0].volumeMounts, [mount]);
    assert.deepEqual(spec.containers[1].volumeMounts, [mount]);
    assert.equal(spec.ephemeralContainers[0].volumeMounts, undefined);
    await plugin().plugin.validate(a);
  });

  it('mounts nothing when the pod or, without the pod saying, the account opts out', async () => {
    const cases: Array<[string, boolean | undefined, boolean | undefined, boolean]> = [
      ['pod false', false, undefined, false],
      ['account false', undefined, false, false],
      ['pod true wins over account false', true, false, true],
      ['pod false wins over account true', false, true, false],
      ['neither says', undefined, undefined, true],
    ];
    for (const [name, podSays, accountSays, mounted] of cases) {
      const p = pod({ containers: [{ name: 'c' }], ...(podSays === undefined ? {} : { automountServiceAccountToken: podSays }) });
      await plugin([sa('default', accountSays === undefined ? {} : { automountServiceAccountToken: accountSays })]).plugin.admit(attrs('', 'pods', 'CREATE', p));
      assert.equal(specOf(p).volumes?.length ?? 0, mounted ? 1 : 0, name);
      assert.equal(specOf(p).containers[0].volumeMounts?.length ?? 0, mounted ? 1 : 0, name);
    }
  });

  it('keeps a container\'s own mount at the path and reuses an existing kube-api-access volume', async () => {
    const own = { name: 'mine', mountPath: DEFAULT_API_TOKEN_MOUNT_PATH };
    const p = pod({ containers: [{ name: 'a', volumeMounts: [own] }, { name: 'b' }], volumes: [{ name: 'kube-api-access-abcde', emptyDir: {} }] });
    await plugin().plugin.admit(attrs('', 'pods', 'CREATE', p));
    const spec = specOf(p);
    assert.deepEqual(spec.containers[0].volumeMounts, [own]);
    assert.deepEqual(spec.containers[1].volumeMounts, [{ name: 'kube-api-access-abcde', readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH }]);
    assert.deepEqual(spec.volumes, [{ name: 'kube-api-access-abcde', emptyDir: {} }]);

    const allOwn = pod({ containers: [{ name: 'a', volumeMounts: [own] }] });
    await plugin().plugin.admit(attrs('', 'pods', 'CREATE', allOwn));
    assert.equal(specOf(allOwn).volumes, undefined, 'no container needs the volume');
  });

  it('refuses a pod whose account does not exist, asking ten times for the default one', async () => {
    const { plugin: p, sleeps } = plugin([]);
    const err = await rejection(p.admit(attrs('', 'pods', 'CREATE', pod({ containers: [{ name: 'c' }] }))));
    assert.equal(err.code, 403);
    assert.equal(err.status.reason, 'Forbidden');
    assert.equal(err.message, 'pods "p" is forbidden: error looking up service account ns/default: serviceaccount "default" not found');
    assert.equal(sleeps.length, 9);
    const other = plugin([]);
    const named = await rejection(other.plugin.admit(attrs('', 'pods', 'CREATE', pod({ serviceAccountName: 'robot', containers: [{ name: 'c' }] }, { generateName: 'gen-' }))));
    assert.equal(named.message, 'pods "gen-" is forbidden: error looking up service account ns/robot: serviceaccount "robot" not found');
    assert.equal(other.sleeps.length, 0);
  });

  it('copies the account\'s imagePullSecrets when the pod has none', async () => {
    const account = sa('default', { imagePullSecrets: [{ name: 'reg' }] });
    const p = pod({ containers: [{ name: 'c' }] });
    await plugin([account]).plugin.admit(attrs('', 'pods', 'CREATE', p));
    assert.deepEqual(specOf(p).imagePullSecrets, [{ name: 'reg' }]);
    const own = pod({ containers: [{ name: 'c' }], imagePullSecrets: [{ name: 'mine' }] });
    await plugin([account]).plugin.admit(attrs('', 'pods', 'CREATE', own));
    assert.deepEqual(specOf(own).imagePullSecrets, [{ name: 'mine' }]);
  });

  it('mirror pods: left as they are, but no account, secret or token projection', async () => {
    const mirror = (spec: Spec): KubeObject => pod(spec, { name: 'm', namespace: 'ns', annotations: { 'kubernetes.io/config.mirror': 'x' } });
    const fine = mirror({ containers: [{ name: 'c' }] });
    await plugin([]).plugin.admit(attrs('', 'pods', 'CREATE', fine));
    assert.deepEqual(fine.spec, { containers: [{ name: 'c' }] });
    const cases: Array<[Spec, string]> = [
      [{ serviceAccountName: 'default', containers: [{ name: 'c' }] }, 'a mirror pod may not reference service accounts'],
      [{ containers: [{ name: 'c' }], volumes: [{ name: 'v', secret: { secretName: 's' } }] }, 'a mirror pod may not reference secrets'],
      [{ containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] }, 'a mirror pod may not reference secrets'],
      [{ containers: [{ name: 'c' }], volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }, 'a mirror pod may not use ServiceAccountToken volume projections'],
    ];
    for (const [spec, why] of cases) {
      const err = await rejection(plugin().plugin.admit(attrs('', 'pods', 'CREATE', mirror(spec))));
      assert.equal(err.message, `pods "m" is forbidden: ${why}`);
    }
  });

  it('kubernetes.io/enforce-mountable-secrets: only the secrets the account lists', async () => {
    const account = sa('default', { secrets: [{ name: 'ok' }], imagePullSecrets: [{ name: 'pull' }] }, { 'kubernetes.io/enforce-mountable-secrets': 'true' });
    const cases: Array<[Spec, string | undefined]> = [
      [{ containers: [{ name: 'c' }], volumes: [{ name: 'v', secret: { secretName: 'ok' } }] }, undefined],
      [{ containers: [{ name: 'c' }], volumes: [{ name: 'v', secret: { secretName: 'no' } }] }, 'volume with secret.secretName="no" is not allowed because service account default does not reference that secret'],
      [
        { initContainers: [{ name: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'no', key: 'k' } } }] }], containers: [{ name: 'c' }] },
        'init container i with envVar E referencing secret.secretName="no" is not allowed because service account default does not reference that secret',
      ],
      [{ containers: [{ name: 'c', envFrom: [{ secretRef: { name: 'no' } }] }] }, 'container c with envFrom referencing secret.secretName="no" is not allowed because service account default does not reference that secret'],
      [{ containers: [{ name: 'c' }], imagePullSecrets: [{ name: 'pull' }, { name: 'other' }] }, 'imagePullSecrets[1].name="other" is not allowed because service account default does not reference that imagePullSecret'],
    ];
    for (const [spec, why] of cases) {
      const result = plugin([account]).plugin.admit(attrs('', 'pods', 'CREATE', pod(spec)));
      if (!why) await result;
      else assert.equal((await rejection(result)).message, `pods "p" is forbidden: ${why}`);
    }
    // Without the annotation (or with it false) nothing is checked.
    const lax = sa('default', { secrets: [] }, { 'kubernetes.io/enforce-mountable-secrets': 'false' });
    await plugin([lax]).plugin.admit(attrs('', 'pods', 'CREATE', pod({ containers: [{ name: 'c' }], volumes: [{ name: 'v', secret: { secretName: 'no' } }] })));
  });

  it('ephemeral containers added later are checked against mountable secrets (as a plain error); other updates are not looked at', async () => {
    const account = sa('default', { secrets: [{ name: 'ok' }] }, { 'kubernetes.io/enforce-mountable-secrets': 'true' });
    const p = pod({ serviceAccountName: 'default', containers: [{ name: 'c' }], ephemeralContainers: [{ name: 'dbg', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'no', key: 'k' } } }] }] });
    const err = await rejection(plugin([account]).plugin.validate(attrs('', 'pods', 'UPDATE', p, { subresource: 'ephemeralcontainers', name: 'p', oldObject: pod({}) })));
    assert.equal(err.code, 500);
    assert.equal(err.status.reason, undefined);
    assert.equal(err.message, 'ephemeral container dbg with envVar E referencing secret.secretName="no" is not allowed because service account default does not reference that secret');
    const update = pod({ containers: [{ name: 'c' }] });
    await plugin([]).plugin.admit(attrs('', 'pods', 'UPDATE', update, { name: 'p', oldObject: pod({}) }));
    await plugin([]).plugin.validate(attrs('', 'pods', 'UPDATE', update, { name: 'p', oldObject: pod({}) }));
    assert.deepEqual(update.spec, { containers: [{ name: 'c' }] });
  });

  it('leaves other resources and subresources alone', async () => {
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n' } };
    await plugin([]).plugin.admit(attrs('', 'pods', 'CREATE', binding, { subresource: 'binding', name: 'p' }));
    await plugin([]).plugin.admit(attrs('', 'configmaps', 'CREATE', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }));
  });
});
