import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { eventually, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * endpointslice-mirroring-controller as a kubectl user sees it: the
 * Endpoints of a Service without a selector appear as EndpointSlices managed
 * by endpointslicemirroring-controller.k8s.io, follow every change of the
 * Endpoints and go with it; Endpoints labelled skip-mirror (the `kubernetes`
 * Service's), of a Service with a selector or without a Service are not
 * mirrored; at most 1000 addresses of a subset are, with kube's event.
 */

const skip = kubectlMissing();
const NS = 'mirror';
const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io';

interface Slice {
  metadata: { name: string; labels: Record<string, string>; annotations?: Record<string, string>; ownerReferences: Array<Record<string, unknown>> };
  addressType: string;
  endpoints: Array<{ addresses: string[]; conditions: { ready: boolean } }> | null;
  ports: Array<{ name: string; port: number; protocol: string }>;
}

async function ok(server: TestServer, args: string[], input?: string): Promise<string> {
  const r = await kubectl(server, args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function mirrored(server: TestServer, service: string): Promise<Slice[]> {
  const out = await ok(server, ['get', 'endpointslices', '-n', NS, '-l', `kubernetes.io/service-name=${service},${MANAGED_BY}`, '-o', 'json']);
  return (JSON.parse(out) as { items: Slice[] }).items;
}

function addresses(slice: Slice): string[] {
  return (slice.endpoints ?? []).map((e) => `${e.addresses[0]}${e.conditions.ready ? '' : ' (not ready)'}`).sort();
}

function endpointsManifest(name: string, subsets: unknown[], labels: Record<string, string> = {}): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace: NS, labels }, subsets });
}

function serviceManifest(name: string, selector?: Record<string, string>): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: NS }, spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }], ...(selector ? { selector } : {}) } });
}

describe('EndpointSlice mirroring with kubectl', { skip }, () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ backend: 'memory' });
    await ok(server, ['create', 'namespace', NS]);
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('mirrors the Endpoints of a Service without a selector and follows its changes', async () => {
    await ok(server, ['apply', '-f', '-'], serviceManifest('external'));
    await ok(server, ['apply', '-f', '-'], endpointsManifest('external', [{ addresses: [{ ip: '192.0.2.10' }, { ip: '192.0.2.11' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }], { team: 'a' }));
    const [slice] = await eventually(async () => {
      const s = await mirrored(server, 'external');
      return s.length === 1 && addresses(s[0]!).length === 2 ? s : undefined;
    }, 20_000, 100);
    assert.equal(slice!.addressType, 'IPv4');
    assert.deepEqual(addresses(slice!), ['192.0.2.10', '192.0.2.11']);
    assert.deepEqual(slice!.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    assert.equal(slice!.metadata.labels.team, 'a', 'the Endpoints\' labels are copied');
    assert.equal(slice!.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'], undefined, 'not that annotation');
    const endpointsUid = (await ok(server, ['get', 'endpoints', 'external', '-n', NS, '-o', 'jsonpath={.metadata.uid}'])).trim();
    assert.deepEqual(slice!.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Endpoints', name: 'external', uid: endpointsUid, controller: true, blockOwnerDeletion: true }]);
    assert.match(await ok(server, ['get', 'endpointslices', '-n', NS]), new RegExp(`^${slice!.metadata.name}\\s+IPv4\\s+8080\\s+192\\.0\\.2\\.10,192\\.0\\.2\\.11`, 'm'));

    // An address added, one not ready, an IPv6 one: the IPv4 slice is rewritten in place, an IPv6 slice appears.
    await ok(server, ['apply', '-f', '-'], endpointsManifest('external', [{ addresses: [{ ip: '192.0.2.10' }, { ip: '192.0.2.12' }, { ip: '2001:db8::1' }], notReadyAddresses: [{ ip: '192.0.2.11' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }], { team: 'a' }));
    const both = await eventually(async () => {
      const s = await mirrored(server, 'external');
      const v4 = s.find((x) => x.addressType === 'IPv4');
      return s.length === 2 && v4 && addresses(v4).length === 3 ? s : undefined;
    }, 20_000, 100);
    const v4 = both.find((x) => x.addressType === 'IPv4')!;
    assert.equal(v4.metadata.name, slice!.metadata.name);
    assert.deepEqual(addresses(v4), ['192.0.2.10', '192.0.2.11 (not ready)', '192.0.2.12']);
    assert.deepEqual(addresses(both.find((x) => x.addressType === 'IPv6')!), ['2001:db8::1']);

    // The Service gains a selector: the Endpoints are the endpoints controller's now, the mirrored slices go.
    await ok(server, ['apply', '-f', '-'], serviceManifest('external', { app: 'x' }));
    await eventually(async () => (await mirrored(server, 'external')).length === 0, 20_000, 100);
    await ok(server, ['apply', '-f', '-'], serviceManifest('external'));
    await eventually(async () => (await mirrored(server, 'external')).length === 2, 20_000, 100);
    // And they go with the Endpoints.
    await ok(server, ['delete', 'endpoints', 'external', '-n', NS]);
    await eventually(async () => (await mirrored(server, 'external')).length === 0, 20_000, 100);
  });

  it('does not mirror skip-mirror Endpoints (the kubernetes Service\'s among them), nor those without a selector-less Service', async () => {
    await ok(server, ['apply', '-f', '-'], serviceManifest('skipped'));
    await ok(server, ['apply', '-f', '-'], endpointsManifest('skipped', [{ addresses: [{ ip: '192.0.2.20' }], ports: [{ port: 80 }] }], { 'endpointslice.kubernetes.io/skip-mirror': 'true' }));
    await ok(server, ['apply', '-f', '-'], serviceManifest('selected', { app: 'y' }));
    await ok(server, ['apply', '-f', '-'], endpointsManifest('selected', [{ addresses: [{ ip: '192.0.2.21' }], ports: [{ port: 80 }] }]));
    await ok(server, ['apply', '-f', '-'], endpointsManifest('orphan', [{ addresses: [{ ip: '192.0.2.22' }], ports: [{ port: 80 }] }]));
    // A mirrored one made after them shows the controller has looked at them.
    await ok(server, ['apply', '-f', '-'], serviceManifest('witness'));
    await ok(server, ['apply', '-f', '-'], endpointsManifest('witness', [{ addresses: [{ ip: '192.0.2.23' }], ports: [{ port: 80 }] }]));
    await eventually(async () => (await mirrored(server, 'witness')).length === 1, 20_000, 100);
    for (const name of ['skipped', 'selected', 'orphan']) assert.deepEqual(await mirrored(server, name), [], name);
    const kubernetes = JSON.parse(await ok(server, ['get', 'endpointslices', '-n', 'default', '-l', 'kubernetes.io/service-name=kubernetes', '-o', 'json'])) as { items: Slice[] };
    assert.deepEqual(kubernetes.items.map((s) => s.metadata.labels['endpointslice.kubernetes.io/managed-by']), [undefined], 'one slice, the server\'s own');
    assert.equal((await ok(server, ['get', 'endpoints', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.metadata.labels.endpointslice\\.kubernetes\\.io/skip-mirror}'])).trim(), 'true');
  });

  it('mirrors at most 1000 addresses of a subset and says so in a Warning event', async () => {
    const many = Array.from({ length: 1002 }, (_, i) => ({ ip: `10.${Math.floor(i / 250)}.0.${(i % 250) + 1}` }));
    await ok(server, ['apply', '-f', '-'], serviceManifest('big'));
    await ok(server, ['apply', '-f', '-'], endpointsManifest('big', [{ addresses: many, ports: [{ port: 80 }] }]));
    const [slice] = await eventually(async () => {
      const s = await mirrored(server, 'big');
      return s.length === 1 ? s : undefined;
    }, 20_000, 100);
    assert.equal(slice!.endpoints!.length, 1000);
    const events = await eventually(async () => {
      const out = await ok(server, ['get', 'events', '-n', NS, '--field-selector', 'involvedObject.kind=Endpoints,involvedObject.name=big', '-o', 'json']);
      const items = (JSON.parse(out) as { items: Array<{ type: string; reason: string; message: string; source: { component: string } }> }).items;
      return items.length > 0 ? items : undefined;
    }, 20_000, 100);
    assert.deepEqual(
      events.map((e) => [e.type, e.reason, e.message, e.source.component]),
      [['Warning', 'TooManyAddressesToMirror', 'A max of 1000 addresses can be mirrored to EndpointSlices per Endpoints subset. 2 addresses were skipped', 'endpoint-slice-mirroring-controller']],
    );
  });
});
