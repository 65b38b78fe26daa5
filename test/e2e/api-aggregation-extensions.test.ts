import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensurePki } from '../../src/server/pki.js';
import { APISERVICES, availableCondition, createApiService, createLocalService, createNamespace, frontProxy } from '../helpers/aggregation.js';
import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';

/**
 * What kube-aggregator adds beyond routing and discovery, against real
 * extension servers started here (one process, two personalities chosen by
 * the TLS server name): the extension servers' OpenAPI documents merged into
 * /openapi/v2 and listed (proxied, or converted from v2) in /openapi/v3, so
 * `kubectl explain` works on their kinds through either; upgrade requests
 * (WebSocket, SPDY) tunnelled to them with the caller's identity; the
 * availability metrics; and Go's error texts for a server that hangs up or
 * a certificate nobody vouches for.
 */

const skip = kubectlMissing();
const WARDLE = 'wardle.example.com';
const LEGACY = 'legacy.example.com';
const WARDLE_HOST = 'wardle.wardle-system.svc';
const LEGACY_HOST = 'legacy.wardle-system.svc';
/** Short, so that a tunnel shown to outlive it does so in a test's time. */
const REQUEST_TIMEOUT_S = 6;

interface Seen {
  host: string;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  clientCertVerified: boolean;
}

const gvk = (group: string, version: string, kind: string): Array<Record<string, string>> => [{ group, kind, version }];

/** ObjectMeta as an extension server built on another apimachinery might describe it: not this server's, so it is renamed. */
const OTHER_OBJECT_META = { description: 'ObjectMeta as the wardle server knows it.', type: 'object', properties: { name: { description: 'Name of the object.', type: 'string' } } };

const WARDLE_V2 = {
  swagger: '2.0',
  info: { title: 'Api', version: 'v0' },
  paths: {
    [`/apis/${WARDLE}/v1alpha1/namespaces/{namespace}/flunders`]: {
      get: { operationId: 'listWardleV1alpha1NamespacedFlunder', responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/com.example.wardle.v1alpha1.FlunderList' } } }, 'x-kubernetes-action': 'list', 'x-kubernetes-group-version-kind': { group: WARDLE, kind: 'Flunder', version: 'v1alpha1' } },
      parameters: [{ $ref: '#/parameters/namespace-wardle' }],
    },
    // Outside the APIService's group-version: filtered out, with what only it used.
    '/version/': { get: { operationId: 'getCodeVersion', responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/com.example.wardle.version.Info' } } } } },
  },
  definitions: {
    'com.example.wardle.v1alpha1.Flunder': {
      description: 'A Flunder is a test kind of the wardle server.',
      type: 'object',
      properties: {
        apiVersion: { description: 'APIVersion defines the versioned schema of this representation of an object.', type: 'string' },
        kind: { description: 'Kind is a string value representing the REST resource this object represents.', type: 'string' },
        metadata: { default: {}, $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        spec: { default: {}, $ref: '#/definitions/com.example.wardle.v1alpha1.FlunderSpec' },
      },
      'x-kubernetes-group-version-kind': gvk(WARDLE, 'v1alpha1', 'Flunder'),
    },
    'com.example.wardle.v1alpha1.FlunderList': {
      type: 'object',
      required: ['items'],
      properties: { items: { type: 'array', items: { default: {}, $ref: '#/definitions/com.example.wardle.v1alpha1.Flunder' } } },
      'x-kubernetes-group-version-kind': gvk(WARDLE, 'v1alpha1', 'FlunderList'),
    },
    'com.example.wardle.v1alpha1.FlunderSpec': { type: 'object', properties: { reference: { description: 'The name of another flunder, a fischer, or a made-up name.', type: 'string' } } },
    'com.example.wardle.version.Info': { type: 'object', properties: { gitVersion: { type: 'string' } } },
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': OTHER_OBJECT_META,
  },
  parameters: { 'namespace-wardle': { description: 'object name and auth scope', in: 'path', name: 'namespace', required: true, type: 'string', uniqueItems: true } },
};
const WARDLE_V2_ETAG = '"wardle-v2-1"';

/** The wardle server's own v3 document of its group-version (what kubectl explain reads). */
const WARDLE_V3 = {
  openapi: '3.0.0',
  info: { title: 'Api', version: 'v0' },
  paths: {
    [`/apis/${WARDLE}/v1alpha1/namespaces/{namespace}/flunders/{name}`]: {
      get: { operationId: 'readWardleV1alpha1NamespacedFlunder', responses: { 200: { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/com.example.wardle.v1alpha1.Flunder' } } } } }, 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': { group: WARDLE, kind: 'Flunder', version: 'v1alpha1' } },
    },
  },
  components: {
    schemas: {
      'com.example.wardle.v1alpha1.Flunder': {
        description: 'A Flunder is a test kind of the wardle server.',
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }], default: {} },
          spec: { allOf: [{ $ref: '#/components/schemas/com.example.wardle.v1alpha1.FlunderSpec' }], default: {} },
        },
        'x-kubernetes-group-version-kind': gvk(WARDLE, 'v1alpha1', 'Flunder'),
      },
      'com.example.wardle.v1alpha1.FlunderSpec': { type: 'object', properties: { reference: { description: 'The name of another flunder, a fischer, or a made-up name.', type: 'string' } } },
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': OTHER_OBJECT_META,
    },
  },
};
const WARDLE_V3_URL = `/openapi/v3/apis/${WARDLE}/v1alpha1?hash=WARDLEHASH`;

/** An older extension server: a v2 document only (its /openapi/v3 is a 404), and no ETag. */
const LEGACY_V2 = {
  swagger: '2.0',
  info: { title: 'Api', version: 'v0' },
  paths: {
    [`/apis/${LEGACY}/v1/gadgets`]: { get: { operationId: 'listLegacyV1Gadget', responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/com.example.legacy.v1.GadgetList' } } }, 'x-kubernetes-action': 'list', 'x-kubernetes-group-version-kind': { group: LEGACY, kind: 'Gadget', version: 'v1' } } },
  },
  definitions: {
    'com.example.legacy.v1.Gadget': {
      description: 'A Gadget is served by a server without OpenAPI v3.',
      type: 'object',
      properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, size: { description: 'How big the gadget is.', type: 'integer', format: 'int32' } },
      'x-kubernetes-group-version-kind': gvk(LEGACY, 'v1', 'Gadget'),
    },
    'com.example.legacy.v1.GadgetList': { type: 'object', properties: { items: { type: 'array', items: { $ref: '#/definitions/com.example.legacy.v1.Gadget' } } }, 'x-kubernetes-group-version-kind': gvk(LEGACY, 'v1', 'GadgetList') },
  },
};

function resourceList(groupVersion: string, resources: unknown[]): string {
  return JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources });
}

/** What the extension server does, adjustable by tests. */
const behaviour = { failV2: false };

function serveHttp(req: IncomingMessage, res: ServerResponse, host: string): void {
  const path = (req.url ?? '').split('?')[0];
  const json = (code: number, body: string, headers: Record<string, string> = {}): void => {
    res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
    res.end(body);
  };
  if (host === LEGACY_HOST) {
    if (path === `/apis/${LEGACY}/v1`) return json(200, resourceList(`${LEGACY}/v1`, [{ name: 'gadgets', singularName: 'gadget', namespaced: false, kind: 'Gadget', verbs: ['get', 'list'] }]));
    if (path === '/openapi/v2') return json(200, JSON.stringify(LEGACY_V2));
    return json(404, '{}');
  }
  if (path === `/apis/${WARDLE}/v1alpha1`) {
    return json(200, resourceList(`${WARDLE}/v1alpha1`, [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'] }, { name: 'flunders/console', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get'] }]));
  }
  // Any other group-version this server is registered for: discovery with nothing in it (the availability check's GET).
  if (/^\/apis\/[^/]+\/[^/]+$/.test(path ?? '')) return json(200, resourceList(path!.split('/').slice(2).join('/'), []));
  if (path === '/openapi/v2') {
    if (behaviour.failV2) return json(500, '{"message":"broken"}');
    if (req.headers['if-none-match'] === WARDLE_V2_ETAG) {
      res.writeHead(304, { ETag: WARDLE_V2_ETAG });
      return void res.end();
    }
    return json(200, JSON.stringify(WARDLE_V2), { ETag: WARDLE_V2_ETAG });
  }
  if (path === '/openapi/v3') {
    // "version" is this server's as well: the aggregated root keeps Capstan's own.
    return json(200, JSON.stringify({ paths: { [`apis/${WARDLE}/v1alpha1`]: { serverRelativeURL: WARDLE_V3_URL }, version: { serverRelativeURL: '/openapi/v3/version?hash=WARDLEVERSION' } } }));
  }
  if (path === `/openapi/v3/apis/${WARDLE}/v1alpha1`) return json(200, JSON.stringify(WARDLE_V3));
  return json(404, '{}');
}

/** Upgrades as an exec or console endpoint answers them: a greeting, then every chunk echoed back. */
function serveUpgrade(req: IncomingMessage, socket: Duplex): void {
  const path = (req.url ?? '').split('?')[0] ?? '';
  if (path.endsWith('/refuse')) {
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nnot today\n');
    return;
  }
  if (path.endsWith('/plain')) {
    socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n');
    return;
  }
  const protocol = String(req.headers.upgrade ?? '');
  const accept = protocol.toLowerCase() === 'websocket' ? createHash('sha1').update(`${String(req.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64') : undefined;
  socket.write(['HTTP/1.1 101 Switching Protocols', `Upgrade: ${protocol}`, 'Connection: Upgrade', ...(accept ? [`Sec-WebSocket-Accept: ${accept}`] : ['X-Stream-Protocol-Version: v4.channel.k8s.io']), '', 'hello from the console\n'].join('\r\n'));
  socket.on('data', (chunk: Buffer) => socket.write(Buffer.concat([Buffer.from('echo:'), chunk])));
  socket.on('error', () => socket.destroy());
}

async function startExtensionServer(key: string, cert: string, frontProxyCa: string, seen: Seen[]): Promise<{ server: Server; port: number }> {
  const server = createServer({ key, cert, ca: frontProxyCa, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const tls = req.socket as TLSSocket;
    const host = typeof tls.servername === 'string' ? tls.servername : '';
    seen.push({ host, method: req.method ?? '', path: req.url ?? '', headers: req.headers, clientCertVerified: tls.authorized });
    serveHttp(req, res, host);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const tls = req.socket as TLSSocket;
    seen.push({ host: String(tls.servername), method: req.method ?? '', path: req.url ?? '', headers: req.headers, clientCertVerified: tls.authorized });
    serveUpgrade(req, socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

interface Tunnel {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes that came first, after the switch. */
  greeting: string;
  socket: Socket;
  /** Sends bytes and waits for the echo. */
  roundTrip(text: string): Promise<string>;
}

/** An upgrade request to Capstan as the admin user: the tunnel, or the refusal's status and body. */
function openUpgrade(server: TestServer, path: string, headers: Record<string, string>): Promise<Tunnel | { status: number; body: string }> {
  const u = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ hostname: u.hostname, port: u.port, path: u.pathname + u.search, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key, agent: false, headers: { Connection: 'Upgrade', ...headers } });
    req.on('upgrade', (res, socket, head) => {
      let buffered = head.toString('utf8');
      const waiters: Array<() => void> = [];
      socket.on('data', (d: Buffer) => {
        buffered += d.toString('utf8');
        for (const w of waiters.splice(0)) w();
      });
      const until = (pred: () => boolean): Promise<void> =>
        new Promise((done) => {
          const check = (): void => (pred() ? done() : void waiters.push(check));
          check();
        });
      void until(() => buffered.includes('\n')).then(() => {
        const greeting = buffered;
        buffered = '';
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          greeting,
          socket: socket as Socket,
          roundTrip: async (text) => {
            socket.write(text);
            await until(() => buffered.includes(text));
            const answer = buffered;
            buffered = '';
            return answer;
          },
        });
      });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('API aggregation: OpenAPI, upgrades, metrics', { skip }, () => {
  let dir: string;
  let server: TestServer;
  let ext: Server;
  let hangUp: TcpServer;
  let frontProxyClientCert: string;
  const seen: Seen[] = [];

  before(async () => {
    dir = tempDir('capstan-aggregation-ext-');
    const proxy = await frontProxy(dir);
    frontProxyClientCert = proxy.clientCert;
    const extPki = await ensurePki({ servingNames: [WARDLE_HOST, LEGACY_HOST], adminUser: 'unused', adminGroups: [] });
    let extPort: number;
    ({ server: ext, port: extPort } = await startExtensionServer(extPki.serving.key, extPki.serving.cert, proxy.ca, seen));
    // A server that takes connections and hangs up at once: a FIN, reading on, so the client always reads EOF (closing
    // with the client's ClientHello unread would reset the connection instead, as the kernel does, in a race with it).
    hangUp = createTcpServer((s) => {
      s.on('data', () => undefined);
      s.on('error', () => undefined);
      s.end();
    });
    await new Promise<void>((r) => hangUp.listen(0, '127.0.0.1', r));
    server = await startServer({ dataDir: join(dir, 'data'), args: [...proxy.args, '--request-timeout', `${REQUEST_TIMEOUT_S}s`] });
    await createNamespace(server, 'wardle-system');
    await createLocalService(server, 'wardle-system', 'wardle', extPort);
    await createLocalService(server, 'wardle-system', 'legacy', extPort);
    await createLocalService(server, 'wardle-system', 'hangup', (hangUp.address() as AddressInfo).port);
    await createApiService(server, { group: WARDLE, version: 'v1alpha1', namespace: 'wardle-system', service: 'wardle', ca: extPki.servingCa!, groupPriorityMinimum: 2000 });
    await createApiService(server, { group: LEGACY, version: 'v1', namespace: 'wardle-system', service: 'legacy', ca: extPki.servingCa! });
    for (const name of [`v1alpha1.${WARDLE}`, `v1.${LEGACY}`]) await eventually(async () => (await availableCondition(server, name))?.status === 'True', 20_000);
  });

  after(async () => {
    await server?.stop();
    ext?.closeAllConnections();
    ext?.close();
    hangUp?.close();
    removeDir(dir);
  });

  it('merges the extension servers\' v2 documents into /openapi/v2, renaming a definition that differs from this server\'s', async () => {
    const doc = await eventually(async () => {
      const r = await http(server, 'GET', '/openapi/v2');
      return r.json?.paths?.[`/apis/${WARDLE}/v1alpha1/namespaces/{namespace}/flunders`] && r.json.paths[`/apis/${LEGACY}/v1/gadgets`] ? r.json : undefined;
    }, 20_000);
    // This server's own document is all there, its info kept.
    assert.ok(doc.paths['/api/v1/namespaces/{namespace}/pods']);
    assert.equal(doc.info.title, 'Kubernetes');
    // Only the APIService's group-version comes, with what it needs.
    assert.equal(doc.definitions['com.example.wardle.version.Info'], undefined);
    assert.deepEqual(doc.parameters['namespace-wardle'], WARDLE_V2.parameters['namespace-wardle']);
    // ObjectMeta differs from the built-in one: the wardle server's is renamed, and its Flunder points at the new name.
    assert.ok(doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.managedFields);
    assert.deepEqual(doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2'], OTHER_OBJECT_META);
    assert.equal(doc.definitions['com.example.wardle.v1alpha1.Flunder'].properties.metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2');
    assert.ok(doc.definitions['com.example.legacy.v1.Gadget']);
    // Downloaded as system:aggregator, no groups, with the front proxy's certificate.
    const download = seen.find((s) => s.path === '/openapi/v2' && s.host === WARDLE_HOST)!;
    assert.equal(download.headers['x-remote-user'], 'system:aggregator');
    assert.equal(download.headers['x-remote-group'], undefined);
    assert.ok(download.clientCertVerified);
  });

  it('lists the extension servers\' v3 documents in /openapi/v3: proxied when they serve them, converted from v2 when they do not', async () => {
    const root = await eventually(async () => {
      const r = await http(server, 'GET', '/openapi/v3');
      return r.json?.paths?.[`apis/${WARDLE}/v1alpha1`] && r.json.paths[`apis/${LEGACY}/v1`] ? r.json : undefined;
    }, 20_000);
    assert.deepEqual(root.paths[`apis/${WARDLE}/v1alpha1`], { serverRelativeURL: WARDLE_V3_URL });
    assert.match(root.paths.version.serverRelativeURL, /^\/openapi\/v3\/version\?hash=[0-9A-F]{128}$/, 'a key this server serves stays its own');
    assert.ok(root.paths['apis/apps/v1']);
    seen.length = 0;
    const proxied = await http(server, 'GET', WARDLE_V3_URL);
    assert.equal(proxied.status, 200);
    assert.deepEqual(proxied.json, WARDLE_V3);
    // Proxied as the caller, as any request to the extension server.
    assert.equal(seen.find((s) => s.path === WARDLE_V3_URL)?.headers['x-remote-user'], 'capstan-admin');
    const legacyUrl = root.paths[`apis/${LEGACY}/v1`].serverRelativeURL as string;
    assert.match(legacyUrl, new RegExp(`^/openapi/v3/apis/${LEGACY.replace(/\./g, '\\.')}/v1\\?hash=[0-9A-F]{128}$`));
    const converted = await http(server, 'GET', legacyUrl);
    assert.equal(converted.status, 200);
    assert.equal(converted.headers['cache-control'], 'public, immutable');
    assert.equal(converted.json.openapi, '3.0.0');
    assert.deepEqual(converted.json.components.schemas['com.example.legacy.v1.Gadget']['x-kubernetes-group-version-kind'], gvk(LEGACY, 'v1', 'Gadget'));
    assert.equal(converted.json.paths[`/apis/${LEGACY}/v1/gadgets`].get.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/com.example.legacy.v1.GadgetList');
  });

  it('lets kubectl explain an aggregated kind through OpenAPI v3 and through v2', async () => {
    await eventually(async () => (await http(server, 'GET', '/openapi/v3')).json?.paths?.[`apis/${WARDLE}/v1alpha1`], 20_000);
    const v3 = await kubectl(server, ['explain', 'flunders.spec']);
    assert.equal(v3.code, 0, v3.stderr);
    assert.match(v3.stdout, /GROUP:\s+wardle\.example\.com/);
    assert.match(v3.stdout, /KIND:\s+Flunder/);
    assert.match(v3.stdout, /VERSION:\s+v1alpha1/);
    assert.match(v3.stdout, /reference\s+<string>\s+The name of another flunder, a fischer, or a made-up name\./);
    const v2 = await kubectl(server, ['explain', 'flunders', '--output=plaintext-openapiv2']);
    assert.equal(v2.code, 0, v2.stderr);
    assert.match(v2.stdout, /KIND:\s+Flunder/);
    assert.match(v2.stdout, /VERSION:\s+wardle\.example\.com\/v1alpha1/);
    assert.match(v2.stdout, /A Flunder is a test kind of the wardle server\./);
    // Its metadata is the renamed ObjectMeta of the merged document.
    const meta = await kubectl(server, ['explain', 'flunders.metadata', '--output=plaintext-openapiv2']);
    assert.equal(meta.code, 0, meta.stderr);
    assert.match(meta.stdout, /ObjectMeta as the wardle server knows it\./);
    // The converted document serves kubectl as well.
    const legacy = await kubectl(server, ['explain', 'gadgets']);
    assert.equal(legacy.code, 0, legacy.stderr);
    assert.match(legacy.stdout, /size\s+<integer>\s+How big the gadget is\./);
  });

  it('downloads again with the ETag when an APIService changes, and keeps the last good document when a download fails', async () => {
    const name = `v1alpha1.${WARDLE}`;
    const bump = async (versionPriority: number): Promise<void> => {
      const r = await http(server, 'PATCH', `${APISERVICES}/${name}`, { body: { spec: { versionPriority } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
      assert.equal(r.status, 200, r.text);
    };
    const bumpLegacy = async (): Promise<void> => {
      const r = await http(server, 'PATCH', `${APISERVICES}/v1.${LEGACY}`, { body: { spec: { versionPriority: 20 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
      assert.equal(r.status, 200, r.text);
    };
    seen.length = 0;
    await bump(16);
    await bumpLegacy();
    const again = await eventually(async () => seen.find((s) => s.path === '/openapi/v2' && s.host === WARDLE_HOST), 20_000);
    assert.equal(again.headers['if-none-match'], WARDLE_V2_ETAG);
    // The server without ETags is never sent the one made here for it.
    const legacyAgain = await eventually(async () => seen.find((s) => s.path === '/openapi/v2' && s.host === LEGACY_HOST), 20_000);
    assert.equal(legacyAgain.headers['if-none-match'], undefined);
    behaviour.failV2 = true;
    try {
      seen.length = 0;
      await bump(17);
      await eventually(async () => seen.some((s) => s.path === '/openapi/v2' && s.host === WARDLE_HOST), 20_000);
      const doc = (await http(server, 'GET', '/openapi/v2')).json;
      assert.ok(doc.paths[`/apis/${WARDLE}/v1alpha1/namespaces/{namespace}/flunders`], 'the last good document is still merged');
    } finally {
      behaviour.failV2 = false;
    }
  });

  for (const [protocol, headers] of [
    ['WebSocket', { Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'plain.kubevirt.io' }],
    ['SPDY/3.1', { Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' }],
  ] as const) {
    it(`tunnels a ${protocol} upgrade to the extension server as the caller, bytes both ways`, async () => {
      seen.length = 0;
      const tunnel = await openUpgrade(server, `/apis/${WARDLE}/v1alpha1/namespaces/default/flunders/f1/console?tty=true`, headers);
      assert.ok('socket' in tunnel, `no tunnel: ${JSON.stringify(tunnel)}`);
      try {
        assert.equal(tunnel.status, 101);
        assert.equal(tunnel.headers.upgrade, headers.Upgrade);
        if (protocol === 'WebSocket') assert.equal(tunnel.headers['sec-websocket-accept'], 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
        assert.equal(tunnel.greeting, 'hello from the console\n');
        assert.equal(await tunnel.roundTrip('ls\n'), 'echo:ls\n');
        const call = seen.find((s) => s.path.endsWith('/console?tty=true'))!;
        assert.equal(call.headers['x-remote-user'], 'capstan-admin');
        assert.match(String(call.headers['x-remote-group']), /system:masters/);
        assert.equal(call.headers.authorization, undefined);
        assert.equal(call.headers['x-forwarded-for'], '127.0.0.1');
        assert.ok(call.clientCertVerified, 'the front proxy client certificate was presented and verified');
        if (protocol === 'WebSocket') assert.equal(call.headers['sec-websocket-key'], headers['Sec-WebSocket-Key']);
        else assert.equal(call.headers['x-stream-protocol-version'], 'v4.channel.k8s.io');
      } finally {
        tunnel.socket.destroy();
      }
    });
  }

  it('keeps a tunnel open past --request-timeout', async () => {
    const tunnel = await openUpgrade(server, `/apis/${WARDLE}/v1alpha1/namespaces/default/flunders/f1/console`, { Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' });
    assert.ok('socket' in tunnel);
    try {
      await new Promise((r) => setTimeout(r, (REQUEST_TIMEOUT_S + 1) * 1000));
      assert.equal(await tunnel.roundTrip('still there?\n'), 'echo:still there?\n');
    } finally {
      tunnel.socket.destroy();
    }
  });

  it('passes an extension server\'s refusal of an upgrade on, and answers 503 when it answers without switching', async () => {
    const ws = { Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' };
    const refused = await openUpgrade(server, `/apis/${WARDLE}/v1alpha1/namespaces/default/flunders/f1/refuse`, ws);
    assert.deepEqual(refused, { status: 403, body: 'not today\n' });
    const plain = await openUpgrade(server, `/apis/${WARDLE}/v1alpha1/namespaces/default/flunders/f1/plain`, ws);
    assert.deepEqual(plain, { status: 503, body: 'invalid upgrade response: status code 200\n' });
    // An upgrade to a path this server serves itself is answered as any request there.
    const path = '/api/v1/namespaces/default/pods/nothing/exec';
    const local = await openUpgrade(server, path, ws);
    const plainGet = await http(server, 'GET', path);
    assert.deepEqual(local, { status: plainGet.status, body: plainGet.text });
  });

  it('exports aggregator_unavailable_apiservice and aggregator_unavailable_apiservice_total as kube does', async () => {
    const extPort = Number((await http(server, 'GET', '/apis/discovery.k8s.io/v1/namespaces/wardle-system/endpointslices/wardle-1')).json.ports[0].port);
    await createLocalService(server, 'wardle-system', 'flaky', extPort);
    await createApiService(server, { group: 'flaky.example.com', version: 'v1', namespace: 'wardle-system', service: 'flaky' });
    await eventually(async () => (await availableCondition(server, 'v1.flaky.example.com'))?.status === 'True', 20_000);
    // Its endpoints go: available → unavailable, counted once with the condition's reason.
    assert.equal((await http(server, 'DELETE', '/apis/discovery.k8s.io/v1/namespaces/wardle-system/endpointslices/flaky-1')).status, 200);
    await eventually(async () => (await availableCondition(server, 'v1.flaky.example.com'))?.reason === 'EndpointsNotFound', 20_000);
    const metrics = await eventually(async () => {
      const text = (await http(server, 'GET', '/metrics')).text;
      return text.includes('aggregator_unavailable_apiservice{name="v1.flaky.example.com"} 1') ? text : undefined;
    });
    assert.match(metrics, /^# HELP aggregator_unavailable_apiservice \[ALPHA\] Gauge of APIServices which are marked as unavailable broken down by APIService name\.$/m);
    assert.match(metrics, /^# TYPE aggregator_unavailable_apiservice gauge$/m);
    assert.match(metrics, new RegExp(`^aggregator_unavailable_apiservice\\{name="v1alpha1\\.${WARDLE.replace(/\./g, '\\.')}"\\} 0$`, 'm'));
    assert.match(metrics, /^aggregator_unavailable_apiservice\{name="v1\.apps"\} 0$/m);
    assert.match(metrics, /^# HELP aggregator_unavailable_apiservice_total \[ALPHA\] Counter of APIServices which are marked as unavailable broken down by APIService name and reason\.$/m);
    assert.match(metrics, /^# TYPE aggregator_unavailable_apiservice_total counter$/m);
    assert.match(metrics, /^aggregator_unavailable_apiservice_total\{name="v1\.flaky\.example\.com",reason="EndpointsNotFound"\} 1$/m);
    assert.equal((await http(server, 'DELETE', `${APISERVICES}/v1.flaky.example.com`)).status, 200);
    await eventually(async () => !(await http(server, 'GET', '/metrics')).text.includes('aggregator_unavailable_apiservice{name="v1.flaky.example.com"}'));
  });

  it('words failures as Go does: a server that hangs up, a certificate no CA in the caBundle signed', async () => {
    await createApiService(server, { group: 'hangup.example.com', version: 'v1', namespace: 'wardle-system', service: 'hangup' });
    const hungUp = await eventually(async () => {
      const c = await availableCondition(server, 'v1.hangup.example.com');
      return c?.reason === 'FailedDiscoveryCheck' ? c : undefined;
    }, 20_000);
    const url = `https://127.0.0.1:${(hangUp.address() as AddressInfo).port}/apis/hangup.example.com/v1`;
    assert.equal(hungUp.message, `failing or missing response from ${url}: Get "${url}": EOF`);
    // The check does not verify the certificate (kube's neither); the proxy does.
    await createApiService(server, { group: 'badca.example.com', version: 'v1', namespace: 'wardle-system', service: 'wardle', ca: frontProxyClientCert });
    await eventually(async () => (await availableCondition(server, 'v1.badca.example.com'))?.status === 'True', 20_000);
    const through = await http(server, 'GET', '/apis/badca.example.com/v1/things');
    assert.equal(through.status, 503);
    assert.equal(through.text, 'tls: failed to verify certificate: x509: certificate signed by unknown authority\n');
  });
});
