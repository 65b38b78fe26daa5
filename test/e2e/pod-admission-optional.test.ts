import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { ApiClient } from '../../src/machinery/client.js';
import { isApiError } from '../../src/machinery/errors.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { removeDir, tempDir } from '../helpers/server.js';

/**
 * kube's default-off pod plugins, enabled by name on a server
 * (AlwaysPullImages, PodNodeSelector, PodTolerationRestriction,
 * ExtendedResourceToleration), and a default-on one disabled.
 */

const PODS = { group: '', version: 'v1', resource: 'pods', namespace: 'restricted' };

describe('optional pod admission plugins', () => {
  let server: ApiServer;
  let dir: string;
  let client: ApiClient;

  before(async () => {
    dir = tempDir('capstan-pod-admission-');
    server = new ApiServer({
      config: {
        dataDir: dir,
        admission: { enablePlugins: ['AlwaysPullImages', 'PodNodeSelector', 'PodTolerationRestriction', 'ExtendedResourceToleration'], disablePlugins: ['DefaultTolerationSeconds'] },
      },
    });
    await server.start();
    client = server.client('pod-admission-test');
    await client.create({ group: '', version: 'v1', resource: 'namespaces' }, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'restricted',
        annotations: {
          'scheduler.alpha.kubernetes.io/node-selector': 'pool=batch',
          'scheduler.alpha.kubernetes.io/tolerationsWhitelist': '[{"key":"example.com/gpu","operator":"Exists"},{"key":"node.kubernetes.io/memory-pressure","operator":"Exists"}]',
        },
      },
    });
  });

  after(async () => {
    await server.stop();
    removeDir(dir);
  });

  it('enabled by name, they change and check pods as kube\'s do', async () => {
    const created = await client.create(PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'gpu' },
      spec: { containers: [{ name: 'c', image: 'trainer:1', imagePullPolicy: 'IfNotPresent', resources: { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '1' } } }] },
    });
    const spec = created.spec as Record<string, any>;
    assert.equal(spec.containers[0].imagePullPolicy, 'Always');
    assert.deepEqual(spec.nodeSelector, { pool: 'batch' });
    assert.deepEqual(spec.tolerations, [{ key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' }], 'no default not-ready/unreachable tolerations: DefaultTolerationSeconds is disabled');

    const err = await client
      .create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'elsewhere' }, spec: { nodeSelector: { pool: 'web' }, containers: [{ name: 'c', image: 'nginx' }] } })
      .catch((e: unknown) => e);
    assert.ok(isApiError(err, 'Forbidden'));
    assert.equal(err.message, 'pods "elsewhere" is forbidden: pod node label selector conflicts with its namespace node label selector');

    const tolerating = await client
      .create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'tolerant' }, spec: { tolerations: [{ key: 'other', operator: 'Exists' }], containers: [{ name: 'c', image: 'nginx' }] } })
      .catch((e: unknown) => e);
    assert.ok(isApiError(tolerating));
    assert.equal(tolerating.code, 500);
    assert.equal(tolerating.message, 'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');
  });
});
