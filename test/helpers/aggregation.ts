import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePki } from '../../src/server/pki.js';
import { http, type TestServer } from './server.js';

/**
 * What API aggregation tests share: the front proxy's PKI (the client
 * certificate Capstan shows extension servers, and the CA they trust it
 * by), and an extension server's registration (a Service, its
 * EndpointSlice at a local port, an APIService).
 */

export const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

export interface FrontProxy {
  /** The CA extension servers trust the front proxy's client certificate by. */
  ca: string;
  /** The client certificate, as a certificate with another subject than any CA here (a trust anchor that signs nothing). */
  clientCert: string;
  /** `capstan serve` flags: request-header authentication and the proxy client certificate. */
  args: string[];
}

export async function frontProxy(dir: string): Promise<FrontProxy> {
  const pki = await ensurePki({ servingNames: [], adminUser: 'front-proxy-client', adminGroups: [] });
  writeFileSync(join(dir, 'front-proxy-ca.crt'), pki.servingCa!);
  writeFileSync(join(dir, 'front-proxy-client.crt'), pki.admin!.cert);
  writeFileSync(join(dir, 'front-proxy-client.key'), pki.admin!.key);
  return {
    ca: pki.servingCa!,
    clientCert: pki.admin!.cert,
    args: [
      '--requestheader-client-ca-file', join(dir, 'front-proxy-ca.crt'),
      '--requestheader-username-headers', 'X-Remote-User',
      '--requestheader-group-headers', 'X-Remote-Group',
      '--requestheader-extra-headers-prefix', 'X-Remote-Extra-',
      '--requestheader-allowed-names', 'front-proxy-client',
      '--proxy-client-cert-file', join(dir, 'front-proxy-client.crt'),
      '--proxy-client-key-file', join(dir, 'front-proxy-client.key'),
    ],
  };
}

async function create(server: TestServer, path: string, body: unknown): Promise<void> {
  const r = await http(server, 'POST', path, { body });
  assert.equal(r.status, 201, r.text);
}

export async function createNamespace(server: TestServer, name: string): Promise<void> {
  await create(server, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** A Service on port 443 whose one ready endpoint is 127.0.0.1:`port`. */
export async function createLocalService(server: TestServer, namespace: string, name: string, port: number): Promise<void> {
  await create(server, `/api/v1/namespaces/${namespace}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ name: 'https', port: 443, targetPort: port }] } });
  await create(server, `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`, {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `${name}-1`, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'https', port, protocol: 'TCP' }],
  });
}

export interface ApiServiceSpec {
  group: string;
  version: string;
  namespace: string;
  service: string;
  /** PEM of the CA the extension server's certificate must chain to; none: insecureSkipTLSVerify. */
  ca?: string;
  groupPriorityMinimum?: number;
  versionPriority?: number;
}

export async function createApiService(server: TestServer, spec: ApiServiceSpec): Promise<void> {
  await create(server, APISERVICES, {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `${spec.version}.${spec.group}` },
    spec: {
      group: spec.group, version: spec.version, service: { namespace: spec.namespace, name: spec.service, port: 443 },
      ...(spec.ca ? { caBundle: Buffer.from(spec.ca).toString('base64') } : { insecureSkipTLSVerify: true }),
      groupPriorityMinimum: spec.groupPriorityMinimum ?? 1000, versionPriority: spec.versionPriority ?? 15,
    },
  });
}

/** The Available condition of an APIService, once it has one. */
export async function availableCondition(server: TestServer, name: string): Promise<{ status: string; reason: string; message: string } | undefined> {
  const r = await http(server, 'GET', `${APISERVICES}/${name}`);
  return r.json?.status?.conditions?.find((c: { type: string }) => c.type === 'Available');
}
