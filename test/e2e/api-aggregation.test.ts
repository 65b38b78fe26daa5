import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensurePki, type ServerPki } from '../../src/server/pki.js';
import { APISERVICES, availableCondition, createApiService, createLocalService, createNamespace, frontProxy } from '../helpers/aggregation.js';
import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';

/**
 * API aggregation as kube-aggregator does it: local APIServices for the
 * built-in and CRD group-versions, an extension API server started here
 * (its own CA, trusting the front proxy's) reached through a Service and its
 * EndpointSlice with the caller's identity, discovery merged so kubectl
 * finds its resources, and the Available condition with kube's reasons.
 */

const skip = kubectlMissing();
const GROUP = 'wardle.example.com';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  clientCertVerified: boolean;
}

const FLUNDER = { apiVersion: `${GROUP}/v1alpha1`, kind: 'Flunder', metadata: { name: 'f1', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { reference: 'x' } };

/** A minimal extension API server: discovery for wardle.example.com/v1alpha1 and a list of flunders. */
async function startExtensionServer(pki: ServerPki, frontProxyCa: string, seen: Seen[]): Promise<{ server: Server; port: number }> {
  const server = createServer({ key: pki.serving.key, cert: pki.serving.cert, ca: frontProxyCa, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers, clientCertVerified: (req.socket as TLSSocket).authorized });
    res.setHeader('Content-Type', 'application/json');
    const path = (req.url ?? '').split('?')[0];
    if (path === `/apis/${GROUP}/v1alpha1`) {
      res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${GROUP}/v1alpha1`, resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'], shortNames: ['fl'] }, { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get'] }] }));
    } else if (path === `/apis/${GROUP}/v1alpha1/namespaces/default/flunders`) {
      res.end(JSON.stringify({ kind: 'FlunderList', apiVersion: `${GROUP}/v1alpha1`, metadata: { resourceVersion: '1' }, items: [FLUNDER] }));
    } else if (path === `/apis/${GROUP}/v1alpha1/flunders` && (req.url ?? '').includes('watch=true')) {
      // A watch: one event now, one later, then the stream ends.
      res.write(JSON.stringify({ type: 'ADDED', object: FLUNDER }) + '\n');
      setTimeout(() => res.end(JSON.stringify({ type: 'MODIFIED', object: { ...FLUNDER, spec: { reference: 'y' } } }) + '\n'), 300);
    } else if (path === `/apis/${GROUP}/v1alpha1/namespaces/default/flunders/f1`) {
      res.end(JSON.stringify(FLUNDER));
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('API aggregation', { skip }, () => {
  let dir: string;
  let server: TestServer;
  let ext: Server;
  let extPort: number;
  let extPki: ServerPki;
  const seen: Seen[] = [];

  const condition = (name: string): Promise<{ status: string; reason: string; message: string } | undefined> => availableCondition(server, name);

  before(async () => {
    dir = tempDir('capstan-aggregation-');
    // The front proxy's CA signs the client certificate Capstan shows extension servers; they trust it via --requestheader-client-ca-file.
    const proxy = await frontProxy(dir);
    extPki = await ensurePki({ servingNames: ['wardle.wardle-system.svc'], adminUser: 'unused', adminGroups: [] });
    ({ server: ext, port: extPort } = await startExtensionServer(extPki, proxy.ca, seen));
    server = await startServer({ dataDir: join(dir, 'data'), args: proxy.args });
    await createNamespace(server, 'wardle-system');
    await createLocalService(server, 'wardle-system', 'wardle', extPort);
    await createApiService(server, { group: GROUP, version: 'v1alpha1', namespace: 'wardle-system', service: 'wardle', ca: extPki.servingCa!, versionPriority: 15 });
  });

  after(async () => {
    await server?.stop();
    ext?.closeAllConnections();
    ext?.close();
    removeDir(dir);
  });

  it('registers a local APIService for every built-in group-version, always Available', async () => {
    const apps = await eventually(async () => {
      const r = await http(server, 'GET', `${APISERVICES}/v1.apps`);
      return r.status === 200 && r.json.status?.conditions ? r.json : undefined;
    });
    assert.equal(apps.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'onstart');
    assert.deepEqual(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    const { lastTransitionTime, ...available } = apps.status.conditions[0];
    assert.ok(lastTransitionTime);
    assert.deepEqual(available, { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
    const core = await http(server, 'GET', `${APISERVICES}/v1.`);
    assert.equal(core.json.spec.groupPriorityMinimum, 18000);
    const table = await kubectl(server, ['get', 'apiservices', 'v1.apps', 'v1.']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^v1\.apps\s+Local\s+True\s+/m);
  });

  it('proxies to the extension server as the caller, with the front proxy\'s certificate', async () => {
    const ready = await eventually(async () => ((await condition(`v1alpha1.${GROUP}`))?.status === 'True' ? condition(`v1alpha1.${GROUP}`) : undefined), 20_000);
    assert.deepEqual({ reason: ready!.reason, message: ready!.message }, { reason: 'Passed', message: 'all checks passed' });
    seen.length = 0;
    const raw = await kubectl(server, ['get', '--raw', `/apis/${GROUP}/v1alpha1/namespaces/default/flunders?limit=5`]);
    assert.equal(raw.code, 0, raw.stderr);
    assert.equal(JSON.parse(raw.stdout).items[0].metadata.name, 'f1');
    const call = seen.find((s) => s.path.startsWith(`/apis/${GROUP}/v1alpha1/namespaces/default/flunders`))!;
    assert.equal(call.path, `/apis/${GROUP}/v1alpha1/namespaces/default/flunders?limit=5`);
    assert.ok(call.clientCertVerified, 'the front proxy client certificate was presented and verified');
    assert.equal(call.headers['x-remote-user'], 'capstan-admin');
    assert.match(String(call.headers['x-remote-group']), /system:masters/);
    assert.match(String(call.headers['x-remote-group']), /system:authenticated/);
    assert.equal(call.headers.authorization, undefined);
  });

  it('merges the extension server\'s discovery, so kubectl finds its resources', async () => {
    const group = await http(server, 'GET', `/apis/${GROUP}`);
    assert.equal(group.status, 200);
    assert.deepEqual(group.json.preferredVersion, { groupVersion: `${GROUP}/v1alpha1`, version: 'v1alpha1' });
    await eventually(async () => {
      const agg = await http(server, 'GET', '/apis', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
      const g = agg.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === GROUP);
      return g?.versions[0]?.resources?.[0]?.resource === 'flunders' ? g : undefined;
    });
    const resources = await kubectl(server, ['api-resources', `--api-group=${GROUP}`]);
    assert.equal(resources.code, 0, resources.stderr);
    assert.match(resources.stdout, /^flunders\s+fl\s+wardle\.example\.com\/v1alpha1\s+true\s+Flunder/m);
    const get = await kubectl(server, ['get', 'fl', 'f1', '-n', 'default', '-o', 'jsonpath={.spec.reference}']);
    assert.equal(get.code, 0, get.stderr);
    assert.equal(get.stdout, 'x');
  });

  it('reports why an APIService is unavailable, and answers 503 for it', async () => {
    const create = (name: string, service: string, port = 443): Promise<unknown> =>
      http(server, 'POST', APISERVICES, {
        body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec: { group: name.split('.').slice(1).join('.'), version: name.split('.')[0], service: { namespace: 'wardle-system', name: service, port }, insecureSkipTLSVerify: true, groupPriorityMinimum: 1000, versionPriority: 15 } },
      });
    await create('v1.missing.example.com', 'nothing-here');
    const missing = await eventually(async () => condition('v1.missing.example.com'));
    assert.deepEqual({ ...missing, lastTransitionTime: undefined }, { type: 'Available', status: 'False', reason: 'ServiceNotFound', message: 'service/nothing-here in "wardle-system" is not present', lastTransitionTime: undefined });
    await create('v1.wrongport.example.com', 'wardle', 444);
    assert.equal((await eventually(async () => condition('v1.wrongport.example.com')))!.message, 'service/wardle in "wardle-system" is not listening on port 444');
    // A Service whose only endpoint refuses connections.
    await http(server, 'POST', '/api/v1/namespaces/wardle-system/services', { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'dead' }, spec: { ports: [{ name: 'https', port: 443 }] } } });
    await http(server, 'POST', '/apis/discovery.k8s.io/v1/namespaces/wardle-system/endpointslices', {
      body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'dead-1', labels: { 'kubernetes.io/service-name': 'dead' } }, addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'] }], ports: [{ name: 'https', port: 1, protocol: 'TCP' }] },
    });
    await create('v1.dead.example.com', 'dead');
    const dead = await eventually(async () => ((await condition('v1.dead.example.com'))?.reason === 'FailedDiscoveryCheck' ? condition('v1.dead.example.com') : undefined), 20_000);
    assert.equal(dead!.status, 'False');
    assert.match(dead!.message, /^failing or missing response from https:\/\/127\.0\.0\.1:1\/apis\/dead\.example\.com\/v1: Get "https:\/\/127\.0\.0\.1:1\/apis\/dead\.example\.com\/v1": dial tcp 127\.0\.0\.1:1: connect: connection refused$/);
    const through = await http(server, 'GET', '/apis/dead.example.com/v1/things');
    assert.equal(through.status, 503);
    assert.equal(through.text, 'service unavailable\n');
    const table = await kubectl(server, ['get', 'apiservice', 'v1.dead.example.com']);
    assert.match(table.stdout, /v1\.dead\.example\.com\s+wardle-system\/dead\s+False \(FailedDiscoveryCheck\)/);
    // Once the APIService is gone, so is the route: the path is this server's again (and unknown here).
    assert.equal((await http(server, 'DELETE', `${APISERVICES}/v1.dead.example.com`)).status, 200);
    await eventually(async () => (await http(server, 'GET', '/apis/dead.example.com/v1/things')).status === 404);
  });

  it('streams a watch from the extension server', async () => {
    const watch = await kubectl(server, ['get', '--raw', `/apis/${GROUP}/v1alpha1/flunders?watch=true`]);
    assert.equal(watch.code, 0, watch.stderr);
    const events = watch.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { spec: { reference: string } } });
    assert.deepEqual(events.map((e) => [e.type, e.object.spec.reference]), [['ADDED', 'x'], ['MODIFIED', 'y']]);
  });

  it('registers an APIService for each served CRD version while the CRD serves it', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gizmos.toys.example.com' },
      spec: { group: 'toys.example.com', scope: 'Namespaced', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }, { name: 'v2', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } }] },
    };
    assert.equal((await http(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    const registered = await eventually(async () => {
      const r = await http(server, 'GET', `${APISERVICES}/v1.toys.example.com`);
      return r.status === 200 ? r.json : undefined;
    });
    assert.equal(registered.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'true');
    assert.deepEqual(registered.spec, { group: 'toys.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    assert.equal((await http(server, 'GET', `${APISERVICES}/v2.toys.example.com`)).status, 404);
    assert.equal((await http(server, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.toys.example.com')).status, 200);
    await eventually(async () => (await http(server, 'GET', `${APISERVICES}/v1.toys.example.com`)).status === 404);
  });
});
