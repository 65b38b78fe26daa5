import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, http, removeDir, startServer, type TestServer } from '../helpers/server.js';

/** Service cluster IPs and node ports: allocation, kube's IPAddress bookkeeping, no leaks, the kubernetes Service. */

describe('service IP and node port allocation', () => {
  let server: TestServer;
  const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    http(server, method, path, { ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
  const svc = (name: string, spec: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], selector: { app: name }, ...spec } });
  const ipAddresses = async (): Promise<string[]> =>
    (await req('GET', '/apis/networking.k8s.io/v1/ipaddresses')).json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort();
  const inRange = (ip: string) => /^10\.96\.0\.(\d+)$/.test(ip) && Number(ip.split('.')[3]) >= 1 && Number(ip.split('.')[3]) <= 6;

  before(async () => {
    // A /29: six usable addresses, the first for the kubernetes Service.
    server = await startServer({ backend: 'sqlite', args: ['--service-cluster-ip-range', '10.96.0.0/29', '--service-node-port-range', '30000-30009'] });
    assert.equal((await req('POST', '/api/v1/namespaces', { metadata: { name: 'svc' } })).status, 201);
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('runs the kubernetes Service at the first IP, with endpoints at this server', async () => {
    const k = await eventually(async () => {
      const r = await req('GET', '/api/v1/namespaces/default/services/kubernetes');
      return r.status === 200 ? r : undefined;
    });
    assert.equal(k.json.spec.clusterIP, '10.96.0.1');
    assert.deepEqual(k.json.spec.ports.map((p: { port: number; targetPort: number }) => [p.port, p.targetPort]), [[443, server.port]]);
    const ep = await eventually(async () => {
      const r = await req('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
      return r.status === 200 ? r : undefined;
    });
    assert.equal(ep.json.subsets[0].ports[0].port, server.port);
    const cidr = await req('GET', '/apis/networking.k8s.io/v1/servicecidrs/kubernetes');
    assert.deepEqual(cidr.json.spec.cidrs, ['10.96.0.0/29']);
    assert.deepEqual(await ipAddresses(), ['10.96.0.1']);
  });

  it('puts the kubernetes Endpoints and EndpointSlice back at once when they are deleted or changed', async () => {
    await eventually(async () => (await req('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).status === 200);
    assert.equal((await req('DELETE', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).status, 200);
    const patched = await http(server, 'PATCH', '/api/v1/namespaces/default/endpoints/kubernetes', { headers: { 'content-type': 'application/merge-patch+json' }, body: { subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ name: 'https', port: 1, protocol: 'TCP' }] }] } });
    assert.equal(patched.status, 200, patched.text);
    // Well before the minute's recheck: the controller follows these objects.
    await eventually(async () => (await req('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).status === 200, 10_000);
    await eventually(async () => (await req('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).json.subsets?.[0]?.ports?.[0]?.port === server.port, 10_000);
  });

  it('allocates a cluster IP per Service, recorded as an IPAddress owned by it', async () => {
    const a = await req('POST', '/api/v1/namespaces/svc/services', svc('a'));
    assert.equal(a.status, 201, a.text);
    const ip = a.json.spec.clusterIP as string;
    assert.ok(inRange(ip), ip);
    assert.deepEqual(a.json.spec.clusterIPs, [ip]);
    assert.deepEqual(a.json.spec.ipFamilies, ['IPv4']);
    assert.equal(a.json.spec.ipFamilyPolicy, 'SingleStack');
    const obj = await req('GET', `/apis/networking.k8s.io/v1/ipaddresses/${ip}`);
    assert.deepEqual(obj.json.spec.parentRef, { resource: 'services', namespace: 'svc', name: 'a' });
    // An update that leaves clusterIP out keeps it.
    const { clusterIP: _c, clusterIPs: _cs, ...rest } = a.json.spec;
    const u = await req('PUT', '/api/v1/namespaces/svc/services/a', { ...a.json, spec: rest });
    assert.equal(u.status, 200, u.text);
    assert.equal(u.json.spec.clusterIP, ip);
  });

  it('refuses a taken or out-of-range IP with 422, and leaks nothing when a create fails', async () => {
    const taken = (await req('GET', '/api/v1/namespaces/svc/services/a')).json.spec.clusterIP;
    const before = await ipAddresses();
    const dup = await req('POST', '/api/v1/namespaces/svc/services', svc('b', { clusterIP: taken }));
    assert.equal(dup.status, 422);
    assert.ok(dup.json.message.includes(`spec.clusterIPs: Invalid value: ["${taken}"]: failed to allocate IP ${taken}: provided IP is already allocated`), dup.json.message);
    const out = await req('POST', '/api/v1/namespaces/svc/services', svc('b', { clusterIP: '10.1.2.3' }));
    assert.equal(out.status, 422);
    assert.match(out.json.message, /is not in the valid range/);
    const badName = await req('POST', '/api/v1/namespaces/svc/services', svc('Bad_Name'));
    assert.equal(badName.status, 422);
    const exists = await req('POST', '/api/v1/namespaces/svc/services', svc('a'));
    assert.equal(exists.status, 409);
    const dry = await req('POST', '/api/v1/namespaces/svc/services?dryRun=All', svc('dry'));
    assert.equal(dry.status, 201);
    assert.ok(inRange(dry.json.spec.clusterIP));
    assert.deepEqual(await ipAddresses(), before, 'no IPAddress left behind');
  });

  it('node ports: allocated in range, a taken one is 422, released on type change and delete', async () => {
    const np = await req('POST', '/api/v1/namespaces/svc/services', svc('np', { type: 'NodePort' }));
    assert.equal(np.status, 201, np.text);
    const port = np.json.spec.ports[0].nodePort as number;
    assert.ok(port >= 30000 && port <= 30009, String(port));
    const clash = await req('POST', '/api/v1/namespaces/svc/services', svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }));
    assert.equal(clash.status, 422);
    assert.match(clash.json.message, new RegExp(`spec\\.ports\\[0\\]\\.nodePort: Invalid value: ${port}: provided port is already allocated`));
    // NodePort → ClusterIP frees the port; the IP stays.
    const toCluster = await req('PATCH', '/api/v1/namespaces/svc/services/np', { spec: { type: 'ClusterIP', ports: [{ port: 80 }] } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(toCluster.status, 200, toCluster.text);
    assert.equal(toCluster.json.spec.ports[0].nodePort, undefined);
    assert.equal(toCluster.json.spec.clusterIP, np.json.spec.clusterIP);
    const reuse = await req('POST', '/api/v1/namespaces/svc/services', svc('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }));
    assert.equal(reuse.status, 201, reuse.text);
    // Deleting frees both the IP and the port.
    const ipBefore = await ipAddresses();
    assert.equal((await req('DELETE', '/api/v1/namespaces/svc/services/np3')).status, 200);
    assert.deepEqual(await ipAddresses(), ipBefore.filter((ip) => ip !== reuse.json.spec.clusterIP));
    assert.equal((await req('POST', '/api/v1/namespaces/svc/services', svc('np4', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }))).status, 201);
  });

  it('headless and ExternalName Services take no IP; a full range is a 500', async () => {
    const headless = await req('POST', '/api/v1/namespaces/svc/services', svc('h', { clusterIP: 'None' }));
    assert.equal(headless.json.spec.clusterIP, 'None');
    const ext = await req('POST', '/api/v1/namespaces/svc/services', { metadata: { name: 'x' }, spec: { type: 'ExternalName', externalName: 'example.com' } });
    assert.equal(ext.status, 201, ext.text);
    assert.equal(ext.json.spec.clusterIP, undefined);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await req('POST', '/api/v1/namespaces/svc/services', svc(`fill-${i}`))).status);
    const full = statuses.indexOf(500);
    assert.ok(full > 0, `range filled: ${statuses.join(',')}`);
    const last = await req('POST', '/api/v1/namespaces/svc/services', svc('one-more'));
    assert.equal(last.status, 500);
    assert.equal(last.json.message, 'Internal error occurred: failed to allocate a serviceIP: range is full');
  });

  it('namespace deletion releases the Services\' IPs', async () => {
    assert.equal((await req('DELETE', '/api/v1/namespaces/svc')).status, 200);
    await eventually(async () => (await req('GET', '/api/v1/namespaces/svc')).status === 404, 30_000);
    const left = (await req('GET', '/apis/networking.k8s.io/v1/ipaddresses')).json.items.map((i: { metadata: { name: string }; spec: unknown }) => `${i.metadata.name} ${JSON.stringify(i.spec)}`);
    assert.deepEqual(left.length, 1, left.join('\n'));
  });
});
