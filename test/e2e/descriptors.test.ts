import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, KubernetesObjectApi, PatchStrategy, Watch, type KubernetesObject } from '@kubernetes/client-node';

import type { CustomResourceSpec } from '../../src/registry/custom-descriptors.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { http, kubectl, kubectlMissing, removeDir, tempDir } from '../helpers/server.js';
import { openWatch } from '../helpers/watch.js';

/**
 * A resource descriptor registered while the server runs (a test-only
 * Widget type, as a CustomResourceDefinition would add it): it shows in
 * discovery and OpenAPI, kubectl and @kubernetes/client-node drive it, and
 * once removed it leaves discovery, its open watches end and requests get 404.
 */

const GROUP = 'capstan-test.example.com';
const WIDGETS: CustomResourceSpec = {
  group: GROUP,
  kind: 'Widget',
  plural: 'widgets',
  shortNames: ['wdg'],
  namespaced: true,
  status: true,
  versions: [
    {
      name: 'v1',
      storage: true,
      schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
          status: { type: 'object', properties: { ready: { type: 'boolean' } } },
        },
      },
    },
  ],
};
const DEFINITION = 'com.example.capstan-test.v1.Widget';
const BASE = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

const widget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name, namespace: 'default' }, spec });

const skipKubectl = kubectlMissing();

describe('resource descriptors added and removed at run time', () => {
  let server: ApiServer;
  let dataDir: string;
  let kubeconfig: string;
  let c: { url: string; creds: { ca: string; cert: string; key: string } };
  const k = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectl({ kubeconfig }, ['--cache-dir', join(dataDir, 'kube-cache'), ...args], input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
    return r.stdout;
  };

  before(async () => {
    dataDir = tempDir();
    server = new ApiServer({ config: { dataDir } });
    await server.start();
    kubeconfig = join(dataDir, 'admin.kubeconfig');
    const kc = server.adminKubeconfig();
    c = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
  });
  after(async () => {
    await server?.stop();
    if (dataDir) removeDir(dataDir);
  });

  it('shows the new type in /apis, aggregated discovery and /openapi/v2 and v3', async () => {
    assert.equal((await http(c, 'GET', BASE)).status, 404);
    const v3Before = (await http(c, 'GET', '/openapi/v3')).json;
    assert.equal(v3Before.paths[`apis/${GROUP}/v1`], undefined);

    server.addCustomResource(WIDGETS);

    const groups = (await http(c, 'GET', '/apis')).json;
    const group = groups.groups.find((g: { name: string }) => g.name === GROUP);
    assert.deepEqual(group, { name: GROUP, versions: [{ groupVersion: `${GROUP}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${GROUP}/v1`, version: 'v1' } });
    const list = (await http(c, 'GET', `/apis/${GROUP}/v1`)).json;
    const byName = new Map(list.resources.map((r: { name: string }) => [r.name, r]));
    assert.deepEqual((byName.get('widgets') as { kind: string; namespaced: boolean; shortNames: string[]; verbs: string[] }).verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    assert.equal((byName.get('widgets') as { kind: string }).kind, 'Widget');
    assert.equal((byName.get('widgets') as { namespaced: boolean }).namespaced, true);
    assert.deepEqual((byName.get('widgets/status') as { verbs: string[] }).verbs, ['get', 'patch', 'update']);

    const aggregated = (await http(c, 'GET', '/apis', { headers: { accept: AGGREGATED } })).json;
    const item = aggregated.items.find((g: { metadata: { name: string } }) => g.metadata.name === GROUP);
    assert.ok(item, 'the group is in aggregated discovery');
    const resource = item.versions[0].resources[0];
    assert.equal(resource.resource, 'widgets');
    assert.equal(resource.responseKind.kind, 'Widget');
    assert.equal(resource.scope, 'Namespaced');
    assert.deepEqual(resource.subresources.map((s: { subresource: string }) => s.subresource), ['status']);

    const v3 = (await http(c, 'GET', '/openapi/v3')).json;
    const ref = v3.paths[`apis/${GROUP}/v1`]?.serverRelativeURL as string;
    assert.ok(ref, 'the group-version has an OpenAPI v3 document');
    assert.notEqual(v3.paths['apis'].serverRelativeURL, undefined);
    const doc = (await http(c, 'GET', ref)).json;
    assert.deepEqual(doc.components.schemas[DEFINITION].properties.spec.properties.size, { type: 'integer' });
    assert.ok(doc.paths[`/apis/${GROUP}/v1/namespaces/{namespace}/widgets/{name}/status`]);
    const v2 = (await http(c, 'GET', '/openapi/v2')).json;
    assert.ok(v2.definitions[DEFINITION], 'the kind is in /openapi/v2');
  });

  it('kubectl creates, lists, patches (merge and server-side apply) and deletes it', { skip: skipKubectl }, async () => {
    const rows = (await k(['api-resources', '--api-group', GROUP, '--no-headers'])).trim().split(/\s+/);
    assert.deepEqual(rows, ['widgets', 'wdg', `${GROUP}/v1`, 'true', 'Widget']);
    const explained = await k(['explain', 'widgets.spec']);
    assert.match(explained, /KIND:\s+Widget/);
    assert.match(explained, /size\s+<integer>/);
    assert.match(await k(['create', '-f', '-'], JSON.stringify(widget('w1', { size: 1, color: 'red' }))), /widget\.capstan-test\.example\.com\/w1 created/);
    assert.match(await k(['get', 'widgets']), /^NAME\s+AGE\nw1\s+\d+s/);
    const patched = JSON.parse(await k(['patch', 'wdg', 'w1', '--type', 'merge', '-p', '{"spec":{"size":3}}', '-o', 'json']));
    assert.deepEqual(patched.spec, { size: 3, color: 'red' });
    assert.equal(patched.metadata.generation, 2);
    const applied = `apiVersion: ${GROUP}/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  size: 5\n`;
    assert.match(await k(['apply', '--server-side', '--field-manager', 'tester', '-f', '-'], applied), /widget\.capstan-test\.example\.com\/w2 serverside-applied/);
    const w2 = JSON.parse(await k(['get', `widgets.${GROUP}`, 'w2', '-o', 'json', '--show-managed-fields']));
    assert.deepEqual(w2.spec, { size: 5 });
    assert.ok(w2.metadata.managedFields.some((m: { manager: string; operation: string }) => m.manager === 'tester' && m.operation === 'Apply'));
    const names = (await k(['get', 'widgets', '-o', 'name'])).trim().split('\n');
    assert.deepEqual(names, [`widget.${GROUP}/w1`, `widget.${GROUP}/w2`]);
    assert.match(await k(['delete', 'widget', 'w1', 'w2']), /widget\.capstan-test\.example\.com "w1" deleted/);
    assert.equal((await http(c, 'GET', `${BASE}/w1`)).status, 404);
  });

  it('@kubernetes/client-node creates, lists, watches, patches and deletes it', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const seen: Array<{ type: string; name: string; size: unknown }> = [];
    const watching = await new Watch(kc).watch(BASE, {}, (type, obj: { metadata: { name: string }; spec?: { size?: unknown } }) => {
      seen.push({ type, name: obj.metadata.name, size: obj.spec?.size });
    }, () => undefined);
    try {
      const created = await objects.create(widget('n1', { size: 1 }) as KubernetesObject);
      assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
      const listed = await objects.list(`${GROUP}/v1`, 'Widget', 'default');
      assert.deepEqual(listed.items.map((o) => o.metadata?.name), ['n1']);
      const merged = (await objects.patch(widget('n1', { size: 2 }) as KubernetesObject, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch)) as KubernetesObject & { spec: unknown };
      assert.deepEqual(merged.spec, { size: 2 });
      const applied = (await objects.patch(widget('n1', { size: 4, color: 'blue' }) as KubernetesObject, undefined, undefined, 'node-client', true, PatchStrategy.ServerSideApply)) as KubernetesObject & { spec: unknown };
      assert.deepEqual(applied.spec, { size: 4, color: 'blue' });

      // Status is a subresource: the main resource ignores it, /status writes only it.
      const status = await http(c, 'PATCH', `${BASE}/n1/status`, {
        headers: { 'content-type': 'application/merge-patch+json' },
        body: { status: { ready: true }, spec: { size: 99 }, metadata: { labels: { sneaky: 'yes' } } },
      });
      assert.equal(status.status, 200);
      assert.deepEqual(status.json.status, { ready: true });
      assert.deepEqual(status.json.spec, { size: 4, color: 'blue' });
      assert.equal(status.json.metadata.labels, undefined);

      await objects.delete(widget('n1', {}) as KubernetesObject);
      await assert.rejects(objects.read(widget('n1', {})), (err: { code?: number }) => err.code === 404);
      await waitUntil(() => seen.some((e) => e.type === 'DELETED'));
      assert.deepEqual(seen.map((e) => `${e.type} ${e.name} ${String(e.size)}`), ['ADDED n1 1', 'MODIFIED n1 2', 'MODIFIED n1 4', 'MODIFIED n1 4', 'DELETED n1 4']);
    } finally {
      watching.abort();
    }
  });

  it('removing the descriptor drops it from discovery, ends its open watches and answers 404', async () => {
    assert.equal((await http(c, 'POST', BASE, { body: widget('left', { size: 1 }) })).status, 201);
    const raw = openWatch(c, `${BASE}?watch=1`);
    await raw.waitFor((events) => events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'left'));
    const v3Before = (await http(c, 'GET', '/openapi/v3')).json;

    assert.equal(server.removeCustomResource(GROUP, 'widgets'), true);

    await raw.ended;
    const groups = (await http(c, 'GET', '/apis')).json;
    assert.equal(groups.groups.some((g: { name: string }) => g.name === GROUP), false);
    const aggregated = (await http(c, 'GET', '/apis', { headers: { accept: AGGREGATED } })).json;
    assert.equal(aggregated.items.some((g: { metadata: { name: string } }) => g.metadata.name === GROUP), false);
    assert.equal((await http(c, 'GET', `/apis/${GROUP}/v1`)).status, 404);
    const v3 = (await http(c, 'GET', '/openapi/v3')).json;
    assert.equal(v3.paths[`apis/${GROUP}/v1`], undefined);
    assert.equal((await http(c, 'GET', v3Before.paths[`apis/${GROUP}/v1`].serverRelativeURL)).status, 404);
    assert.equal((await http(c, 'GET', `${BASE}/left`)).status, 404);
    assert.equal((await http(c, 'GET', `${BASE}?watch=1`)).status, 404);
    assert.equal((await http(c, 'POST', BASE, { body: widget('late', { size: 1 }) })).status, 404);

    // Served again with another schema: the group-version's v3 document (and its hash) follow.
    const heavier = structuredClone(WIDGETS);
    const props = heavier.versions[0]!.schema!.properties as { spec: { properties: Record<string, { type: string }> } };
    props.spec.properties['weight'] = { type: 'number' };
    server.addCustomResource(heavier);
    const again = (await http(c, 'GET', '/openapi/v3')).json.paths[`apis/${GROUP}/v1`].serverRelativeURL as string;
    assert.notEqual(again, v3Before.paths[`apis/${GROUP}/v1`].serverRelativeURL);
    assert.deepEqual((await http(c, 'GET', again)).json.components.schemas[DEFINITION].properties.spec.properties.weight, { type: 'number' });
    assert.equal(server.removeCustomResource(GROUP, 'widgets'), true);
  });
});

async function waitUntil(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 20));
  }
}
